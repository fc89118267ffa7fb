"""PyTorch's ``out=`` keyword, compared with PyTorch itself over the functions that take it.

Each case is one call made with either library; the ``out`` it is given is built from the
call's own result (same shape and dtype), then the same call is made into it. Checked against
PyTorch: the values, dtype and shape written, that ``out`` itself is returned (a tuple of the
given tensors for a function returning several), the resize of an ``out`` of another shape
(warning when it had elements, none when empty), writing into an input (``out=x``), and the
refusals: a non-tensor ``out``, an input that requires grad, a float result into an integer ``out``.
"""

from __future__ import annotations

import importlib.util
import warnings
from pathlib import Path
from types import ModuleType
from typing import Any, Callable

import numpy as np
import pytest

import minitorch
from tests.torch_oracle import import_torch

ROOT = Path(__file__).resolve().parent.parent
#: the relative and absolute tolerance of float results (float32 arithmetic in both libraries)
RTOL, ATOL = 1e-5, 1e-6

# fixed inputs (the same arrays for both libraries)
X = np.array([[0.25, 0.5, 0.75], [0.125, 0.875, 0.375]], dtype=np.float32)
Y = np.array([[0.5, 0.25, 0.625], [0.75, 0.5, 0.875]], dtype=np.float32)
M = np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], dtype=np.float32)  # 3x2
SQUARE = np.array([[4.0, 1.0, 0.5], [1.0, 3.0, 0.25], [0.5, 0.25, 2.0]], dtype=np.float32)  # symmetric positive definite
V3 = np.array([1.0, -2.0, 0.5], dtype=np.float32)
W3 = np.array([0.5, 1.5, -1.0], dtype=np.float32)
I = np.array([[6, 3, 12], [5, 8, 9]], dtype=np.int64)
J = np.array([[4, 2, 3], [1, 2, 6]], dtype=np.int64)


def _inputs(lib: ModuleType, requires_grad: bool = False) -> dict[str, Any]:
    """The inputs of the cases, as ``lib`` tensors (the float ones requiring grad if asked)."""
    def floats(array: np.ndarray) -> Any:
        return lib.tensor(array.tolist(), requires_grad=requires_grad)

    return {
        "x": floats(X), "y": floats(Y), "m": floats(M), "sq": floats(SQUARE), "v": floats(V3), "w": floats(W3),
        "i": lib.tensor(I.tolist()), "j": lib.tensor(J.tolist()),
        "mask": lib.tensor((X > 0.4).tolist()), "idx": lib.tensor([2, 0]), "gidx": lib.tensor([[0, 2], [1, 1]]),
        "batch": floats(np.arange(12, dtype=np.float32).reshape(2, 3, 2) / 8),
        "batch2": floats(np.arange(8, dtype=np.float32).reshape(2, 2, 2) / 4),
        "edges": lib.tensor([0.2, 0.4, 0.8]),
    }


Call = Callable[..., Any]  # (lib, inputs, **{"out": ...}) -> result

