"""Task 7.2: full backward hooks and backward pre hooks (module and global), and tensor hooks.

Every scenario runs in minitorch and in PyTorch with the same weights and inputs, and the
gradients the hooks see (and the resulting ``.grad``) are compared.
"""

from __future__ import annotations

import warnings
from typing import Any, Callable

import numpy as np
import pytest

import minitorch
from minitorch.nn.modules import module as module_hooks

WEIGHT = [[0.5, -1.0, 2.0], [1.5, 0.25, -0.5], [-2.0, 1.0, 0.75]]
BIAS = [0.1, -0.2, 0.3]
X = [[1.0, 2.0, 3.0], [-1.0, 0.5, 2.5]]


def _both(torch_ref: Any, scenario: Callable[[Any, Any], Any]) -> tuple[Any, Any]:
    return scenario(minitorch, module_hooks), scenario(torch_ref, torch_ref.nn.modules.module)


def _numbers(value: Any) -> Any:
    if hasattr(value, "detach"):
        return np.round(value.detach().numpy().astype(np.float64), 4).tolist()
    if isinstance(value, (tuple, list)):
        return type(value)(_numbers(v) for v in value)
    return value


def _linear(lib: Any) -> Any:
    layer = lib.nn.Linear(3, 3)
    with lib.no_grad():
        layer.weight.copy_(lib.tensor(WEIGHT))
        layer.bias.copy_(lib.tensor(BIAS))
    return layer


@pytest.mark.task("7.2")
def test_modules_note_backward_hook_gives_42(torch_ref: Any) -> None:
    def scenario(lib: Any, _: Any) -> Any:
        m = _linear(lib)
        x = lib.tensor(X, requires_grad=True)
        seen = []

        def backward_hook(mod: Any, grad_inputs: Any, grad_outputs: Any) -> Any:
            seen.append((type(grad_inputs).__name__, _numbers(grad_inputs), _numbers(grad_outputs)))
            return [lib.ones_like(gi) * 42.0 for gi in grad_inputs]

        m(x).sum().backward()
        plain = _numbers(x.grad)
        m.zero_grad()
        x.grad.zero_()
        m.register_full_backward_hook(backward_hook)
        m(x).sum().backward()
        return plain, _numbers(x.grad), seen, _numbers(m.weight.grad)

    ours, theirs = _both(torch_ref, scenario)
    assert ours == theirs
    assert ours[1] == [[42.0] * 3] * 2
    assert len(ours[2]) == 1 and ours[2][0][0] == "tuple"


@pytest.mark.task("7.2")
def test_grad_input_has_none_for_non_tensor_and_no_grad_inputs(torch_ref: Any) -> None:
    def scenario(lib: Any, _: Any) -> Any:
        class Mix(lib.nn.Module):
            def forward(self, a: Any, scale: float, b: Any, c: Any) -> Any:
                return a * b * scale + c * c

        m = Mix()
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        b = lib.tensor([3.0, -1.0])
        c = lib.tensor([0.5, 4.0], requires_grad=True)
        seen = []
        m.register_full_backward_hook(lambda mod, gi, go: seen.append((_numbers(gi), _numbers(go))))
        (m(a, 2.0, b, c) * lib.tensor([1.0, 10.0])).sum().backward()
        return seen, _numbers(a.grad), _numbers(c.grad)

    ours, theirs = _both(torch_ref, scenario)
    assert ours == theirs
    (grad_input, grad_output), = ours[0]
    # the float is not a tensor: None; b needs no gradient: zeros, as PyTorch gives
    assert grad_input[1] is None and grad_input[2] == [0.0, 0.0] and grad_input[0] == [6.0, -20.0]


