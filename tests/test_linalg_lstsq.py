"""``minitorch.linalg.lstsq`` against ``torch.linalg.lstsq``: the four fields of the named tuple
(shapes, dtypes, values) for each CPU driver, with batches, broadcasting and vector right-hand
sides; the ranks each driver finds at the edges of its tolerance; gradients of the solution and of
the residuals (also against central differences, and a second derivative); PyTorch's errors.

PyTorch's ``gelsy`` does not always give the same answer for a rank-deficient matrix: it hands
LAPACK a pivot array it never cleared (pytorch/pytorch#187411), so a stale entry can fix a column in
front and change the rank found (a zero column then gives rank 0). minitorch's ``gelsy`` pivots every
column freely, as LAPACK does with a cleared array; where PyTorch's answer can vary, the tests ask
that minitorch's be one of PyTorch's answers over many calls (the one a cleared array gives).
"""

from __future__ import annotations

from types import ModuleType
from typing import Any, Callable, Optional

import numpy as np
import pytest

import minitorch
from minitorch import linalg

from gradcheck import gradcheck

DRIVERS = ("gels", "gelsy", "gelsd", "gelss")
SVD_DRIVERS = ("gelsd", "gelss")
FIELDS = ("solution", "residuals", "rank", "singular_values")


def random(*shape: int, seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed + 17 * len(shape) + sum(shape)).normal(size=shape)


def rank_deficient(m: int, n: int, rank: int, seed: int = 0) -> np.ndarray:
    """An ``m x n`` matrix of rank ``rank`` (a product of random factors)."""
    rng = np.random.default_rng(seed)
    return rng.normal(size=(m, rank)) @ rng.normal(size=(rank, n))


def run(lib: ModuleType, a: np.ndarray, b: np.ndarray, dtype: str = "float64", **kwargs: Any) -> Any:
    A = lib.tensor(a, dtype=getattr(lib, dtype))
    B = lib.tensor(b, dtype=getattr(lib, dtype))
    return lib.linalg.lstsq(A, B, **kwargs)


def assert_same(ours: Any, theirs: Any, rtol: float = 1e-9, atol: float = 1e-10) -> None:
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert str(ours.dtype).rsplit(".")[-1] == str(theirs.dtype).rsplit(".")[-1]
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=rtol, atol=atol)


def compare_results(torch_ref: ModuleType, a: np.ndarray, b: np.ndarray, dtype: str = "float64",
                    rtol: float = 1e-9, atol: float = 1e-10, **kwargs: Any) -> Any:
    ours, theirs = run(minitorch, a, b, dtype, **kwargs), run(torch_ref, a, b, dtype, **kwargs)
    for field in FIELDS:
        assert_same(getattr(ours, field), getattr(theirs, field), rtol, atol)
    return ours


#: calls of PyTorch's gelsy where its answer may vary (module docstring): a right answer that comes
#: up in a third of the calls is missed by all of them with probability below 1e-5
GELSY_TRIES = 30


def _same(ours: Any, theirs: Any, rtol: float, atol: float) -> bool:
    return all(tuple(getattr(ours, f).shape) == tuple(getattr(theirs, f).shape)
               and np.allclose(getattr(ours, f).numpy(), getattr(theirs, f).numpy(), rtol=rtol, atol=atol)
               for f in FIELDS)


def compare_with_gelsy(torch_ref: ModuleType, a: np.ndarray, b: np.ndarray, dtype: str = "float64",
                       rtol: float = 1e-9, atol: float = 1e-10, **kwargs: Any) -> Any:
    """minitorch's gelsy result is one of those PyTorch's gives in :data:`GELSY_TRIES` calls."""
    ours = run(minitorch, a, b, dtype, driver="gelsy", **kwargs)
    answers = [run(torch_ref, a, b, dtype, driver="gelsy", **kwargs) for _ in range(GELSY_TRIES)]
    assert any(_same(ours, theirs, rtol, atol) for theirs in answers), (
        f"rank {ours.rank.tolist()} not among PyTorch's {sorted({str(t.rank.tolist()) for t in answers})}")
    return ours


# ---------------------------------------------------------------------- values and shapes

