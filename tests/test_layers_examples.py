"""Whole models written once against the PyTorch API and run, unchanged, on both frameworks:
a pre-norm residual MLP block with GELU, a transformer block (LayerNorm, MultiheadAttention,
feed-forward) with a causal mask, and a LeNet-style CNN trained for a few SGD steps. Same
initial weights in both; outputs, gradients and the loss curve must agree."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
from layer_helpers import assert_close

import minitorch

task = pytest.mark.task("5.9")


def define(torch: Any) -> SimpleNamespace:
    """The example models, written with ``torch`` being either PyTorch or minitorch."""
    nn, F = torch.nn, torch.nn.functional

    class ResBlock(nn.Module):
        def __init__(self, dim: int, hidden: int) -> None:
            super().__init__()
            self.norm = nn.LayerNorm(dim)
            self.fc1 = nn.Linear(dim, hidden)
            self.act = nn.GELU()
            self.fc2 = nn.Linear(hidden, dim)

        def forward(self, x):
            return x + self.fc2(self.act(self.fc1(self.norm(x))))

    class TransformerBlock(nn.Module):
        def __init__(self, d_model: int, n_heads: int, d_ff: int, dropout: float = 0.1) -> None:
            super().__init__()
            self.ln1 = nn.LayerNorm(d_model)
            self.attn = nn.MultiheadAttention(d_model, n_heads, dropout=dropout, batch_first=True)
            self.ln2 = nn.LayerNorm(d_model)
            self.ff = nn.Sequential(nn.Linear(d_model, d_ff), nn.GELU(), nn.Linear(d_ff, d_model), nn.Dropout(dropout))

        def forward(self, x):
            length = x.shape[1]
            causal = torch.arange(length)[None, :] > torch.arange(length)[:, None]
            h = self.ln1(x)
            a, _ = self.attn(h, h, h, attn_mask=causal, need_weights=False)
            x = x + a
            return x + self.ff(self.ln2(x))

    class LeNet(nn.Module):
        def __init__(self, classes: int = 10) -> None:
            super().__init__()
            self.features = nn.Sequential(
                nn.Conv2d(1, 6, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
                nn.Conv2d(6, 16, 5), nn.ReLU(), nn.AvgPool2d(2),
            )
            self.classifier = nn.Sequential(nn.Flatten(), nn.Linear(16 * 5 * 5, 32), nn.ReLU(), nn.Linear(32, classes))

        def forward(self, x):
            return self.classifier(self.features(x))

    return SimpleNamespace(ResBlock=ResBlock, TransformerBlock=TransformerBlock, LeNet=LeNet, F=F)


def twins(torch: Any, name: str, *args: Any) -> tuple[Any, Any]:
    """The model in both frameworks (float64), PyTorch's initial weights copied into ours."""
    torch.manual_seed(0)
    ref = getattr(define(torch), name)(*args).double()
    mine = getattr(define(minitorch), name)(*args).double()
    mine.load_state_dict({k: minitorch.tensor(v.detach().numpy()) for k, v in ref.state_dict().items()})
    return mine, ref


#: the exact GELU's erf is accurate to about 1e-7 (relative), which bounds the agreement here
GELU_ATOL = 1e-6


def check_forward_backward(torch: Any, mine: Any, ref: Any, x: np.ndarray) -> None:
    mx, tx = minitorch.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    out, expected = mine(mx), ref(tx)
    assert_close(out, expected, atol=GELU_ATOL)
    out.pow(2).sum().backward()
    expected.pow(2).sum().backward()
    assert_close(mx.grad, tx.grad, atol=GELU_ATOL, what="input gradient")
    for (key, p), (_, q) in zip(mine.named_parameters(), ref.named_parameters()):
        assert_close(p.grad, q.grad, atol=GELU_ATOL, what=f"gradient of {key}")


@task
def test_resblock_runs_unchanged_and_matches_torch(torch_ref) -> None:
    mine, ref = twins(torch_ref, "ResBlock", 6, 12)
    check_forward_backward(torch_ref, mine, ref, np.random.default_rng(0).standard_normal((2, 3, 6)))


@task
def test_transformer_block_runs_unchanged_and_matches_torch(torch_ref) -> None:
    mine, ref = twins(torch_ref, "TransformerBlock", 8, 2, 16)
    mine.eval()  # dropout off in both, so the two agree exactly
    ref.eval()
    check_forward_backward(torch_ref, mine, ref, np.random.default_rng(1).standard_normal((2, 5, 8)))
    mine.train()
    out = mine(minitorch.randn(2, 5, 8, dtype=minitorch.float64))
    assert out.shape == (2, 5, 8)


@task
def test_lenet_training_steps_match_torch(torch_ref) -> None:
    mine, ref = twins(torch_ref, "LeNet")
    rng = np.random.default_rng(2)
    x, y = rng.standard_normal((4, 1, 28, 28)), rng.integers(0, 10, size=4)
    learning_rate = 0.1
    losses = []
    for _ in range(3):
        loss = minitorch.nn.functional.cross_entropy(mine(minitorch.tensor(x)), minitorch.tensor(y))
        expected = torch_ref.nn.functional.cross_entropy(ref(torch_ref.tensor(x)), torch_ref.tensor(y))
        assert_close(loss, expected, atol=1e-9)
        losses.append(float(loss.item()))
        mine.zero_grad()
        ref.zero_grad()
        loss.backward()
        expected.backward()
        with minitorch.no_grad():
            for p in mine.parameters():
                p.sub_(p.grad * learning_rate)
        with torch_ref.no_grad():
            for p in ref.parameters():
                p.sub_(p.grad * learning_rate)
    assert losses[-1] < losses[0]
