"""``torch.conv2d``, ``torch.dropout``... (nn.functional's ops at top level, ATen's signatures), the
reproducibility flags, ``torch.backends.cudnn`` and small top-level helpers, against PyTorch."""

from __future__ import annotations

import warnings
from types import ModuleType
from typing import Any, Callable

import numpy as np
import pytest

import minitorch


def _np(t: Any) -> np.ndarray:
    return np.asarray(t.detach().cpu().numpy())


def alias_cases(lib: ModuleType) -> dict[str, Callable[[Any], Any]]:
    g = np.random.default_rng(0)

    def T(*shape: int) -> Any:
        return lib.tensor(g.standard_normal(shape), dtype=lib.float64)

    w1, w2, w3 = T(2, 3, 2), T(2, 3, 2, 2), T(2, 3, 2, 2, 2)
    wt1, wt2 = T(3, 2, 2), T(3, 2, 2, 2)
    rm, rv = lib.zeros(3, dtype=lib.float64), lib.ones(3, dtype=lib.float64)
    gamma, beta = T(3), T(3)
    return {
        "conv1d": lambda x: lib.conv1d(x[..., 0], w1, None, 1, 1),
        "conv2d": lambda x: lib.conv2d(x, w2, T(2), 2, 1),
        "conv3d": lambda x: lib.conv3d(x.unsqueeze(2).expand(2, 3, 2, 4, 4), w3),
        "conv_transpose1d": lambda x: lib.conv_transpose1d(x[..., 0], wt1, None, 2),
        "conv_transpose2d": lambda x: lib.conv_transpose2d(x, wt2, None, 1, 0, 0, 1, 2),
        "dropout_eval": lambda x: lib.dropout(x, 0.5, False),
        "alpha_dropout_eval": lambda x: lib.alpha_dropout(x, 0.5, False),
        "feature_alpha_dropout_eval": lambda x: lib.feature_alpha_dropout(x, 0.5, False),
        "batch_norm": lambda x: lib.batch_norm(x, gamma, beta, rm.clone(), rv.clone(), True, 0.1, 1e-5, True),
        "batch_norm_eval": lambda x: lib.batch_norm(x, None, None, rm, rv, False, 0.1, 1e-5, False),
        "instance_norm": lambda x: lib.instance_norm(x, gamma, beta, None, None, True, 0.1, 1e-5, False),
        "layer_norm": lambda x: lib.layer_norm(x, [4, 4], None, None, 1e-5, True),
        "group_norm": lambda x: lib.group_norm(x.reshape(2, 6, 2, 4)[:, :6], 3, T(6), None),
        "rms_norm": lambda x: lib.rms_norm(x, [4], T(4)),
        "embedding": lambda x: lib.embedding(x.reshape(-1, 4), lib.tensor([[0, 2], [5, 1]])),
        "embedding_pad": lambda x: lib.embedding(x.reshape(-1, 4), lib.tensor([0, 2, 2]), 2),
        "pixel_shuffle": lambda x: lib.pixel_shuffle(x.reshape(2, 12, 2, 2), 2),
        "pixel_unshuffle": lambda x: lib.pixel_unshuffle(x, 2),
        "channel_shuffle": lambda x: lib.channel_shuffle(x.reshape(2, 6, 2, 4), 3),
        "F_channel_shuffle": lambda x: lib.nn.functional.channel_shuffle(x.reshape(2, 6, 8), 2),
        "max_pool1d": lambda x: lib.max_pool1d(x[..., 0], 2),
        "max_pool2d": lambda x: lib.max_pool2d(x, 3, 1, 1),
        "avg_pool1d": lambda x: lib.avg_pool1d(x[..., 0], 3, [], 1, False, False),
        "adaptive_avg_pool1d": lambda x: lib.adaptive_avg_pool1d(x[..., 0], 3),
        "adaptive_max_pool1d": lambda x: lib.adaptive_max_pool1d(x[..., 0], 3)[0],
        "selu": lambda x: lib.selu(x),
        "celu": lambda x: lib.celu(x, 0.7),
        "threshold": lambda x: lib.threshold(x, 0.1, -2.0),
        "prelu": lambda x: lib.prelu(x, T(3)),
        "hardshrink": lambda x: lib.hardshrink(x, 0.6),
        "rrelu_eval": lambda x: lib.rrelu(x),
        "kl_div": lambda x: lib.kl_div(x, x.detach().exp() / 10),
        "kl_div_mean": lambda x: lib.kl_div(x, x.detach().exp() / 10, 1),
        "bce_with_logits_default": lambda x: lib.binary_cross_entropy_with_logits(x, (x.detach() > 0).double()),
        "kl_div_sum_log": lambda x: lib.kl_div(x, x.detach() * 2, 2, log_target=True),
        "triplet_margin_loss": lambda x: lib.triplet_margin_loss(x[0], x[1], x[0].detach().flip(0), 0.5, 1.0),
        "pairwise_distance": lambda x: lib.pairwise_distance(x[0], x[1], 3.0, 1e-6, True),
        "cosine_embedding_loss": lambda x: lib.cosine_embedding_loss(
            x.reshape(2, -1), x.reshape(2, -1).flip(1), lib.tensor([1, -1]), 0.1, 0),
        "margin_ranking_loss": lambda x: lib.margin_ranking_loss(x[0, 0, 0], x[1, 0, 0], lib.tensor(
            [1., -1., 1., -1.], dtype=lib.float64), 0.2),
        "hinge_embedding_loss": lambda x: lib.hinge_embedding_loss(x, lib.ones(4, dtype=lib.float64), 1.0, 2),
        "poisson_nll_loss": lambda x: lib.poisson_nll_loss(x, x.detach().abs(), True, True, 1e-8, 1),
        "bce_with_logits": lambda x: lib.binary_cross_entropy_with_logits(
            x, (x.detach() > 0).double(), None, lib.full((4,), 2.0, dtype=lib.float64), 0),
        "ctc_loss": lambda x: lib.ctc_loss(x.reshape(6, 2, 8).log_softmax(2), lib.tensor([[1, 2], [3, 3]]),
                                           [6, 5], [2, 2], 0, 1, False),
        "bilinear": lambda x: lib.bilinear(x[0, 0], x[1, 0], T(2, 4, 4), T(2)),
    }


