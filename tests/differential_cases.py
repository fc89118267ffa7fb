"""Case generators of the differential fuzz test (``test_differential_fuzz.py``).

A case is plain data: tensor *specs* (a NumPy base array and the view to take of it:
contiguous, transposed, stepped ``[::2]``, expanded or permuted), Python scalars and
keyword arguments. :func:`build` turns a spec into a tensor of either library (PyTorch or
minitorch: both are driven through the same ``lib.<name>`` calls), so each op below is one
function of ``lib`` run twice. The strategies lean on the edges: 0-d tensors, 0-size and
size-1 dims, broadcasting, every dtype, nan/inf/-0.0, dims negative and out of range.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

FLOATS = ("float32", "float64", "float16")
INTS = ("int64", "int32", "uint8")
ALL_DTYPES = FLOATS + INTS + ("bool",)
#: values drawn for float tensors: small, so sums and products stay well conditioned
FLOAT_BOUND = 4.0
INT_BOUND = 6
DECIMALS = 3
SPECIALS = (math.nan, math.inf, -math.inf, -0.0)
MAX_SIDE = 3
MAX_RANK = 3
LAYOUTS = ("contiguous", "contiguous", "transposed", "stepped", "expanded", "permuted")


@dataclass(frozen=True)
class Spec:
    """A tensor to build: ``array`` laid out by ``layout`` (``arg``: the permutation or the expanded shape)."""

    array: np.ndarray
    layout: str = "contiguous"
    arg: tuple[int, ...] = ()

    def __repr__(self) -> str:
        return f"{self.array.dtype}{list(self.array.shape)}<{self.layout}{list(self.arg) if self.arg else ''}>={self.array.tolist()}"


def build(lib: Any, spec: Spec, grad: bool) -> tuple[Any, Any]:
    """(leaf, view): the leaf holds ``spec.array`` (requiring grad if ``grad``), the view is the op's input."""
    leaf = lib.from_numpy(spec.array.copy())
    if grad:
        leaf.requires_grad_(True)
    if spec.layout == "transposed":
        return leaf, leaf.transpose(-1, -2)
    if spec.layout == "stepped":
        return leaf, leaf[::2]
    if spec.layout == "expanded":
        return leaf, leaf.expand(*spec.arg)
    if spec.layout == "permuted":
        return leaf, leaf.permute(*spec.arg)
    return leaf, leaf


# ---- strategies ----


def sides(low: int = 0) -> st.SearchStrategy[int]:
    """A dimension's size: 1..MAX_SIDE, and now and then 0 unless ``low`` is positive."""
    return st.integers(low, MAX_SIDE) if low > 0 else st.one_of(st.integers(1, MAX_SIDE), st.just(0))


def shapes(min_rank: int = 0, max_rank: int = MAX_RANK, low: int = 0) -> st.SearchStrategy[tuple[int, ...]]:
    return st.lists(sides(low), min_size=min_rank, max_size=max_rank).map(tuple)


def elements(dtype: str, specials: bool) -> st.SearchStrategy[Any]:
    if dtype == "bool":
        return st.booleans()
    if dtype == "uint8":
        return st.integers(0, 2 * INT_BOUND)
    if dtype in INTS:
        return st.integers(-INT_BOUND, INT_BOUND)
    width = {"float16": 16, "float32": 32, "float64": 64}[dtype]
    # rounded: no tiny values whose squares underflow (std, var and norms then differ by algorithm, not by bug)
    finite = st.floats(-FLOAT_BOUND, FLOAT_BOUND, width=width).map(
        lambda v: float(np.dtype(dtype).type(round(v, DECIMALS))))
    if not specials:
        return finite
    return st.one_of(finite, finite, finite, st.sampled_from(SPECIALS))