#: (A's shape, B's shape): tall, square, wide, batches, broadcast batches, vector right-hand sides, empty
SHAPES = [
    ((5, 3), (5, 2)),
    ((4, 4), (4, 3)),
    ((3, 5), (3, 2)),
    ((2, 6, 4), (2, 6, 3)),
    ((1, 5, 3), (2, 5, 2)),  # A broadcast over B's batch
    ((2, 5, 3), (1, 5, 2)),  # B broadcast over A's batch
    ((4, 1, 5, 3), (1, 2, 5, 2)),
    ((4, 1, 5, 3), (1, 5, 2)),  # PyTorch's batch: A's (4, 1) against B's leading (1, 5)
    ((5, 5, 3), (5, 2)),
    ((5, 3), (5,)),  # a vector
    ((2, 5, 3), (2, 5)),  # a batch of vectors
    ((3, 5), (3,)),
    ((0, 3), (0, 2)),
    ((5, 0), (5, 2)),
    ((0, 5, 3), (0, 5, 2)),
    ((5, 3), (5, 0)),
]


#: for a B without columns PyTorch's gelsd fails an internal assert and its gelss crashes: not compared
VALUE_CASES = [(a, b, driver) for a, b in SHAPES for driver in DRIVERS if not (b[-1:] == (0,) and driver in SVD_DRIVERS)]


@pytest.mark.parametrize("a_shape, b_shape, driver", VALUE_CASES, ids=[f"{a}-{b}-{d}" for a, b, d in VALUE_CASES])
def test_values_and_shapes_match_torch(torch_ref: ModuleType, a_shape: tuple[int, ...], b_shape: tuple[int, ...],
                                       driver: str) -> None:
    compare_results(torch_ref, random(*a_shape), random(*b_shape, seed=1), driver=driver)


def test_svd_drivers_without_right_hand_sides() -> None:
    for driver in SVD_DRIVERS:
        result = run(minitorch, random(5, 3), random(5, 0), driver=driver)
        assert result.solution.shape == (3, 0) and result.residuals.shape == (0,) and result.rank.item() == 3
        assert result.singular_values.shape == (3,)


@pytest.mark.parametrize("driver", DRIVERS)
def test_float32_matches_torch(torch_ref: ModuleType, driver: str) -> None:
    ours = compare_results(torch_ref, random(2, 6, 4), random(2, 6, 3), "float32", rtol=1e-5, atol=1e-5, driver=driver)
    assert ours.solution.dtype is minitorch.float32 and ours.rank.dtype is minitorch.int64


#: rank-deficient matrices: the drivers that estimate the rank give the minimum-norm solution of that rank
DEFICIENT = {
    "tall": lambda: rank_deficient(7, 5, 3),
    "wide": lambda: rank_deficient(4, 6, 2, seed=1),
    "square": lambda: rank_deficient(4, 4, 3, seed=2),
    "dependent_column": lambda: np.column_stack([random(6, 3), random(6, 3)[:, 0] - 2 * random(6, 3)[:, 1]]),
    "zero_column": lambda: np.column_stack([random(5, 2), np.zeros(5)]),
    "zero": lambda: np.zeros((4, 3)),
    "batch_of_full_and_deficient": lambda: np.stack([random(6, 4), rank_deficient(6, 4, 2, seed=3)]),
}


@pytest.mark.parametrize("driver", ["gelsy", "gelsd", "gelss"])
@pytest.mark.parametrize("name", list(DEFICIENT))
def test_rank_deficient_values_match_torch(torch_ref: ModuleType, name: str, driver: str) -> None:
    a = DEFICIENT[name]()
    b = random(*a.shape[:-1], 2, seed=3)
    if driver == "gelsy":
        ours = compare_with_gelsy(torch_ref, a, b, rtol=1e-8, atol=1e-9)
        reference = run(minitorch, a, b, driver="gelsd")  # rank and minimum-norm solution from the SVD
        np.testing.assert_array_equal(ours.rank.numpy(), reference.rank.numpy())
        np.testing.assert_allclose(ours.solution.numpy(), reference.solution.numpy(), atol=1e-9)
    else:
        ours = compare_results(torch_ref, a, b, rtol=1e-8, atol=1e-9, driver=driver)
    assert (ours.rank.numpy() <= min(a.shape[-2:])).all()
    if driver != "gelsy":  # residuals need every matrix of full rank
        assert ours.residuals.numel() == 0 or name == "tall"


