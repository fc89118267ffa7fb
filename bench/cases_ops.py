"""Per-op overhead on tiny tensors, elementwise and reduction throughput (float32)."""

from __future__ import annotations

from typing import Any, Callable, Optional

import numpy as np

import minitorch
from harness import MINITORCH, NUMPY, TORCH, Call, Case, Context, Factory, Row, Target

#: tiny tensors: almost no arithmetic, so the time is the fixed cost of an op
TINY_SIDE = 8
#: a DataLoader batch of MNIST-sized samples, as default_collate stacks it
COLLATE_BATCH, SAMPLE_SHAPE = 64, (1, 28, 28)
#: a batch of 64 rows of 32 features cut into pieces: an LSTM's gates (chunk), a sequence's steps (unbind)
PIECES_SHAPE, GATES = (64, 32), 4
ELEMENTWISE_SIZES = (10**4, 10**5, 10**6, 10**7)
#: an in-place update of a 256 x 784 weight, as a hand-written training loop makes them
IN_PLACE_SHAPE = (256, 784)
#: "large" elementwise ops, where the issue's target applies
LARGE_ELEMENTWISE = 10**6
ELEMENTWISE_TARGET = Target("torch_ratio", 1.5)
#: one op on 8 x 8 tensors (issue 23: a + b and a @ b at most 2.5x PyTorch); a whole backward() at most 5x
TINY_OP_TARGET = Target("torch_ratio", 2.5)
OVERHEAD_TARGET = Target("torch_ratio", 5.0)

Op = Callable[..., Any]


def float32(rng: np.random.Generator, *shape: int) -> np.ndarray:
    return rng.standard_normal(shape, dtype=np.float32)


def to_minitorch(array: np.ndarray, requires_grad: bool = False) -> Any:
    """A minitorch tensor sharing ``array``'s memory where this minitorch has ``from_numpy``."""
    if not requires_grad and hasattr(minitorch, "from_numpy"):
        return minitorch.from_numpy(array)
    return minitorch.tensor(array, requires_grad=requires_grad)


def same_op(ctx: Context, arrays: list[np.ndarray], op: Op, numpy_op: Optional[Op] = None,
            torch_op: Optional[Op] = None) -> dict[str, Factory]:
    """Factories calling ``op`` on the same data as minitorch tensors, NumPy arrays and PyTorch tensors."""

    def mt() -> Call:
        tensors = [to_minitorch(a) for a in arrays]
        return lambda: op(*tensors)

    def np_() -> Call:
        return lambda: (numpy_op or op)(*arrays)

    def th() -> Optional[Call]:
        if ctx.torch is None:
            return None
        tensors = [ctx.torch.from_numpy(a) for a in arrays]
        return lambda: (torch_op or op)(*tensors)

    return {MINITORCH: mt, NUMPY: np_, TORCH: th}


def three_op_graph(a: Any, b: Any) -> Any:
    """mul, add, sum: a scalar that depends on both leaves."""
    return (a * b + a).sum()


def _graph_factories(ctx: Context, arrays: list[np.ndarray], keep_graph: bool) -> dict[str, Factory]:
    """``backward()`` alone on a kept graph (``keep_graph``) or the graph built and run backwards each call."""

    def make(library: Any) -> Call:
        leaves = [library.tensor(a, requires_grad=True) for a in arrays]
        if not keep_graph:
            return lambda: three_op_graph(*leaves).backward()
        out = three_op_graph(*leaves)
        return lambda: out.backward(retain_graph=True)

    return {MINITORCH: lambda: make(minitorch), TORCH: lambda: make(ctx.torch) if ctx.torch else None}