#: name -> a call into ``lib`` (``out=`` passed through the keywords)
CASES: dict[str, Call] = {
    # unary math
    **{name: (lambda name: lambda lib, t, **kw: getattr(lib, name)(t["x"], **kw))(name) for name in (
        "exp", "log", "sin", "cos", "tan", "sqrt", "rsqrt", "tanh", "sigmoid", "abs", "neg", "floor", "ceil", "round",
        "trunc", "frac", "sign", "erf", "erfc", "erfinv", "expm1", "log1p", "log2", "log10", "exp2", "asin", "acos",
        "atan", "sinh", "cosh", "asinh", "atanh", "reciprocal", "square", "deg2rad", "rad2deg", "sinc", "logit",
        "signbit", "nan_to_num", "msort", "lgamma", "digamma", "i0",
    )},
    # binary
    **{name: (lambda name: lambda lib, t, **kw: getattr(lib, name)(t["x"], t["y"], **kw))(name) for name in (
        "add", "sub", "mul", "div", "pow", "maximum", "minimum", "fmod", "remainder", "atan2", "eq", "ne", "lt", "le",
        "gt", "ge", "logical_and", "logical_or", "logical_xor", "hypot", "copysign", "fmax", "fmin", "xlogy",
        "logaddexp", "logaddexp2", "float_power", "heaviside", "nextafter", "true_divide", "floor_divide",
    )},
    "add_alpha": lambda lib, t, **kw: lib.add(t["x"], t["y"], alpha=2, **kw),
    "div_floor": lambda lib, t, **kw: lib.div(t["x"], t["y"], rounding_mode="floor", **kw),
    "pow_scalar": lambda lib, t, **kw: lib.pow(t["x"], 2, **kw),
    "logical_not": lambda lib, t, **kw: lib.logical_not(t["mask"], **kw),
    **{name: (lambda name: lambda lib, t, **kw: getattr(lib, name)(t["i"], t["j"], **kw))(name) for name in (
        "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift", "gcd", "lcm",
    )},
    "bitwise_not": lambda lib, t, **kw: lib.bitwise_not(t["i"], **kw),
    # clamping, selection, interpolation
    "clamp": lambda lib, t, **kw: lib.clamp(t["x"], 0.2, 0.6, **kw),
    "clip": lambda lib, t, **kw: lib.clip(t["x"], max=0.6, **kw),
    "clamp_min": lambda lib, t, **kw: lib.clamp_min(t["x"], 0.3, **kw),
    "clamp_max": lambda lib, t, **kw: lib.clamp_max(t["x"], 0.3, **kw),
    "where": lambda lib, t, **kw: lib.where(t["mask"], t["x"], t["y"], **kw),
    "lerp": lambda lib, t, **kw: lib.lerp(t["x"], t["y"], 0.25, **kw),
    "addcmul": lambda lib, t, **kw: lib.addcmul(t["x"], t["x"], t["y"], value=0.5, **kw),
    "addcdiv": lambda lib, t, **kw: lib.addcdiv(t["x"], t["x"], t["y"], **kw),
    "threshold": lambda lib, t, **kw: lib.threshold(t["x"], 0.5, -1.0, **kw),
    # reductions along a dimension
    **{name: (lambda name: lambda lib, t, **kw: getattr(lib, name)(t["x"], 1, **kw))(name) for name in (
        "sum", "mean", "prod", "amax", "amin", "argmax", "argmin", "std", "var", "logsumexp", "cumsum", "cumprod",
        "nansum", "nanmean", "max", "min", "median", "nanmedian", "mode", "cummax", "cummin", "logcumsumexp", "sort",
        "softmax", "log_softmax",
    )},
    "argsort": lambda lib, t, **kw: lib.argsort(t["x"], stable=True, dim=1, **kw),
    "sum_keepdim": lambda lib, t, **kw: lib.sum(t["x"], (0, 1), keepdim=True, **kw),
    "max_all": lambda lib, t, **kw: lib.max(t["x"], **kw),
    "any": lambda lib, t, **kw: lib.any(t["mask"], 1, **kw),
    "all": lambda lib, t, **kw: lib.all(t["mask"], 0, **kw),
    "norm": lambda lib, t, **kw: lib.norm(t["x"], 2, 1, **kw),
    "kthvalue": lambda lib, t, **kw: lib.kthvalue(t["x"], 2, 1, **kw),
    "topk": lambda lib, t, **kw: lib.topk(t["x"], 2, 1, **kw),
    "aminmax": lambda lib, t, **kw: lib.aminmax(t["x"], dim=1, **kw),
    "quantile": lambda lib, t, **kw: lib.quantile(t["x"], 0.5, dim=1, **kw),
    "nanquantile": lambda lib, t, **kw: lib.nanquantile(t["x"], 0.25, dim=0, **kw),
    "count_nonzero_free_sum": lambda lib, t, **kw: lib.sum(t["i"], 0, **kw),
    # joining
    **{name: (lambda name: lambda lib, t, **kw: getattr(lib, name)([t["x"], t["y"]], **kw))(name) for name in (
        "cat", "concat", "concatenate", "stack", "hstack", "vstack", "dstack", "column_stack", "row_stack",
    )},
    "cat_dim1": lambda lib, t, **kw: lib.cat([t["x"], t["y"]], 1, **kw),
    # products
    "matmul": lambda lib, t, **kw: lib.matmul(t["x"], t["m"], **kw),
    "mm": lambda lib, t, **kw: lib.mm(t["x"], t["m"], **kw),
    "bmm": lambda lib, t, **kw: lib.bmm(t["batch"], t["batch2"], **kw),
    "baddbmm": lambda lib, t, **kw: lib.baddbmm(t["batch"][:, :2, :], t["batch"][:, :2, :], t["batch2"], **kw),
    "addbmm": lambda lib, t, **kw: lib.addbmm(t["batch"][0], t["batch"], t["batch2"], **kw),
    "addmm": lambda lib, t, **kw: lib.addmm(t["y"][:, :2], t["x"], t["m"], beta=0.5, **kw),
    "addmv": lambda lib, t, **kw: lib.addmv(t["v"][:2], t["x"], t["w"], **kw),
    "addr": lambda lib, t, **kw: lib.addr(t["sq"], t["v"], t["w"], **kw),
    "dot": lambda lib, t, **kw: lib.dot(t["v"], t["w"], **kw),
    "vdot": lambda lib, t, **kw: lib.vdot(t["v"], t["w"], **kw),
    "inner": lambda lib, t, **kw: lib.inner(t["v"], t["w"], **kw),
    "mv": lambda lib, t, **kw: lib.mv(t["x"], t["v"], **kw),
    "outer": lambda lib, t, **kw: lib.outer(t["v"], t["w"], **kw),
    "ger": lambda lib, t, **kw: lib.ger(t["v"], t["w"], **kw),
    "kron": lambda lib, t, **kw: lib.kron(t["x"], t["m"], **kw),
    "tensordot": lambda lib, t, **kw: lib.tensordot(t["x"], t["m"], 1, **kw),
    # indexing and rearranging
    "index_select": lambda lib, t, **kw: lib.index_select(t["x"], 1, t["idx"], **kw),
    "gather": lambda lib, t, **kw: lib.gather(t["x"], 1, t["gidx"], **kw),
    "masked_select": lambda lib, t, **kw: lib.masked_select(t["x"], t["mask"], **kw),
    "nonzero": lambda lib, t, **kw: lib.nonzero(t["mask"], **kw),
    "take": lambda lib, t, **kw: lib.take(t["x"], t["idx"], **kw),
    "take_along_dim": lambda lib, t, **kw: lib.take_along_dim(t["x"], t["gidx"], 1, **kw),
    "index_add": lambda lib, t, **kw: lib.index_add(t["x"], 1, t["idx"], t["y"][:, :2], **kw),
    "scatter_add": lambda lib, t, **kw: lib.scatter_add(t["x"], 1, t["gidx"], t["y"][:, :2], **kw),
    "tril": lambda lib, t, **kw: lib.tril(t["sq"], **kw),
    "triu": lambda lib, t, **kw: lib.triu(t["sq"], 1, **kw),
    "diag": lambda lib, t, **kw: lib.diag(t["v"], **kw),
    "diff": lambda lib, t, **kw: lib.diff(t["x"], **kw),
    "searchsorted": lambda lib, t, **kw: lib.searchsorted(t["edges"], t["x"].detach(), **kw),
    "bucketize": lambda lib, t, **kw: lib.bucketize(t["x"].detach(), t["edges"], **kw),
    "isin": lambda lib, t, **kw: lib.isin(t["i"], t["j"], **kw),
    "histc": lambda lib, t, **kw: lib.histc(t["x"], 4, 0.0, 1.0, **kw),
    "renorm": lambda lib, t, **kw: lib.renorm(t["x"], 2, 0, 0.5, **kw),
    # factories
    "arange": lambda lib, t, **kw: lib.arange(5, **kw),
    "linspace": lambda lib, t, **kw: lib.linspace(0.0, 1.0, 5, **kw),
    "zeros": lambda lib, t, **kw: lib.zeros(2, 3, **kw),
    "ones": lambda lib, t, **kw: lib.ones(4, **kw),
    "full": lambda lib, t, **kw: lib.full((2, 2), 1.5, **kw),
    "eye": lambda lib, t, **kw: lib.eye(3, **kw),
    # linalg and special
    "linalg.norm": lambda lib, t, **kw: lib.linalg.norm(t["x"], **kw),
    "linalg.vector_norm": lambda lib, t, **kw: lib.linalg.vector_norm(t["x"], 3, dim=1, **kw),
    "linalg.matrix_norm": lambda lib, t, **kw: lib.linalg.matrix_norm(t["sq"], **kw),
    "linalg.det": lambda lib, t, **kw: lib.linalg.det(t["sq"], **kw),
    "linalg.inv": lambda lib, t, **kw: lib.linalg.inv(t["sq"], **kw),
    "linalg.slogdet": lambda lib, t, **kw: lib.linalg.slogdet(t["sq"], **kw),
    "linalg.eigvalsh": lambda lib, t, **kw: lib.linalg.eigvalsh(t["sq"], **kw),
    "linalg.svdvals": lambda lib, t, **kw: lib.linalg.svdvals(t["sq"], **kw),
    "linalg.pinv": lambda lib, t, **kw: lib.linalg.pinv(t["sq"], **kw),
    "linalg.cross": lambda lib, t, **kw: lib.linalg.cross(t["v"], t["w"], **kw),
    "linalg.solve": lambda lib, t, **kw: lib.linalg.solve(t["sq"], t["m"], **kw),
    "linalg.cholesky": lambda lib, t, **kw: lib.linalg.cholesky(t["sq"], **kw),
    "linalg.matrix_power": lambda lib, t, **kw: lib.linalg.matrix_power(t["sq"], 3, **kw),
    "inverse": lambda lib, t, **kw: lib.inverse(t["sq"], **kw),
    "slogdet": lambda lib, t, **kw: lib.slogdet(t["sq"], **kw),
    "special.expit": lambda lib, t, **kw: lib.special.expit(t["x"], **kw),
    "special.xlogy": lambda lib, t, **kw: lib.special.xlogy(t["x"], t["y"], **kw),
    "special.erfcx": lambda lib, t, **kw: lib.special.erfcx(t["x"], **kw),
    "special.log_ndtr": lambda lib, t, **kw: lib.special.log_ndtr(t["x"], **kw),
}
#: the cases whose function makes values in ``out``'s dtype (a factory), not a result cast into it
FACTORIES = {"arange", "linspace", "zeros", "ones", "full", "eye"}


