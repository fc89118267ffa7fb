"""Small places where minitorch followed PyTorch loosely, each run under both libraries and compared:
``autograd.grad`` with unused inputs, floor division and remainder (values, dtypes, zero divisors,
gradients), ``add``/``sub``/``rsub`` with ``alpha``, ``is_contiguous`` of empty and size-1 layouts,
products with 1-D operands (values, gradients, nodes, saved operands), and the profiler's events
of a custom ``autograd.Function``."""

from __future__ import annotations

import math
from types import ModuleType
from typing import Any, Callable

import numpy as np
import pytest

import minitorch
from minitorch.tensor_data import TensorData
from torch_oracle import import_torch

torch = import_torch()

LIBRARIES = (minitorch, torch)


def outcome(run: Callable[[ModuleType], Any], lib: ModuleType) -> Any:
    """What ``run(lib)`` gives, comparable across libraries: a tensor's values (NaN as a string,
    signs of zeros kept) and dtype name, or the error's type and message."""
    try:
        value = run(lib)
    except (RuntimeError, NotImplementedError, OverflowError, ValueError) as error:
        return type(error).__name__, str(error).split("\n")[0]
    return described(value)


def described(value: Any) -> Any:
    if isinstance(value, (tuple, list)):
        return [described(v) for v in value]
    if hasattr(value, "tolist") and hasattr(value, "dtype"):
        return _exact(value.tolist()), str(value.dtype).split(".")[-1]
    return value


def _exact(values: Any) -> Any:
    if isinstance(values, list):
        return [_exact(v) for v in values]
    if isinstance(values, float):
        return "nan" if math.isnan(values) else (values, math.copysign(1.0, values))
    return values


def same_in_both(run: Callable[[ModuleType], Any]) -> None:
    ours, theirs = outcome(run, minitorch), outcome(run, torch)
    assert ours == theirs, f"minitorch {ours!r}, torch {theirs!r}"


def node_names(y: Any) -> list[Any]:
    """``y.grad_fn``'s name and those of its next functions (None for an edge to nothing)."""
    return [y.grad_fn.name(), [None if n is None else n.name() for n, _ in y.grad_fn.next_functions]]


# ---- 1. autograd.grad with inputs the outputs do not use ----


GRAD_CASES: dict[str, Callable[[ModuleType], Any]] = {
    "unused second": lambda lib: _grad(lib, lambda x, u: [x, u]),
    "unused first": lambda lib: _grad(lib, lambda x, u: [u, x]),
    "allow_unused": lambda lib: _grad(lib, lambda x, u: [x, u], allow_unused=True),
    "materialize": lambda lib: _grad(lib, lambda x, u: [x, u], materialize_grads=True),
    "materialize refuses allow_unused=False": lambda lib: _grad(lib, lambda x, u: [x, u], allow_unused=False,
                                                                  materialize_grads=True),
    "no inputs": lambda lib: _grad(lib, lambda x, u: []),
}


def _grad(lib: ModuleType, pick: Callable[[Any, Any], list], **options: Any) -> Any:
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    u = lib.tensor([3.0], requires_grad=True)
    return lib.autograd.grad((x * x).sum(), pick(x, u), **options)


@pytest.mark.parametrize("case", GRAD_CASES, ids=str)
def test_grad_of_unused_inputs_as_torch(case: str) -> None:
    same_in_both(GRAD_CASES[case])


def test_unused_input_message_names_its_index() -> None:
    x = minitorch.tensor([1.0], requires_grad=True)
    unused = minitorch.tensor([1.0], requires_grad=True)
    with pytest.raises(RuntimeError, match=r"^The differentiated Tensor at index 1 appears to not have been used"):
        minitorch.autograd.grad(x.sum(), [x, unused])


@pytest.mark.parametrize("create_graph", [False, True])
def test_materialized_zeros_require_grad_with_create_graph(create_graph: bool) -> None:
    def run(lib: ModuleType) -> Any:
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        u = lib.tensor([3.0], requires_grad=True)
        grads = lib.autograd.grad((x * x).sum(), [x, u], create_graph=create_graph, materialize_grads=True)
        return [grads[1], grads[1].requires_grad, grads[1].grad_fn is None]

    same_in_both(run)


