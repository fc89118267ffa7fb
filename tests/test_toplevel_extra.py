"""The top-level names real scripts use (reproducibility flags, F's ops at top level, tensor helpers),
each run under minitorch and PyTorch: values, dtypes, shapes, gradients and errors."""

from __future__ import annotations

import math
import warnings
from types import ModuleType
from typing import Any, Callable

import numpy as np
import pytest

import minitorch


def _np(t: Any) -> np.ndarray:
    return np.asarray(t.detach().cpu().numpy() if hasattr(t, "detach") else t)


def _same(ours: Any, theirs: Any, atol: float = 1e-6) -> None:
    if isinstance(theirs, (tuple, list)):
        assert isinstance(ours, (tuple, list)) and len(ours) == len(theirs)
        for a, b in zip(ours, theirs):
            _same(a, b, atol)
        return
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    np.testing.assert_allclose(_np(ours).astype(np.float64), _np(theirs).astype(np.float64), atol=atol, rtol=1e-6)


def cases(lib: ModuleType) -> dict[str, Callable[[], Any]]:
    def T(v: Any, **k: Any) -> Any:
        return lib.tensor(v, dtype=lib.float64, **k)

    a = T([[1., -2., 3.], [-0., 5., -6.]])
    v = T([0.5, -1.0, 2.0, 0.0, 3.0])
    i = lib.tensor([[12, 18, -4], [0, 7, 9]])
    return {
        "concatenate": lambda: lib.concatenate([a, a], 1),
        "concatenate_axis": lambda: lib.concatenate([a, a], axis=0),
        "unflatten": lambda: lib.unflatten(lib.arange(12.), 0, (3, -1)),
        "signbit": lambda: lib.signbit(a),
        "signbit_int": lambda: lib.tensor([1, -2, 0]).signbit(),
        "copysign": lambda: lib.copysign(a, T([-1., 1., 0.])),
        "copysign_int_scalar": lambda: lib.copysign(lib.tensor([1, -2]), -1),
        "float_power": lambda: lib.float_power(lib.tensor([1, 2, 3]), 2),
        "float_power_t": lambda: lib.tensor([2., 3.]).float_power(lib.tensor([0.5, 2.])),
        "gcd": lambda: lib.gcd(i, lib.tensor([8])),
        "lcm": lambda: i.lcm(lib.tensor([[3, 4, 6]])),
        "frexp": lambda: tuple(lib.frexp(T([0., 8., -3.5, 1e-3]))),
        "ldexp": lambda: lib.ldexp(lib.tensor([1., -2.]), lib.tensor([3, -1])),
        "nextafter": lambda: lib.nextafter(T([1., 0.]), T([2., -1.])),
        "nextafter32": lambda: lib.nextafter(lib.tensor([1.]), lib.tensor([0.])),
        "logcumsumexp": lambda: lib.logcumsumexp(a, 1),
        "logcumsumexp_far": lambda: lib.logcumsumexp(T([-1000., 0., 1000., 3.]), 0),
        "logcumsumexp_long": lambda: lib.linspace(-300., 300., 200, dtype=lib.float64).sin().mul(200).logcumsumexp(0),
        "trapezoid": lambda: lib.trapezoid(a),
        "trapezoid_dx": lambda: lib.trapezoid(a, dx=0.5, dim=0),
        "trapezoid_x": lambda: lib.trapezoid(a, T([0., 1., 3.])),
        "trapezoid_int": lambda: lib.trapezoid(lib.tensor([1, 2, 4])),
        "trapz": lambda: lib.trapz(a, dx=2.),
        "cumulative_trapezoid": lambda: lib.cumulative_trapezoid(a),
        "cumulative_trapezoid_x": lambda: lib.cumulative_trapezoid(a, T([0., 1., 3.])),
        "combinations": lambda: lib.combinations(v),
        "combinations_r": lambda: lib.combinations(v[:3], 3, True),
        "vander": lambda: lib.vander(v[:3]),
        "vander_int": lambda: lib.vander(lib.tensor([1, 2, 3], dtype=lib.int32), 4, True),
        "diagflat": lambda: lib.diagflat(a, 1),
        "unravel_index": lambda: lib.unravel_index(lib.tensor([5, 7, -1]), (2, 4)),
        "unique_consecutive": lambda: lib.unique_consecutive(lib.tensor([1, 1, 2, 2, 3, 1, 1]), return_inverse=True,
                                                             return_counts=True),
        "unique_consecutive_dim": lambda: lib.unique_consecutive(lib.tensor([[1, 1], [1, 1], [2, 3]]), dim=0,
                                                                 return_counts=True),
        "mode": lambda: tuple(lib.mode(lib.tensor([[1, 2, 2, 3, 3], [4, 4, 1, 1, 0]]))),
        "mode_dim0": lambda: tuple(lib.tensor([[1., 2.], [4., 2.], [1., 0.]]).mode(0, keepdim=True)),
        "renorm": lambda: lib.renorm(a, 2, 0, 4.),
        "renorm_p1": lambda: a.renorm(1, 1, 3.),
        "select_scatter": lambda: lib.select_scatter(a, T([7., 8.]), 1, -1),
        "slice_scatter": lambda: lib.slice_scatter(lib.zeros(4, 3), lib.ones(2, 3), 0, 0, 4, 2),
        "diagonal_scatter": lambda: lib.diagonal_scatter(lib.zeros(3, 3), lib.ones(2), 1),
        "index_put": lambda: lib.index_put(a, (lib.tensor([0, 1]), lib.tensor([2, 0])), T([9., 8.])),
        "index_put_acc": lambda: lib.index_put(lib.zeros(3), (lib.tensor([0, 0, 2]),), lib.tensor(1.),
                                               accumulate=True),
        "index_put_acc_mask": lambda: lib.index_put(lib.zeros(3, 2), (lib.tensor([True, False, True]),),
                                                    lib.tensor([1., 2.]), accumulate=True),
        "masked_scatter": lambda: lib.masked_scatter(a, lib.tensor([[True, False, True]]), lib.arange(10.).double()),
        "split_with_sizes": lambda: lib.split_with_sizes(lib.arange(5.), [2, 3]),
        "scalar_tensor": lambda: lib.scalar_tensor(3),
        "scalar_tensor_dtype": lambda: lib.scalar_tensor(True, dtype=lib.int64),
        "chain_matmul": lambda: lib.chain_matmul(a, a.t(), a),
        "addbmm": lambda: lib.addbmm(a[:, :2], lib.ones(4, 2, 3).double(), lib.ones(4, 3, 2).double(), beta=0.5,
                                     alpha=2.),
        "hann": lambda: lib.hann_window(8),
        "hann_sym": lambda: lib.hann_window(7, periodic=False, dtype=lib.float64),
        "hann_1": lambda: lib.hann_window(1),
        "hann_0": lambda: lib.hann_window(0),
        "hamming": lambda: lib.hamming_window(6, True, 0.5, 0.4),
        "blackman": lambda: lib.blackman_window(9, dtype=lib.float64),
        "bartlett": lambda: lib.bartlett_window(6, False),
        "kaiser": lambda: lib.kaiser_window(10, True, 5., dtype=lib.float64),
        "kaiser_default": lambda: lib.kaiser_window(7, False),
    }


