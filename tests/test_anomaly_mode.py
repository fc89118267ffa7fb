"""Anomaly mode (``autograd.detect_anomaly``, ``autograd.set_detect_anomaly``), PyTorch as the oracle:
the flags, the warnings naming the forward call behind an error in backward, and the NaN check."""

from __future__ import annotations

import re
import sys
import threading
import warnings
from types import ModuleType
from typing import Any, Callable, Iterator, Optional

import pytest

import minitorch


@pytest.fixture(autouse=True)
def _anomaly_mode_off() -> Iterator[None]:
    """The mode is one flag for the whole process: a failing test must not leave it on."""
    yield
    minitorch.set_anomaly_enabled(False)
    if "torch" in sys.modules:
        sys.modules["torch"].set_anomaly_enabled(False)


def _flags(lib: ModuleType) -> tuple[bool, bool]:
    return lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()


def _run(fn: Callable[[], Any]) -> tuple[Optional[str], Optional[str], list[str]]:
    """(error type, error message, warning messages) of calling ``fn``."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            fn()
        except Exception as error:  # noqa: BLE001 - the error itself is what is compared
            failure: tuple[Optional[str], Optional[str]] = (type(error).__name__, str(error))
        else:
            failure = (None, None)
    return (*failure, [str(w.message) for w in caught])


def _headline(message: str) -> str:
    """A warning's first line: the node it names, without the traceback (paths differ)."""
    return message.strip().splitlines()[0]


def _forward_calls(messages: list[str]) -> list[str]:
    """The anomaly warnings among ``messages`` (PyTorch adds its C++ source location to each)."""
    return [re.sub(r" \(Triggered internally at .*\)$", "", m) for m in messages
            if "Error detected in" in m or "Previous calculation was induced by" in m]


# ---------------------------------------------------------------- the flags


def test_flags_and_their_restoration_as_torch(torch_ref: ModuleType) -> None:
    results = []
    for lib in (minitorch, torch_ref):
        seen = [_flags(lib)]  # off, check_nan on: the defaults
        with lib.autograd.set_detect_anomaly(True, check_nan=False):
            seen.append(_flags(lib))
            with lib.autograd.set_detect_anomaly(False):
                seen.append(_flags(lib))
            seen.append(_flags(lib))
        seen.append(_flags(lib))
        lib.autograd.set_detect_anomaly(True)  # a plain call: stays on
        seen.append(_flags(lib))
        lib.autograd.set_detect_anomaly(False, check_nan=False)
        seen.append(_flags(lib))
        lib.set_anomaly_enabled(False)
        seen.append(_flags(lib))
        results.append(seen)
    assert results[0] == results[1]
    assert results[0][:3] == [(False, True), (True, False), (False, True)]  # read off PyTorch's docs


def test_detect_anomaly_sets_and_restores_the_mode_as_torch(torch_ref: ModuleType) -> None:
    results = []
    for lib in (minitorch, torch_ref):
        seen = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with lib.autograd.detect_anomaly():
                seen.append(_flags(lib))
            with lib.autograd.detect_anomaly(check_nan=False):
                seen.append(_flags(lib))
                with lib.autograd.detect_anomaly():
                    seen.append(_flags(lib))
                seen.append(_flags(lib))
        seen.append(_flags(lib))
        results.append(seen)
    assert results[0] == results[1] == [(True, True), (True, False), (True, True), (True, False), (False, True)]


def test_the_mode_is_restored_after_an_error_in_the_block_as_torch(torch_ref: ModuleType) -> None:
    results = []
    for lib in (minitorch, torch_ref):
        seen = []
        with pytest.raises(KeyError):
            with lib.autograd.set_detect_anomaly(True, check_nan=False):
                raise KeyError("in the block")
        seen.append(_flags(lib))
        with pytest.raises(KeyError), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with lib.autograd.detect_anomaly(check_nan=False):
                raise KeyError("in the block")
        seen.append(_flags(lib))
        results.append(seen)
    assert results[0] == results[1] == [(False, True), (False, True)]


def test_detect_anomaly_warns_when_made_as_torch(torch_ref: ModuleType) -> None:
    results = []
    for lib in (minitorch, torch_ref):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            context = lib.autograd.detect_anomaly()  # PyTorch warns here, before the block
            made = [(str(w.message), w.category, w.filename) for w in caught]
            with context:
                pass
        assert len(caught) == 1
        results.append(made)
    assert results[0] == results[1]
    message, category, filename = results[0][0]
    assert message == ("Anomaly Detection has been enabled. This mode will increase the runtime "
                       "and should only be enabled for debugging.")
    assert category is UserWarning and filename == __file__  # attributed to the caller


