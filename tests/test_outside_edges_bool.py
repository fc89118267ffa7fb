"""Bool (and integer) operands PyTorch's kernels refuse, or take, against PyTorch itself (task h8).

Each case is run under both libraries; the outcome compared is the result (shape, dtype, values,
floats rounded) or the error's type and message. The kernel PyTorch names depends on the call:
``softmax`` on whether the dim is the last, ``matmul`` on the ranks (``dot``, ``addmv``, ``addmm``,
``bmm``), ``clamp`` on which bounds are numbers.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import pytest

import minitorch

#: float results are compared to this many decimals (the libraries may round the last bit apart)
DECIMALS = 5


def _plain(value: Any) -> Any:
    """``value`` (nested lists of numbers) with floats rounded and NaN spelled out."""
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, float):
        return "nan" if math.isnan(value) else round(value, DECIMALS)
    return value


def _outcome(code: str, library: Any) -> Any:
    """``code`` (over ``t``, ``F``, ``nn``) under ``library`` as plain data, or the error's type and message."""
    scope = {"t": library, "F": library.nn.functional, "nn": library.nn, "nan": math.nan}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = eval(code, scope)  # noqa: S307 - the test's own code
    except Exception as error:  # noqa: BLE001 - the error is the outcome compared
        return type(error).__name__, str(error)
    results = tuple(out) if isinstance(out, tuple) else (out,)  # (values, indices) of median, topk, ...
    return [(tuple(r.shape), str(r.dtype).rsplit(".", 1)[-1], _plain(r.detach().tolist())) for r in results]


def assert_same(code: str, torch: Any) -> None:
    ours, theirs = _outcome(code, minitorch), _outcome(code, torch)
    assert ours == theirs, f"{code}:\n minitorch: {ours}\n torch:     {theirs}"


def ones(shape: str) -> str:
    """A bool tensor of ones of ``shape`` (``"2, 3"``; ``"()"`` for 0-d)."""
    return f"t.ones({shape}, dtype=t.bool)"


B = "t.tensor([True, False, True])"
B2 = "t.tensor([True, False])"
X = "t.tensor([0.5, -1.0, 2.0])"
INTS = "t.tensor([1, 2, 3])"

CLAMP = [
    f"{B}.clamp(max=True)", f"{B}.clamp(True)", f"{B}.clamp(min=True)", f"{B}.clamp(True, True)", f"{B}.clamp_min(True)",
    f"{B}.clamp_max(True)", f"t.clamp_min({B}, True)", f"t.clamp_max({B}, True)", f"{B}.clip(max=True)",
    f"{B}.clamp({B}, {B})", f"{B}.clamp(min={B}, max={B})", f"{B}.clamp_({B}, {B})", f"t.clamp({B}, {B}, {B})",
    f"{B}.clamp_(max=True)", f"{B}.clamp_min_(True)", f"t.clamp_({B}, True, True)", f"{B}.clip_(max=True)",
    # one tensor bound is maximum or minimum, which take bools; number bounds of another dtype promote
    f"{B}.clamp(min={B})", f"{B}.clamp(max={B})", f"{B}.clamp_max({B})", f"{B}.clamp(0, 1)", f"{B}.clamp(0, True)",
    f"{B}.clamp(True, 1)", f"{B}.clamp(0.5, 1)", f"{X}.clamp({B}, {B})", f"{X}.clamp_min({B})", f"{INTS}.clamp(True)",
    f"{B}.clamp()",
]
#: in place with number bounds, PyTorch's cast error names the tensor's C++ type
CLAMP_IN_PLACE = [
    f"t.tensor([1, 0], dtype={dtype}).{call}"
    for dtype in ("t.bool", "t.uint8", "t.int8", "t.int16", "t.int32", "t.int64", "t.float16")
    for call in ("clamp_(0.5)", "clamp_min_(0.5)", "clamp_(0, 1)", "clamp_(t.tensor(0.5), t.tensor(2.5))", "clamp_max_(t.tensor(0.5))")
]