def _empty_like(lib: ModuleType, result: Any, shape: Any = None) -> Any:
    """An ``out`` for ``result``: a fresh tensor of its dtype (``shape`` or its shape), or a tuple of them."""
    if isinstance(result, tuple):
        return tuple(_empty_like(lib, item, shape) for item in result)
    return lib.full(tuple(result.shape) if shape is None else shape, 7, dtype=result.dtype)


def _host(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_host(item) for item in value]
    return value.detach().numpy()


def _assert_same(ours: Any, theirs: Any, name: str) -> None:
    if isinstance(theirs, tuple):
        assert isinstance(ours, tuple) and len(ours) == len(theirs), name
        for a, b in zip(ours, theirs):
            _assert_same(a, b, name)
        return
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1], (name, ours.dtype, theirs.dtype)
    assert list(ours.shape) == list(theirs.shape), (name, ours.shape, theirs.shape)
    mine, reference = ours.detach().numpy(), theirs.detach().numpy()
    if reference.dtype.kind == "f":
        np.testing.assert_allclose(mine, reference, rtol=RTOL, atol=ATOL, err_msg=name)
    else:
        np.testing.assert_array_equal(mine, reference, err_msg=name)


def _run(lib: ModuleType, name: str, make_out: Callable[[ModuleType, Any], Any]) -> tuple[Any, Any, list[str]]:
    """``CASES[name]`` made into ``make_out(lib, result)``: (returned, out, the warnings' texts)."""
    inputs = _inputs(lib)
    out = make_out(lib, CASES[name](lib, inputs))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        returned = CASES[name](lib, inputs, out=out)
    return returned, out, [str(w.message) for w in caught if "resized" in str(w.message)]