@pytest.mark.task("7.2")
def test_multiple_outputs_and_an_unused_output(torch_ref: Any) -> None:
    def scenario(lib: Any, _: Any) -> Any:
        class Split(lib.nn.Module):
            def forward(self, x: Any) -> Any:
                return x * 2.0, x * x, 7

        m = Split()
        x = lib.tensor([1.0, 3.0], requires_grad=True)
        seen = []
        m.register_full_backward_pre_hook(lambda mod, go: seen.append(("pre", _numbers(go))))
        m.register_full_backward_hook(lambda mod, gi, go: seen.append(("full", _numbers(gi), _numbers(go))))
        first, second, constant = m(x)
        (first.sum() + (second * 3.0).sum()).backward()
        both = _numbers(x.grad)
        x.grad = None
        first, second, _ = m(x)
        first.sum().backward()  # the second output gets no gradient
        return seen, both, _numbers(x.grad), constant

    ours, theirs = _both(torch_ref, scenario)
    assert ours == theirs
    assert ours[1] == [8.0, 20.0]


@pytest.mark.task("7.2")
def test_backward_pre_hook_replaces_grad_output(torch_ref: Any) -> None:
    def scenario(lib: Any, _: Any) -> Any:
        m = _linear(lib)
        x = lib.tensor(X, requires_grad=True)
        seen = []

        def pre(mod: Any, grad_output: Any) -> Any:
            seen.append(_numbers(grad_output))
            return (grad_output[0] * 3.0,)

        m.register_full_backward_pre_hook(pre)
        m.register_full_backward_hook(lambda mod, gi, go: seen.append((_numbers(gi), _numbers(go))))
        (m(x) * lib.tensor([1.0, 2.0, 3.0])).sum().backward()
        return seen, _numbers(x.grad), _numbers(m.weight.grad), _numbers(m.bias.grad)

    ours, theirs = _both(torch_ref, scenario)
    assert ours == theirs
    assert ours[3] == [6.0, 12.0, 18.0]


@pytest.mark.task("7.2")
def test_global_and_nested_backward_hook_order(torch_ref: Any) -> None:
    def scenario(lib: Any, glob: Any) -> Any:
        events: list[str] = []
        first, second = _linear(lib), _linear(lib)
        model = lib.nn.Sequential(first, second)

        def tag(name: str) -> Callable[..., None]:
            return lambda mod, *grads: events.append(f"{name}:{type(mod).__name__}:{id(mod) == id(first)}")

        handles = [
            glob.register_module_full_backward_pre_hook(tag("global-pre")),
            glob.register_module_full_backward_hook(tag("global")),
            first.register_full_backward_pre_hook(tag("first-pre")),
            first.register_full_backward_hook(tag("first")),
            second.register_full_backward_pre_hook(tag("second-pre")),
            second.register_full_backward_hook(tag("second-1")),
            second.register_full_backward_hook(tag("second-0"), prepend=True),
            model.register_full_backward_hook(tag("model")),
        ]
        x = lib.tensor(X, requires_grad=True)
        try:
            model(x).sum().backward()
        finally:
            for handle in handles:
                handle.remove()
        return events, _numbers(x.grad)

    ours, theirs = _both(torch_ref, scenario)
    assert ours == theirs


@pytest.mark.task("7.2")
def test_no_input_requires_grad_fires_at_outputs_with_a_warning(torch_ref: Any) -> None:
    def scenario(lib: Any, _: Any) -> Any:
        m = _linear(lib)
        seen = []
        m.register_full_backward_hook(lambda mod, gi, go: seen.append((_numbers(gi), _numbers(go))))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            m(lib.tensor(X)).sum().backward()
        return seen, _numbers(m.bias.grad), any("no inputs require gradients" in str(w.message) for w in caught)

    ours, theirs = _both(torch_ref, scenario)
    assert ours == theirs
    assert ours[0][0][0] == (None,) and ours[2]


@pytest.mark.task("7.2")
def test_hook_returning_wrong_number_of_grads_raises_like_torch(torch_ref: Any) -> None:
    def scenario(lib: Any, _: Any) -> Any:
        messages = []
        for register, result in [("register_full_backward_hook", lambda *a: (None, None)),
                                 ("register_full_backward_pre_hook", lambda *a: (None, None, None))]:
            m = _linear(lib)
            getattr(m, register)(result)
            with pytest.raises(RuntimeError) as info:
                m(lib.tensor(X, requires_grad=True)).sum().backward()
            if isinstance(info.value, NotImplementedError):  # a stubbed task is not the error under test
                raise info.value
            messages.append(str(info.value))
        return messages

    ours, theirs = _both(torch_ref, scenario)
    assert ours == theirs