#: (diagonal, rcond, drivers): each driver's rule at the edge of its tolerance (rcond of 0, negative,
#: at least 1, exactly at a ratio of singular values, in float32)
RANK_EDGES = [
    ([1.0, 1e-3, 1e-10], None, DRIVERS[1:]),
    ([1.0, 1e-3, 1e-10], 0.0, DRIVERS[1:]),
    ([1.0, 1e-3, 1e-10], -1.0, DRIVERS[1:]),
    ([1.0, 1e-3, 1e-10], 1e-10, DRIVERS[1:]),
    ([1.0, 1e-3, 1e-10], 0.5, DRIVERS[1:]),
    ([1.0, 1e-3, 1e-10], 1.0, DRIVERS[1:]),
    ([1.0, 1e-3, 1e-10], 2.0, DRIVERS[1:]),
    ([1.0, 1e-9], 1e-9, ("gelsd", "gelss")),  # equal to the cut: zero for the SVD drivers
    ([1.0, 1.0, 1.0], 1.0, DRIVERS[1:]),  # gelsy keeps a block of condition exactly 1 / rcond
    ([1.0, 1.0, 1.0], 2.0, DRIVERS[1:]),
    ([1.0, 2.3e-16], -1.0, DRIVERS[1:]),  # gelss takes the machine epsilon for a negative rcond ...
    ([1.0, 2.1e-16], -1.0, DRIVERS[1:]),
    ([1.0, 1.2e-16], -1.0, DRIVERS[1:]),  # ... gelsd half of it (also for rcond 0 or at least 1)
    ([1.0, 1.0e-16], -1.0, DRIVERS[1:]),
    ([1.0, 1.2e-16], 0.0, DRIVERS[1:]),
    ([1.0, 1.2e-16], 1.0, DRIVERS[1:]),
    ([1.0, 1e-300], 0.0, DRIVERS[1:]),  # gelss never goes below the smallest normal number
    ([1.0, 1e-310], 0.0, ("gelsd", "gelss")),
    ([[2.0], [0.0], [0.0]], 1.0, DRIVERS[1:]),  # one column
]


#: each edge in float64, and in float32 where its values are within float32's range
EDGE_CASES = [(case, dtype) for case, (diagonal, _, _) in enumerate(RANK_EDGES) for dtype in ("float64", "float32")
              if dtype == "float64" or min(abs(v) for v in np.ravel(diagonal) if v) > 1e-30]


@pytest.mark.parametrize("case, dtype", EDGE_CASES)
def test_ranks_at_the_edges_of_each_drivers_tolerance(torch_ref: ModuleType, case: int, dtype: str) -> None:
    diagonal, rcond, drivers = RANK_EDGES[case]
    a = np.array(diagonal) if isinstance(diagonal[0], list) else np.diag(diagonal)
    b = random(a.shape[0], 2)
    for driver in drivers:
        if driver == "gelsy":
            compare_with_gelsy(torch_ref, a, b, dtype, rtol=1e-5, atol=1e-5, rcond=rcond)
            continue
        ours = run(minitorch, a, b, dtype, rcond=rcond, driver=driver)
        theirs = run(torch_ref, a, b, dtype, rcond=rcond, driver=driver)
        assert ours.rank.tolist() == theirs.rank.tolist(), driver