def test_detect_anomaly_is_not_a_decorator_as_in_torch(torch_ref: ModuleType) -> None:
    """PyTorch's ``detect_anomaly`` object is not callable: used as a decorator it raises at once."""
    for lib in (minitorch, torch_ref):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(TypeError, match="'detect_anomaly' object is not callable"):
                @lib.autograd.detect_anomaly()
                def step() -> None:
                    pass
        assert _flags(lib) == (False, True)


@pytest.mark.parametrize("args", [(1,), (True, 0), (None,), (True, None)], ids=repr)
def test_only_bools_are_accepted_as_torch(args: tuple, torch_ref: ModuleType) -> None:
    messages = []
    for lib in (minitorch, torch_ref):
        with pytest.raises(TypeError) as raised:
            lib.autograd.set_detect_anomaly(*args)
        messages.append(str(raised.value))
        assert _flags(lib) == (False, True)
    assert messages[0] == messages[1]


def test_the_mode_is_one_for_all_threads_as_torch(torch_ref: ModuleType) -> None:
    results = []
    for lib in (minitorch, torch_ref):
        seen: list[tuple[bool, bool]] = []
        with lib.autograd.set_detect_anomaly(True, check_nan=False):
            thread = threading.Thread(target=lambda: seen.append(_flags(lib)))
            thread.start()
            thread.join()
        results.append(seen)
    assert results[0] == results[1] == [(True, False)]


# ---------------------------------------------------------------- the NaN check


def _nan_from_sqrt(lib: ModuleType) -> list:
    x = lib.zeros(3, requires_grad=True)
    y = lib.sqrt(x)  # d sqrt(x)/dx at 0 is inf; times the 0 coming back: NaN
    (y * 0).sum().backward()
    return x.grad.tolist()


@pytest.mark.parametrize("entered", ["detect_anomaly", "set_detect_anomaly"])
def test_a_nan_gradient_raises_as_torch(entered: str, torch_ref: ModuleType) -> None:
    results = []
    for lib in (minitorch, torch_ref):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if entered == "detect_anomaly":
                mode = lib.autograd.detect_anomaly()
            else:
                mode = lib.autograd.set_detect_anomaly(True)
        with mode:
            error, message, warned = _run(lambda: _nan_from_sqrt(lib))
        results.append((error, message, [_headline(m) for m in _forward_calls(warned)]))
    assert results[0] == results[1]
    assert results[0][:2] == ("RuntimeError", "Function 'SqrtBackward0' returned nan values in its 0th output.")


def test_nan_gradients_pass_without_check_nan_or_anomaly_mode_as_torch(torch_ref: ModuleType) -> None:
    for lib in (minitorch, torch_ref):
        with lib.autograd.set_detect_anomaly(True, check_nan=False):
            assert _run(lambda: _nan_from_sqrt(lib))[:2] == (None, None)
        assert _run(lambda: _nan_from_sqrt(lib)) == (None, None, [])
        grad = _nan_from_sqrt(lib)
        assert all(value != value for value in grad)  # NaN: nothing hid it


def _nan_in_custom_backward(lib: ModuleType, first_requires_grad: bool) -> None:
    class ZeroOverZero(lib.autograd.Function):
        @staticmethod
        def forward(ctx: Any, a: Any, b: Any) -> Any:
            ctx.save_for_backward(b)
            return a * b

        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:
            (b,) = ctx.saved_tensors
            zero = b - b
            return grad, grad * zero / zero  # 0/0 for the second input

    a = lib.ones(2, requires_grad=first_requires_grad)
    b = lib.ones(2, requires_grad=True)
    ZeroOverZero.apply(a, b).sum().backward()


@pytest.mark.parametrize("first_requires_grad", [True, False])
def test_the_nan_output_is_counted_over_the_forward_inputs_as_torch(first_requires_grad: bool,
                                                                      torch_ref: ModuleType) -> None:
    results = []
    for lib in (minitorch, torch_ref):
        with lib.autograd.set_detect_anomaly(True):
            error, message, warned = _run(lambda: _nan_in_custom_backward(lib, first_requires_grad))
        results.append((error, message, [_headline(m) for m in _forward_calls(warned)]))
    assert results[0] == results[1]
    assert results[0][1] == "Function 'ZeroOverZeroBackward' returned nan values in its 1th output."


# ---------------------------------------------------------------- the forward call behind an error