@st.composite
def specs(draw: st.DrawFn, dtype: str, shape: tuple[int, ...], specials: bool = True) -> Spec:
    """A spec of ``dtype`` whose view has ``shape``, in a random layout."""
    layout = draw(st.sampled_from(LAYOUTS))
    rank = len(shape)
    base, arg = shape, ()
    if layout == "transposed" and rank >= 2:
        base = shape[:-2] + (shape[-1], shape[-2])
    elif layout == "stepped" and rank >= 1:
        base = (2 * shape[0],) + shape[1:]
    elif layout == "expanded" and rank >= 1:
        ones = draw(st.lists(st.booleans(), min_size=rank, max_size=rank))
        base, arg = tuple(1 if one else n for one, n in zip(ones, shape)), shape
    elif layout == "permuted" and rank >= 2:
        arg = tuple(draw(st.permutations(range(rank))))
        base = tuple(shape[i] for i in np.argsort(arg))  # base.permute(arg) has ``shape``
    else:
        layout = "contiguous"
    array = draw(hnp.arrays(np.dtype(dtype), base, elements=elements(dtype, specials)))
    return Spec(array, layout, arg)


def dtypes(allowed: tuple[str, ...] = ALL_DTYPES) -> st.SearchStrategy[str]:
    return st.sampled_from(allowed)


def dims(rank: int, bad: bool = True) -> st.SearchStrategy[int]:
    """A dim of a rank-``rank`` tensor, negative half the time, now and then out of range."""
    bound = max(rank, 1)
    good = st.integers(-bound, bound - 1)
    return st.one_of(good, good, good, st.sampled_from([bound, -bound - 1])) if bad else good


def broadcast_shapes(draw: st.DrawFn, shape: tuple[int, ...]) -> tuple[int, ...]:
    """A shape that broadcasts with ``shape`` (or, rarely, one that does not)."""
    rank = draw(st.integers(0, len(shape)))
    tail = shape[len(shape) - rank:]
    other = tuple(draw(st.sampled_from([n, 1, n, 1, n + 1])) for n in tail)
    if draw(st.booleans()):
        other = tuple(draw(st.integers(1, 2)) for _ in range(draw(st.integers(0, 1)))) + other
    return other


def python_scalars(bools: bool = True) -> st.SearchStrategy[Any]:
    numbers = st.one_of(st.integers(-3, 3), st.floats(-3, 3, width=32), st.sampled_from([math.nan, math.inf, -0.0]))
    return st.one_of(numbers, st.booleans()) if bools else numbers


# ---- the cases of each kind of op: (args, kwargs) where args holds Specs and plain values ----

Case = tuple[list[Any], dict[str, Any]]


@st.composite
def unary(draw: st.DrawFn, allowed: tuple[str, ...] = ALL_DTYPES, specials: bool = True) -> Case:
    dtype = draw(dtypes(allowed))
    return [draw(specs(dtype, draw(shapes()), specials))], {}


@st.composite
def binary(draw: st.DrawFn, allowed: tuple[str, ...] = ALL_DTYPES, scalar: bool = True, specials: bool = True,
           bools: bool = True) -> Case:
    shape = draw(shapes())
    a = draw(specs(draw(dtypes(allowed)), shape, specials))
    if scalar and draw(st.integers(0, 3)) == 0:
        return [a, draw(python_scalars(bools))], {}
    b = draw(specs(draw(dtypes(allowed)), broadcast_shapes(draw, shape), specials))
    return ([b, a] if draw(st.booleans()) else [a, b]), {}


@st.composite
def reduction(draw: st.DrawFn, allowed: tuple[str, ...] = ALL_DTYPES, dim_none: bool = True,
              keepdim: bool = True, specials: bool = True) -> Case:
    dtype = draw(dtypes(allowed))
    shape = draw(shapes())
    kwargs: dict[str, Any] = {}
    if not dim_none or draw(st.booleans()):
        kwargs["dim"] = draw(dims(len(shape)))
        if keepdim:
            kwargs["keepdim"] = draw(st.booleans())
    return [draw(specs(dtype, shape, specials))], kwargs