def test_gelsy_pivots_the_largest_column_first(torch_ref: ModuleType) -> None:
    r"""With ``rcond=1e-3`` this ``A`` has rank 1. Pivoted, ``gelsy`` keeps the column of ones, and its
    minimum-norm solution is then the SVD's (PyTorch's ``gelsd``), about :math:`(6.7 \cdot 10^{-7}, 2)`;
    taken in order it would keep the first column and give :math:`(10^{-6}, 1)`, the answer PyTorch's
    gelsy gives most often here, when its stale pivot array fixes both columns (module docstring)."""
    a, b = np.array([[1e-6, 1.0], [0.0, 1.0], [0.0, 1.0]]), np.array([[1.0], [2.0], [3.0]])
    ours = run(minitorch, a, b, rcond=1e-3, driver="gelsy")
    svd = run(torch_ref, a, b, rcond=1e-3, driver="gelsd")
    assert ours.rank.item() == svd.rank.item() == 1
    np.testing.assert_allclose(ours.solution.numpy(), svd.solution.numpy(), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(ours.solution.numpy(), [[2e-6 / 3], [2.0]], rtol=1e-9)


@pytest.mark.parametrize("value", [1.3e-7, 1.1e-7, 7e-8, 5e-8])
def test_float32_ranks_use_float32s_epsilon(torch_ref: ModuleType, value: float) -> None:
    a, b = np.diag([1.0, value]), random(2, 1)
    for driver in SVD_DRIVERS:
        ours = run(minitorch, a, b, "float32", rcond=-1, driver=driver)
        theirs = run(torch_ref, a, b, "float32", rcond=-1, driver=driver)
        assert ours.rank.tolist() == theirs.rank.tolist(), driver
    compare_with_gelsy(torch_ref, a, b, "float32", rtol=1e-5, atol=1e-5, rcond=-1)


def test_default_rcond_finds_the_rank_of_float32_matrices(torch_ref: ModuleType) -> None:
    a = random(7, 5).astype(np.float32)
    a[:, 4] = a[:, 0] + a[:, 1]
    for driver in SVD_DRIVERS:
        ours = run(minitorch, a, random(7, 2), "float32", driver=driver)
        theirs = run(torch_ref, a, random(7, 2), "float32", driver=driver)
        assert ours.rank.item() == theirs.rank.item() == 4
    assert compare_with_gelsy(torch_ref, a, random(7, 2), "float32", rtol=1e-4, atol=1e-4).rank.item() == 4


def test_the_named_tuple_and_the_defaults(torch_ref: ModuleType) -> None:
    a, b = random(5, 3), random(5, 2)
    result = run(minitorch, a, b)
    assert type(result).__name__ == "linalg_lstsq" and result._fields == FIELDS
    assert repr(result).startswith("minitorch.return_types.linalg_lstsq(\nsolution=tensor(")
    solution, residuals, rank, singular_values = result
    assert solution is result.solution and rank is result.rank
    # the default driver on the CPU is gelsy: a rank, no residuals, no singular values
    default, gelsy = run(minitorch, a, b), run(minitorch, a, b, driver="gelsy")
    for field in FIELDS:
        np.testing.assert_array_equal(getattr(default, field).numpy(), getattr(gelsy, field).numpy())
    assert default.residuals.numel() == 0 and default.singular_values.numel() == 0 and default.rank.item() == 3
    # the driver's name in any case, rcond by position, PyTorch's keyword names
    for lib in (minitorch, torch_ref):
        A, B = lib.tensor(a, dtype=lib.float64), lib.tensor(b, dtype=lib.float64)
        assert lib.linalg.lstsq(A, B, 1e-3, driver="GELSD").rank.item() == 3
        assert lib.linalg.lstsq(input=A, b=B, rcond=None, driver=None).solution.shape == (3, 2)
    compare_results(torch_ref, a, b, driver="GelsS")


def test_solution_is_the_pseudo_inverse_times_b() -> None:
    a, b = rank_deficient(6, 5, 3), random(6, 2)
    for driver in DRIVERS[1:]:
        result = run(minitorch, a, b, driver=driver)
        np.testing.assert_allclose(result.solution.numpy(), np.linalg.pinv(a) @ b, atol=1e-10)
    full = random(6, 4)
    result = run(minitorch, full, b, driver="gels")
    np.testing.assert_allclose(result.residuals.numpy(), ((full @ result.solution.numpy() - b) ** 2).sum(0), rtol=1e-10)


# ---------------------------------------------------------------------- gradients

#: (A, B, driver): gradients of a loss of the solution and of the residuals
GRADIENT_CASES = {
    "tall": (lambda: random(5, 3), lambda: random(5, 2), None),
    "tall_gels": (lambda: random(5, 3), lambda: random(5, 2), "gels"),
    "tall_gelsd": (lambda: random(5, 3), lambda: random(5, 2), "gelsd"),
    "square": (lambda: random(3, 3) + 3 * np.eye(3), lambda: random(3, 2), "gelss"),
    "wide": (lambda: random(3, 5), lambda: random(3, 2), None),
    "wide_gels": (lambda: random(3, 5), lambda: random(3, 2), "gels"),
    "batch": (lambda: random(2, 6, 4), lambda: random(2, 6, 3), "gelsd"),
    "broadcast_a": (lambda: random(1, 5, 3), lambda: random(2, 5, 2), "gels"),
    "broadcast_quirk": (lambda: random(4, 1, 5, 3), lambda: random(1, 5, 2), "gelss"),
    "vector": (lambda: random(5, 3), lambda: random(5), "gelsd"),
    "batch_of_vectors": (lambda: random(2, 5, 3), lambda: random(2, 5), None),
    "rank_deficient": (lambda: rank_deficient(6, 4, 3), lambda: random(6, 2), "gelsd"),
    "rank_deficient_gelsy": (lambda: rank_deficient(6, 4, 3), lambda: random(6, 2), "gelsy"),
    "rank_deficient_wide": (lambda: rank_deficient(4, 6, 3), lambda: random(4, 2), "gelsy"),
}


def _loss(lib: ModuleType, result: Any, quadratic: bool = True) -> Any:
    """Linear in the solution, plus its square (its gradient then depends on the solution's values too),
    plus the residuals weighted."""
    solution = result.solution
    weights = lib.tensor(np.linspace(-1.0, 2.0, solution.numel()).reshape(tuple(solution.shape)), dtype=lib.float64)
    loss = (solution * weights).sum() + ((solution ** 2).sum() if quadratic else 0.0)
    if result.residuals.numel():
        residuals = result.residuals
        loss = loss + (residuals * lib.tensor(np.linspace(0.5, 1.5, residuals.numel()).reshape(tuple(residuals.shape)),
                                              dtype=lib.float64)).sum()
    return loss


def _gradients(lib: ModuleType, a: np.ndarray, b: np.ndarray, driver: Optional[str],
               create_graph: bool = False, quadratic: bool = True) -> tuple[Any, Any]:
    A = lib.tensor(a, dtype=lib.float64, requires_grad=True)
    B = lib.tensor(b, dtype=lib.float64, requires_grad=True)
    loss = _loss(lib, lib.linalg.lstsq(A, B, driver=driver), quadratic)
    if not create_graph:
        loss.backward()
        return A.grad, B.grad
    grad_a, grad_b = lib.autograd.grad(loss, (A, B), create_graph=True)
    ((grad_a ** 2).sum() + (grad_b * grad_b.sin()).sum()).backward()
    return A.grad, B.grad


def _assert_close(ours: Any, theirs: Any, rtol: float = 1e-9) -> None:
    scale = max(1.0, float(np.abs(theirs.numpy()).max()))
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=rtol, atol=rtol * scale)