def test_grad_of_a_dict_of_inputs_is_a_dict() -> None:
    def run(lib: ModuleType) -> Any:
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        u = lib.tensor([3.0], requires_grad=True)
        grads = lib.autograd.grad((x * x).sum(), {"x": x, "u": u}, allow_unused=True)
        return sorted(grads), grads["x"], grads["u"]

    same_in_both(run)


def test_an_output_without_grad_is_named_by_its_position() -> None:
    def run(lib: ModuleType) -> Any:
        x = lib.tensor([1.0], requires_grad=True)
        return lib.autograd.grad([x.sum(), lib.tensor(2.0)], [x])

    same_in_both(run)


# ---- 2. floor division and remainder ----

FLOATS = ([7.0, -7.0, 7.5, -7.5, 0.0, -0.0, 0.3, -0.3, 1.0, math.inf, -1.0, 1.0],
          [2.0, 2.0, -2.0, -2.0, 3.0, -3.0, 0.1, 0.1, 0.1, 2.0, math.inf, -math.inf])
INTS = ([7, -7, 7, -7, 0, 2**40 + 1, -(2**53 + 3)], [2, 2, -2, -2, 3, 3, -7])

DIVISIONS: dict[str, Callable[[Any, Any, Any], Any]] = {
    "//": lambda lib, a, b: a // b,
    "%": lambda lib, a, b: a % b,
    "fmod": lambda lib, a, b: lib.fmod(a, b),
    "floor_divide": lambda lib, a, b: lib.floor_divide(a, b),
    "div floor": lambda lib, a, b: lib.div(a, b, rounding_mode="floor"),
    "div trunc": lambda lib, a, b: lib.div(a, b, rounding_mode="trunc"),
}