def _mul_then_modify(lib: ModuleType) -> Any:
    x = lib.ones(2, requires_grad=True)
    y = x.exp()
    w = y * y  # the forward call the anomaly warning shows
    y.add_(1)
    w.sum().backward()


MUL_LINE = "w = y * y  # the forward call the anomaly warning shows"


def test_an_inplace_modification_is_traced_to_its_forward_call_as_torch(torch_ref: ModuleType) -> None:
    results = []
    for lib in (minitorch, torch_ref):
        with lib.autograd.set_detect_anomaly(True, check_nan=False):
            error, message, warned = _run(lambda: _mul_then_modify(lib))
        calls = _forward_calls(warned)
        assert len(calls) == 1 and MUL_LINE in calls[0] and __file__ in calls[0]
        results.append((error, message, _headline(calls[0])))
    assert results[0] == results[1]
    error, message, headline = results[0]
    assert headline == "Error detected in MulBackward0. Traceback of forward call that caused the error:"
    assert error == "RuntimeError" and message.endswith(
        "Hint: the backtrace further above shows the operation that failed to compute its gradient. "
        "The variable in question was changed in there or anywhere later. Good luck!")


def test_the_inplace_hint_names_a_call_that_works(torch_ref: ModuleType) -> None:
    messages = []
    for lib in (minitorch, torch_ref):
        error, message, warned = _run(lambda: _mul_then_modify(lib))
        assert error == "RuntimeError" and warned == []
        messages.append(message)
    assert messages[0] == messages[1]
    call = re.search(r"with (torch\.autograd\.set_detect_anomaly\(.*\))\.$", messages[0])
    assert call is not None and call.group(1) == "torch.autograd.set_detect_anomaly(True, check_nan=False)"
    eval(call.group(1), {"torch": minitorch})  # noqa: S307 - the hint, run as the user would
    assert _flags(minitorch) == (True, False)


def _custom_backward_raises(lib: ModuleType) -> None:
    class Broken(lib.autograd.Function):
        @staticmethod
        def forward(ctx: Any, a: Any) -> Any:
            return a.clone()

        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:
            raise ValueError("broken backward")

    a = lib.ones(2, 2, requires_grad=True)
    out = Broken.apply(a)  # the custom forward call
    out.sum().backward()


def test_an_error_in_a_custom_backward_is_traced_and_raised_unchanged_as_torch(torch_ref: ModuleType) -> None:
    results = []
    for lib in (minitorch, torch_ref):
        with lib.autograd.set_detect_anomaly(True):
            error, message, warned = _run(lambda: _custom_backward_raises(lib))
        calls = _forward_calls(warned)
        assert len(calls) == 1 and "out = Broken.apply(a)  # the custom forward call" in calls[0]
        results.append((error, message, _headline(calls[0])))
    assert results[0] == results[1] == (
        "ValueError", "broken backward",
        "Error detected in BrokenBackward. Traceback of forward call that caused the error:")


def test_without_anomaly_mode_an_error_is_not_traced_as_torch(torch_ref: ModuleType) -> None:
    results = []
    for lib in (minitorch, torch_ref):
        error, message, warned = _run(lambda: _custom_backward_raises(lib))
        results.append((error, message, warned))
    assert results[0] == results[1] == ("ValueError", "broken backward", [])


def test_a_forward_run_outside_the_mode_has_no_traceback_to_show_as_torch(torch_ref: ModuleType) -> None:
    results = []
    for lib in (minitorch, torch_ref):
        x = lib.ones(2, requires_grad=True)
        y = x.exp()
        w = y * y
        y.add_(1)
        assert w.grad_fn.metadata == {}  # nothing recorded while the mode is off
        with lib.autograd.set_detect_anomaly(True):
            error, _, warned = _run(lambda: w.sum().backward())
        results.append((error, _forward_calls(warned)))
    assert results[0] == results[1] == ("RuntimeError", [
        "Error detected in MulBackward0. No forward pass information available. "
        "Enable detect anomaly during forward pass for more information."])


def test_nodes_keep_their_forward_call_only_in_anomaly_mode_as_torch(torch_ref: ModuleType) -> None:
    results = []
    for lib in (minitorch, torch_ref):
        x = lib.ones(2, requires_grad=True)
        off = x * 2
        with lib.autograd.set_detect_anomaly(True):
            on = x * 3  # recorded
        trace = on.grad_fn.metadata["traceback_"]
        assert "on = x * 3  # recorded" in "".join(trace) and trace[-1].startswith(f'  File "{__file__}"')
        results.append((off.grad_fn.metadata, sorted(on.grad_fn.metadata), type(trace).__name__))
    assert results[0] == results[1] == ({}, ["traceback_"], "list")