@pytest.mark.parametrize("name", list(GRADIENT_CASES))
def test_gradients_match_torch(torch_ref: ModuleType, name: str) -> None:
    make_a, make_b, driver = GRADIENT_CASES[name]
    a, b = make_a(), make_b()
    # the backward is PyTorch's whatever the rank found, but PyTorch's gelsy may find another (module
    # docstring): no loss of the solution's values there, only the (linear) gradient of the pseudo-inverse
    quadratic = not (name.startswith("rank_deficient") and driver in (None, "gelsy"))
    expected = _gradients(torch_ref, a, b, driver, quadratic=quadratic)
    for ours, theirs in zip(_gradients(minitorch, a, b, driver, quadratic=quadratic), expected, strict=True):
        assert tuple(ours.shape) == tuple(theirs.shape)
        _assert_close(ours, theirs)


@pytest.mark.parametrize("name", ["tall_gels", "wide", "vector", "broadcast_a"])
def test_second_derivatives_match_torch(torch_ref: ModuleType, name: str) -> None:
    make_a, make_b, driver = GRADIENT_CASES[name]
    a, b = make_a(), make_b()
    ours, theirs = _gradients(minitorch, a, b, driver, True), _gradients(torch_ref, a, b, driver, True)
    for mine, reference in zip(ours, theirs, strict=True):
        _assert_close(mine, reference, rtol=1e-8)