ORDER_STATS = [
    f"{B}.median()", f"t.median({B})", f"{B}.median(0)", f"{ones('2, 2')}.median(1, keepdim=True)", f"{ones('()')}.median()",
    f"{ones('()')}.median(0)", f"{ones('0')}.median()", f"{ones('3')}.median(5)", f"{ones('2, 0')}.median(1)",
    f"{B}.nanmedian()", f"{B}.nanmedian(0)", f"{ones('()')}.nanmedian(0)", f"{ones('2, 0')}.nanmedian(0)",
    f"{ones('2, 0')}.nanmedian(1)", f"{ones('0')}.nanmedian()", "t.ones(2, 0).nanmedian(1)", "t.tensor([]).nanmedian()",
    f"{B}.kthvalue(1)", f"{ones('2, 2')}.kthvalue(1, 0, keepdim=True)", f"{ones('()')}.kthvalue(1)", f"{ones('3')}.kthvalue(5)",
    f"{ones('3')}.kthvalue(1, 4)", f"{ones('0')}.kthvalue(1)", f"{ones('0, 2')}.kthvalue(1, 1)", "t.ones(2, 0).kthvalue(1, 0)",
    f"{B}.topk(1)", f"t.topk({B}, 2)", f"{ones('()')}.topk(1)", f"{ones('0')}.topk(0)", f"{ones('3')}.topk(5)", f"{ones('3')}.topk(1, 5)",
    "t.tensor([1, 3, 2]).median()", "t.tensor([3, 1, 2]).kthvalue(2)", "t.tensor([3, 1, 2]).topk(2)",
    "t.tensor([[3.0, 1.0], [nan, 2.0]]).nanmedian(1)",
]

_LEFT = ("3", "2, 3", "4, 2, 3", "5, 4, 2, 3", "1, 2, 3")
_RIGHT = ("3", "3, 2", "4, 3, 2", "5, 4, 3, 2", "1, 3, 2")
PRODUCTS = [f"t.matmul({ones(a)}, {ones(b)})" for a in _LEFT for b in _RIGHT] + [
    f"{ones('2, 2')} @ {ones('2, 2')}", f"t.mm({ones('2, 2')}, {ones('2, 2')})", f"{ones('2, 2')}.mm({ones('2, 2')})",
    f"t.mv({ones('2, 2')}, {B2})", f"t.dot({B}, {B})", f"{B}.dot({B})", f"t.vdot({B}, {B})", f"t.bmm({ones('1, 2, 2')}, {ones('1, 2, 2')})",
    f"{ones('2, 2, 3')}.bmm({ones('2, 3, 2')})", f"t.addmm({ones('2, 2')}, {ones('2, 2')}, {ones('2, 2')})",
    f"t.addmv({ones('2')}, {ones('2, 3')}, {ones('3')})", f"t.baddbmm({ones('2, 2, 2')}, {ones('2, 2, 3')}, {ones('2, 3, 2')})",
    f"t.addbmm({ones('2, 2')}, {ones('3, 2, 3')}, {ones('3, 3, 2')})", f"t.trace({ones('2, 2')})", f"{ones('2, 2')}.trace()",
    f"t.trace({ones('2, 3')})", f"t.trace({ones('3')})", f"t.trace({ones('0, 0')})",
    f"t.inner({B}, {B})", f"t.inner({ones('2, 3')}, {ones('3')})", f"t.inner({ones('3')}, {ones('2, 3')})",
    f"t.inner({ones('4, 2, 3')}, {ones('2, 3')})",
    f"t.tensordot({ones('2, 3')}, {ones('3, 2')}, dims=([1], [0]))", f"t.tensordot({ones('2, 3')}, {ones('2, 3')}, dims=2)",
    f"t.tensordot({ones('3')}, {ones('3')}, 1)", f"t.tensordot({ones('2')}, {ones('3')}, 0)",
    f"t.einsum('i,i->', {B}, {B})", f"t.einsum('ij,j->i', {ones('2, 3')}, {ones('3')})",
    f"t.einsum('bi,bi->b', {ones('2, 3')}, {ones('2, 3')})",
    f"t.einsum('i,i,i->', {B}, {B}, {B})", f"t.linalg.multi_dot([{ones('3')}, {ones('3')}])",
    f"t.chain_matmul({ones('2, 3')}, {ones('3, 2')}, {ones('2, 2')})",
    # what computes: operand dtypes that differ, sizes that do not fit, a zero-size dimension (every
    # kernel but dot returns before it looks at the dtype), products without a sum, integers
    f"t.mm({ones('2, 3')}, t.ones(3, 2))", f"t.mm({ones('2, 3')}, {ones('2, 3')})", f"t.dot({ones('3')}, {ones('2')})",
    f"t.dot({ones('0')}, {ones('0')})", f"t.matmul({ones('0, 3')}, {ones('3, 2')})", f"t.matmul({ones('2, 0')}, {ones('0, 2')})",
    f"t.mv({ones('2, 0')}, {ones('0')})", f"t.bmm({ones('2, 2, 0')}, {ones('2, 0, 2')})", f"t.matmul({ones('3')}, {ones('0, 3, 2')})",
    f"t.inner({ones('()')}, {ones('3')})", f"t.tensordot({ones('2, 0')}, {ones('0, 2')}, 1)", f"t.tensordot({ones('0')}, {ones('0')}, 1)",
    f"t.einsum('i,j->ij', {B}, {B})", f"t.einsum('i,i->i', {B}, {B})", f"t.einsum('i,i->', {ones('1')}, {ones('1')})",
    f"t.einsum('ij,jk->ik', {ones('2, 0')}, {ones('0, 2')})", f"t.outer({B}, {B})", f"t.addr({ones('2')}, {ones('2')}, {ones('2')})",
    f"t.chain_matmul({ones('2, 3')})", "t.trace(t.ones(2, 2, dtype=t.uint8))",
    "t.matmul(t.ones(2, 2, dtype=t.int64), t.ones(2, 2, dtype=t.int64))", "t.inner(t.tensor([[1, 2]]), t.tensor([1, 2]))",
]