def test_an_error_in_a_leaf_hook_names_the_accumulator_as_torch(torch_ref: ModuleType) -> None:
    results = []
    for lib in (minitorch, torch_ref):
        def run() -> None:
            x = lib.ones(2, requires_grad=True)
            x.register_hook(lambda grad: 1 / 0)
            (x * 2).sum().backward()

        with lib.autograd.set_detect_anomaly(True):
            error, message, warned = _run(run)
        results.append((error, message, [_headline(m) for m in _forward_calls(warned)]))
    assert results[0] == results[1]
    assert results[0][2] == ["Error detected in torch::autograd::AccumulateGrad. "
                             "Traceback of forward call that caused the error:"]


# ---------------------------------------------------------------- double backward


def _classes(lib: ModuleType) -> tuple[type, type, type]:
    class Broken(lib.autograd.Function):
        @staticmethod
        def forward(ctx: Any, a: Any) -> Any:
            return a.clone()

        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:
            raise ValueError("broken second backward")

    class MakesNan(lib.autograd.Function):
        @staticmethod
        def forward(ctx: Any, a: Any) -> Any:
            return a.clone()

        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:
            return grad * float("nan")

    class Square(lib.autograd.Function):
        """x², whose backward runs ``second`` on its result (recorded with create_graph)."""

        second: type = Broken

        @staticmethod
        def forward(ctx: Any, a: Any) -> Any:
            ctx.save_for_backward(a)
            return a * a

        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:
            (a,) = ctx.saved_tensors
            return Square.second.apply(2 * a * grad)  # made by Square's backward

    return Square, Broken, MakesNan


def _double_backward(lib: ModuleType, second: str) -> tuple[str, Optional[str]]:
    square, broken, nan = _classes(lib)
    square.second = broken if second == "broken" else nan
    x = lib.ones(2, requires_grad=True)
    y = square.apply(x).sum()  # the first forward call
    (gx,) = lib.autograd.grad(y, x, create_graph=True)
    node = gx.grad_fn
    parent = node.metadata.get("parent_")
    gx.sum().backward()
    return node.name(), None if parent is None else parent.name()


def test_an_error_in_a_double_backward_is_traced_to_both_forward_calls_as_torch(torch_ref: ModuleType) -> None:
    results = []
    for lib in (minitorch, torch_ref):
        with lib.autograd.set_detect_anomaly(True):
            error, message, warned = _run(lambda: _double_backward(lib, "broken"))
        calls = _forward_calls(warned)
        assert len(calls) == 2
        assert "return Square.second.apply(2 * a * grad)  # made by Square's backward" in calls[0]
        assert "y = square.apply(x).sum()  # the first forward call" in calls[1]
        assert calls[1].startswith("\n\n")
        results.append((error, message, [_headline(c) for c in calls]))
    assert results[0] == results[1] == ("ValueError", "broken second backward", [
        "Error detected in BrokenBackward. Traceback of forward call that caused the error:",
        "Previous calculation was induced by SquareBackward. "
        "Traceback of forward call that induced the previous calculation:"])


def test_a_node_made_by_a_backward_keeps_its_parent_as_torch(torch_ref: ModuleType) -> None:
    results = []
    for lib in (minitorch, torch_ref):
        square, _, nan = _classes(lib)
        square.second = nan
        x = lib.ones(2, requires_grad=True)
        with lib.autograd.set_detect_anomaly(True, check_nan=False):
            y = square.apply(x).sum()
            (gx,) = lib.autograd.grad(y, x, create_graph=True)
        first = y.grad_fn.next_functions[0][0]
        results.append((gx.grad_fn.name(), gx.grad_fn.metadata["parent_"].name(), "parent_" in first.metadata))
    assert results[0] == results[1] == ("MakesNanBackward", "SquareBackward", False)


def test_a_nan_in_a_double_backward_raises_as_torch(torch_ref: ModuleType) -> None:
    results = []
    for lib in (minitorch, torch_ref):
        with lib.autograd.set_detect_anomaly(True):
            error, message, warned = _run(lambda: _double_backward(lib, "nan"))
        results.append((error, message, [_headline(c) for c in _forward_calls(warned)]))
        with lib.autograd.set_detect_anomaly(True, check_nan=False):
            assert _run(lambda: _double_backward(lib, "nan")) == (None, None, [])
    assert results[0] == results[1]
    assert results[0][:2] == ("RuntimeError", "Function 'MakesNanBackward' returned nan values in its 0th output.")
    assert results[0][2][1].startswith("Previous calculation was induced by SquareBackward.")
