"""PyTorch semantics left open by earlier helpers (task h10), each checked against PyTorch itself.

``linalg.vecdot``'s dtype refusals and its ``vdot`` node; ``linalg.matmul``; ``var_mean`` and
``std_mean`` as one node with two outputs; ``index_put_`` into an expanded tensor while autograd
records; ``lu_unpack`` with pivots whose batch does not match LU's; ``inv_ex``/``solve_ex`` (and
the triangular solves under them) on singular matrices.
"""

from __future__ import annotations

import warnings
from typing import Any, Callable

import numpy as np
import pytest

import minitorch
from both_libraries import FLOAT32_RTOL, RTOL, host_values, outcome, same_errors, same_values

torch = pytest.importorskip("torch")

LIBS = (torch, minitorch)

def _warnings_of(call: Callable[[], Any]) -> tuple[Any, list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = call()
    return result, [str(w.message) for w in caught]


# ---------------------------------------------------------------------- linalg.vecdot


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int8", "int16", "int32", "int64"])
def test_vecdot_refuses_non_floats(dtype: str) -> None:
    same_errors(lambda lib: lib.linalg.vecdot(lib.ones(3, dtype=getattr(lib, dtype)),
                                               lib.ones(3, dtype=getattr(lib, dtype))))


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
@pytest.mark.parametrize("shapes", [((3,), (3,)), ((2, 3), (3,)), ((2, 3), (4, 1, 3))])
def test_vecdot_floats(dtype: str, shapes: tuple) -> None:
    results = []
    for lib in LIBS:
        x = lib.arange(float(np.prod(shapes[0]))).reshape(shapes[0]).to(getattr(lib, dtype)) / 4
        y = lib.arange(float(np.prod(shapes[1]))).reshape(shapes[1]).to(getattr(lib, dtype)) - 1
        results.append(lib.linalg.vecdot(x, y))
    same_values(results[1], results[0])


@pytest.mark.parametrize("pair", [("float32", "float64"), ("float32", "bool"), ("int64", "float32"),
                                  ("float16", "bfloat16"), ("int64", "int32")])
def test_vecdot_dtype_errors(pair: tuple[str, str]) -> None:
    same_errors(lambda lib: lib.linalg.vecdot(lib.ones(3, dtype=getattr(lib, pair[0])),
                                               lib.ones(3, dtype=getattr(lib, pair[1]))))


@pytest.mark.parametrize("out_dtype", ["float64", "int64", "float16"])
def test_vecdot_out_dtype_error(out_dtype: str) -> None:
    same_errors(lambda lib: lib.linalg.vecdot(lib.ones(2, 3), lib.ones(2, 3),
                                               out=lib.empty(2, dtype=getattr(lib, out_dtype))))


def test_vecdot_out_resized_with_warning() -> None:
    outs = []
    for lib in LIBS:
        out = lib.empty(5)
        result, messages = _warnings_of(lambda: lib.linalg.vecdot(lib.ones(2, 3), lib.ones(2, 3), out=out))
        assert result is out
        outs.append((out, [m.split(" (Triggered")[0] for m in messages]))
    same_values(outs[1][0], outs[0][0])
    assert outs[1][1] == outs[0][1]


@pytest.mark.parametrize("shapes, kwargs", [(((3,), (3,)), {}), (((3,), (3,)), {"dim": 0}),
                                            (((3,), (3,)), {"dim": 5}), (((2, 3), (3,)), {}),
                                            (((3, 2), (3, 1)), {"dim": 0})])
def test_vecdot_nodes_and_gradients(shapes: tuple, kwargs: dict) -> None:
    seen = []
    for lib in LIBS:
        x = (lib.arange(float(np.prod(shapes[0]))).reshape(shapes[0]) - 2).requires_grad_()
        y = (lib.arange(float(np.prod(shapes[1]))).reshape(shapes[1]) / 2).requires_grad_()
        result = lib.linalg.vecdot(x, y, **kwargs)
        result.sum().backward()
        seen.append((type(result.grad_fn).__name__, result, x.grad, y.grad))
    assert seen[1][0] == seen[0][0]
    for ours, theirs in zip(seen[1][1:], seen[0][1:]):
        same_values(ours, theirs)


def test_vecdot_vector_sizes_error() -> None:
    same_errors(lambda lib: lib.linalg.vecdot(lib.ones(3), lib.ones(4)))


# ---------------------------------------------------------------------- linalg.matmul


def test_linalg_matmul_is_listed() -> None:
    assert "matmul" in minitorch.linalg.__all__
    assert hasattr(torch.linalg, "matmul")


@pytest.mark.parametrize("shapes", [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 2)), ((2, 3), (3, 4)),
                                    ((5, 2, 3), (3, 4)), ((5, 1, 2, 3), (4, 3, 2))])
