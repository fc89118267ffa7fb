"""Task 7.1: forward pre hooks and forward hooks, module and global, with PyTorch's call order.

Most tests run one scenario in both libraries and compare what the hooks saw.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest

import minitorch
from minitorch.nn.modules import module as module_hooks
from minitorch.utils.hooks import RemovableHandle


def _both(torch_ref: Any, scenario: Callable[[Any, Any], Any]) -> tuple[Any, Any]:
    """``scenario(lib, global_hooks)`` run with minitorch and with PyTorch."""
    return scenario(minitorch, module_hooks), scenario(torch_ref, torch_ref.nn.modules.module)


def _numbers(value: Any) -> Any:
    """Tensors (in nested tuples, lists, dicts) as plain lists, for comparing across libraries."""
    if hasattr(value, "detach"):
        return np.round(value.detach().numpy().astype(np.float64), 5).tolist()
    if isinstance(value, (tuple, list)):
        return type(value)(_numbers(v) for v in value)
    if isinstance(value, dict):
        return {k: _numbers(v) for k, v in value.items()}
    return value


class _Scale:
    """A module factory: ``forward(x, *, k=1.0) = x * factor * k``."""

    @staticmethod
    def make(lib: Any, factor: float, name: str) -> Any:
        class Scale(lib.nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.factor = factor
                self.name = name

            def forward(self, x: Any, k: float = 1.0) -> Any:
                return x * self.factor * k

        return Scale()


@pytest.mark.task("7.1")
def test_pre_hook_replaces_inputs_single_value_is_wrapped(torch_ref: Any) -> None:
    def scenario(lib: Any, _: Any) -> Any:
        m = _Scale.make(lib, 2.0, "m")
        seen = []

        def single(mod: Any, args: Any) -> Any:
            seen.append(("single", type(args).__name__, len(args)))
            return args[0] + 1.0

        def as_tuple(mod: Any, args: Any) -> Any:
            seen.append(("tuple", _numbers(args)))
            return (args[0] * 10.0,)

        m.register_forward_pre_hook(single)
        m.register_forward_pre_hook(as_tuple)
        return seen, _numbers(m(lib.tensor([1.0, 2.0])))

    ours, theirs = _both(torch_ref, scenario)
    assert ours == theirs
    assert ours[1] == [40.0, 60.0]


@pytest.mark.task("7.1")
def test_forward_hook_sees_args_and_output_and_may_replace_output(torch_ref: Any) -> None:
    def scenario(lib: Any, _: Any) -> Any:
        m = _Scale.make(lib, 3.0, "m")
        seen = []

        def observe(mod: Any, args: Any, output: Any) -> None:
            seen.append((mod.name, _numbers(args), _numbers(output)))

        def residual(mod: Any, args: Any, output: Any) -> Any:
            return output + args[0]

        m.register_forward_hook(observe)
        m.register_forward_hook(residual)
        m.register_forward_hook(observe)
        return seen, _numbers(m(lib.tensor([1.0, -1.0]), k=2.0))

    ours, theirs = _both(torch_ref, scenario)
    assert ours == theirs
    assert ours[1] == [7.0, -7.0]


@pytest.mark.task("7.1")
def test_with_kwargs_hooks(torch_ref: Any) -> None:
    def scenario(lib: Any, _: Any) -> Any:
        m = _Scale.make(lib, 1.0, "m")
        seen = []

        def pre(mod: Any, args: Any, kwargs: Any) -> Any:
            seen.append(("pre", _numbers(args), dict(kwargs)))
            return (args[0] + 1.0,), {"k": kwargs.get("k", 1.0) * 10}

        def post(mod: Any, args: Any, kwargs: Any, output: Any) -> Any:
            seen.append(("post", _numbers(args), dict(kwargs), _numbers(output)))
            return output * 2

        m.register_forward_pre_hook(pre, with_kwargs=True)
        m.register_forward_hook(post, with_kwargs=True)
        return seen, _numbers(m(lib.tensor([1.0]), k=0.5))

    ours, theirs = _both(torch_ref, scenario)
    assert ours == theirs
    assert ours[1] == [20.0]


@pytest.mark.task("7.1")
def test_bad_with_kwargs_pre_hook_result_raises_like_torch(torch_ref: Any) -> None:
    def scenario(lib: Any, _: Any) -> str:
        m = _Scale.make(lib, 1.0, "m")
        m.register_forward_pre_hook(lambda mod, args, kwargs: "nonsense", with_kwargs=True)
        with pytest.raises(RuntimeError) as info:
            m(lib.tensor([1.0]))
        if isinstance(info.value, NotImplementedError):  # a stubbed task is not the error under test
            raise info.value
        return str(info.value)

    ours, theirs = _both(torch_ref, scenario)
    assert ours == theirs


@pytest.mark.task("7.1")
def test_prepend_and_global_hooks_order_like_torch(torch_ref: Any) -> None:
    def scenario(lib: Any, glob: Any) -> list[str]:
        events: list[str] = []
        outer = lib.nn.Sequential(_Scale.make(lib, 2.0, "a"), _Scale.make(lib, 3.0, "b"))
        handles = [
            glob.register_module_forward_pre_hook(lambda m, a: events.append(f"global-pre {type(m).__name__}")),
            glob.register_module_forward_hook(lambda m, a, o: events.append(f"global-post {type(m).__name__}")),
            outer[0].register_forward_pre_hook(lambda m, a: events.append("a-pre-1")),
            outer[0].register_forward_pre_hook(lambda m, a: events.append("a-pre-0"), prepend=True),
            outer[0].register_forward_hook(lambda m, a, o: events.append("a-post-1")),
            outer[0].register_forward_hook(lambda m, a, o: events.append("a-post-0"), prepend=True),
            outer.register_forward_pre_hook(lambda m, a: events.append("outer-pre")),
            outer.register_forward_hook(lambda m, a, o: events.append("outer-post")),
        ]
        try:
            outer(lib.tensor([1.0]))
        finally:
            for handle in handles:
                handle.remove()
        outer(lib.tensor([1.0]))  # every hook removed: no more events
        return events

    ours, theirs = _both(torch_ref, scenario)
    assert ours == theirs
    assert ours[:4] == ["global-pre Sequential", "outer-pre", "global-pre Scale", "a-pre-0"]


@pytest.mark.task("7.1")
def test_global_forward_hook_with_kwargs_and_replacement(torch_ref: Any) -> None:
    def scenario(lib: Any, glob: Any) -> Any:
        m = _Scale.make(lib, 2.0, "m")
        seen = []
        handle = glob.register_module_forward_hook(
            lambda mod, args, kwargs, out: seen.append(dict(kwargs)) or out + 100.0, with_kwargs=True
        )
        pre = glob.register_module_forward_pre_hook(lambda mod, args: (args[0] * 0.0,))
        try:
            out = _numbers(m(lib.tensor([1.0]), k=3.0))
        finally:
            handle.remove()
            pre.remove()
        return seen, out

    ours, theirs = _both(torch_ref, scenario)
    assert ours == theirs == ([{"k": 3.0}], [100.0])


@pytest.mark.task("7.1")
def test_always_call_runs_when_forward_raises(torch_ref: Any) -> None:
    def scenario(lib: Any, glob: Any) -> Any:
        class Broken(lib.nn.Module):
            def forward(self, x: Any) -> Any:
                raise ValueError("broken forward")

        m = Broken()
        seen = []
        m.register_forward_hook(lambda mod, args, out: seen.append(("normal", out)))
        m.register_forward_hook(lambda mod, args, out: seen.append(("always", out)), always_call=True)
        m.register_forward_hook(lambda mod, args, kwargs, out: seen.append(("always-kw", kwargs, out)),
                                always_call=True, with_kwargs=True)
        handle = glob.register_module_forward_hook(lambda mod, args, out: seen.append(("global", out)), always_call=True)
        try:
            with pytest.raises(ValueError, match="broken forward"):
                m(lib.tensor([1.0]))
        finally:
            handle.remove()
        return seen

    ours, theirs = _both(torch_ref, scenario)
    assert ours == theirs
    assert ("always", None) in ours and ("normal", None) not in ours


@pytest.mark.task("7.1")
def test_always_call_hook_that_raises_is_silenced_with_a_warning() -> None:
    class Broken(minitorch.nn.Module):
        def forward(self, x: Any) -> Any:
            raise KeyError("forward failed")

    m = Broken()

    def bad_hook(mod: Any, args: Any, out: Any) -> None:
        raise RuntimeError("hook failed")

    m.register_forward_hook(bad_hook, always_call=True)
    with pytest.warns(UserWarning, match="hook failed"), pytest.raises(KeyError, match="forward failed"):
        m(minitorch.ones(1))


@pytest.mark.task("7.1")
def test_removing_hooks_from_inside_a_hook(torch_ref: Any) -> None:
    def scenario(lib: Any, _: Any) -> list[list[str]]:
        m = _Scale.make(lib, 1.0, "m")
        calls: list[str] = []
        handles: dict[str, Any] = {}

        def first(mod: Any, args: Any, out: Any) -> None:
            calls.append("first")
            handles["first"].remove()
            handles["second"].remove()

        def second(mod: Any, args: Any, out: Any) -> None:
            calls.append("second")

        handles["first"] = m.register_forward_hook(first)
        handles["second"] = m.register_forward_hook(second)
        m(lib.tensor([1.0]))
        first_call = list(calls)
        calls.clear()
        m(lib.tensor([1.0]))
        return [first_call, calls]

    ours, theirs = _both(torch_ref, scenario)
    assert ours == theirs


@pytest.mark.task("7.1")
def test_handle_is_a_context_manager_and_remove_is_idempotent() -> None:
    m = _Scale.make(minitorch, 2.0, "m")
    with m.register_forward_hook(lambda mod, args, out: out * 0.0) as handle:
        assert isinstance(handle, RemovableHandle)
        assert float(m(minitorch.ones(1))) == 0.0
    assert float(m(minitorch.ones(1))) == 2.0
    handle.remove()
    handle.remove()
    assert m._forward_hooks == {}


@pytest.mark.task("7.1")
def test_calling_forward_directly_skips_hooks() -> None:
    m = _Scale.make(minitorch, 2.0, "m")
    seen = []
    m.register_forward_pre_hook(lambda mod, args: seen.append("pre"))
    m.register_forward_hook(lambda mod, args, out: seen.append("post"))
    assert float(m.forward(minitorch.ones(1))) == 2.0
    assert seen == []
    m(minitorch.ones(1))
    assert seen == ["pre", "post"]


@pytest.mark.task("7.1")
def test_with_kwargs_flags_removed_with_the_hook() -> None:
    m = _Scale.make(minitorch, 1.0, "m")
    pre = m.register_forward_pre_hook(lambda mod, args, kwargs: None, with_kwargs=True)
    post = m.register_forward_hook(lambda mod, args, out: None, with_kwargs=True, always_call=True)
    pre.remove()
    post.remove()
    assert not m._forward_pre_hooks_with_kwargs and not m._forward_hooks_with_kwargs
    assert not m._forward_hooks_always_called