SOFTMAX = [
    f"{B}.softmax(0)", f"{ones('2, 2')}.softmax(0)", f"{ones('2, 2')}.softmax(1)", f"{ones('2, 2')}.softmax(-1)",
    f"{ones('2, 2, 2')}.softmax(1)", f"t.softmax({B}, 0)", f"F.softmax({B}, 0)", f"F.softmax({ones('2, 2')}, dim=0)",
    f"F.softmax({ones('2, 2, 2')})", f"F.softmax({ones('()')})", f"t.special.softmax({B}, 0)", f"nn.Softmax(1)({ones('2, 2')})",
    f"nn.Softmax2d()({ones('1, 2, 2, 2')})", f"{B}.log_softmax(0)", f"{ones('2, 2')}.log_softmax(0)", f"t.log_softmax({ones('2, 2')}, 1)",
    f"F.log_softmax({ones('2, 2, 2')})", f"t.special.log_softmax({B}, 0)", f"nn.LogSoftmax(0)({ones('2, 2')})",
    f"{INTS}.softmax(0)", f"{INTS}.log_softmax(0)", "t.tensor(1).softmax(0)", f"{ones('2, 2')}.softmax(dim=1, dtype=t.int64)",
    f"F.softmin({INTS}, 0)", f"F.softmin({B}, 0)",
    # a floating dtype= computes; no elements: the input comes back as it is; a dim out of range first
    f"{B}.softmax(0, dtype=t.float32)", f"F.softmax({B}, 0, dtype=t.float32)", f"{B}.log_softmax(0, dtype=t.float64)",
    f"{INTS}.softmax(0, dtype=t.float64)", f"t.softmax({ones('2, 0')}, 1)", f"{ones('0')}.softmax(0)",
    "F.softmax(t.ones(0, dtype=t.int64), 0)", "F.softmax(t.ones(0, dtype=t.int64), 0, dtype=t.float32)", f"{ones('2, 2')}.softmax(5)",
]