def _assert_returns_out(returned: Any, out: Any, name: str) -> None:
    if isinstance(out, tuple):
        assert isinstance(returned, tuple) and all(r is o for r, o in zip(returned, out)), name
    else:
        assert returned is out, name


@pytest.mark.parametrize("name", sorted(CASES))
def test_out_gets_pytorchs_values_dtype_and_shape_and_is_returned(name: str) -> None:
    torch = import_torch()
    theirs, their_out, _ = _run(torch, name, _empty_like)
    ours, our_out, our_warnings = _run(minitorch, name, _empty_like)
    _assert_returns_out(ours, our_out, name)
    _assert_same(ours, theirs, name)
    assert not our_warnings, name
    if isinstance(theirs, tuple) and hasattr(theirs, "_fields"):  # the named tuple of the function
        assert ours._fields == theirs._fields, name


@pytest.mark.parametrize("name", sorted(CASES))
def test_an_out_of_another_shape_is_resized_with_pytorchs_warning(name: str) -> None:
    torch = import_torch()
    theirs, _, their_warnings = _run(torch, name, lambda lib, r: _empty_like(lib, r, (5,)))
    ours, _, our_warnings = _run(minitorch, name, lambda lib, r: _empty_like(lib, r, (5,)))
    _assert_same(ours, theirs, name)
    assert len(our_warnings) == len(their_warnings), (our_warnings, their_warnings)
    if not isinstance(theirs, tuple):  # (PyTorch names the shapes of its keepdim step for kthvalue, mode)
        assert [w.split(" (Triggered")[0] for w in our_warnings] == [w.split(" (Triggered")[0] for w in their_warnings]


