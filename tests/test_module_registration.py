"""Task 4.1: registering parameters, buffers and submodules (attribute assignment and register_*).

Error types and messages are compared with PyTorch's for the same mistake.
"""

from __future__ import annotations

from typing import Any, Callable

import pytest

import minitorch
from minitorch import nn


class Empty(nn.Module):
    def forward(self, x: Any) -> Any:
        return x


def _pair(torch_ref: Any) -> tuple[Any, Any]:
    """An empty module of each library."""
    return Empty(), torch_ref.nn.Module()


def _error_of(action: Callable[[], Any]) -> BaseException:
    with pytest.raises(Exception) as info:
        action()
    if isinstance(info.value, NotImplementedError):  # a stubbed task is not the error under test
        raise info.value
    return info.value


def _same_error(ours: Callable[[], Any], theirs: Callable[[], Any]) -> str:
    """Both raise the same exception type with the same message up to the library name."""
    mine, reference = _error_of(ours), _error_of(theirs)
    assert type(mine).__name__ == type(reference).__name__
    expected = str(reference).replace("torch.", "minitorch.").replace("torch Tensor", "minitorch Tensor")
    assert str(mine) == expected
    return str(mine)


@pytest.mark.task("4.1")
def test_parameter_assignment_registers() -> None:
    m = Empty()
    w = nn.Parameter(minitorch.ones(2, 3))
    m.w = w
    assert list(m._parameters) == ["w"]
    assert m._parameters["w"] is w
    assert m.w is w
    assert "w" not in m.__dict__


@pytest.mark.task("4.1")
def test_module_assignment_registers_in_order() -> None:
    m = Empty()
    a, b = Empty(), Empty()
    m.b = b
    m.a = a
    assert list(m._modules) == ["b", "a"]
    assert m.a is a and m.b is b


@pytest.mark.task("4.1")
def test_plain_tensor_and_values_are_plain_attributes() -> None:
    m = Empty()
    t = minitorch.ones(2)
    m.t = t
    m.n = 3
    assert m._parameters == {} and m._buffers == {} and m._modules == {}
    assert m.__dict__["t"] is t and m.n == 3


@pytest.mark.task("4.1")
def test_register_buffer_persistent_and_not() -> None:
    m = Empty()
    mean = minitorch.zeros(3)
    m.register_buffer("mean", mean)
    m.register_buffer("scratch", minitorch.ones(2), persistent=False)
    m.register_buffer("reserved", None)
    assert list(m._buffers) == ["mean", "scratch", "reserved"]
    assert m._buffers["mean"] is mean and m.mean is mean
    assert m._non_persistent_buffers_set == {"scratch"}
    assert m.reserved is None
    # re-registering as persistent takes it out of the non-persistent set
    m.register_buffer("scratch", minitorch.ones(2))
    assert m._non_persistent_buffers_set == set()


@pytest.mark.task("4.1")
def test_assigning_a_tensor_to_a_buffer_name_replaces_the_buffer_and_keeps_persistence() -> None:
    m = Empty()
    m.register_buffer("scratch", minitorch.ones(2), persistent=False)
    fresh = minitorch.zeros(2)
    m.scratch = fresh
    assert m._buffers["scratch"] is fresh
    assert "scratch" in m._non_persistent_buffers_set
    m.scratch = None
    assert m._buffers["scratch"] is None


@pytest.mark.task("4.1")
def test_buffer_marker_registers(torch_ref: Any) -> None:
    m, tm = _pair(torch_ref)
    m.stats = nn.Buffer(minitorch.zeros(2), persistent=False)
    tm.stats = torch_ref.nn.Buffer(torch_ref.zeros(2), persistent=False)
    assert list(m._buffers) == list(tm._buffers) == ["stats"]
    assert m._non_persistent_buffers_set == tm._non_persistent_buffers_set == {"stats"}
    assert type(m.stats) is minitorch.Tensor
    assert isinstance(m.stats, nn.Buffer) and not isinstance(minitorch.zeros(1), nn.Buffer)


@pytest.mark.task("4.1")
def test_register_parameter_none_reserves_the_name() -> None:
    m = Empty()
    m.register_parameter("bias", None)
    assert list(m._parameters) == ["bias"]
    assert m.bias is None
    b = nn.Parameter(minitorch.zeros(3))
    m.bias = b
    assert m._parameters["bias"] is b
    m.bias = None
    assert m._parameters["bias"] is None


@pytest.mark.task("4.1")
def test_non_parameter_to_parameter_name_raises_like_torch(torch_ref: Any) -> None:
    m, tm = _pair(torch_ref)
    m.register_parameter("weight", None)
    tm.register_parameter("weight", None)

    def ours() -> None:
        m.weight = minitorch.ones(2)

    def theirs() -> None:
        tm.weight = torch_ref.ones(2)

    message = _same_error(ours, theirs)
    assert "weight" in message and "FloatTensor" in message

    def ours_int() -> None:
        m.weight = 3

    def theirs_int() -> None:
        tm.weight = 3

    _same_error(ours_int, theirs_int)


@pytest.mark.task("4.1")
def test_non_module_to_module_name_raises_like_torch(torch_ref: Any) -> None:
    m, tm = _pair(torch_ref)
    m.child = Empty()
    tm.child = torch_ref.nn.Module()

    def ours() -> None:
        m.child = 3

    def theirs() -> None:
        tm.child = 3

    _same_error(ours, theirs)
    m.child = None
    assert m._modules["child"] is None