MOMENTS = [
    f"{B}.nanmean()", f"{INTS}.nanmean()", f"t.nanmean({INTS}, 0)", f"{INTS}.nanmean(dtype=t.float32)", "t.tensor(3).nanmean()",
    f"{ones('0')}.nanmean()", "t.tensor([1.0, nan, 3.0]).nanmean()",
    f"{B}.std()", f"{B}.var()", f"{INTS}.std()", f"{INTS}.var()", f"{INTS}.std(0)", f"{INTS}.std(5)", f"{INTS}.var(0, correction=0)",
    f"t.std({INTS})", f"t.var({B}, 0)", f"{ones('0')}.std()",
    f"t.std_mean({B})", f"t.std_mean({INTS}, 0)", f"t.var_mean({INTS})", f"t.var_mean({B}, 0, keepdim=True)", f"t.std_mean({X})",
    # PyTorch's dtype names, not NumPy's
    f"{B}.mean()", f"{INTS}.mean()", f"{INTS}.mean(0)", f"{INTS}.mean(dtype=t.float32)",
    "t.tensor([1, 2], dtype=t.int32).mean()", "t.tensor([1, 2], dtype=t.uint8).mean()", "t.tensor([1, 2], dtype=t.int8).mean()",
    "t.tensor([1, 2], dtype=t.int16).mean()", f"t.linalg.vector_norm({INTS})", "t.linalg.vector_norm(t.tensor([1, 2], dtype=t.uint8))",
    "t.renorm(t.ones(2, 2, dtype=t.int64), 2, 0, 1.0)",
]

OTHERS = [
    f"t.cov({B})", f"t.cov({ones('2, 2')})", f"t.corrcoef({ones('2, 2')})", f"t.cov({B}, correction=0)", f"t.cov({B}, fweights={B})",
    f"t.cov({X}, fweights={X})", f"t.cov({X}, fweights={B})", f"t.cov({X}, aweights={INTS})", f"t.cov({X}, aweights={B})",
    "t.corrcoef(t.ones(2, 2, 2))", f"t.cov({INTS})", f"t.cov({X}, fweights=t.tensor([1, 2, 3], dtype=t.int32))",
    f"t.trapezoid({B})", f"t.trapz({B})", f"t.trapezoid({B}, dx=2)", f"t.trapezoid({B}, {B})", f"t.trapezoid({X}, {B})",
    f"t.trapezoid({INTS}, {B})", f"t.trapz({X}, {B})", f"t.trapezoid({B}, t.ones(2))", f"t.trapezoid({ones('2, 0')}, dim=0)",
    f"t.cumulative_trapezoid({B})", f"t.cumulative_trapezoid({B}, {X})", f"t.cumulative_trapezoid({X}, {B})",
    f"t.cumulative_trapezoid({ones('()')})", f"t.cumulative_trapezoid({ones('0')})", f"t.cumulative_trapezoid({B}, dim=4)",
    # nothing to integrate: zeros of y's own dtype, before the bool check
    f"t.trapezoid({ones('0')})", f"t.trapezoid({ones('2, 0')})", f"t.trapezoid({ones('0')}, t.ones(0))",
    "t.trapezoid(t.ones(0, dtype=t.int64))",
    f"t.trapezoid({B}, dim=3)", "t.trapezoid(t.ones(()))", f"t.trapezoid({INTS})", "t.cumulative_trapezoid(t.ones(()))",
    f"t.mvlgamma({B}, 1)", f"{B}.mvlgamma(1)", f"t.special.multigammaln({B}, 2)", f"t.mvlgamma({B}, 0)", f"t.mvlgamma({B}, 1.5)",
    f"{B}.mvlgamma_(1)", f"t.mvlgamma({INTS}, 1)",
    f"{B} << {B}", f"{B} >> {B}", f"{B}.bitwise_left_shift({B})", f"t.bitwise_right_shift({B}, {B})", f"{B}.__lshift__(True)",
    f"True << {B}", f"{B} << t.tensor(True)", f"{ones('0')} << {ones('0')}", f"{B}.__ilshift__({B})", f"{B}.bitwise_right_shift_({B})",
    f"{B} << 1", f"{B} >> 1", f"{INTS} << {B}", f"{B} << {INTS}", f"{B} & {B}", f"{B} ^ True",
]

