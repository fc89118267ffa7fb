"""The fused multiply-add: ``a * b + c`` rounded once, and the ops PyTorch computes with it.

Oracles: exact rational arithmetic (``fractions.Fraction``), hand-derived cases where one and two
roundings differ, and PyTorch itself (``add``/``sub``/``rsub`` with ``alpha``, ``lerp``,
``addcmul``, ``addcdiv``, SGD), compared bit for bit.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from numba import njit

import minitorch
from minitorch.backends.fused_multiply_add import fma, fma_reference
from minitorch.dispatch import mul_add_op

torch = pytest.importorskip("torch")

FLOATS = (np.float32, np.float64)
#: more elements than the backend's threading threshold, so the threaded kernel runs too
THREADED_SIZE = 70_001


def exact_fma(x: float, y: float, z: float, kind: type) -> float:
    """x*y + z rounded once to ``kind``: through Fraction, for float64; for float32 by comparing the
    two float32 neighbours of the exact value (independent of the module's reference)."""
    exact = Fraction(float(x)) * Fraction(float(y)) + Fraction(float(z))
    if kind is np.float64:
        return np.float64(float(exact))
    candidates = {np.float32(float(exact))}
    for c in list(candidates):
        candidates |= {np.nextafter(c, np.float32(np.inf)), np.nextafter(c, np.float32(-np.inf))}
    return min(sorted(candidates), key=lambda c: (abs(Fraction(float(c)) - exact), int(np.float32(c).view(np.int32)) % 2))


def bits(array: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(array).view(np.uint8)


def same_bits(ours: minitorch.Tensor, theirs: "torch.Tensor") -> bool:
    a, b = ours.detach().numpy(), theirs.detach().numpy()
    return a.dtype == b.dtype and a.shape == b.shape and np.array_equal(bits(a), bits(b))


@njit(cache=False)
def _fma_loop(a, b, c, out):  # type: ignore[no-untyped-def]
    for i in range(a.size):
        out[i] = fma(a[i], b[i], c[i])


# ---- the primitive ----


@pytest.mark.parametrize("kind", FLOATS)
def test_one_rounding_where_two_differ(kind: type) -> None:
    """(1 + e)^2 - (1 + 2e) is e^2 exactly with one rounding; rounding the square first loses it."""
    eps = kind(2.0) ** (-12 if kind is np.float32 else -27)
    x, c = kind(1) + eps, -(kind(1) + 2 * eps)
    expected = eps * eps  # a power of two: exact
    assert x * x + c == 0  # two roundings: the square rounds to 1 + 2e
    out = np.empty(1, kind)
    _fma_loop(np.array([x]), np.array([x]), np.array([c]), out)
    assert out[0] == expected
    assert fma(x, x, c) == expected  # the Python fallback
    assert fma_reference(x, x, c) == expected


@pytest.mark.parametrize("kind", FLOATS)
def test_kernel_and_reference_round_as_exact_arithmetic(kind: type) -> None:
    rng = np.random.default_rng(7)
    a, b, c = ((rng.standard_normal(3000) * 10.0 ** rng.integers(-3, 4, 3000)).astype(kind) for _ in range(3))
    out = np.empty_like(a)
    _fma_loop(a, b, c, out)
    expected = np.array([exact_fma(x, y, z, kind) for x, y, z in zip(a, b, c)], kind)
    assert np.array_equal(bits(out), bits(expected))
    reference = np.array([fma_reference(x, y, z) for x, y, z in zip(a, b, c)], kind)
    assert np.array_equal(bits(reference), bits(expected))


@pytest.mark.parametrize("kind", FLOATS)
def test_special_values(kind: type) -> None:
    big = np.finfo(kind).max
    tiny = np.finfo(kind).smallest_subnormal
    cases = [
        (np.inf, 0.0, 1.0),  # inf * 0: NaN
        (np.inf, 2.0, -np.inf),  # inf - inf: NaN
        (np.nan, 1.0, 1.0),
        (big, 2.0, -big),  # the product overflows but the exact sum does not: one rounding keeps it
        (tiny, 0.5, 0.0),  # half the smallest subnormal: ties to even, 0
        (-0.0, 1.0, 0.0),
        (0.0, -1.0, -0.0),
    ]
    for x, y, z in cases:
        x, y, z = kind(x), kind(y), kind(z)
        out = np.empty(1, kind)
        _fma_loop(np.array([x]), np.array([y]), np.array([z]), out)
        if x == big:
            expected = big  # exact: 2 big - big
        elif x == tiny:
            expected = kind(0.0)
        else:
            expected = kind(float(x) * float(y) + float(z))  # special values: IEEE arithmetic
        if np.isnan(expected):
            assert np.isnan(out[0]), (x, y, z, out[0])  # (a NaN's sign bit is the CPU's choice)
        else:
            assert bits(out).tobytes() == bits(np.array([expected], kind)).tobytes(), (x, y, z, out[0])


# ---- the dispatched op, over layouts ----


def _expected(a: np.ndarray, b: np.ndarray, c: np.ndarray) -> np.ndarray:
    a, b, c = np.broadcast_arrays(a, b, c)
    kind = a.dtype.type
    return np.array([exact_fma(x, y, z, kind) for x, y, z in zip(a.ravel(), b.ravel(), c.ravel())], kind).reshape(a.shape)


LAYOUTS = {
    "contiguous": lambda t: t,
    "transposed": lambda t: t.t(),
    "sliced": lambda t: t[:, ::2],
}


@pytest.mark.parametrize("kind", FLOATS)
@pytest.mark.parametrize("layout", sorted(LAYOUTS))
def test_mul_add_op_over_layouts(kind: type, layout: str) -> None:
    rng = np.random.default_rng(3)
    tensors = [LAYOUTS[layout](minitorch.tensor(rng.standard_normal((12, 14)).astype(kind))) for _ in range(3)]
    arrays = [t.numpy() for t in tensors]
    assert np.array_equal(bits(mul_add_op(*tensors).numpy()), bits(_expected(*arrays)))
    # a number (0-d) in each place, and a row broadcast
    number = minitorch.tensor(kind(0.37))
    row = tensors[0][0]
    for args in ((tensors[0], number, tensors[2]), (number, tensors[1], tensors[2]), (row, tensors[1], number)):
        result = mul_add_op(*args)
        assert np.array_equal(bits(result.numpy()), bits(_expected(*[a.numpy() for a in args])))


@pytest.mark.parametrize("kind", FLOATS)
@pytest.mark.parametrize("size", [5, THREADED_SIZE])
def test_mul_add_op_in_place_and_into_an_operand(kind: type, size: int) -> None:
    rng = np.random.default_rng(size)
    a, b, c = (rng.standard_normal(size).astype(kind) for _ in range(3))
    expected = _expected(a, b, c)
    x = minitorch.tensor(c.copy())
    mul_add_op(minitorch.tensor(a), minitorch.tensor(b), x, out=x)  # out is c
    assert np.array_equal(bits(x.numpy()), bits(expected))
    y = minitorch.tensor(a.copy())
    mul_add_op(y, minitorch.tensor(b), minitorch.tensor(c), out=y)  # out is a: a is read before it is written
    assert np.array_equal(bits(y.numpy()), bits(expected))
    z = minitorch.tensor(a.copy())
    mul_add_op(z, z, z, out=z)  # all three
    assert np.array_equal(bits(z.numpy()), bits(_expected(a, a, a)))


def test_mul_add_op_overlapping_views_read_the_old_values() -> None:
    base = np.arange(12, dtype=np.float32) / np.float32(7)
    t = minitorch.tensor(base.copy())
    mul_add_op(t[1:], minitorch.tensor(np.float32(3)), t[:-1], out=t[:-1])
    expected = base.copy()
    expected[:-1] = _expected(base[1:], np.float32(3), base[:-1])
    assert np.array_equal(bits(t.numpy()), bits(expected))


def test_mul_add_op_of_integers_and_sixteen_bit_floats() -> None:
    ints = [minitorch.tensor([2**62, 3, -5]), minitorch.tensor([2, 4, 6]), minitorch.tensor([1, 1, 1])]
    assert mul_add_op(*ints).tolist() == [-(2**63) + 1, 13, -29]  # 2^63 + 1 wraps in int64, as in PyTorch
    for name in ("float16", "bfloat16"):
        dtype = getattr(minitorch, name)
        a, b, c = (minitorch.tensor(v).to(dtype) for v in ([1.5, 2.25], [3.0, 0.1], [0.001, -4.0]))
        wide = [t.float().numpy() for t in (a, b, c)]
        expected = torch.from_numpy(_expected(*wide)).to(getattr(torch, name))  # in float32, rounded once
        assert same_bits(mul_add_op(a, b, c).float(), expected.float())


def test_mul_add_op_names_mismatched_dtypes() -> None:
    with pytest.raises(TypeError, match="float32, minitorch.float64"):
        mul_add_op(minitorch.ones(2), minitorch.ones(2, dtype=minitorch.float64), minitorch.ones(2))


def test_mul_add_op_of_nothing() -> None:
    empty = minitorch.ones(0, 3)
    assert mul_add_op(empty, empty, empty).shape == (0, 3)


# ---- PyTorch's ops that fuse, bit for bit ----


def _torch_fuses() -> bool:
    """Whether this PyTorch build fuses ``add(alpha=)`` on this CPU (with FMA instructions it does)."""
    eps = 2.0**-12
    x = torch.tensor([1 + eps], dtype=torch.float32)
    return torch.add(torch.tensor([-(1 + 2 * eps)]), x * 1, alpha=float(1 + eps))[0].item() != 0.0


needs_fused_torch = pytest.mark.skipif(not _torch_fuses(), reason="this PyTorch does not fuse its multiply-adds here")


def _pair(rng: np.random.Generator, kind: type, shape: tuple[int, ...]) -> tuple[minitorch.Tensor, "torch.Tensor"]:
    array = rng.standard_normal(shape).astype(kind)
    return minitorch.tensor(array.copy()), torch.from_numpy(array.copy())


@needs_fused_torch
@pytest.mark.parametrize("kind", FLOATS)
@pytest.mark.parametrize("size", [(9, 7), (THREADED_SIZE,)])
def test_scaled_sums_equal_pytorch(kind: type, size: tuple[int, ...]) -> None:
    rng = np.random.default_rng(1)
    (a, ta), (b, tb) = _pair(rng, kind, size), _pair(rng, kind, size)
    for alpha in (0.37, -3, 1e-3):
        assert same_bits(minitorch.add(a, b, alpha=alpha), torch.add(ta, tb, alpha=alpha))
        assert same_bits(minitorch.sub(a, b, alpha=alpha), torch.sub(ta, tb, alpha=alpha))
        assert same_bits(minitorch.rsub(a, b, alpha=alpha), torch.rsub(ta, tb, alpha=alpha))
        x, tx = a.clone(), ta.clone()
        x.add_(b, alpha=alpha)
        tx.add_(tb, alpha=alpha)
        assert same_bits(x, tx)


@pytest.mark.parametrize("kind", FLOATS)
def test_scaled_sums_with_a_broadcast_or_a_number_round_once(kind: type) -> None:
    """A column or a number as ``other``: one rounding at every element. (PyTorch's own kernels
    round these twice in the elements past their last full vector, so it is not the oracle here.)"""
    rng = np.random.default_rng(5)
    a, column = rng.standard_normal((9, 7)).astype(kind), rng.standard_normal((9, 1)).astype(kind)
    x = minitorch.tensor(a.copy())
    x.sub_(minitorch.tensor(column), alpha=0.37)
    assert np.array_equal(bits(x.numpy()), bits(_expected(column, kind(-0.37), a)))
    y = minitorch.tensor(a).add(2.5, alpha=0.37)
    assert np.array_equal(bits(y.numpy()), bits(_expected(kind(2.5), kind(0.37), a)))


@needs_fused_torch
@pytest.mark.parametrize("kind", FLOATS)
def test_lerp_addcmul_addcdiv_equal_pytorch(kind: type) -> None:
    rng = np.random.default_rng(2)
    (a, ta), (b, tb), (c, tc) = (_pair(rng, kind, (16, 11)) for _ in range(3))
    weights = rng.uniform(-1, 2, (16, 11)).astype(kind)
    w, tw = minitorch.tensor(weights), torch.from_numpy(weights)
    for number in (0.1, 0.7, -0.3, 0.5, 1.0):
        assert same_bits(minitorch.lerp(a, b, number), torch.lerp(ta, tb, number))
    assert same_bits(minitorch.lerp(a, b, w), torch.lerp(ta, tb, tw))
    assert same_bits(minitorch.lerp(a, b[0], w[:, :1]), torch.lerp(ta, tb[0], tw[:, :1]))
    for value in (1, 0.3):
        assert same_bits(minitorch.addcmul(a, b, c, value=value), torch.addcmul(ta, tb, tc, value=value))
        assert same_bits(minitorch.addcdiv(a, b, c.abs() + 0.5, value=value),
                         torch.addcdiv(ta, tb, tc.abs() + 0.5, value=value))
    x, tx = a.clone(), ta.clone()
    x.lerp_(b, 0.1).addcmul_(b, c, value=1e-3)
    tx.lerp_(tb, 0.1).addcmul_(tb, tc, value=1e-3)
    assert same_bits(x, tx)


def test_gradients_of_the_fused_ops_equal_pytorch() -> None:
    for call in (lambda lib, x, y, z: lib.lerp(x, y, z), lambda lib, x, y, z: lib.addcmul(x, y, z, value=0.5),
                 lambda lib, x, y, z: lib.add(x, y, alpha=z.detach()[0].item())):
        results = []
        for lib in (minitorch, torch):
            xs = [lib.tensor(v, dtype=lib.float64, requires_grad=True) for v in ([1.0, 2.0], [3.0, 5.0], [0.25, 0.75])]
            y = call(lib, *xs)
            (y * lib.tensor([1.0, 3.0], dtype=lib.float64)).sum().backward()
            results.append(([x.grad.tolist() if x.grad is not None else None for x in xs], y.grad_fn.name()))
        assert results[0] == results[1]


# ---- SGD: the fused kernel and the tensor ops, PyTorch's bits ----

SGD_OPTIONS = [
    {},
    {"weight_decay": 0.01},
    {"momentum": 0.9},
    {"momentum": 0.9, "dampening": 0.1, "weight_decay": 1e-3},
    {"momentum": 0.9, "nesterov": True, "weight_decay": 1e-3},
    {"momentum": 0.5, "maximize": True},
]


def _sgd_run(lib, options: dict, start: np.ndarray, grads: list, transposed: bool) -> np.ndarray:  # type: ignore[no-untyped-def]
    base = lib.tensor(np.ascontiguousarray(start.T)) if transposed else lib.tensor(start.copy())
    param = (base.t() if transposed else base).requires_grad_(True)  # a transposed view takes the tensor ops
    optimizer = lib.optim.SGD([param], lr=0.1, **options)
    for g in grads:
        param.grad = lib.tensor(g.copy())
        optimizer.step()
    return param.detach().contiguous().numpy()


@needs_fused_torch
@pytest.mark.parametrize("kind", FLOATS)
@pytest.mark.parametrize("options", SGD_OPTIONS, ids=lambda o: ",".join(o) or "plain")
def test_sgd_steps_equal_pytorch(kind: type, options: dict) -> None:
    rng = np.random.default_rng(4)
    start = rng.standard_normal((23, 17)).astype(kind)
    grads = [rng.standard_normal((23, 17)).astype(kind) for _ in range(4)]
    theirs = _sgd_run(torch, options, start, grads, transposed=False)
    for transposed in (False, True):
        assert np.array_equal(bits(_sgd_run(minitorch, options, start, grads, transposed)), bits(theirs))


# ---- the in-place forms, computed straight into the tensor when no graph is recorded ----

IN_PLACE_CALLS = {
    "lerp_ by a small number": lambda x, b, c, w: x.lerp_(b, 0.3),
    "lerp_ by a large number": lambda x, b, c, w: x.lerp_(b, 0.8),
    "lerp_ by a tensor": lambda x, b, c, w: x.lerp_(b, w),
    "lerp_ broadcast": lambda x, b, c, w: x.lerp_(b[0], w[:, :1]),
    "lerp_ towards itself": lambda x, b, c, w: x.lerp_(x * 2, 0.3),
    "addcmul_": lambda x, b, c, w: x.addcmul_(b, c, value=0.3),
    "addcmul_ broadcast": lambda x, b, c, w: x.addcmul_(b[0], c),
    "addcmul_ of itself": lambda x, b, c, w: x.addcmul_(x, c, value=0.3),
    "addcdiv_": lambda x, b, c, w: x.addcdiv_(b, c.abs() + 1, value=-0.3),
}


@needs_fused_torch
@pytest.mark.parametrize("kind", FLOATS)
@pytest.mark.parametrize("name", sorted(IN_PLACE_CALLS))
def test_in_place_forms_equal_pytorch(kind: type, name: str) -> None:
    rng = np.random.default_rng(6)
    arrays = [rng.standard_normal((16, 9)).astype(kind) for _ in range(4)]
    ours, theirs = minitorch.tensor(arrays[0].copy()), torch.from_numpy(arrays[0].copy())
    version = ours._version
    IN_PLACE_CALLS[name](ours, *(minitorch.tensor(a) for a in arrays[1:]))
    IN_PLACE_CALLS[name](theirs, *(torch.from_numpy(a) for a in arrays[1:]))
    assert same_bits(ours, theirs)
    assert ours._version == version + 1
