"""Recurrent layers: forward and backward of an LSTM and a GRU over a whole sequence.

The figure that matters is the time per step: the time loop runs one matmul and a handful
of elementwise ops per step (the input projection of all steps is one matmul before it),
so per-step overhead, not arithmetic, decides at these sizes.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import minitorch
from harness import MINITORCH, TORCH, Call, Case, Context

INPUT_SIZE, HIDDEN_SIZE = 64, 128
BATCH, STEPS = 32, 50
LAYERS = ("LSTM", "GRU")


def recurrent_step(lib: Any, layer: str) -> Call:
    """``layer(input_size, hidden_size)`` on ``(STEPS, BATCH, input_size)``: forward, ``sum`` of output and final state, backward."""
    lib.manual_seed(0)
    model = getattr(lib.nn, layer)(INPUT_SIZE, HIDDEN_SIZE)
    x = lib.tensor(np.random.default_rng(0).standard_normal((STEPS, BATCH, INPUT_SIZE)).astype(np.float32),
                   requires_grad=True)

    def step() -> None:
        model.zero_grad()
        x.grad = None
        out, hidden = model(x)
        final = hidden[0] if isinstance(hidden, tuple) else hidden
        (out.sum() + final.sum()).backward()

    return step


def case_name(layer: str) -> str:
    return f"{layer}({INPUT_SIZE}, {HIDDEN_SIZE}) fwd+bwd, batch {BATCH}, seq {STEPS}"


def cases(ctx: Context) -> list[Case]:
    return [
        Case(case_name(layer), "recurrent",
             {MINITORCH: lambda layer=layer: recurrent_step(minitorch, layer),
              TORCH: lambda layer=layer: recurrent_step(ctx.torch, layer) if ctx.torch else None},
             budget_s=2.0,
             description=f"{layer} over {STEPS} steps, float32: forward, sum of output and h_n, backward "
                         f"(time per step = time / {STEPS})")
        for layer in LAYERS
    ]