@pytest.mark.parametrize("op", DIVISIONS, ids=str)
@pytest.mark.parametrize("kind", ["float", "int", "int by float", "float by int"])
def test_rounded_division_values_as_torch(op: str, kind: str) -> None:
    def run(lib: ModuleType) -> Any:
        a_values, b_values = FLOATS if kind.startswith("float") else INTS
        a = lib.tensor(a_values)
        b = lib.tensor(b_values)
        if kind == "int by float":
            b = b.to(lib.float64)
        if kind == "float by int":
            b = lib.tensor([2, -3] * (len(a_values) // 2))
        return DIVISIONS[op](lib, a, b)

    same_in_both(run)


@pytest.mark.parametrize("op", DIVISIONS, ids=str)
@pytest.mark.parametrize("divisor", [0, 0.0, 2.5, -2, "zero tensor"], ids=str)
def test_division_by_numbers_and_zero_as_torch(op: str, divisor: Any) -> None:
    def run(lib: ModuleType) -> Any:
        a = lib.tensor([7, -7, 0])
        b = lib.zeros(3, dtype=lib.int64) if divisor == "zero tensor" else divisor
        return DIVISIONS[op](lib, a, b)

    same_in_both(run)


REFLECTED: dict[str, Callable[[Any], Any]] = {
    "7 // int": lambda lib: 7 // lib.tensor([2, -2, 3]),
    "7 % int": lambda lib: 7 % lib.tensor([2, -2, 3]),
    "2.5 // int": lambda lib: 2.5 // lib.tensor([2, -2, 0]),
    "-7.5 % int": lambda lib: -7.5 % lib.tensor([2, -2]),
    "7 // int zero": lambda lib: 7 // lib.tensor([0, 1]),
    "7 % int zero": lambda lib: 7 % lib.tensor([0, 1]),
    "7 // float zero": lambda lib: 7 // lib.tensor([0.0, 1.0]),
    "remainder(number, tensor)": lambda lib: lib.remainder(5, lib.tensor([2, -3])),
    "floor_divide(number, tensor)": lambda lib: lib.floor_divide(5.0, lib.tensor([2.0, -3.0])),
    "div(number, tensor, floor)": lambda lib: lib.div(5.0, lib.tensor([2.0, -3.0]), rounding_mode="floor"),
    "empty // 0": lambda lib: lib.tensor([], dtype=lib.int64) // 0,
    "int8 // -1": lambda lib: lib.tensor([-128, 5], dtype=lib.int8) // -1,
    "uint8 // 3": lambda lib: lib.tensor([7, 200], dtype=lib.uint8) // 3,
    "bool //": lambda lib: lib.tensor([True]) // lib.tensor([True]),
    "bool div trunc": lambda lib: lib.tensor([True]).div(lib.tensor([True]), rounding_mode="trunc"),
    "int //= 2.5": lambda lib: lib.tensor([7]).__ifloordiv__(2.5),
    "int div_ floor": lambda lib: lib.tensor([5, -6]).div_(4, rounding_mode="floor"),
    "int div_ floor by 0": lambda lib: lib.tensor([5, -6]).div_(0, rounding_mode="floor"),
}


@pytest.mark.parametrize("case", REFLECTED, ids=str)
def test_reflected_and_edge_divisions_as_torch(case: str) -> None:
    same_in_both(REFLECTED[case])


DIVISION_GRADS: dict[str, Callable[[Any, Any, Any], Any]] = {
    "%": lambda lib, a, b: a % b,
    "% number": lambda lib, a, b: a % 2.0,
    "% 0-d tensor": lambda lib, a, b: a % lib.tensor(2.0),
    "fmod": lambda lib, a, b: lib.fmod(a, b),
    "fmod number": lambda lib, a, b: lib.fmod(a, 2.0),
    "number %": lambda lib, a, b: 5.0 % b,
    "//": lambda lib, a, b: a // b,
    "// number": lambda lib, a, b: a // 2,
    "number //": lambda lib, a, b: 5.0 // b,
    "div floor": lambda lib, a, b: lib.div(a, b, rounding_mode="floor"),
    "div trunc number": lambda lib, a, b: a.div(2, rounding_mode="trunc"),
}


@pytest.mark.parametrize("op", DIVISION_GRADS, ids=str)
def test_division_nodes_and_gradients_as_torch(op: str) -> None:
    """PyTorch's nodes (``RemainderBackward1``, ``FmodBackward0``, ``DivBackward2``, and for
    ``floor_divide`` and ``number % tensor`` a ``NotImplemented`` node whose backward raises)."""

    def run(lib: ModuleType) -> Any:
        a = lib.tensor([7.0, -7.0, 7.5, -7.5], requires_grad=True)
        b = lib.tensor([2.0, 2.0, -2.0, -2.0], requires_grad=True)
        y = DIVISION_GRADS[op](lib, a, b)
        names = node_names(y) + [type(y.grad_fn).__name__, y.requires_grad]
        try:
            y.sum().backward()
        except RuntimeError as error:
            return names + [str(error)]
        return names + [a.grad, b.grad]

    same_in_both(run)


def test_floor_division_of_integers_is_exact_beyond_float_precision() -> None:
    big = [2**62 + 12345, -(2**62) - 7, 2**53 + 1]
    ours = (minitorch.tensor(big) // minitorch.tensor([3, 7, -1])).tolist()
    assert ours == [2**62 // 3 + 12345 // 3, (-(2**62) - 7) // 7, -(2**53 + 1)]


# ---- 3. add, sub and rsub with alpha ----

ALPHAS: dict[str, Callable[[Any, Any, Any], Any]] = {
    "add alpha 2": lambda lib, a, b: lib.add(a, b, alpha=2),
    "sub alpha 2": lambda lib, a, b: a.sub(b, alpha=2),
    "add alpha 0.5": lambda lib, a, b: a.add(b, alpha=0.5),
    "add alpha 0": lambda lib, a, b: lib.add(a, b, alpha=0),
    "add number alpha": lambda lib, a, b: lib.add(a, 3, alpha=2),
    "sub broadcast alpha": lambda lib, a, b: lib.sub(a, b[:1], alpha=-1.5),
    "add alpha tensor": lambda lib, a, b: lib.add(a, b, alpha=lib.tensor(2.0)),
    "rsub alpha": lambda lib, a, b: lib.rsub(a, b, alpha=2),
    "rsub number alpha": lambda lib, a, b: lib.rsub(a, 3, alpha=2),
    "add_ alpha": lambda lib, a, b: a.clone().add_(b, alpha=2),
    "sub_ alpha": lambda lib, a, b: a.clone().sub_(b, alpha=3),
}


@pytest.mark.parametrize("op", ALPHAS, ids=str)
def test_alpha_is_one_node_with_torch_s_gradients(op: str) -> None:
    def run(lib: ModuleType) -> Any:
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        b = lib.tensor([3.0, 4.0], requires_grad=True)
        y = ALPHAS[op](lib, a, b)
        names = node_names(y)
        y.sum().backward()
        return [y.detach(), names, a.grad, b.grad]

    same_in_both(run)


INTEGER_ALPHAS: dict[str, Callable[[Any], Any]] = {
    "int alpha": lambda lib: lib.add(lib.tensor([1, 2]), lib.tensor([3, 4]), alpha=3),
    "int sub alpha": lambda lib: lib.sub(lib.tensor([1, 2]), lib.tensor([3, 4]), alpha=-3),
    "int float alpha": lambda lib: lib.add(lib.tensor([1, 2]), lib.tensor([3, 4]), alpha=2.5),
    "int whole float alpha": lambda lib: lib.sub(lib.tensor([1, 2]), lib.tensor([3, 4]), alpha=2.0),
    "int add_ float alpha": lambda lib: lib.tensor([1, 2]).add_(lib.tensor([3, 4]), alpha=0.5),
    "int number float alpha": lambda lib: lib.add(lib.tensor([1, 2]), 1, alpha=2.5),
    "int float number alpha": lambda lib: lib.add(lib.tensor([1, 2]), 1.5, alpha=2),
    "float int alpha 2.5": lambda lib: lib.add(lib.tensor([1.5]), lib.tensor([2]), alpha=2.5),
    "int bool alpha": lambda lib: lib.add(lib.tensor([1, 2]), lib.tensor([3, 4]), alpha=True),
    "bool int alpha": lambda lib: lib.add(lib.tensor([True, False]), lib.tensor([True, False]), alpha=2),
    "uint8 negative alpha": lambda lib: lib.add(lib.tensor([5], dtype=lib.uint8), lib.tensor([1], dtype=lib.uint8),
                                                alpha=-1),
    "int8 alpha overflow": lambda lib: lib.add(lib.tensor([5], dtype=lib.int8), lib.tensor([1], dtype=lib.int8),
                                               alpha=128),
    "int32 alpha overflow": lambda lib: lib.add(lib.tensor([1], dtype=lib.int32), lib.tensor([1], dtype=lib.int32),
                                                alpha=2**31),
    "rsub int float alpha": lambda lib: lib.rsub(lib.tensor([1, 2]), 5, alpha=2.5),
    "sub number first": lambda lib: lib.sub(5, lib.tensor([1, 2]), alpha=2),
}


@pytest.mark.parametrize("case", INTEGER_ALPHAS, ids=str)
def test_alpha_of_integer_and_bool_tensors_as_torch(case: str) -> None:
    same_in_both(INTEGER_ALPHAS[case])


# ---- 4. is_contiguous of empty and size-1 layouts ----

LAYOUTS: dict[str, tuple[tuple[int, ...], tuple[int, ...]]] = {
    "empty with odd strides": ((4, 0, 5), (1, 7, 100)),
    "empty 4-d": ((2, 0, 3, 4), (1, 1, 1, 1)),
    "size-1 row with odd stride": ((1, 5), (100, 1)),
    "size-1 column with odd stride": ((5, 1), (1, 7)),
    "all size 1": ((1, 1, 1), (9, 8, 7)),
    "4-d size-1 spatial": ((2, 3, 1, 1), (3, 1, 50, 77)),
    "4-d one channel": ((2, 1, 4, 5), (20, 99, 5, 1)),
    "gap": ((2, 3), (4, 1)),
}


@pytest.mark.parametrize("layout", LAYOUTS, ids=str)
def test_is_contiguous_of_odd_layouts_as_torch(layout: str) -> None:
    shape, strides = LAYOUTS[layout]
    formats = ("contiguous_format", "channels_last", "channels_last_3d", "preserve_format")

    def run(lib: ModuleType) -> Any:
        t = lib.empty(1000).as_strided(shape, strides)
        return [t.is_contiguous(memory_format=getattr(lib, name)) for name in formats]

    same_in_both(run)
    theirs = torch.empty(1000).as_strided(shape, strides).is_contiguous()
    assert TensorData(np.zeros(1000), shape, strides).is_contiguous() == theirs


# ---- 5. products with 1-D operands ----

PRODUCT_SHAPES = [((3,), (3,)), ((3,), (3, 4)), ((2, 3), (3,)), ((5, 2, 3), (3,)), ((3,), (5, 3, 4)), ((1,), (1,))]
SAVED = ("_saved_self", "_saved_tensor", "_saved_vec")


@pytest.mark.parametrize("shapes", PRODUCT_SHAPES, ids=str)
def test_products_with_a_vector_as_torch(shapes: tuple[tuple[int, ...], tuple[int, ...]]) -> None:
    """Values, gradients, the node chain (``DotBackward0``, ``MvBackward0``, ``SqueezeBackward4``
    over ``MmBackward0``, ``UnsafeViewBackward0`` over ``MvBackward0``) and the saved shapes."""
    a_shape, b_shape = shapes

    def run(lib: ModuleType) -> Any:
        a = lib.arange(1.0, 1.0 + math.prod(a_shape)).reshape(a_shape).requires_grad_()
        b = lib.arange(2.0, 2.0 + math.prod(b_shape)).reshape(b_shape).requires_grad_()
        y = a @ b
        inner = [n.name() if n is not None else None for n, _ in y.grad_fn.next_functions]
        saved = [tuple(getattr(y.grad_fn, name).shape) if hasattr(y.grad_fn, name) else None for name in SAVED]
        y.pow(2).sum().backward()
        return [y.detach(), y.grad_fn.name(), inner, saved, a.grad, b.grad]

    same_in_both(run)


MISFITS: dict[str, Callable[[Any], Any]] = {
    "dot lengths": lambda lib: lib.ones(3) @ lib.ones(4),
    "mv lengths": lambda lib: lib.ones(2, 3) @ lib.ones(4),
    "vector @ matrix": lambda lib: lib.ones(3) @ lib.ones(4, 2),
    "batch @ vector": lambda lib: lib.ones(5, 2, 3) @ lib.ones(4),
    "dot dtypes": lambda lib: lib.ones(3) @ lib.ones(3, dtype=lib.float64),
    "int dot": lambda lib: lib.tensor([1, 2]) @ lib.tensor([3, 4]),
    "strided mv": lambda lib: lib.arange(12.0).reshape(3, 4).t() @ lib.arange(10.0)[::4],
}


@pytest.mark.parametrize("case", MISFITS, ids=str)
def test_vector_product_errors_and_layouts_as_torch(case: str) -> None:
    same_in_both(MISFITS[case])


def test_second_derivatives_through_dot_and_mv() -> None:
    def run(lib: ModuleType) -> Any:
        a = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        m = lib.tensor([[1.0, 0.0, 2.0], [0.0, 1.0, 1.0]], requires_grad=True)
        y = (m @ (a * a)).pow(2).sum() + (a @ a) ** 2
        first = lib.autograd.grad(y, [a, m], create_graph=True)
        return lib.autograd.grad(first[0].sum() + first[1].sum(), [a, m])

    same_in_both(run)


# ---- 6. the profiler's events of a custom Function ----


def _cube_class(lib: ModuleType) -> type:
    class MyCube(lib.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            ctx.save_for_backward(x)
            return x**3

        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:
            (x,) = ctx.saved_tensors
            return grad * 3 * x**2

    return MyCube


def test_custom_function_events_are_named_as_torch_s() -> None:
    def keys(lib: ModuleType) -> set[str]:
        cube = _cube_class(lib)
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        with lib.profiler.profile(activities=[lib.profiler.ProfilerActivity.CPU]) as prof:
            (cube.apply(x) * 2).sum().backward()
        return {row.key for row in prof.key_averages()} | {event.name for event in prof.events()}

    ours, theirs = keys(minitorch), keys(torch)
    for name in ("MyCube", "MyCubeBackward", "autograd::engine::evaluate_function: MyCubeBackward",
                 "MulBackward0", "autograd::engine::evaluate_function: MulBackward0"):
        assert name in theirs, name
        assert name in ours, name
    assert "aten::my_cube" not in ours