@pytest.mark.parametrize("field", ["solution", "residuals"])
@pytest.mark.parametrize("shapes", [((5, 3), (5, 2)), ((3, 5), (3, 2)), ((2, 4, 3), (2, 4))], ids=["tall", "wide", "vectors"])
def test_gradients_against_central_differences(shapes: tuple[tuple[int, ...], tuple[int, ...]], field: str) -> None:
    a_shape, b_shape = shapes
    A = minitorch.tensor(random(*a_shape), dtype=minitorch.float64, requires_grad=True)
    B = minitorch.tensor(random(*b_shape, seed=2), dtype=minitorch.float64, requires_grad=True)
    if field == "residuals" and a_shape[-2] <= a_shape[-1]:
        assert linalg.lstsq(A, B, driver="gels").residuals.numel() == 0
        return
    gradcheck(lambda a, b: getattr(linalg.lstsq(a, b, driver="gels"), field), A, B)


def test_graph_node_matches_torch(torch_ref: ModuleType) -> None:
    facts = []
    for lib in (minitorch, torch_ref):
        A = lib.tensor(random(5, 3), dtype=lib.float64, requires_grad=True)
        B = lib.tensor(random(5, 2), dtype=lib.float64)
        result = lib.linalg.lstsq(A, B, driver="gelsd")
        facts.append([type(result.solution.grad_fn).__name__, result.solution.grad_fn is result.residuals.grad_fn,
                      result.residuals.requires_grad, result.rank.requires_grad, result.singular_values.requires_grad,
                      lib.linalg.lstsq(A.detach(), B.requires_grad_()).solution.grad_fn.name()])
    assert facts[0] == facts[1]


# ---------------------------------------------------------------------- errors


def _tensor(lib: ModuleType, *shape: int, dtype: str = "float64") -> Any:
    return lib.tensor(random(*shape), dtype=getattr(lib, dtype))


def _zero_column(rows: int, cols: int, column: int) -> np.ndarray:
    a = random(rows, cols)
    a[:, column] = 0.0
    return a


BAD_CALLS: dict[str, Callable[[ModuleType], Any]] = {
    "rows": lambda lib: lib.linalg.lstsq(_tensor(lib, 5, 3), _tensor(lib, 4, 2)),
    "vector_rows": lambda lib: lib.linalg.lstsq(_tensor(lib, 5, 3), _tensor(lib, 4)),
    "batch_of_vectors_rows": lambda lib: lib.linalg.lstsq(_tensor(lib, 2, 5, 3), _tensor(lib, 2, 4)),
    "one_dim_a": lambda lib: lib.linalg.lstsq(_tensor(lib, 5), _tensor(lib, 5)),
    "zero_dim_b": lambda lib: lib.linalg.lstsq(_tensor(lib, 5, 3), lib.tensor(1.0, dtype=lib.float64)),
    "two_dims_fewer": lambda lib: lib.linalg.lstsq(_tensor(lib, 3, 2, 5, 3), _tensor(lib, 2, 5)),
    "vector_under_a_batch": lambda lib: lib.linalg.lstsq(_tensor(lib, 2, 5, 3), _tensor(lib, 5)),
    "more_dims_in_b": lambda lib: lib.linalg.lstsq(_tensor(lib, 5, 3), _tensor(lib, 2, 2, 5, 2)),
    "batches": lambda lib: lib.linalg.lstsq(_tensor(lib, 2, 5, 3), _tensor(lib, 3, 5, 2)),
    "batches_against_leading_dims": lambda lib: lib.linalg.lstsq(_tensor(lib, 4, 1, 5, 3), _tensor(lib, 2, 5, 2)),
    "batch_against_rows": lambda lib: lib.linalg.lstsq(_tensor(lib, 2, 5, 3), _tensor(lib, 5, 2)),
    "expanding_b": lambda lib: lib.linalg.lstsq(_tensor(lib, 3, 1, 5, 3), _tensor(lib, 3, 5, 2)),
    "dtypes": lambda lib: lib.linalg.lstsq(_tensor(lib, 5, 3), _tensor(lib, 5, 2, dtype="float32")),
    "integers": lambda lib: lib.linalg.lstsq(_tensor(lib, 5, 3).long(), _tensor(lib, 5, 2).long()),
    "integers_before_batches": lambda lib: lib.linalg.lstsq(_tensor(lib, 2, 5, 3).long(), _tensor(lib, 3, 5, 2).long()),
    "half": lambda lib: lib.linalg.lstsq(_tensor(lib, 5, 3, dtype="float16"), _tensor(lib, 5, 2, dtype="float16")),
    "driver": lambda lib: lib.linalg.lstsq(_tensor(lib, 5, 3), _tensor(lib, 5, 2), driver="svd"),
    "driver_after_rows": lambda lib: lib.linalg.lstsq(_tensor(lib, 5, 3), _tensor(lib, 4, 2), driver="svd"),
    "driver_before_batches": lambda lib: lib.linalg.lstsq(_tensor(lib, 2, 5, 3), _tensor(lib, 3, 5, 2), driver="svd"),
    "driver_type": lambda lib: lib.linalg.lstsq(_tensor(lib, 5, 3), _tensor(lib, 5, 2), driver=3),
    "rcond_type": lambda lib: lib.linalg.lstsq(_tensor(lib, 5, 3), _tensor(lib, 5, 2), rcond="small"),
    "b_type": lambda lib: lib.linalg.lstsq(_tensor(lib, 5, 3), 3),
    "a_type": lambda lib: lib.linalg.lstsq([[1.0]], _tensor(lib, 5, 2)),
    "gels_zero_column": lambda lib: lib.linalg.lstsq(lib.tensor(_zero_column(4, 3, 1), dtype=lib.float64),
                                                     _tensor(lib, 4, 2), driver="gels"),
    "gels_wide_zero_row": lambda lib: lib.linalg.lstsq(lib.tensor(_zero_column(4, 3, 1).T.copy(), dtype=lib.float64),
                                                       _tensor(lib, 3, 2), driver="gels"),
    "gels_batch_element": lambda lib: lib.linalg.lstsq(
        lib.tensor(np.stack([random(4, 3), random(4, 3), _zero_column(4, 3, 2)]), dtype=lib.float64),
        _tensor(lib, 3, 4, 2), driver="gels"),
    "gels_batch_element_of_a": lambda lib: lib.linalg.lstsq(  # the index in A's own batch, not the broadcast one
        lib.tensor(np.stack([random(4, 3), random(4, 3), _zero_column(4, 3, 0)])[:, None], dtype=lib.float64),
        _tensor(lib, 1, 2, 4, 2), driver="gels"),
}