def test_linalg_matmul_values_and_nodes(shapes: tuple) -> None:
    seen = []
    for lib in LIBS:
        a = (lib.arange(float(np.prod(shapes[0]))).reshape(shapes[0]) - 3).requires_grad_()
        b = (lib.arange(float(np.prod(shapes[1]))).reshape(shapes[1]) / 4).requires_grad_()
        result = lib.linalg.matmul(a, b)
        result.sum().backward()
        seen.append((type(result.grad_fn).__name__, result, a.grad, b.grad))
    if len(shapes[0]) <= 2 and len(shapes[1]) <= 2:  # (batched products: matmul's own node names)
        assert seen[1][0] == seen[0][0]
    for ours, theirs in zip(seen[1][1:], seen[0][1:]):
        same_values(ours, theirs)


@pytest.mark.parametrize("call", [
    lambda lib: lib.linalg.matmul(lib.ones(()), lib.ones(3)),
    lambda lib: lib.linalg.matmul(lib.ones(2, 3), lib.ones(4)),
    lambda lib: lib.linalg.matmul(lib.ones(2, 3), lib.ones(3, 2, dtype=lib.float64)),
    lambda lib: lib.linalg.matmul(lib.ones(2, 3), lib.ones(3, 2), out=lib.empty(2, 2, dtype=lib.float64)),
    lambda lib: lib.linalg.matmul(lib.ones(2, 3), lib.ones(3, 2), out=lib.empty(0, dtype=lib.int64)),
    lambda lib: lib.linalg.matmul(lib.ones(3, dtype=lib.float16), lib.ones(3, dtype=lib.float16),
                                  out=lib.empty(0)),
    lambda lib: lib.linalg.matmul(lib.ones(2, 3, dtype=lib.int8), lib.ones(3, dtype=lib.int8),
                                  out=lib.empty(0, dtype=lib.int16)),
    lambda lib: lib.linalg.matmul(lib.ones(2, 3, requires_grad=True), lib.ones(3, 2), out=lib.empty(2, 2)),
], ids=["0d", "sizes", "dtypes", "out double", "out long", "out vectors", "out int8", "out autograd"])
def test_linalg_matmul_errors(call: Callable[[Any], Any]) -> None:
    same_errors(call)


def test_linalg_matmul_out() -> None:
    outs = []
    for lib in LIBS:
        out = lib.empty(0, dtype=lib.float64)
        assert lib.linalg.matmul(lib.ones(2, 3, dtype=lib.float64), lib.ones(3, 4, dtype=lib.float64), out=out) is out
        outs.append(out)
    same_values(outs[1], outs[0])


# ---------------------------------------------------------------------- var_mean, std_mean

SPREAD_CASES = [{}, {"dim": 1}, {"dim": 0, "keepdim": True}, {"dim": (0, 1), "correction": 0},
                {"dim": 0, "correction": 2}, {"dim": []}, {"dim": 1, "unbiased": False}]


@pytest.mark.parametrize("name", ["var_mean", "std_mean"])
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
@pytest.mark.parametrize("kwargs", SPREAD_CASES, ids=[str(k) for k in SPREAD_CASES])
@pytest.mark.parametrize("used", [(True, True), (True, False), (False, True)], ids=["both", "spread", "mean"])
def test_spread_mean_one_node(name: str, dtype: str, kwargs: dict, used: tuple[bool, bool]) -> None:
    seen = []
    for lib in LIBS:
        x = lib.tensor([[1., 2., 4.], [3., 7., 9.]], dtype=getattr(lib, dtype), requires_grad=True)
        (spread, mean), messages = _warnings_of(lambda: getattr(lib, name)(x, **kwargs))
        assert spread.grad_fn is mean.grad_fn
        loss = (spread * 2 if used[0] else 0) + (mean * 3 if used[1] else 0)
        loss.sum().backward()
        seen.append((type(spread.grad_fn).__name__, spread.grad_fn.name(), (spread.output_nr, mean.output_nr),
                     [m.split(" (Triggered")[0] for m in messages], spread, mean, x.grad))
    assert seen[1][:4] == seen[0][:4]
    rtol = RTOL if dtype == "float64" else FLOAT32_RTOL
    for ours, theirs in zip(seen[1][4:], seen[0][4:]):
        same_values(ours, theirs, rtol)


