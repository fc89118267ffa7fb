"""Seeded initialisation against PyTorch, bit for bit: after the same ``manual_seed``, each layer's
constructor and each ``nn.init`` scheme must make the same draws in the same order, so
``manual_seed(s); model = Net()`` gives PyTorch's weights exactly."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest

import minitorch

#: a builder takes the library (``minitorch`` or ``torch``) and returns what to compare
Builder = Callable[[Any], Any]
SEED = 2024
#: LAPACK implementations may round a QR factor differently in the last bits
QR_RTOL = 1e-5
QR_ATOL = 1e-6


def _arrays(result: Any) -> list[tuple[str, np.ndarray]]:
    """Named host copies of a module's parameters and floating buffers, or of a tensor (or tuple)."""
    if isinstance(result, (tuple, list)):
        return [(f"[{i}]{name}", array) for i, item in enumerate(result) for name, array in _arrays(item)]
    if hasattr(result, "named_parameters"):
        named = list(result.named_parameters()) + [(f"buffer {n}", b) for n, b in result.named_buffers()]
        return [(name, tensor.detach().numpy().copy()) for name, tensor in named]
    return [("", result.detach().numpy().copy())]


def _build_both(torch_ref: Any, build: Builder) -> tuple[list, list]:
    minitorch.manual_seed(SEED)
    ours = _arrays(build(minitorch))
    ours_next = minitorch.rand(4).numpy().copy()  # the stream must also be left where PyTorch leaves it
    torch_ref.manual_seed(SEED)
    theirs = _arrays(build(torch_ref))
    theirs_next = torch_ref.rand(4).numpy().copy()
    return ours + [("next draws", ours_next)], theirs + [("next draws", theirs_next)]


def assert_same_draws(torch_ref: Any, build: Builder) -> None:
    """The parameters (or tensors) ``build`` makes under both libraries agree exactly, names,
    shapes, dtypes and bits, and so does the generator's next draw."""
    ours, theirs = _build_both(torch_ref, build)
    assert [name for name, _ in ours] == [name for name, _ in theirs]
    for (name, mine), (_, reference) in zip(ours, theirs):
        assert mine.dtype == reference.dtype and mine.shape == reference.shape, (name, mine.dtype, reference.dtype)
        np.testing.assert_array_equal(mine, reference, err_msg=f"{name} differs from PyTorch's")


LAYERS: dict[str, Builder] = {
    "Linear": lambda t: t.nn.Linear(5, 3),
    "Linear-float64": lambda t: t.nn.Linear(3, 2, bias=False, dtype=t.float64),
    "Bilinear": lambda t: t.nn.Bilinear(3, 4, 2),
    "Conv1d": lambda t: t.nn.Conv1d(2, 3, 3),
    "Conv2d-groups": lambda t: t.nn.Conv2d(4, 6, (3, 2), groups=2),
    "Conv3d": lambda t: t.nn.Conv3d(2, 2, 2),
    "ConvTranspose2d": lambda t: t.nn.ConvTranspose2d(3, 2, 3, stride=2),
    "Embedding-padding": lambda t: t.nn.Embedding(6, 4, padding_idx=1),
    "EmbeddingBag": lambda t: t.nn.EmbeddingBag(7, 3, mode="mean", padding_idx=0),
    "RNN-2-layers-bidirectional": lambda t: t.nn.RNN(4, 5, num_layers=2, bidirectional=True),
    "GRU": lambda t: t.nn.GRU(3, 4, num_layers=2, batch_first=True),
    "LSTM-proj-bidirectional": lambda t: t.nn.LSTM(3, 5, num_layers=2, proj_size=2, bidirectional=True),
    "cells": lambda t: t.nn.ModuleList([t.nn.RNNCell(3, 4), t.nn.GRUCell(3, 4), t.nn.LSTMCell(3, 4)]),
    "MultiheadAttention-kdim-vdim": lambda t: t.nn.MultiheadAttention(8, 2, kdim=5, vdim=6, add_bias_kv=True),
    "TransformerEncoderLayer": lambda t: t.nn.TransformerEncoderLayer(8, 2, dim_feedforward=16),
    "Transformer": lambda t: t.nn.Transformer(8, 2, 1, 1, dim_feedforward=12, batch_first=True),
    "norms-PReLU": lambda t: t.nn.ModuleList([t.nn.BatchNorm2d(3), t.nn.LayerNorm(4), t.nn.PReLU(3)]),
}


@pytest.mark.parametrize("name", list(LAYERS))
def test_layer_construction_draws_as_torch(torch_ref: Any, name: str) -> None:
    assert_same_draws(torch_ref, LAYERS[name])


def _lazy_linear(lib: Any) -> Any:
    layer = lib.nn.LazyLinear(3)
    layer(lib.randn(2, 6))
    return layer


def test_lazy_linear_initialises_on_first_call_as_torch(torch_ref: Any) -> None:
    assert_same_draws(torch_ref, _lazy_linear)


TRUNC_NORMAL: dict[str, Builder] = {
    # [a, b] holds most of the mass: whole normal fills, redrawn where outside
    "redraws": lambda t: t.nn.init.trunc_normal_(t.empty(4, 6), std=0.5, a=-0.4, b=0.4),
    "redraws-vit": lambda t: t.nn.init.trunc_normal_(t.empty(16, 24), std=0.02),
    "redraws-float64": lambda t: t.nn.init.trunc_normal_(t.empty(30, dtype=t.float64), std=0.5, a=-0.6, b=0.6),
    # [a, b] holds little of the mass: uniform proposals with an acceptance test
    "rejection-tail": lambda t: t.nn.init.trunc_normal_(t.empty(5, 7), a=1.0, b=2.5),
    "rejection-narrow": lambda t: t.nn.init.trunc_normal_(t.empty(40), mean=0.5, std=2.0, a=-0.1, b=0.2),
}