ACTIVATIONS = [
    f"F.relu6({B})", f"nn.ReLU6()({B})", f"F.relu6({B}, inplace=True)", f"F.hardtanh({B})", f"nn.Hardtanh()({B})",
    f"F.hardtanh({B}, 0, 1)", f"F.hardtanh_({B})", f"F.hardtanh({ones('0')})", f"F.hardtanh({B}, 2, 1)",
    f"F.leaky_relu({B})", f"nn.LeakyReLU()({B})", f"F.leaky_relu({B}, inplace=True)", f"F.leaky_relu_({B})",
    f"F.gelu({B})", f"nn.GELU()({B})", f"F.gelu({B}, approximate='tanh')", f"F.gelu({B}, approximate='x')",
    f"F.silu({B})", f"nn.SiLU()({B})", f"F.silu({B}, inplace=True)", f"F.softplus({B})", f"nn.Softplus(2, 5)({B})",
    f"F.threshold({B}, 0.5, 2.0)", f"nn.Threshold(0.5, 2.0)({B})", f"F.threshold_({B}, 0.5, 2.0)", f"F.softsign({B})",
    f"nn.Softsign()({B})", f"F.glu({ones('2, 2')})", f"nn.GLU()({ones('2, 2')})", f"F.glu({ones('0')})", f"F.glu({ones('()')})",
    f"F.glu({ones('3')})", f"F.glu({ones('2')}, dim=3)",
    # integers: refused by the kernels with floating versions only
    f"F.leaky_relu({INTS})", f"F.gelu({INTS})", f"F.silu({INTS})", f"F.softplus({INTS})", "F.glu(t.tensor([1, 2]))",
    f"F.relu6({INTS})", f"F.hardtanh({INTS})", f"F.threshold({INTS}, 1, 5)", f"F.softsign({INTS})",
    "F.relu6(t.tensor([1, 8]), inplace=True)",
    f"F.leaky_relu({X})", f"F.leaky_relu_({X})", f"F.gelu({X})", "F.gelu(t.tensor([1.0, -1.0], dtype=t.float16))", f"F.silu({X})",
]

#: PyTorch computes these where minitorch used to refuse them
COMPUTED = [
    f"t.logit({B})", f"{B}.logit()", f"t.logit({B}, eps=0.1)", f"t.special.logit({B})", "t.tensor([1, 0]).logit()",
    "t.logit(t.tensor([1, 0], dtype=t.uint8), 0.1)", f"t.logaddexp2({B}, {X})", f"t.logaddexp2({X}, {B})", f"{B}.logaddexp2({X})",
    f"t.logaddexp2({B}, t.tensor([1.0, 2.0, 3.0], dtype=t.float64))", f"t.logaddexp2({B}, t.tensor(2.0))",
    f"t.logaddexp2({B}, {B})", f"t.logaddexp2({B}, {INTS})", f"t.logaddexp({B}, {X})",
]


@pytest.mark.parametrize("code", CLAMP + CLAMP_IN_PLACE)
def test_clamp_of_bools_matches_torch(code: str, torch_ref) -> None:
    assert_same(code, torch_ref)


@pytest.mark.parametrize("code", ORDER_STATS)
def test_median_kthvalue_topk_of_bools_match_torch(code: str, torch_ref) -> None:
    assert_same(code, torch_ref)


@pytest.mark.parametrize("code", PRODUCTS)
def test_matrix_products_of_bools_name_torchs_kernel(code: str, torch_ref) -> None:
    assert_same(code, torch_ref)


@pytest.mark.parametrize("code", SOFTMAX)
def test_softmax_of_bools_and_integers_matches_torch(code: str, torch_ref) -> None:
    assert_same(code, torch_ref)


@pytest.mark.parametrize("code", MOMENTS)
def test_nanmean_std_var_and_dtype_names_match_torch(code: str, torch_ref) -> None:
    assert_same(code, torch_ref)


@pytest.mark.parametrize("code", OTHERS)
def test_cov_trapezoid_mvlgamma_and_shifts_of_bools_match_torch(code: str, torch_ref) -> None:
    assert_same(code, torch_ref)


@pytest.mark.parametrize("code", ACTIVATIONS)
def test_activations_of_bools_and_integers_match_torch(code: str, torch_ref) -> None:
    assert_same(code, torch_ref)


@pytest.mark.parametrize("code", COMPUTED)
def test_logit_and_logaddexp2_of_bools_compute_as_in_torch(code: str, torch_ref) -> None:
    assert_same(code, torch_ref)