@pytest.mark.parametrize("name", list(alias_cases(minitorch)))
def test_aliases_match_pytorch(torch_ref: Any, name: str) -> None:
    values = np.random.default_rng(1).standard_normal((2, 3, 4, 4))
    outs, grads = [], []
    for lib in (minitorch, torch_ref):
        x = lib.tensor(values, dtype=lib.float64, requires_grad=True)
        out = alias_cases(lib)[name](x)
        weights = lib.tensor(np.linspace(0.5, 2.0, out.numel()).reshape(tuple(out.shape)), dtype=lib.float64)
        (out * weights).sum().backward()
        outs.append(out)
        grads.append(_np(x.grad))
    assert tuple(outs[0].shape) == tuple(outs[1].shape)
    assert str(outs[0].dtype).split(".")[-1] == str(outs[1].dtype).split(".")[-1]
    np.testing.assert_allclose(_np(outs[0]), _np(outs[1]), atol=1e-9, rtol=1e-7)
    np.testing.assert_allclose(grads[0], grads[1], atol=1e-9, rtol=1e-7)


def test_adaptive_max_pool1d_returns_indices(torch_ref: Any) -> None:
    values = np.random.default_rng(2).standard_normal((2, 3, 7))
    (_, ours), (_, theirs) = (lib.adaptive_max_pool1d(lib.tensor(values), 3) for lib in (minitorch, torch_ref))
    assert str(ours.dtype) == str(theirs.dtype).replace("torch", "minitorch")
    np.testing.assert_array_equal(_np(ours), _np(theirs))


@pytest.mark.parametrize("op", ["dropout", "feature_alpha_dropout", "alpha_dropout"])
def test_training_dropouts_keep_the_statistics(op: str) -> None:
    minitorch.manual_seed(0)
    x = minitorch.randn(400, 50, 2, 2, dtype=minitorch.float64)
    out = getattr(minitorch, op)(x, 0.3, True)
    if op == "dropout":
        kept = out != 0
        assert abs(kept.double().mean().item() - 0.7) < 0.02
        np.testing.assert_allclose(_np(out[kept]), _np(x[kept] / 0.7))
    else:  # alpha dropouts keep zero mean and unit variance
        assert abs(out.mean().item()) < 0.05 and abs(out.std().item() - 1) < 0.05
    if op == "feature_alpha_dropout":  # whole channels: a dropped (N, C) map is one constant throughout
        maps = _np(out).reshape(400 * 50, 4)
        constant = np.all(maps == maps[:, :1], axis=1)
        assert abs(constant.mean() - 0.3) < 0.02