@pytest.mark.parametrize("name", ["var_mean", "std_mean"])
def test_spread_mean_unused_spread_sends_no_nan(name: str) -> None:
    """One element: no degrees of freedom, yet the mean's gradient alone is finite in PyTorch."""
    grads = []
    for lib in LIBS:
        x = lib.tensor([3.], requires_grad=True)
        (_, mean), messages = _warnings_of(lambda: getattr(lib, name)(x))
        mean.backward()
        grads.append((x.grad, [m.split(" (Triggered")[0] for m in messages]))
    same_values(grads[1][0], grads[0][0])
    assert grads[1][1] == grads[0][1]


@pytest.mark.parametrize("name", ["var_mean", "std_mean"])
def test_spread_mean_second_derivative(name: str) -> None:
    seen = []
    for lib in LIBS:
        x = lib.tensor([[1., 2., 4.], [3., 7., 9.]], dtype=lib.float64, requires_grad=True)
        spread, mean = getattr(lib, name)(x, 1)
        (grad,) = lib.autograd.grad((spread * 2 + mean * mean).sum(), x, create_graph=True)
        weights = lib.tensor([[1., 0., 0.], [0., 0., 1.]], dtype=lib.float64)
        seen.append(lib.autograd.grad((grad * weights).sum(), x)[0])
    same_values(seen[1], seen[0])


# ---------------------------------------------------------------------- index_put_ into an expanded tensor

EXPANDED_CASES = {
    "rows": (lambda lib: (lib.tensor([0, 2]),), lambda lib: lib.tensor([10., 20., 30., 40.]), False),
    "rows accumulate": (lambda lib: (lib.tensor([0, 2]),), lambda lib: lib.tensor([10., 20., 30., 40.]), True),
    "columns of rows": (lambda lib: (lib.tensor([0, 2]),), lambda lib: lib.tensor([[1.], [2.]]), True),
    "points": (lambda lib: (lib.tensor([0, 2]), lib.tensor([1, 3])), lambda lib: lib.tensor([5., 6.]), False),
    "mask, one value": (lambda lib: (lib.tensor([True, False, True]),), lambda lib: lib.tensor(5.), False),
}


def _expanded_write(lib: Any, case: str, base_requires_grad: bool) -> tuple[Any, Any, Any, list[str]]:
    """``y.index_put_`` into ``y``, a (3, 4) expansion of one row, with the values requiring grad."""
    indices, values, accumulate = EXPANDED_CASES[case]
    row = lib.tensor([[1., 2., 3., 4.]], requires_grad=base_requires_grad)
    y = (row * 1 if base_requires_grad else row.detach()).expand(3, 4)
    v = values(lib).requires_grad_()
    _, messages = _warnings_of(lambda: y.index_put_(indices(lib), v, accumulate=accumulate))
    return y, v, row, [m.split(" (Triggered")[0] for m in messages]


@pytest.mark.parametrize("case", list(EXPANDED_CASES))
def test_index_put_into_expanded_recorded(case: str) -> None:
    seen = []
    for lib in LIBS:
        y, v, _, messages = _expanded_write(lib, case, base_requires_grad=False)
        (y * lib.arange(12.).reshape(3, 4)).sum().backward()
        seen.append((type(y.grad_fn).__name__, messages, y, v.grad))
    assert seen[1][:2] == seen[0][:2]
    same_values(seen[1][2], seen[0][2])
    same_values(seen[1][3], seen[0][3])


@pytest.mark.parametrize("case", list(EXPANDED_CASES))
def test_index_put_into_expanded_base_gradient_refused(case: str) -> None:
    """The write is made; PyTorch's backward then refuses to write the gradient into the expansion."""
    seen = []
    for lib in LIBS:
        y, _, _, messages = _expanded_write(lib, case, base_requires_grad=True)
        backward = outcome(lambda _: (y * lib.arange(12.).reshape(3, 4)).sum().backward(), lib)
        seen.append((messages, backward, y))
    assert seen[1][:2] == seen[0][:2]
    assert seen[0][1][0] == "RuntimeError"
    same_values(seen[1][2], seen[0][2])


def test_index_put_into_expansion_of_leaf() -> None:
    def call(lib: Any) -> Any:
        y = lib.tensor([1., 2., 3., 4.], requires_grad=True).expand(3, 4)
        return y.index_put_((lib.tensor([0, 2]),), lib.tensor(5.))
    same_errors(call)