@pytest.mark.parametrize("name", sorted(CASES))
def test_an_empty_out_takes_the_shape_without_a_warning(name: str) -> None:
    torch = import_torch()
    theirs, _, their_warnings = _run(torch, name, lambda lib, r: _empty_like(lib, r, (0,)))
    ours, _, our_warnings = _run(minitorch, name, lambda lib, r: _empty_like(lib, r, (0,)))
    _assert_same(ours, theirs, name)
    assert our_warnings == [] == their_warnings


#: ``out=`` an input, as users write it: (call, the input written)
ALIASED: dict[str, Callable[[ModuleType], Any]] = {
    "exp_x": lambda lib: (lambda x: lib.exp(x, out=x))(lib.tensor(X.tolist())),
    "add_a": lambda lib: (lambda a: lib.add(a, lib.tensor(Y.tolist()), out=a))(lib.tensor(X.tolist())),
    "add_b": lambda lib: (lambda b: lib.add(lib.tensor(X.tolist()), b, alpha=3, out=b))(lib.tensor(Y.tolist())),
    "clamp_x": lambda lib: (lambda x: lib.clamp(x, 0.3, 0.6, out=x))(lib.tensor(X.tolist())),
    "sigmoid_x": lambda lib: (lambda x: lib.sigmoid(x, out=x))(lib.tensor(X.tolist())),
    "mul_x_x": lambda lib: (lambda x: lib.mul(x, x, out=x))(lib.tensor(X.tolist())),
    "cumsum_x": lambda lib: (lambda x: lib.cumsum(x, 1, out=x))(lib.tensor(X.tolist())),
    "matmul_sq": lambda lib: (lambda s: lib.matmul(s, s, out=s))(lib.tensor(SQUARE.tolist())),
    "where_y": lambda lib: (lambda y: lib.where(lib.tensor((X > 0.4).tolist()), lib.tensor(X.tolist()), y, out=y))(lib.tensor(Y.tolist())),
}


@pytest.mark.parametrize("name", sorted(ALIASED))
def test_out_may_be_an_input(name: str) -> None:
    torch = import_torch()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _assert_same(ALIASED[name](minitorch), ALIASED[name](torch), name)