def overhead_cases(ctx: Context) -> list[Case]:
    rng = np.random.default_rng(ctx.seed)
    arrays = [float32(rng, TINY_SIDE, TINY_SIDE), float32(rng, TINY_SIDE, TINY_SIDE)]
    shape = f"{TINY_SIDE}x{TINY_SIDE}"
    row = [Row(MINITORCH, target=OVERHEAD_TARGET)]
    tiny_op = [Row(MINITORCH, target=TINY_OP_TARGET)]
    samples = [float32(rng, *SAMPLE_SHAPE) for _ in range(COLLATE_BATCH)]
    matrix = float32(rng, *PIECES_SHAPE)
    pieces = "x".join(map(str, PIECES_SHAPE))
    group = "per-op overhead"
    return [
        Case(f"overhead: a + b {shape}", group, same_op(ctx, arrays, lambda a, b: a + b), rows=tiny_op,
             budget_s=0.5, description="one elementwise op on tiny tensors: dispatch, allocation, kernel call"),
        Case(f"overhead: a @ b {shape}", group, same_op(ctx, arrays, lambda a, b: a @ b), rows=tiny_op,
             budget_s=0.5, description="one matmul on tiny tensors"),
        Case(f"overhead: backward() 3-op graph {shape}", group, _graph_factories(ctx, arrays, keep_graph=True),
             rows=row, budget_s=0.5,
             description="backward(retain_graph=True) of (a * b + a).sum(), the graph built once"),
        Case(f"overhead: fwd+backward() 3 ops {shape}", group, _graph_factories(ctx, arrays, keep_graph=False),
             rows=row, budget_s=0.5, description="(a * b + a).sum().backward(), graph built each call"),
        Case(f"overhead: stack of {COLLATE_BATCH} samples {'x'.join(map(str, SAMPLE_SHAPE))}", group,
             same_op(ctx, samples, lambda *xs: minitorch.stack(xs), numpy_op=lambda *xs: np.stack(xs),
                     torch_op=lambda *xs: ctx.torch.stack(xs)),
             budget_s=0.5, description="what a DataLoader's default_collate does per batch: one stack of the samples"),
        Case(f"overhead: chunk({GATES}, 1) of {pieces}", group,
             same_op(ctx, [matrix], lambda a: a.chunk(GATES, 1), numpy_op=lambda a: np.split(a, GATES, 1)),
             budget_s=0.5, description="an LSTM cell's gates cut from one matrix: views, one node for all"),
        Case(f"overhead: unbind(0) of {pieces}", group,
             same_op(ctx, [matrix], lambda a: a.unbind(0), numpy_op=lambda a: list(a)),
             budget_s=0.5, description="a batch cut into its rows (iterating a tensor does this): 64 views"),
    ]


def size_text(size: int) -> str:
    exponent = round(np.log10(size))
    return f"1e{exponent}" if 10**exponent == size else str(size)


def elementwise_cases(ctx: Context) -> list[Case]:
    rng = np.random.default_rng(ctx.seed + 1)
    cases = []
    for size in ELEMENTWISE_SIZES:
        a, b = float32(rng, size), float32(rng, size)
        large = size >= LARGE_ELEMENTWISE
        row = [Row(MINITORCH, target=ELEMENTWISE_TARGET if large else None)]
        cases += [
            Case(f"add {size_text(size)} float32", "elementwise", same_op(ctx, [a, b], lambda x, y: x + y),
                 rows=row, description="a + b into a new tensor (memory bound)"),
            Case(f"exp {size_text(size)} float32", "elementwise",
                 same_op(ctx, [a], lambda x: x.exp(), numpy_op=np.exp), rows=row,
                 description="a.exp() into a new tensor"),
        ]
        if size == LARGE_ELEMENTWISE:
            cases.append(Case(f"square {size_text(size)} float32", "elementwise",
                              same_op(ctx, [a], lambda x: x**2, numpy_op=np.square), rows=[Row(MINITORCH)],
                              description="a ** 2 into a new tensor (as in a squared error)"))
    return cases


def in_place_cases(ctx: Context) -> list[Case]:
    """``x.add_(y)`` and its kin on a weight-sized tensor: the updates of a hand-written training loop.
    Each call writes over ``x`` again (a factor of 1 keeps ``mul_``'s values from decaying into
    subnormals, which would time another path)."""
    rng = np.random.default_rng(ctx.seed + 5)
    x, y = float32(rng, *IN_PLACE_SHAPE), float32(rng, *IN_PLACE_SHAPE)
    shape = "x".join(map(str, IN_PLACE_SHAPE))
    row = [Row(MINITORCH)]
    return [
        Case(f"in place: x.add_(y) {shape}", "elementwise",
             same_op(ctx, [x, y], lambda a, b: a.add_(b), numpy_op=lambda a, b: np.add(a, b, out=a)), rows=row,
             description="x += y in x's memory"),
        Case(f"in place: x.add_(y, alpha=-0.01) {shape}", "elementwise",
             same_op(ctx, [x, y], lambda a, b: a.add_(b, alpha=-0.01),
                     numpy_op=lambda a, b: np.add(a, np.float32(-0.01) * b, out=a)), rows=row,
             description="a plain SGD update, p.add_(p.grad, alpha=-lr)"),
        Case(f"in place: x.mul_(1.0) {shape}", "elementwise",
             same_op(ctx, [x], lambda a: a.mul_(1.0), numpy_op=lambda a: np.multiply(a, 1.0, out=a)), rows=row,
             description="x *= a number, in x's memory"),
        Case(f"in place: x.relu_() {shape}", "elementwise",
             same_op(ctx, [x], lambda a: a.relu_(), numpy_op=lambda a: np.maximum(a, 0, out=a)), rows=row,
             description="an activation in place (nn.ReLU(inplace=True))"),
    ]