@pytest.mark.task("4.1")
@pytest.mark.parametrize(
    "call",
    [
        ("register_parameter", ("a.b", None)),
        ("register_parameter", ("", None)),
        ("register_parameter", (3, None)),
        ("register_parameter", ("training", None)),
        ("register_parameter", ("x", "ones")),
        ("register_buffer", ("a.b", None)),
        ("register_buffer", ("", None)),
        ("register_buffer", ("training", None)),
        ("register_buffer", ("x", 3)),
        ("add_module", ("q", 3)),
        ("add_module", ("a.b", "module")),
        ("add_module", ("", "module")),
        ("add_module", ("training", "module")),
    ],
    ids=lambda c: f"{c[0]}{c[1]}",
)
def test_registration_errors_match_torch(torch_ref: Any, call: tuple[str, tuple]) -> None:
    method, (name, value) = call
    m, tm = _pair(torch_ref)

    def convert(lib: Any, v: Any) -> Any:
        if v == "ones":
            return lib.ones(2)
        if v == "module":
            return lib.nn.Module() if lib is torch_ref else Empty()
        return v

    _same_error(lambda: getattr(m, method)(name, convert(minitorch, value)),
                lambda: getattr(tm, method)(name, convert(torch_ref, value)))


@pytest.mark.task("4.1")
def test_non_leaf_parameter_value_error() -> None:
    m = Empty()
    p = nn.Parameter(minitorch.ones(2))
    fake = nn.Parameter(minitorch.ones(2))
    fake.grad_fn = (p * 2).grad_fn  # a Parameter that is the result of an op
    with pytest.raises(ValueError, match="Cannot assign non-leaf Tensor to parameter 'y'"):
        m.register_parameter("y", fake)
    assert "y" not in m._parameters


@pytest.mark.task("4.1")
def test_reassigning_moves_a_name_between_kinds() -> None:
    m = Empty()
    m.register_buffer("x", minitorch.ones(1))
    p = nn.Parameter(minitorch.ones(1))
    m.x = p  # a Parameter replaces the buffer
    assert "x" not in m._buffers and m._parameters["x"] is p
    child = Empty()
    m.plain = 5
    m.plain = child  # a Module replaces a plain attribute
    assert "plain" not in m.__dict__ and m._modules["plain"] is child
    q = nn.Parameter(minitorch.ones(1))
    m.plain = None  # None to a module name keeps it a (reserved) module slot
    assert m._modules["plain"] is None
    del m.plain
    m.plain = q
    assert m._parameters["plain"] is q and "plain" not in m._modules


@pytest.mark.task("4.1")
def test_assignment_before_init_raises(torch_ref: Any) -> None:
    class Early(nn.Module):
        def __init__(self) -> None:
            self.w = nn.Parameter(minitorch.ones(1))
            super().__init__()

    class TorchEarly(torch_ref.nn.Module):
        def __init__(self) -> None:
            self.w = torch_ref.nn.Parameter(torch_ref.ones(1))
            super().__init__()

    _same_error(Early, TorchEarly)


@pytest.mark.task("4.1")
def test_getattr_unknown_raises_attribute_error(torch_ref: Any) -> None:
    m, tm = Empty(), torch_ref.nn.Linear(1, 1)
    mine = _error_of(lambda: m.nope)
    reference = _error_of(lambda: tm.nope)
    assert type(mine) is type(reference) is AttributeError
    assert str(mine) == "'Empty' object has no attribute 'nope'"
    assert str(reference) == "'Linear' object has no attribute 'nope'"
    assert not hasattr(m, "nope")


@pytest.mark.task("4.1")
def test_delattr_removes_from_each_registry() -> None:
    m = Empty()
    m.p = nn.Parameter(minitorch.ones(1))
    m.register_buffer("b", minitorch.ones(1), persistent=False)
    m.c = Empty()
    m.plain = 1
    del m.p, m.b, m.c, m.plain
    assert m._parameters == {} and m._buffers == {} and m._modules == {}
    assert m._non_persistent_buffers_set == set()
    with pytest.raises(AttributeError):
        del m.never


@pytest.mark.task("4.1")
def test_dir_lists_registered_names(torch_ref: Any) -> None:
    m = Empty()
    m.w = nn.Parameter(minitorch.ones(1))
    m.register_buffer("running", minitorch.ones(1))
    m.child = Empty()
    m.add_module("0", Empty())
    names = dir(m)
    assert {"w", "running", "child", "forward", "state_dict"} <= set(names)
    assert "0" not in names
    assert names == sorted(names)


@pytest.mark.task("4.1")
def test_register_module_is_add_module() -> None:
    m = Empty()
    child = Empty()
    m.register_module("kid", child)
    m.add_module("none", None)
    assert list(m._modules.items()) == [("kid", child), ("none", None)]


@pytest.mark.task("4.1")
def test_init_rejects_arguments(torch_ref: Any) -> None:
    _same_error(lambda: nn.Module(3), lambda: torch_ref.nn.Module(3))
    _same_error(lambda: nn.Module(a=3), lambda: torch_ref.nn.Module(a=3))


@pytest.mark.task("4.1")
def test_forward_missing_raises_not_implemented(torch_ref: Any) -> None:
    m = Empty()
    m.register_parameter("w", None)  # on the path of task 4.1, so its stub fails this test
    with pytest.raises(NotImplementedError) as mine:
        nn.Module()(1)
    with pytest.raises(NotImplementedError) as reference:
        torch_ref.nn.Module()(1)
    assert str(mine.value) == str(reference.value)
