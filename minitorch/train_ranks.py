"""``minitorch train --distributed`` and ``--checkpoint``: the pieces :mod:`minitorch.train` adds to its loop.

* **Ranks.** ``--distributed`` trains one replica per rank with ``DistributedDataParallel``.
  Started from a plain shell, the command starts itself again on ``--nproc-per-node`` ranks
  through ``python -m minitorch.distributed.run``. ``--batch-size`` stays the global batch:
  each rank takes ``ceil(batch / ranks)`` samples of it (a ``DistributedSampler`` share,
  reshuffled each epoch), so the averaged gradient is the whole batch's.
* **Checkpoints.** After each epoch the model (without DDP's ``module.`` prefix, so a
  checkpoint serves one process or several), the optimizer, the schedule, the history, the
  epoch and the batch-order generator are saved -- by rank 0 only, atomically (``minitorch.save``
  writes a temporary file and renames it), then every rank waits at a barrier. ``--resume``
  loads it on every rank and goes on from the next epoch, as if never interrupted.
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import os
import sys
from pathlib import Path
from typing import Any, Optional

import minitorch
from minitorch import distributed as dist
from minitorch import nn
from minitorch.nn.parallel import DistributedDataParallel
from minitorch.utils.data import DataLoader, DistributedSampler, TensorDataset

DEFAULT_RANKS = 2
#: the environment a launched rank has: set by our launcher (torchrun's names) or by MPICH's mpiexec
LAUNCHED_VARIABLES = ("WORLD_SIZE", "PMI_SIZE")
CHECKPOINT_VERSION = 1


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--distributed", action="store_true",
                        help="train on several processes with DistributedDataParallel (over MPI)")
    parser.add_argument("--nproc-per-node", type=int, default=DEFAULT_RANKS,
                        help="--distributed: how many ranks to start (default: %(default)s)")
    parser.add_argument("--checkpoint", type=Path, help="save model, optimizer and progress here after each epoch")
    parser.add_argument("--resume", action="store_true", help="go on from --checkpoint when it exists")


def check(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    if args.nproc_per_node < 1:
        parser.error("--nproc-per-node must be at least 1")
    if args.resume and args.checkpoint is None:
        parser.error("--resume needs --checkpoint")
    if args.distributed and not dist.is_available():
        parser.error("--distributed needs mpi4py and MPI: pip install 'minitorch[distributed]'")


# ---- ranks ----


def launched() -> bool:
    """Whether this process is one rank of a launched job (else ``--distributed`` starts the job)."""
    return any(name in os.environ for name in LAUNCHED_VARIABLES)


def relaunch(args: argparse.Namespace, options: dict[str, argparse.Action]) -> int:
    """Run the same training on ``args.nproc_per_node`` ranks; the job's exit status."""
    from minitorch.distributed import run as launcher

    line = ["--nproc-per-node", str(args.nproc_per_node), "-m", "minitorch.train"]
    for dest, action in options.items():
        value = getattr(args, dest, None)
        flag = action.option_strings[-1]
        if action.nargs == 0:  # a flag (store_true)
            line += [flag] if value else []
        elif value is not None:
            line += [flag, str(value)]
    return launcher.main(line)


def join(distributed: bool) -> bool:
    """Join the default group when training on ranks (unless a caller already did); True if we joined."""
    if distributed and not dist.is_initialized():
        dist.init_process_group()
        return True
    return False


def is_main_rank() -> bool:
    """Rank 0, or a single process: the one that prints, plots and saves."""
    return not dist.is_initialized() or dist.get_rank() == 0


def wrap(model: nn.Module, distributed: bool) -> nn.Module:
    return DistributedDataParallel(model) if distributed else model


def unwrap(model: nn.Module) -> nn.Module:
    return model.module if isinstance(model, DistributedDataParallel) else model


def per_rank_batch(batch_size: int, ranks: int) -> int:
    """Each rank's part of a global batch: equal on every rank (they must run as many steps)."""
    return math.ceil(batch_size / ranks)


def make_loader(dataset: TensorDataset, batch_size: int, generator: minitorch.Generator,
                distributed: bool) -> DataLoader:
    """Shuffled batches: drawn from ``generator``, or each rank's share of a permutation per epoch."""
    if not distributed:
        return DataLoader(dataset, batch_size=batch_size, shuffle=True, generator=generator)
    sampler = DistributedSampler(dataset, shuffle=True, seed=generator.initial_seed())
    return DataLoader(dataset, batch_size=per_rank_batch(batch_size, dist.get_world_size()), sampler=sampler)


def start_epoch(loader: DataLoader, epoch: int) -> None:
    if isinstance(loader.sampler, DistributedSampler):
        loader.sampler.set_epoch(epoch)


def average_over_ranks(values: list[float]) -> list[float]:
    """The mean over the ranks of each value (each rank's epoch loss and accuracy); as is in one process."""
    if not dist.is_initialized():
        return values
    summed = minitorch.tensor(values, dtype=minitorch.float64)
    dist.all_reduce(summed, op=dist.ReduceOp.AVG)
    return summed.tolist()


# ---- checkpoints ----


def save_checkpoint(path: Path, model: nn.Module, optimizer: minitorch.optim.Optimizer, schedule: Optional[Any],
                    epoch: int, history: Any, generator: minitorch.Generator) -> None:
    """Rank 0 writes (atomically); every rank then waits until the file is complete."""
    if is_main_rank():
        path.parent.mkdir(parents=True, exist_ok=True)
        minitorch.save({
            "version": CHECKPOINT_VERSION,
            "epoch": epoch,
            "model": unwrap(model).state_dict(),
            "optimizer": optimizer.state_dict(),
            "schedule": schedule.state_dict() if schedule is not None else None,
            "history": dataclasses.asdict(history),
            "generator": generator.get_state(),
        }, path)
    if dist.is_initialized():
        dist.barrier()


def load_checkpoint(path: Path, model: nn.Module, optimizer: minitorch.optim.Optimizer, schedule: Optional[Any],
                    history: Any, generator: minitorch.Generator) -> int:
    """Restore everything :func:`save_checkpoint` saved (on every rank); the epoch to go on from."""
    saved = minitorch.load(path)
    if saved.get("version") != CHECKPOINT_VERSION:
        raise ValueError(f"{path} is not a checkpoint of minitorch train (version {saved.get('version')!r})")
    unwrap(model).load_state_dict(saved["model"])
    optimizer.load_state_dict(saved["optimizer"])
    if schedule is not None and saved["schedule"] is not None:
        schedule.load_state_dict(saved["schedule"])
    for name, values in saved["history"].items():
        setattr(history, name, list(values))
    generator.set_state(saved["generator"])
    return int(saved["epoch"])


def say(*values: Any, **options: Any) -> None:
    """``print`` on the main rank only."""
    if is_main_rank():
        print(*values, **options)
        sys.stdout.flush()