@pytest.mark.parametrize("name", list(TRUNC_NORMAL))
def test_trunc_normal_draws_as_torch(torch_ref: Any, name: str) -> None:
    """PyTorch 2.13 draws by redrawing normals or by uniform rejection, by the interval's mass;
    the old inverse-CDF recipe (one uniform fill, ``erfinv``) gives other values."""
    assert_same_draws(torch_ref, TRUNC_NORMAL[name])


def test_xavier_uniform_gain_rounds_its_bound_as_torch(torch_ref: Any) -> None:
    """The bound is ``sqrt(3) * (gain * sqrt(2 / fans))``: associating it otherwise moves its last bit."""
    gain = 2**0.5
    assert_same_draws(torch_ref, lambda t: t.nn.init.xavier_uniform_(t.empty(37, 41, dtype=t.float64), gain=gain))


def test_sparse_draws_as_torch(torch_ref: Any) -> None:
    """Normals first, then one global ``randperm`` per column picks the rows to zero."""
    assert_same_draws(torch_ref, lambda t: t.nn.init.sparse_(t.empty(10, 5), sparsity=0.25))
    assert_same_draws(torch_ref, lambda t: t.nn.init.sparse_(t.empty(6, 4), sparsity=0.5, std=0.02))


@pytest.mark.parametrize("shape, groups", [((4, 2, 3), 2), ((4, 2, 3, 3), 1), ((2, 3, 3, 3, 3), 1), ((6, 2, 3, 5), 3)])
def test_dirac_matches_torch(torch_ref: Any, shape: tuple[int, ...], groups: int) -> None:
    assert_same_draws(torch_ref, lambda t: t.nn.init.dirac_(t.empty(shape), groups=groups))


@pytest.mark.parametrize("call", [
    lambda t: t.nn.init.dirac_(t.empty(3, 3)),
    lambda t: t.nn.init.dirac_(t.empty(3, 2, 3), groups=2),
    lambda t: t.nn.init.sparse_(t.empty(3), 0.5),
], ids=["dirac-2d", "dirac-groups", "sparse-1d"])
def test_dirac_and_sparse_refuse_what_torch_refuses(torch_ref: Any, call: Builder) -> None:
    with pytest.raises(ValueError) as reference:
        call(torch_ref)
    with pytest.raises(ValueError) as mine:
        call(minitorch)
    assert str(mine.value) == str(reference.value)


@pytest.mark.parametrize("shape, gain", [((3, 5), 1.0), ((6, 2), 2.0), ((4, 2, 3), 1.0), ((12, 12), 0.5)])
def test_orthogonal_draws_its_gaussian_as_torch(torch_ref: Any, shape: tuple[int, ...], gain: float) -> None:
    """The Gaussian matrix is drawn in the tensor's dtype (float32 words, not float64 ones), so the
    stream after it is PyTorch's exactly; the QR factor itself agrees to LAPACK's rounding."""
    ours, theirs = _build_both(torch_ref, lambda t: t.nn.init.orthogonal_(t.empty(shape), gain=gain))
    (_, mine), (_, mine_next) = ours
    (_, reference), (_, reference_next) = theirs
    np.testing.assert_allclose(mine, reference, rtol=QR_RTOL, atol=QR_ATOL)
    np.testing.assert_array_equal(mine_next, reference_next)


def _with_generator(lib: Any) -> tuple:
    g = lib.Generator().manual_seed(7)
    init = lib.nn.init
    return (
        init.uniform_(lib.empty(3), -1, 1, generator=g),
        init.normal_(lib.empty(20), 0.5, 2.0, generator=g),
        init.xavier_uniform_(lib.empty(3, 4), generator=g),
        init.xavier_normal_(lib.empty(3, 4), generator=g),
        init.kaiming_uniform_(lib.empty(4, 3), a=0.1, generator=g),
        init.kaiming_normal_(lib.empty(4, 3), mode="fan_out", generator=g),
        init.trunc_normal_(lib.empty(18), std=0.1, generator=g),
        init.sparse_(lib.empty(4, 3), 0.5, generator=g),
    )


def test_init_generator_keyword_draws_from_that_generator(torch_ref: Any) -> None:
    """``generator=`` leaves the global stream alone (but for sparse_'s ``randperm``, as in PyTorch)."""
    assert_same_draws(torch_ref, _with_generator)


def _tutorial_init(lib: Any) -> Any:
    nn = lib.nn

    def init_weights(m: Any) -> None:
        if isinstance(m, nn.Linear):
            nn.init.xavier_uniform_(m.weight, gain=nn.init.calculate_gain("relu"))
            m.bias.data.fill_(0.01)
        elif isinstance(m, nn.Conv2d):
            nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")

    net = nn.Sequential(nn.Conv2d(1, 2, 3), nn.ReLU(), nn.Flatten(), nn.Linear(8, 3), nn.Dropout(0.5), nn.Linear(3, 2))
    net.apply(init_weights)
    net[5].reset_parameters()
    return net


def test_apply_and_reset_parameters_draw_as_torch(torch_ref: Any) -> None:
    assert_same_draws(torch_ref, _tutorial_init)