NAMES = list(cases(minitorch))


@pytest.mark.parametrize("name", NAMES)
def test_matches_pytorch(torch_ref: Any, name: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _same(cases(minitorch)[name](), cases(torch_ref)[name](), atol=1e-6)


# ---- gradients ----

def grad_cases(lib: ModuleType) -> dict[str, Callable[[Any], Any]]:
    other = lib.tensor([[-1., 1., 0.5], [2., -0., -3.]], dtype=lib.float64)
    return {
        "logcumsumexp": lambda x: lib.logcumsumexp(x * 30, 1),
        "logcumsumexp_long": lambda x: x.reshape(-1).repeat(20).logcumsumexp(0),
        "copysign": lambda x: lib.copysign(x, other),
        "float_power": lambda x: lib.float_power(x.abs() + 0.5, other),
        "ldexp": lambda x: lib.ldexp(x, lib.tensor([2, 1, 0])),
        "ldexp_float": lambda x: lib.ldexp(x, lib.tensor([2., -1., 0.5], dtype=lib.float64)),
        "trapezoid_x": lambda x: lib.trapezoid(x, x.detach().cumsum(1) + 0.0),
        "cumulative_trapezoid": lambda x: lib.cumulative_trapezoid(x, dx=0.3, dim=0),
        "combinations": lambda x: lib.combinations(x.reshape(-1), 2),
        # PyTorch's own vander fails its backward (an in-place cumprod): compare with the powers it means
        "vander": lambda x: (lib.vander(x.reshape(-1), 4) if lib is minitorch
                             else x.reshape(-1, 1) ** lib.tensor([3., 2., 1., 0.], dtype=lib.float64)),
        "diagflat": lambda x: lib.diagflat(x, -1),
        "renorm": lambda x: lib.renorm(x, 2, 0, 1.5),
        "select_scatter": lambda x: lib.select_scatter(x, x[:, 0] * 3, 1, 2),
        "slice_scatter": lambda x: lib.slice_scatter(x, x[:, :2] ** 2, 1, 1),
        "diagonal_scatter": lambda x: lib.diagonal_scatter(x, x[:, 2].exp(), 1),
        "index_put_acc": lambda x: lib.index_put(x, (lib.tensor([0, 0, 1]),), x[1] * 2, accumulate=True),
        "masked_scatter": lambda x: x.masked_scatter(lib.tensor([True, False, True]), x.reshape(-1).flip(0) * 5),
        "mode": lambda x: lib.mode(lib.where(x > 0, 1.0, 2.0) * x, 1).values,
        "addbmm": lambda x: lib.addbmm(x[:, :2], x.reshape(1, 2, 3).expand(2, 2, 3), x.t().reshape(1, 3, 2).expand(2, 3, 2), beta=.5),
        "chain_matmul": lambda x: lib.chain_matmul(x, x.t(), x),
    }


@pytest.mark.parametrize("name", list(grad_cases(minitorch)))
def test_gradients_match_pytorch(torch_ref: Any, name: str) -> None:
    values = [[0.3, -1.2, 2.0], [1.1, 0.7, -0.4]]
    weights = np.arange(1., 200.) / 10
    grads = []
    for lib in (minitorch, torch_ref):
        x = lib.tensor(values, dtype=lib.float64, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = grad_cases(lib)[name](x)
        w = lib.tensor(weights[: out.numel()].reshape(tuple(out.shape)), dtype=lib.float64)
        (out * w).sum().backward()
        grads.append(_np(x.grad))
    np.testing.assert_allclose(grads[0], grads[1], atol=1e-9, rtol=1e-7)


def test_logcumsumexp_is_stable_in_float32(torch_ref: Any) -> None:
    values = np.array([-200., 0., 150., -3., 88., 90.] * 30, dtype=np.float32)
    ours = minitorch.tensor(values).logcumsumexp(0)
    theirs = torch_ref.tensor(values).logcumsumexp(0)
    assert not np.isinf(_np(ours)).any()
    np.testing.assert_allclose(_np(ours), _np(theirs), rtol=1e-5)


# ---- methods and in-place variants ----

def test_in_place_methods(torch_ref: Any) -> None:
    results = []
    for lib in (minitorch, torch_ref):
        x = lib.tensor([[1., -2.], [3., 4.]], dtype=lib.float64)
        x.copysign_(lib.tensor([-1., 1.], dtype=lib.float64))
        x.renorm_(2, 0, 3.)
        x.float_power_(2)
        x.index_put_((lib.tensor([1]), lib.tensor([0])), lib.tensor(7., dtype=lib.float64), accumulate=True)
        x.masked_scatter_(lib.tensor([[False, True], [False, False]]), lib.tensor([5.], dtype=lib.float64))
        x.addbmm_(lib.ones(2, 2, 1, dtype=lib.float64), lib.ones(2, 1, 2, dtype=lib.float64), alpha=0.5)
        n = lib.tensor([12, 18])
        n.gcd_(lib.tensor([8, 4]))
        n.lcm_(lib.tensor([3, 3]))
        y = lib.tensor([1., 2.])
        y.ldexp_(lib.tensor([1., 2.]))
        y.nextafter_(lib.tensor([0., 10.]))
        results.append((x, n, y))
    _same(results[0], results[1], atol=1e-9)


@pytest.mark.parametrize("call", [
    lambda lib: lib.tensor([1., 2.]).float_power_(2),
    lambda lib: lib.tensor([1, 2]).copysign_(lib.tensor([-1, 1])),
])
def test_in_place_refuses_a_wider_result(torch_ref: Any, call: Callable[[Any], Any]) -> None:
    with pytest.raises(RuntimeError) as theirs:
        call(torch_ref)
    with pytest.raises(RuntimeError) as ours:
        call(minitorch)
    assert ("Double" in str(theirs.value)) == ("Double" in str(ours.value))
    assert ("Float" in str(theirs.value)) == ("Float" in str(ours.value))


# ---- errors ----

ERRORS: dict[str, Callable[[Any], Any]] = {
    "gcd_float": lambda lib: lib.gcd(lib.tensor([1.]), lib.tensor([2.])),
    "frexp_int": lambda lib: lib.frexp(lib.tensor([1, 2])),
    "nextafter_int": lambda lib: lib.nextafter(lib.tensor([1]), lib.tensor([2])),
    "logcumsumexp_int": lambda lib: lib.logcumsumexp(lib.tensor([1, 2]), 0),
    "trapezoid_x_len": lambda lib: lib.trapezoid(lib.ones(3), lib.tensor([0., 1.])),
    "combinations_2d": lambda lib: lib.combinations(lib.zeros(2, 2)),
    "unravel_float": lambda lib: lib.unravel_index(lib.tensor([1.]), (2, 4)),
    "mode_empty": lambda lib: lib.mode(lib.tensor([])),
    "split_with_sizes": lambda lib: lib.split_with_sizes(lib.zeros(5), [2, 2]),
    "chain_matmul_1d": lambda lib: lib.chain_matmul(lib.zeros(2, 2), lib.zeros(2)),
    "select_scatter_shape": lambda lib: lib.select_scatter(lib.zeros(2, 3), lib.ones(2), 0, 1),
    "select_scatter_index": lambda lib: lib.select_scatter(lib.zeros(2, 3), lib.ones(3), 0, 5),
    "slice_scatter_shape": lambda lib: lib.slice_scatter(lib.zeros(4, 3), lib.ones(1, 3), 0, 0, 4, 2),
    "diagonal_scatter_shape": lambda lib: lib.diagonal_scatter(lib.zeros(3, 3), lib.ones(2)),
    "masked_scatter_long_mask": lambda lib: lib.masked_scatter(lib.zeros(2, 3), lib.tensor([[1, 0, 1]]), lib.ones(5)),
    "masked_scatter_short": lambda lib: lib.masked_scatter(lib.zeros(2, 3), lib.tensor([[True, False, True]]),
                                                           lib.ones(3)),
    "masked_scatter_dtype": lambda lib: lib.masked_scatter(lib.zeros(2, 3), lib.tensor([[True, False, True]]),
                                                           lib.ones(4, dtype=lib.int64)),
    "window_negative": lambda lib: lib.hann_window(-1),
    "window_int": lambda lib: lib.blackman_window(3, dtype=lib.int64),
    "vander_2d": lambda lib: lib.vander(lib.zeros(2, 2)),
    "channel_shuffle_groups": lambda lib: lib.channel_shuffle(lib.zeros(1, 6, 2), 4),
    "channel_shuffle_zero": lambda lib: lib.channel_shuffle(lib.zeros(1, 6, 2), 0),
    "channel_shuffle_dims": lambda lib: lib.channel_shuffle(lib.zeros(6, 2), 2),
    "dropout_p": lambda lib: lib.dropout(lib.zeros(2, 3), 1.5, True),
    "dropout_missing_train": lambda lib: lib.dropout(lib.zeros(2, 3), 0.5),
    "feature_alpha_dropout_1d": lambda lib: lib.feature_alpha_dropout(lib.zeros(3), 0.5, True),
    "F_feature_alpha_dropout_p": lambda lib: lib.nn.functional.feature_alpha_dropout(lib.zeros(2, 3), 1.5, True),
    "kl_div_str_reduction": lambda lib: lib.kl_div(lib.zeros(2), lib.zeros(2), "mean"),
    "deterministic_int": lambda lib: lib.use_deterministic_algorithms(1),
    "debug_mode_str": lambda lib: lib.set_deterministic_debug_mode("loud"),
    "debug_mode_int": lambda lib: lib.set_deterministic_debug_mode(3),
    "debug_mode_type": lambda lib: lib.set_deterministic_debug_mode(1.0),
    "default_tensor_type_long": lambda lib: lib.set_default_tensor_type(lib.LongTensor),
    "default_tensor_type_str": lambda lib: lib.set_default_tensor_type("torch.IntTensor"),
    "interop_zero": lambda lib: lib.set_num_interop_threads(0),
    "asarray_no_copy": lambda lib: lib.asarray(lib.zeros(2), dtype=lib.float64, copy=False),
}


#: errors whose messages are compared on their first characters only
LOOSE_MESSAGES = {"dropout_missing_train": 0, "window_int": len("blackman_window expects floating point dtypes, got: ")}


@pytest.mark.parametrize("name", list(ERRORS))
def test_errors_match_pytorch(torch_ref: Any, name: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(Exception) as theirs:
            ERRORS[name](torch_ref)
        with pytest.raises(Exception) as ours:
            ERRORS[name](minitorch)
    assert type(ours.value) is type(theirs.value), (ours.value, theirs.value)
    ours_text, theirs_text = str(ours.value).replace("minitorch", "torch"), str(theirs.value)
    if name in LOOSE_MESSAGES:  # the same sentence up to PyTorch's C++ rendering of the options
        ours_text, theirs_text = ours_text[:LOOSE_MESSAGES[name]], theirs_text[:LOOSE_MESSAGES[name]]
    assert ours_text == theirs_text, (ours.value, theirs.value)