# ---------------------------------------------------------------------- lu_unpack with other pivot shapes

#: LU's shape, and pivots (1-based) whose batch PyTorch reads from the left without broadcasting
PIVOT_CASES = [
    ((2, 3, 3), [2, 3, 3]),
    ((2, 3, 3), [[2, 3, 3]]),
    ((2, 3, 3), [[[2, 3, 3]], [[3, 2, 3]]]),
    ((4, 3, 3), [[2, 3, 3], [3, 2, 3]]),
    ((2, 1, 3, 3), [[2, 3, 3], [3, 2, 3]]),
    ((2, 3, 3, 3), [[2, 3, 3], [3, 2, 3]]),
    ((2, 3, 3, 3), [[[2, 3, 3], [3, 2, 3]]]),
    ((2, 3, 3, 3), [[[2, 3, 3], [3, 3, 3]], [[3, 2, 3], [2, 2, 3]]]),
    ((3, 3), [2, 3, 3, 1]),
    ((3, 4), [2, 3, 3, 1]),
    ((2, 3, 3), [[2, 3, 3, 1], [3, 2, 3, 2]]),
    ((4, 3), [2, 3, 4]),
]


@pytest.mark.parametrize("shape, pivots", PIVOT_CASES, ids=[f"{s}-{np.shape(p)}" for s, p in PIVOT_CASES])
@pytest.mark.parametrize("unpack_data", [True, False])
def test_lu_unpack_pivot_shapes(shape: tuple, pivots: list, unpack_data: bool) -> None:
    results = []
    for lib in LIBS:
        LU = lib.arange(float(np.prod(shape))).reshape(shape)  # noqa: N806 - PyTorch's name
        results.append(lib.lu_unpack(LU, lib.tensor(pivots, dtype=lib.int32), unpack_data=unpack_data))
    for ours, theirs in zip(results[1], results[0]):
        same_values(ours, theirs)


#: pivots whose batch reaches past LU's: PyTorch reads or writes outside its buffers there (it can
#: crash the process), so only minitorch runs these, and refuses them
UNSAFE_PIVOTS = [((2, 3, 3), (4, 3)), ((2, 3, 3), (3, 3)), ((3, 3), (2, 3)), ((1, 2, 3, 3), (2, 3)),
                 ((2, 3, 3), (1, 2, 3)), ((0, 3, 3), (3,))]


@pytest.mark.parametrize("shape, pivots_shape", UNSAFE_PIVOTS, ids=[f"{s}-{p}" for s, p in UNSAFE_PIVOTS])
def test_lu_unpack_refuses_pivots_past_lu(shape: tuple, pivots_shape: tuple) -> None:
    pivots = minitorch.ones(pivots_shape, dtype=minitorch.int32)
    with pytest.raises(RuntimeError, match="batch shape of LU_pivots to fit"):
        minitorch.lu_unpack(minitorch.ones(shape), pivots)
    P, L, U = minitorch.lu_unpack(minitorch.ones(shape), pivots, unpack_pivots=False)  # noqa: N806
    theirs = torch.lu_unpack(torch.ones(shape), torch.ones(pivots_shape, dtype=torch.int32), unpack_pivots=False)
    for ours, expected in zip((P, L, U), theirs):
        same_values(ours, expected)


@pytest.mark.parametrize("call", [
    lambda lib: lib.lu_unpack(lib.ones(2, 3, 3), lib.tensor(2, dtype=lib.int32)),
    lambda lib: lib.lu_unpack(lib.ones(3, 3), lib.tensor([2, 4, 3], dtype=lib.int32)),
], ids=["0-d", "out of range"])
def test_lu_unpack_pivot_errors(call: Callable[[Any], Any]) -> None:
    same_errors(call)


def test_lu_unpack_refuses_a_short_pivot_row() -> None:
    """Two pivots for a 3 x 3 LU: PyTorch reads a third past the end of them (its error, or none,
    depends on what lies there), so only minitorch runs it, and refuses it."""
    with pytest.raises(RuntimeError, match="pivots passed to lu_unpack must be between 1 and LU.size"):
        minitorch.lu_unpack(minitorch.ones(3, 3), minitorch.tensor([2, 3], dtype=minitorch.int32))


def test_lu_unpack_unread_pivots_any_dtype() -> None:
    results = [lib.lu_unpack(lib.ones(3, 3), lib.ones(3), unpack_pivots=False) for lib in LIBS]
    for ours, theirs in zip(results[1], results[0]):
        same_values(ours, theirs)