def _sigmoid_numpy(x: np.ndarray) -> np.ndarray:
    return 1 / (1 + np.exp(-x))


#: the float32 functions with vectorised polynomial kernels: (name, NumPy's counterpart or None)
TRANSCENDENTAL = (("log", np.log), ("tanh", np.tanh), ("sigmoid", _sigmoid_numpy), ("erf", None))


def transcendental_cases(ctx: Context) -> list[Case]:
    """``log``, ``tanh``, ``sigmoid`` and ``erf`` of 1e6 float32 (``exp`` is among the elementwise cases)."""
    rng = np.random.default_rng(ctx.seed + 3)
    a = float32(rng, LARGE_ELEMENTWISE)
    positive = np.abs(a) + np.float32(0.1)
    row = [Row(MINITORCH, target=ELEMENTWISE_TARGET)]
    cases = []
    for name, numpy_op in TRANSCENDENTAL:
        data = positive if name == "log" else a
        factories = same_op(ctx, [data], lambda x, name=name: getattr(x, name)(),
                            numpy_op=numpy_op, torch_op=lambda x, name=name: getattr(x, name)())
        if numpy_op is None:
            del factories[NUMPY]  # NumPy has no erf
        cases.append(Case(f"{name} {size_text(LARGE_ELEMENTWISE)} float32", "elementwise", factories, rows=row,
                          description=f"a.{name}() into a new tensor"
                          + (" (of |a| + 0.1)" if name == "log" else "")))
    return cases


def reduction_cases(ctx: Context) -> list[Case]:
    rng = np.random.default_rng(ctx.seed + 2)
    cases = []
    for size in ELEMENTWISE_SIZES:
        a = float32(rng, size)
        cases.append(Case(f"sum {size_text(size)} float32", "reduction", same_op(ctx, [a], lambda x: x.sum()),
                          description="a.sum() of a vector: one number"))
    return cases


#: random draws: a data set's worth of normals, a layer's initialisation, an MNIST epoch's shuffle
RANDOM_SIZE, SHUFFLE_SIZE, INIT_FEATURES = 10**6, 60000, 1024


def random_cases(ctx: Context) -> list[Case]:
    """Seeded draws, which give PyTorch's very numbers: minitorch computes them in NumPy on the host,
    word by word as PyTorch's kernels, so their cost is NumPy's (no target: reported only)."""
    numpy_rng = np.random.default_rng(ctx.seed + 4)

    def draws(make: Callable[[Any], Any], numpy_call: Optional[Call] = None) -> dict[str, Factory]:
        factories: dict[str, Factory] = {
            MINITORCH: lambda: (lambda: make(minitorch)),
            TORCH: lambda: (lambda: make(ctx.torch)) if ctx.torch else None,
        }
        if numpy_call is not None:
            factories[NUMPY] = lambda: numpy_call
        return factories

    size = size_text(RANDOM_SIZE)
    return [
        Case(f"rand {size} float32", "random", draws(lambda lib: lib.rand(RANDOM_SIZE),
                                                      lambda: numpy_rng.random(RANDOM_SIZE, dtype=np.float32)),
             description="uniform [0, 1) draws into a new tensor"),
        Case(f"randn {size} float32", "random", draws(lambda lib: lib.randn(RANDOM_SIZE),
                                                       lambda: numpy_rng.standard_normal(RANDOM_SIZE, dtype=np.float32)),
             description="standard normal draws into a new tensor (Box-Muller in blocks of 16)"),
        Case(f"randperm {SHUFFLE_SIZE}", "random", draws(lambda lib: lib.randperm(SHUFFLE_SIZE),
                                                          lambda: numpy_rng.permutation(SHUFFLE_SIZE)),
             description="a DataLoader's shuffle of an MNIST-sized data set"),
        Case(f"nn.Linear({INIT_FEATURES}, {INIT_FEATURES}) made", "random",
             draws(lambda lib: lib.nn.Linear(INIT_FEATURES, INIT_FEATURES)),
             description="a layer's construction: kaiming_uniform_ of the weight, uniform_ of the bias"),
    ]


def cases(ctx: Context) -> list[Case]:
    return [*overhead_cases(ctx), *elementwise_cases(ctx), *in_place_cases(ctx), *transcendental_cases(ctx),
            *reduction_cases(ctx), *random_cases(ctx)]