@pytest.mark.task("7.2")
def test_hook_called_once_per_call_and_removable(torch_ref: Any) -> None:
    def scenario(lib: Any, _: Any) -> Any:
        m = _linear(lib)
        calls = []
        handle = m.register_full_backward_hook(lambda mod, gi, go: calls.append(_numbers(go)))
        x = lib.tensor(X, requires_grad=True)
        m(m(x)).sum().backward()  # the module used twice: two calls
        twice = len(calls)
        m(x).sum().backward()
        handle.remove()
        m(x).sum().backward()
        return twice, calls, _numbers(x.grad)

    ours, theirs = _both(torch_ref, scenario)
    assert ours == theirs
    assert ours[0] == 2 and len(ours[1]) == 3


@pytest.mark.task("7.2")
def test_forward_output_of_hooked_module_is_a_normal_tensor(torch_ref: Any) -> None:
    def scenario(lib: Any, _: Any) -> Any:
        m = _linear(lib)
        m.register_full_backward_hook(lambda *a: None)
        x = lib.tensor(X, requires_grad=True)
        out = m(x)
        seen = []
        out.register_hook(lambda g: seen.append(_numbers(g)))
        out.retain_grad()
        (out * out).sum().backward()
        return out.grad_fn.name(), seen, _numbers(out.grad), _numbers(x.grad)

    ours, theirs = _both(torch_ref, scenario)
    assert ours == theirs
    assert ours[0] == "BackwardHookFunctionBackward"


@pytest.mark.task("7.2")
def test_no_grad_forward_sets_up_no_hooks() -> None:
    m = _linear(minitorch)
    calls = []
    m.register_full_backward_hook(lambda *a: calls.append(a))
    with minitorch.no_grad():
        out = m(minitorch.tensor(X, requires_grad=True))
    assert out.grad_fn is None and calls == []


@pytest.mark.task("7.2")
def test_tensor_hooks_replace_gradients_in_order(torch_ref: Any) -> None:
    def scenario(lib: Any, _: Any) -> Any:
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x * x
        seen = []
        y.register_hook(lambda g: seen.append(("y-first", _numbers(g))))
        y.register_hook(lambda g: g * 10.0)
        y.register_hook(lambda g: seen.append(("y-last", _numbers(g))))
        handle = x.register_hook(lambda g: g + 1.0)
        x.register_hook(lambda g: seen.append(("x", _numbers(g))))
        y.sum().backward()
        first = _numbers(x.grad)
        handle.remove()
        x.grad = None
        (x * x).sum().backward()
        return seen, first, _numbers(x.grad)

    ours, theirs = _both(torch_ref, scenario)
    assert ours == theirs
    assert ours[1] == [21.0, 41.0, 61.0]


@pytest.mark.task("7.2")
def test_retain_grad_on_intermediates(torch_ref: Any) -> None:
    def scenario(lib: Any, _: Any) -> Any:
        x = lib.tensor([1.0, -2.0], requires_grad=True)
        h = x * 3.0
        h.retain_grad()
        z = (h * h).sum()
        z.retain_grad()
        z.backward(retain_graph=True)
        once = _numbers(h.grad)
        z.backward()
        return h.retains_grad, x.retains_grad, once, _numbers(h.grad), _numbers(z.grad), _numbers(x.grad)

    ours, theirs = _both(torch_ref, scenario)
    assert ours == theirs


@pytest.mark.task("7.2")
def test_tensor_hook_errors_like_torch(torch_ref: Any) -> None:
    def scenario(lib: Any, _: Any) -> Any:
        errors = []
        for action in (lambda: lib.ones(2).register_hook(lambda g: g), lambda: lib.ones(2).retain_grad()):
            with pytest.raises(RuntimeError) as info:
                action()
            errors.append(str(info.value))
        return errors

    ours, theirs = _both(torch_ref, scenario)
    assert ours == theirs