@st.composite
def clamp_case(draw: st.DrawFn) -> Case:
    dtype = draw(dtypes(FLOATS + ("int64", "int32")))
    shape = draw(shapes())
    x = draw(specs(dtype, shape))
    bounds = []
    for _ in range(2):
        kind = draw(st.sampled_from(["none", "scalar", "tensor"]))
        if kind == "scalar":
            bounds.append(draw(st.one_of(st.integers(-3, 3), st.floats(-3, 3, width=32))))
        elif kind == "tensor":
            bounds.append(draw(specs(dtype, broadcast_shapes(draw, shape), specials=False)))
        else:
            bounds.append(None)
    return [x], {"min": bounds[0], "max": bounds[1]}


@st.composite
def where_case(draw: st.DrawFn) -> Case:
    shape = draw(shapes())
    cond = draw(specs("bool", broadcast_shapes(draw, shape)))
    a = draw(specs(draw(dtypes(FLOATS + ("int64",))), shape))
    b: Any = draw(st.one_of(python_scalars(), specs(draw(dtypes(FLOATS + ("int64",))), broadcast_shapes(draw, shape))))
    return [cond, a, b], {}


@st.composite
def std_case(draw: st.DrawFn) -> Case:
    # finite values: at an infinite input PyTorch's gradient is inf beside nan, minitorch's nan throughout
    args, kwargs = draw(reduction(FLOATS, specials=False))
    kwargs["correction"] = draw(st.sampled_from([0, 1, 2]))
    return args, kwargs


@st.composite
def cumulative(draw: st.DrawFn, specials: bool = True) -> Case:
    dtype = draw(dtypes())
    shape = draw(shapes())
    return [draw(specs(dtype, shape, specials))], {"dim": draw(dims(len(shape)))}


@st.composite
def softmax_case(draw: st.DrawFn) -> Case:
    shape = draw(shapes())
    return [draw(specs(draw(dtypes(FLOATS)), shape))], {"dim": draw(dims(len(shape)))}