@pytest.mark.parametrize("name", list(BAD_CALLS))
def test_bad_calls_raise_torchs_error(torch_ref: ModuleType, name: str) -> None:
    errors = []
    for lib in (minitorch, torch_ref):
        with pytest.raises(Exception) as info:
            BAD_CALLS[name](lib)
        errors.append(info.value)
    ours, theirs = errors
    if isinstance(theirs, torch_ref.linalg.LinAlgError):
        assert isinstance(ours, minitorch.linalg.LinAlgError)
    else:
        assert type(ours) is type(theirs)
    assert str(ours) == str(theirs)


def test_signature_errors_are_type_errors(torch_ref: ModuleType) -> None:
    for lib in (minitorch, torch_ref):
        A, B = _tensor(lib, 5, 3), _tensor(lib, 5, 2)
        with pytest.raises(TypeError):
            lib.linalg.lstsq(A, B, 1e-3, "gelsd")  # driver is keyword-only
        with pytest.raises(TypeError):
            lib.linalg.lstsq(A)


def test_cuda_takes_gels_only(small_cuda: None) -> None:
    """PyTorch's rules on CUDA: ``gels`` by default (no rank, no singular values), no other driver."""
    a, b = random(5, 3), random(5, 2)
    A = minitorch.tensor(a, dtype=minitorch.float64, device="cuda", requires_grad=True)
    B = minitorch.tensor(b, dtype=minitorch.float64, device="cuda")
    result = linalg.lstsq(A, B)
    assert result.solution.device.type == "cuda" and result.rank.device.type == "cuda"
    assert result.rank.numel() == 0 and result.singular_values.numel() == 0 and result.residuals.shape == (2,)
    cpu = run(minitorch, a, b, driver="gels")
    np.testing.assert_allclose(result.solution.cpu().detach().numpy(), cpu.solution.numpy(), rtol=1e-12)
    result.solution.sum().backward()
    assert A.grad.device.type == "cuda" and A.grad.shape == (5, 3)
    assert linalg.lstsq(A, B, driver="GELS").rank.numel() == 0
    for driver in ("gelsy", "gelsd", "svd"):
        with pytest.raises(RuntimeError, match="^torch.linalg.lstsq: `driver` other than `gels` is not supported on CUDA$"):
            linalg.lstsq(A, B, driver=driver)