# ---------------------------------------------------------------------- inv_ex, solve_ex on singular matrices

#: singular matrices whose LU factors both libraries compute exactly (small integers), so the
#: ``inf``/``nan`` pattern of the solves is determined by the factors
SINGULAR = {
    "zeros": [[0., 0.], [0., 0.]],
    "rank one": [[1., 2.], [2., 4.]],
    "ones": [[1., 1.], [1., 1.]],
    "zero column": [[1., 0., 2.], [3., 0., 4.], [5., 0., 6.]],
    "zero row": [[1., 2., 3.], [0., 0., 0.], [7., 8., 10.]],
    "repeated row": [[2., 4., 6.], [1., 2., 3.], [1., 1., 1.]],
    "two blocks": [[1., 2., 0., 0.], [2., 4., 0., 0.], [0., 0., 1., 1.], [0., 0., 1., 1.]],
}


def _same_pattern(ours: Any, theirs: Any) -> None:
    """NaN, +inf and -inf in the same places, and the finite values equal."""
    a, b = host_values(ours), host_values(theirs)
    for mask in (np.isnan, np.isposinf, np.isneginf):
        np.testing.assert_array_equal(mask(a), mask(b))
    finite = np.isfinite(b)
    np.testing.assert_allclose(a[finite], b[finite], rtol=RTOL, atol=RTOL)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name", list(SINGULAR))
def test_inv_ex_singular(name: str, dtype: str) -> None:
    results = [lib.linalg.inv_ex(lib.tensor(SINGULAR[name], dtype=getattr(lib, dtype))) for lib in LIBS]
    assert results[1].info.tolist() == results[0].info.tolist()
    _same_pattern(results[1].inverse, results[0].inverse)


@pytest.mark.parametrize("name", list(SINGULAR))
def test_solve_ex_singular(name: str) -> None:
    results = []
    for lib in LIBS:
        A = lib.tensor(SINGULAR[name], dtype=lib.float64)  # noqa: N806 - PyTorch's name
        B = lib.arange(float(A.shape[0] * 2), dtype=lib.float64).reshape(A.shape[0], 2) - 1  # noqa: N806
        results.append(lib.linalg.solve_ex(A, B))
    assert results[1].info.tolist() == results[0].info.tolist()
    _same_pattern(results[1].result, results[0].result)


def test_inv_ex_batch_of_singular_and_regular() -> None:
    results = [lib.linalg.inv_ex(lib.tensor([SINGULAR["zero row"], [[2., 1., 0.], [1., 3., 1.], [0., 1., 4.]]],
                                            dtype=lib.float64)) for lib in LIBS]
    assert results[1].info.tolist() == results[0].info.tolist()
    _same_pattern(results[1].inverse, results[0].inverse)


def test_inv_ex_numerically_singular_does_not_raise() -> None:
    """No exact zero pivot, in either library, for this float64 matrix of rank 2; the inverse's
    huge entries come from rounding, which differs between LAPACK builds, so only ``info`` and
    which entries are finite are compared."""
    matrix = [[1., 2., 3.], [4., 5., 6.], [7., 8., 9.]]
    results = [lib.linalg.inv_ex(lib.tensor(matrix, dtype=lib.float64)) for lib in LIBS]
    assert results[1].info.tolist() == results[0].info.tolist()
    np.testing.assert_array_equal(np.isfinite(host_values(results[1].inverse)), np.isfinite(host_values(results[0].inverse)))
    solved = [lib.linalg.solve_ex(lib.tensor(matrix, dtype=lib.float64), lib.ones(3, 1, dtype=lib.float64))
              for lib in LIBS]
    assert solved[1].info.tolist() == solved[0].info.tolist()


@pytest.mark.parametrize("upper", [True, False])
@pytest.mark.parametrize("transpose", [True, False])
def test_triangular_solve_zero_diagonal(upper: bool, transpose: bool) -> None:
    """A zero on the diagonal divides every entry, zeros too (``0/0`` is NaN), as PyTorch's BLAS."""
    results = []
    for lib in LIBS:
        A = lib.tensor([[0., 1.], [0., 0.]], dtype=lib.float64)  # noqa: N806
        A = A if upper else A.mT.contiguous()  # noqa: N806
        B = lib.tensor([[0., 1.], [0., 1.]], dtype=lib.float64)  # noqa: N806
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the deprecation of triangular_solve
            results.append(lib.triangular_solve(B, A, upper=upper, transpose=transpose).solution)
    _same_pattern(results[1], results[0])
