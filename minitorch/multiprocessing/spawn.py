"""``spawn`` and ``start_processes``: run ``fn(i, *args)`` in ``nprocs`` processes, as PyTorch's.

Each child reports an exception it raises by writing its traceback (text) into an error file
made for it (owner-only, by ``mkstemp``) and exiting with status 1. :meth:`ProcessContext.join`
waits for any child to end; when one fails it stops the others (``SIGTERM``, then ``SIGKILL``
after the grace period) and raises :class:`ProcessRaisedException` with the child's traceback,
or :class:`ProcessExitedException` for a child killed by a signal or ending with another status.
"""

from __future__ import annotations

import multiprocessing
import multiprocessing.connection
import os
import signal
import sys
import tempfile
import time
import traceback
import warnings
from typing import Any, Callable, Optional

#: seconds the remaining children get to end after SIGTERM when no grace period is given (PyTorch's)
DEFAULT_TERM_SECONDS = 30.0
#: the exit status of a child whose ``fn`` raised
FAILED_STATUS = 1


class ProcessException(Exception):
    """A child of :func:`start_processes` failed: which one (``error_index``) and its ``error_pid``."""

    def __init__(self, msg: str, error_index: int, error_pid: int) -> None:
        super().__init__(msg)
        self.msg = msg
        self.error_index = error_index
        self.error_pid = error_pid

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return type(self), (self.msg, self.error_index, self.error_pid)


class ProcessRaisedException(ProcessException):
    """A child's ``fn`` raised; the message holds the child's traceback."""


class ProcessExitedException(ProcessException):
    """A child was killed by a signal (``signal_name``) or exited with status ``exit_code``."""

    def __init__(self, msg: str, error_index: int, error_pid: int, exit_code: int,
                 signal_name: Optional[str] = None) -> None:
        super().__init__(msg, error_index, error_pid)
        self.exit_code = exit_code
        self.signal_name = signal_name

    def __reduce__(self) -> tuple[Any, tuple[Any, ...]]:
        return type(self), (self.msg, self.error_index, self.error_pid, self.exit_code, self.signal_name)


def _run_child(fn: Callable[..., Any], index: int, args: tuple[Any, ...], error_file: str) -> None:
    """A child's life: ``fn(index, *args)``; an exception's traceback goes to ``error_file``."""
    try:
        fn(index, *args)
    except KeyboardInterrupt:
        pass  # the parent stopped this child
    except Exception:
        with open(error_file, "w", encoding="utf-8") as report:
            report.write(traceback.format_exc())
        sys.exit(FAILED_STATUS)


def _signal_name(code: int) -> str:
    try:
        return signal.Signals(code).name
    except ValueError:
        return f"<Unknown signal {code}>"


class ProcessContext:
    """The children of one :func:`start_processes` call: ``join`` them, or read their ``pids()``."""

    def __init__(self, processes: list[Any], error_files: list[str]) -> None:
        self.processes = processes
        self.error_files = error_files
        self.sentinels = {process.sentinel: index for index, process in enumerate(processes)}

    def pids(self) -> list[int]:
        return [int(process.pid) for process in self.processes]

    def join(self, timeout: Optional[float] = None, grace_period: Optional[float] = None) -> bool:
        """Wait up to ``timeout`` seconds for a child to end. True once all ended well, False while some
        still run; when one failed, the others are stopped and its exception raised."""
        if not self.sentinels:
            return True
        failed = None
        for sentinel in multiprocessing.connection.wait(list(self.sentinels), timeout=timeout):
            index = self.sentinels.pop(sentinel)
            self.processes[index].join()
            if self.processes[index].exitcode != 0:
                failed = index
                break
        if failed is None:
            if not self.sentinels:
                self._remove_error_files()
            return not self.sentinels
        self._stop_all(grace_period)
        error = self._failure(failed)
        self._remove_error_files()
        raise error

    def _stop_all(self, grace_period: Optional[float]) -> None:
        if grace_period is not None:
            self._join_all(grace_period)
        for process in self.processes:
            if process.is_alive():
                process.terminate()
        self._join_all(DEFAULT_TERM_SECONDS if grace_period is None else grace_period)
        for process in self.processes:
            if process.is_alive():
                process.kill()
            process.join()

    def _join_all(self, seconds: float) -> None:
        """Wait until every child has ended or ``seconds`` have passed."""
        deadline = time.monotonic() + seconds
        alive = [p.sentinel for p in self.processes if p.is_alive()]
        while alive and time.monotonic() < deadline:
            multiprocessing.connection.wait(alive, timeout=deadline - time.monotonic())
            alive = [p.sentinel for p in self.processes if p.is_alive()]

    def _failure(self, index: int) -> ProcessException:
        process = self.processes[index]
        with open(self.error_files[index], encoding="utf-8") as report:
            trace = report.read()
        if trace:
            message = f"\n\n-- Process {index:d} terminated with the following error:\n{trace}"
            return ProcessRaisedException(message, index, process.pid)
        code = process.exitcode
        if code < 0:
            name = _signal_name(-code)
            return ProcessExitedException(f"process {index:d} terminated with signal {name}", index, process.pid,
                                          code, name)
        return ProcessExitedException(f"process {index:d} terminated with exit code {code:d}", index, process.pid,
                                      code)

    def _remove_error_files(self) -> None:
        for path in self.error_files:
            try:
                os.unlink(path)
            except FileNotFoundError:
                pass


def start_processes(fn: Callable[..., Any], args: tuple[Any, ...] = (), nprocs: int = 1, join: bool = True,
                    daemon: bool = False, start_method: str = "spawn") -> Optional[ProcessContext]:
    """Run ``fn(i, *args)`` for ``i`` in ``range(nprocs)``, each in a process started by ``start_method``.

    With ``join`` it returns when all have ended (raising the first failure), else it returns
    the :class:`ProcessContext`."""
    context = multiprocessing.get_context(start_method)
    processes, error_files = [], []
    for index in range(nprocs):
        handle, error_file = tempfile.mkstemp(prefix="minitorch-errorfile-", suffix=".txt")
        os.close(handle)
        process = context.Process(target=_run_child, args=(fn, index, args, error_file), daemon=daemon)
        process.start()
        processes.append(process)
        error_files.append(error_file)
    children = ProcessContext(processes, error_files)
    if not join:
        return children
    while not children.join():
        pass
    return None


def spawn(fn: Callable[..., Any], args: tuple[Any, ...] = (), nprocs: int = 1, join: bool = True,
          daemon: bool = False, start_method: str = "spawn") -> Optional[ProcessContext]:
    """:func:`start_processes` with the ``spawn`` start method (another ``start_method`` warns and is
    not used, as in PyTorch: ``fn`` must be importable, defined at a module's top level)."""
    if start_method != "spawn":
        warnings.warn(f"This method only supports start_method=spawn (got: {start_method}).\n"
                      "To use a different start_method use:\n\t\t torch.multiprocessing.start_processes(...)",
                      FutureWarning, stacklevel=2)
    return start_processes(fn, args, nprocs, join, daemon, start_method="spawn")