def test_out_is_written_in_place_and_its_version_bumped_once() -> None:
    torch = import_torch()
    for lib in (torch, minitorch):
        base = lib.zeros(6)
        view = base[::2]
        version = view._version
        assert lib.exp(lib.tensor([0.0, 1.0, 2.0]), out=view) is view
        np.testing.assert_allclose(base.numpy(), [1.0, 0.0, np.e, 0.0, np.e**2, 0.0], rtol=RTOL)
        assert view._version == version + 1


#: the calls whose result is floating point (for the dtype refusal), and differentiable (for the autograd one)
FLOAT_RESULTS = sorted(name for name in CASES if name not in FACTORIES and name not in {
    "argmax", "argmin", "eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_xor", "logical_not",
    "bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift", "gcd", "lcm",
    "bitwise_not", "signbit", "any", "all", "nonzero", "searchsorted", "bucketize",
    "isin", "argsort", "count_nonzero_free_sum", "max", "min", "median", "nanmedian", "mode", "cummax", "cummin",
    "sort", "kthvalue", "topk", "floor_divide", "div_floor", "msort", "linalg.slogdet", "slogdet", "aminmax",
    # PyTorch's own gaps, not rules: its nansum kernel has no int64 version; nextafter refuses
    # out= for an input requiring grad though it has no derivative
    "nansum", "nanmean", "nextafter",
})


def _error(call: Callable[[], Any]) -> BaseException:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            call()
        except Exception as error:  # noqa: BLE001 - the error is what is compared
            return error
    raise AssertionError("no error raised")