@st.composite
def reshape_case(draw: st.DrawFn) -> Case:
    shape = draw(shapes())
    x = draw(specs(draw(dtypes()), shape))
    n = math.prod(shape)
    target = list(draw(shapes(0, 3)))
    if draw(st.booleans()):  # a valid one: n's factors
        target = [n] if n else [0]
        if n and n % 2 == 0 and draw(st.booleans()):
            target = [2, n // 2]
        if target and draw(st.booleans()):
            target[draw(st.integers(0, len(target) - 1))] = -1
    return [x], {"shape": tuple(target)}


@st.composite
def one_tensor_with_dim(draw: st.DrawFn, min_rank: int = 0, extra: int = 0) -> Case:
    shape = draw(shapes(min_rank))
    return [draw(specs(draw(dtypes()), shape))], {"dim": draw(dims(len(shape) + extra))}


@st.composite
def transpose_case(draw: st.DrawFn) -> Case:
    shape = draw(shapes())
    return [draw(specs(draw(dtypes()), shape))], {"dim0": draw(dims(len(shape))), "dim1": draw(dims(len(shape)))}


@st.composite
def permute_case(draw: st.DrawFn) -> Case:
    shape = draw(shapes())
    perm = list(draw(st.permutations(range(len(shape)))))
    perm = [p - len(shape) if draw(st.booleans()) else p for p in perm]
    if perm and draw(st.integers(0, 5)) == 0:
        perm[0] = perm[-1]  # a repeated dim: refused
    return [draw(specs(draw(dtypes()), shape))], {"dims": tuple(perm)}


@st.composite
def expand_case(draw: st.DrawFn) -> Case:
    shape = draw(shapes())
    target = tuple(draw(st.sampled_from([n, n, 2, -1])) if n == 1 else draw(st.sampled_from([n, n, -1, n + 1])) for n in shape)
    target = tuple(draw(st.lists(st.integers(0, 2), max_size=1))) + target
    return [draw(specs(draw(dtypes()), shape))], {"size": target}


@st.composite
def repeat_case(draw: st.DrawFn) -> Case:
    shape = draw(shapes())
    reps = tuple(draw(st.lists(st.integers(0, 2), min_size=max(len(shape) - draw(st.integers(0, 1)), 0), max_size=len(shape) + 1)))
    return [draw(specs(draw(dtypes()), shape))], {"repeats": reps}


@st.composite
def cat_case(draw: st.DrawFn) -> Case:
    shape = draw(shapes(1))
    dim = draw(dims(len(shape)))
    parts = []
    for _ in range(draw(st.integers(1, 3))):
        part = list(shape)
        if -len(shape) <= dim < len(shape):
            part[dim] = draw(sides())
        parts.append(draw(specs(draw(dtypes()), tuple(part))))
    return parts, {"dim": dim}


@st.composite
def stack_case(draw: st.DrawFn) -> Case:
    shape = draw(shapes())
    dtype = draw(dtypes())
    parts = [draw(specs(dtype, shape)) for _ in range(draw(st.integers(1, 3)))]
    return parts, {"dim": draw(dims(len(shape) + 1))}


@st.composite
def split_case(draw: st.DrawFn) -> Case:
    args, kwargs = draw(one_tensor_with_dim(1))
    kwargs["size"] = draw(st.one_of(st.integers(1, 3), st.lists(st.integers(0, 3), min_size=1, max_size=3)))
    return args, kwargs


@st.composite
def chunk_case(draw: st.DrawFn) -> Case:
    args, kwargs = draw(one_tensor_with_dim(1))
    kwargs["chunks"] = draw(st.integers(1, 4))
    return args, kwargs


@st.composite
def narrow_case(draw: st.DrawFn) -> Case:
    args, kwargs = draw(one_tensor_with_dim(1))
    kwargs["start"] = draw(st.integers(-3, 3))
    kwargs["length"] = draw(st.integers(0, 3))
    return args, kwargs


@st.composite
def flip_case(draw: st.DrawFn) -> Case:
    shape = draw(shapes())
    flip_dims = tuple(draw(st.lists(dims(len(shape)), max_size=2, unique=True)))
    return [draw(specs(draw(dtypes()), shape))], {"dims": flip_dims}


@st.composite
def roll_case(draw: st.DrawFn) -> Case:
    shape = draw(shapes())
    x = draw(specs(draw(dtypes()), shape))
    if draw(st.booleans()):
        return [x], {"shifts": draw(st.integers(-4, 4)), "dims": None}
    # dims in range: PyTorch returns an empty input without checking dims at all
    return [x], {"shifts": draw(st.integers(-4, 4)), "dims": draw(dims(len(shape), bad=math.prod(shape) > 0))}


@st.composite
def tri_case(draw: st.DrawFn) -> Case:
    shape = draw(shapes(draw(st.integers(1, 2))))
    return [draw(specs(draw(dtypes()), shape))], {"diagonal": draw(st.integers(-3, 3))}


@st.composite
def movedim_case(draw: st.DrawFn) -> Case:
    shape = draw(shapes())
    return [draw(specs(draw(dtypes()), shape))], {"source": draw(dims(len(shape))), "destination": draw(dims(len(shape)))}


def _index(draw: st.DrawFn, shape: tuple[int, ...], size: int) -> Spec:
    high = max(size - 1, 0)
    values = draw(hnp.arrays(np.int64, shape, elements=st.one_of(st.integers(-size, high), st.integers(-size, high),
                                                                      st.sampled_from([size, -size - 1]))))
    return Spec(values)


@st.composite
def gather_case(draw: st.DrawFn) -> Case:
    shape = draw(shapes(1))
    dim = draw(dims(len(shape), bad=False))
    index_shape = tuple(draw(st.integers(0, n)) if d != dim % len(shape) else draw(sides()) for d, n in enumerate(shape))
    x = draw(specs(draw(dtypes(FLOATS + ("int64",))), shape))
    return [x, _index(draw, index_shape, shape[dim])], {"dim": dim}


@st.composite
def scatter_case(draw: st.DrawFn) -> Case:
    (x, index), kwargs = draw(gather_case())
    dtype = str(x.array.dtype)
    src = draw(specs(dtype, index.array.shape))
    return [x, index, src], kwargs


@st.composite
def index_select_case(draw: st.DrawFn) -> Case:
    shape = draw(shapes(1))
    dim = draw(dims(len(shape)))
    size = shape[dim] if -len(shape) <= dim < len(shape) else 1
    index = Spec(draw(hnp.arrays(np.int64, (draw(sides()),), elements=st.integers(0, max(size - 1, 0)))))
    return [draw(specs(draw(dtypes()), shape)), index], {"dim": dim}


@st.composite
def masked_fill_case(draw: st.DrawFn) -> Case:
    shape = draw(shapes())
    x = draw(specs(draw(dtypes(FLOATS + ("int64", "bool"))), shape))
    mask = draw(specs("bool", broadcast_shapes(draw, shape)))
    return [x, mask], {"value": draw(python_scalars())}


@st.composite
def take_case(draw: st.DrawFn) -> Case:
    shape = draw(shapes())
    x = draw(specs(draw(dtypes(FLOATS + ("int64",))), shape))
    return [x, _index(draw, draw(shapes(0, 2)), math.prod(shape))], {}


@st.composite
def topk_case(draw: st.DrawFn) -> Case:
    shape = draw(shapes(1))
    dim = draw(dims(len(shape)))
    size = shape[dim] if -len(shape) <= dim < len(shape) else 1
    x = draw(specs(draw(dtypes(FLOATS[:2] + ("int64",))), shape, specials=False))
    return [x], {"k": draw(st.integers(0, size + 1)), "dim": dim, "largest": draw(st.booleans())}


@st.composite
def sort_case(draw: st.DrawFn) -> Case:
    shape = draw(shapes())
    x = draw(specs(draw(dtypes(FLOATS[:2] + ("int64", "int32", "uint8"))), shape, specials=draw(st.booleans())))
    return [x], {"dim": draw(dims(len(shape))), "descending": draw(st.booleans()), "stable": True}


@st.composite
def matmul_case(draw: st.DrawFn) -> Case:
    dtype = draw(dtypes(("float32", "float64")))
    m, k, n = draw(sides()), draw(sides()), draw(sides())
    batch = draw(shapes(0, 2))
    a_shape = draw(st.sampled_from([(k,), (m, k), batch + (m, k)]))
    b_batch = tuple(draw(st.sampled_from([s, 1])) for s in batch)[draw(st.integers(0, len(batch))):]
    b_shape = draw(st.sampled_from([(k,), (k, n), b_batch + (k, n)]))
    if draw(st.integers(0, 9)) == 0:
        b_shape = b_shape[:-2] + (k + 1,) + b_shape[-1:] if len(b_shape) >= 2 else (k + 1,)
    return [draw(specs(dtype, a_shape, specials=False)), draw(specs(dtype, b_shape, specials=False))], {}


@st.composite
def unique_case(draw: st.DrawFn) -> Case:
    x = draw(specs(draw(dtypes(("float32", "float64", "int64", "bool"))), draw(shapes()), specials=False))
    return [x], {"return_inverse": draw(st.booleans()), "return_counts": draw(st.booleans())}


# ---- the ops: name -> (case strategy, call of lib) ----

Call = Callable[..., Any]


@dataclass(frozen=True)
class Op:
    name: str
    cases: st.SearchStrategy[Case]
    call: Call
    grad: bool = True  # compare the gradients of float inputs
    skip: tuple[int, ...] = ()  # outputs not compared (indices among ties, which PyTorch leaves unspecified)


def _kw(name: str) -> Call:
    """``lib.<name>(*args, **kwargs)``."""
    return lambda lib, *args, **kwargs: getattr(lib, name)(*args, **kwargs)


UNARY_MATH = ("neg", "exp", "log", "sqrt", "sin", "cos", "tanh", "sigmoid", "sign", "reciprocal", "rsqrt", "expm1", "log1p", "square", "erf", "frac", "isnan",
              "isinf", "isfinite", "logical_not", "signbit", "exp2", "log2", "atan", "sinh", "asin")
#: PyTorch refuses bool tensors here (NotImplementedError); minitorch computes them: not compared
NO_BOOL_UNARY = ("abs", "relu", "floor", "ceil", "round", "trunc")
BINARY_MATH = ("add", "sub", "mul", "div", "fmod", "remainder", "floor_divide", "logical_and", "logical_or",
               "logical_xor", "hypot")
#: PyTorch takes no Python number as ``other`` here (TypeError); minitorch does: not compared
TENSOR_ONLY_BINARY = ("maximum", "minimum")
NUMBERS = FLOATS + INTS
COMPARISONS = ("eq", "ne", "lt", "le", "gt", "ge")
BITWISE = ("bitwise_and", "bitwise_or", "bitwise_xor")


def _split(lib: Any, x: Any, size: Any, dim: int) -> Any:
    return lib.split(x, size, dim=dim)


def _scatter(lib: Any, x: Any, index: Any, src: Any, dim: int) -> Any:
    return x.clone().scatter_(dim, index, src)


def _view(lib: Any, x: Any, shape: tuple[int, ...]) -> Any:
    return x.view(*shape) if shape else x.view(())


def _expand(lib: Any, x: Any, size: tuple[int, ...]) -> Any:
    return x.expand(*size) if size else x.expand(())


def _repeat(lib: Any, x: Any, repeats: tuple[int, ...]) -> Any:
    return x.repeat(*repeats) if repeats else x.repeat(())


def _unique(lib: Any, x: Any, **kwargs: Any) -> Any:
    return lib.unique(x, sorted=True, **kwargs)


def _ops() -> list[Op]:
    ops: list[Op] = []
    for name in UNARY_MATH:
        ops.append(Op(name, unary(), _kw(name)))
    for name in NO_BOOL_UNARY:
        ops.append(Op(name, unary(NUMBERS), _kw(name)))
    for name in BINARY_MATH:
        ops.append(Op(name, binary(), _kw(name)))
    for name in TENSOR_ONLY_BINARY:
        ops.append(Op(name, binary(NUMBERS, scalar=False), _kw(name)))
    # PyTorch has no bool pow; and at x = 0 its gradient of x ** False is nan (of x ** 0, 0): no bool exponents
    ops.append(Op("pow", binary(NUMBERS, bools=False), _kw("pow")))
    # no uint8: PyTorch's gradient negates a uint8 operand in uint8 (-1 is 255), a bug of its own
    ops.append(Op("atan2", binary(FLOATS + ("int64", "int32"), scalar=False), _kw("atan2")))
    # values only: PyTorch's gradient reaches ``other`` (zeros), minitorch's does not (None)
    ops.append(Op("copysign", binary(), _kw("copysign"), grad=False))
    for name in COMPARISONS:
        ops.append(Op(name, binary(), _kw(name), grad=False))
    for name in BITWISE:
        ops.append(Op(name, binary(INTS + ("bool",)), _kw(name), grad=False))
    ops += [
        Op("where", where_case(), _kw("where")),
        Op("clamp", clamp_case(), _kw("clamp")),
    ]
    for name in ("sum", "mean", "amax", "amin", "any", "all", "count_nonzero", "nansum"):
        ops.append(Op(name, reduction(keepdim=name != "count_nonzero"), _kw(name)))
    # products of finite values: beside an infinity, PyTorch's gradient takes shortcuts (0 for two zeros
    # and an inf, nan for a cumulative product's inf) where minitorch's is the exact product of the others
    ops.append(Op("prod", reduction(specials=False), _kw("prod")))
    # finite values: at an infinite input PyTorch's gradient is exp(inf - inf) = nan, minitorch's finite
    ops.append(Op("logsumexp", reduction(dim_none=False, specials=False), _kw("logsumexp")))
    ops += [
        Op("max_dim", reduction(dim_none=False), _kw("max")),
        Op("min_dim", reduction(dim_none=False), _kw("min")),
        Op("max_all", unary(), _kw("max")),
        Op("argmax", reduction(), _kw("argmax"), grad=False),
        Op("argmin", reduction(), _kw("argmin"), grad=False),
        Op("std", std_case(), _kw("std")),
        Op("var", std_case(), _kw("var")),
        Op("cumsum", cumulative(), _kw("cumsum")),
        Op("cumprod", cumulative(specials=False), _kw("cumprod")),
        Op("softmax", softmax_case(), _kw("softmax")),
        Op("log_softmax", softmax_case(), _kw("log_softmax")),
        Op("reshape", reshape_case(), _kw("reshape")),
        Op("view", reshape_case(), lambda lib, x, shape: _view(lib, x, shape)),
        Op("flatten", transpose_case(), lambda lib, x, dim0, dim1: lib.flatten(x, dim0, dim1)),
        Op("squeeze", one_tensor_with_dim(), _kw("squeeze")),
        Op("unsqueeze", one_tensor_with_dim(extra=1), _kw("unsqueeze")),
        Op("transpose", transpose_case(), _kw("transpose")),
        Op("permute", permute_case(), _kw("permute")),
        Op("expand", expand_case(), lambda lib, x, size: _expand(lib, x, size)),
        Op("repeat", repeat_case(), lambda lib, x, repeats: _repeat(lib, x, repeats)),
        Op("cat", cat_case(), lambda lib, *xs, dim: lib.cat(list(xs), dim=dim)),
        Op("stack", stack_case(), lambda lib, *xs, dim: lib.stack(list(xs), dim=dim)),
        Op("split", split_case(), lambda lib, x, dim, size: _split(lib, x, size, dim)),
        Op("chunk", chunk_case(), _kw("chunk")),
        Op("narrow", narrow_case(), _kw("narrow")),
        Op("flip", flip_case(), _kw("flip")),
        Op("roll", roll_case(), _kw("roll")),
        Op("tril", tri_case(), _kw("tril")),
        Op("triu", tri_case(), _kw("triu")),
        Op("movedim", movedim_case(), _kw("movedim")),
        Op("gather", gather_case(), _kw("gather")),
        Op("scatter_", scatter_case(), _scatter),
        Op("index_select", index_select_case(), _kw("index_select")),
        Op("masked_fill", masked_fill_case(), _kw("masked_fill")),
        Op("take", take_case(), _kw("take")),
        Op("sort", sort_case(), _kw("sort")),
        Op("argsort", sort_case(), _kw("argsort"), grad=False),
        Op("topk", topk_case(), _kw("topk"), skip=(1,)),
        Op("unique", unique_case(), _unique, grad=False),
        Op("matmul", matmul_case(), _kw("matmul")),
    ]
    return ops


OPS: dict[str, Op] = {op.name: op for op in _ops()}


def materialize(lib: Any, args: list[Any], kwargs: dict[str, Any], grad: bool) -> tuple[list[Any], list[Any], dict[str, Any]]:
    """(leaves needing grad, positional args, kwargs) with every Spec built as a ``lib`` tensor."""
    leaves: list[Any] = []

    def one(value: Any) -> Any:
        if not isinstance(value, Spec):
            return value
        wants = grad and value.array.dtype.kind == "f" and value.array.dtype != np.float16
        leaf, view = build(lib, value, wants)
        if wants:
            leaves.append(leaf)
        return view

    return leaves, [one(a) for a in args], {k: one(v) for k, v in kwargs.items()}


def flat_outputs(result: Any) -> list[Any]:
    """The tensors of an op's result (tuples and named tuples flattened; Python numbers kept)."""
    if isinstance(result, (tuple, list)):
        return [t for item in result for t in flat_outputs(item)]
    return [result]


def exception_names(error: BaseException) -> list[str]:
    return [cls.__name__ for cls in type(error).__mro__]


def describe(args: list[Any], kwargs: dict[str, Any]) -> str:
    return ", ".join([repr(a) for a in args] + [f"{k}={v!r}" for k, v in kwargs.items()])


def tolerance(dtype_name: str) -> tuple[float, float]:
    """(rtol, atol) of torch.testing.assert_close for a dtype."""
    return {"float16": (1e-3, 1e-5), "float32": (1.3e-6, 1e-5), "float64": (1e-7, 1e-7)}.get(dtype_name, (0.0, 0.0))