def test_reproducibility_flags(torch_ref: Any) -> None:
    for lib in (minitorch, torch_ref):
        try:
            assert lib.are_deterministic_algorithms_enabled() is False
            lib.use_deterministic_algorithms(True, warn_only=True)
            assert lib.are_deterministic_algorithms_enabled() and lib.is_deterministic_algorithms_warn_only_enabled()
            assert lib.get_deterministic_debug_mode() == 1
            lib.set_deterministic_debug_mode("error")
            assert lib.get_deterministic_debug_mode() == 2
            assert not lib.is_deterministic_algorithms_warn_only_enabled()
            lib.set_deterministic_debug_mode(0)
            assert lib.get_deterministic_debug_mode() == 0 and not lib.are_deterministic_algorithms_enabled()
        finally:
            lib.use_deterministic_algorithms(False)


def test_cudnn_as_on_a_machine_without_it(torch_ref: Any) -> None:
    ours, theirs = minitorch.backends.cudnn, torch_ref.backends.cudnn
    for name in ("enabled", "deterministic", "benchmark", "allow_tf32", "benchmark_limit"):
        assert getattr(ours, name) == getattr(theirs, name), name
    assert ours.is_available() is theirs.is_available() is False
    assert ours.version() is theirs.version() is None
    assert ours.is_acceptable(minitorch.zeros(1)) is theirs.is_acceptable(torch_ref.zeros(1)) is False
    ours.deterministic, ours.benchmark = True, True  # scripts set them: plain attributes
    try:
        with ours.flags(enabled=True, deterministic=False):
            assert ours.enabled and not ours.deterministic and not ours.benchmark
        assert ours.deterministic and ours.benchmark
    finally:
        ours.deterministic, ours.benchmark = False, False
    assert minitorch.backends.mps.is_available() is False


def test_typename_and_scalar_tensor(torch_ref: Any) -> None:
    for ours, theirs in [(minitorch.zeros(2), torch_ref.zeros(2)), (3, 3),
                         (minitorch.zeros(2, dtype=minitorch.int64), torch_ref.zeros(2, dtype=torch_ref.int64))]:
        assert minitorch.typename(ours) == torch_ref.typename(theirs)
    assert minitorch.typename(minitorch.nn.Linear) == "minitorch.nn.modules.linear.Linear"
    for value in (3, True, 2.5):
        assert str(minitorch.scalar_tensor(value).dtype) == str(torch_ref.scalar_tensor(value).dtype).replace(
            "torch", "minitorch")


def test_set_default_tensor_type() -> None:
    try:
        with pytest.warns(UserWarning, match="deprecated"):
            minitorch.set_default_tensor_type(minitorch.DoubleTensor)
        assert minitorch.tensor([1.5]).dtype == minitorch.float64
        with pytest.warns(UserWarning):
            minitorch.set_default_tensor_type("torch.FloatTensor")
        assert minitorch.tensor([1.5]).dtype == minitorch.float32
    finally:
        minitorch.set_default_dtype(minitorch.float32)


def test_asarray_shares_memory_as_pytorch(torch_ref: Any) -> None:
    for lib in (minitorch, torch_ref):
        array = np.zeros(3)
        lib.asarray(array)[0] = 1.0
        assert array[0] == 1.0
        x = lib.zeros(2)
        assert lib.asarray(x) is x and lib.asarray(x, copy=True) is not x
        assert lib.asarray(np.zeros(2, dtype=np.float32), dtype=lib.float64).dtype == lib.float64
        assert lib.asarray([1.0, 2.0]).dtype == lib.float32


def test_empty_strided_and_randint_like(torch_ref: Any) -> None:
    ours, theirs = minitorch.empty_strided((2, 3), (1, 2)), torch_ref.empty_strided((2, 3), (1, 2))
    assert ours.stride() == theirs.stride() and ours.is_contiguous() == theirs.is_contiguous()
    assert tuple(minitorch.empty_strided((2, 0), (1, 2)).shape) == (2, 0)
    r = minitorch.randint_like(minitorch.zeros(50, dtype=minitorch.int32), 2, 5)
    assert r.dtype == minitorch.int32 and r.min().item() >= 2 and r.max().item() < 5
    assert minitorch.randint_like(minitorch.zeros(3), 5).dtype == minitorch.float32


def test_inference_mode_state(torch_ref: Any) -> None:
    for lib in (minitorch, torch_ref):
        assert not lib.is_inference_mode_enabled()
        with lib.inference_mode():
            assert lib.is_inference_mode_enabled()
            with lib.inference_mode(False):
                assert not lib.is_inference_mode_enabled()
            with lib.no_grad():
                assert lib.is_inference_mode_enabled()
        assert not lib.is_inference_mode_enabled()


def test_interop_threads() -> None:
    assert minitorch.get_num_interop_threads() >= 1
    with pytest.raises(RuntimeError, match="positive integer"):
        minitorch.set_num_interop_threads(0)