def _outcome(call: Callable[[], Any]) -> Any:
    """What ``call`` returns, or the error it raises."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return call()
        except Exception as error:  # noqa: BLE001 - the error is what is compared
            return error


def _message(error: BaseException) -> str:
    return str(error).split(" (Triggered")[0]


@pytest.mark.parametrize("name", FLOAT_RESULTS)
def test_a_float_result_into_an_integer_out_is_refused(name: str) -> None:
    torch = import_torch()
    errors = []
    for lib in (torch, minitorch):
        inputs = _inputs(lib)
        out = lib.zeros(CASES[name](lib, inputs).shape, dtype=lib.int64)
        errors.append(_outcome(lambda: (CASES[name](lib, inputs, out=out),)))
    theirs, ours = errors
    if isinstance(theirs, tuple):  # PyTorch computes in out's dtype (``sum(x, 1, out=long)``)
        assert not isinstance(ours, BaseException), (name, ours)
        _assert_same(ours[0], theirs[0], name)
        return
    assert type(ours) is type(theirs), (name, ours, theirs)
    if _message(theirs).startswith("result type"):
        assert _message(ours) == _message(theirs)


@pytest.mark.parametrize("name", FLOAT_RESULTS)
def test_an_input_that_requires_grad_is_refused_with_grad_mode_on(name: str) -> None:
    torch = import_torch()
    errors = []
    for lib in (torch, minitorch):
        inputs = _inputs(lib, requires_grad=True)
        with lib.no_grad():
            result = CASES[name](lib, inputs)
        errors.append(_outcome(lambda: CASES[name](lib, inputs, out=_empty_like(lib, result))))
        with lib.no_grad():  # without grad mode the same call writes
            out = _empty_like(lib, result)
            _assert_returns_out(CASES[name](lib, inputs, out=out), out, name)
    theirs, ours = errors
    if not isinstance(theirs, BaseException):  # no derivative, or built from others: the write is recorded
        assert not isinstance(ours, BaseException) and ours.requires_grad == theirs.requires_grad, (name, ours)
        return
    assert type(ours) is type(theirs) is RuntimeError, (name, ours, theirs)
    suffix = "functions with out=... arguments don't support automatic differentiation, but one of the arguments requires grad."
    assert _message(theirs).endswith(suffix) and _message(ours).endswith(suffix), (name, ours)


@pytest.mark.parametrize("name", ["exp", "add", "cat", "sum", "matmul", "sort", "max", "cumsum", "clamp", "tan"])
def test_the_refusals_name_the_function_as_pytorch_does(name: str) -> None:
    torch = import_torch()
    messages = []
    for lib in (torch, minitorch):
        inputs = _inputs(lib)
        plain = CASES[name](lib, inputs)
        wrong = ["a"] if isinstance(plain, tuple) else "a"  # (PyTorch takes a float out= as a tensor)
        non_tensor = _error(lambda: CASES[name](lib, inputs, out=wrong))
        grad_inputs = _inputs(lib, requires_grad=True)
        needs_grad = _error(lambda: CASES[name](lib, grad_inputs, out=_empty_like(lib, plain)))
        messages.append((type(non_tensor), _message(needs_grad)))
    assert messages[1] == messages[0]


def test_an_out_that_requires_grad_is_refused_with_grad_mode_on_only() -> None:
    torch = import_torch()
    messages = []
    for lib in (torch, minitorch):
        out = lib.empty(3, requires_grad=True)
        messages.append(_message(_error(lambda: lib.exp(lib.ones(3), out=out))))
        with lib.no_grad():
            assert lib.exp(lib.ones(3), out=out) is out
        assert out.requires_grad and out.grad_fn is None
        np.testing.assert_allclose(out.detach().numpy(), np.full(3, np.e), rtol=RTOL)
    assert messages[1] == messages[0]


@pytest.mark.parametrize("wrong", [3, [1.0], np.zeros(2)], ids=["int", "list", "ndarray"])
def test_a_non_tensor_out_is_a_type_error_naming_its_type(wrong: Any) -> None:
    torch = import_torch()
    theirs = _error(lambda: torch.exp(torch.ones(2), out=wrong))
    ours = _error(lambda: minitorch.exp(minitorch.ones(2), out=wrong))
    assert type(ours) is type(theirs) is TypeError
    assert str(ours) == str(theirs)


def test_a_tuple_out_needs_a_tuple_of_the_right_length_of_tensors() -> None:
    torch = import_torch()
    for make in (lambda lib: lib.ones(3), lambda lib: (lib.ones(3),), lambda lib: (lib.ones(3), 1)):
        theirs = _error(lambda: torch.sort(torch.ones(3), out=make(torch)))
        ours = _error(lambda: minitorch.sort(minitorch.ones(3), out=make(minitorch)))
        assert type(ours) is type(theirs) is TypeError, (ours, theirs)


def test_a_list_of_outs_is_taken_and_the_named_tuple_returned() -> None:
    values, indices = minitorch.empty(0), minitorch.empty(0, dtype=minitorch.int64)
    returned = minitorch.max(minitorch.tensor(X.tolist()), 1, out=[values, indices])
    assert type(returned) is type(minitorch.max(minitorch.tensor(X.tolist()), 1))
    assert returned.values is values and returned.indices is indices
    np.testing.assert_array_equal(indices.numpy(), X.argmax(1))


def test_out_appears_in_the_signatures_keyword_only() -> None:
    import inspect

    for function in (minitorch.exp, minitorch.sum, minitorch.cat, minitorch.sort, minitorch.linalg.norm, minitorch.tan):
        parameter = inspect.signature(function).parameters["out"]
        assert parameter.kind is inspect.Parameter.KEYWORD_ONLY and parameter.default is None, function


def _audit() -> ModuleType:
    spec = importlib.util.spec_from_file_location("audit_out_argument", ROOT / "tools" / "audit_out_argument.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


#: functions PyTorch gives ``out=`` that minitorch deliberately does not (none so far)
KNOWN_WITHOUT_OUT: frozenset[str] = frozenset()


def test_every_function_pytorch_gives_out_has_it() -> None:
    """The audit script (``tools/audit_out_argument.py``) finds no function lacking ``out=``: a new
    top-level function that PyTorch gives ``out=`` must take it here too."""
    torch = import_torch()
    missing = set(_audit().missing_out(torch, minitorch)) - KNOWN_WITHOUT_OUT
    assert not missing, sorted(missing)
