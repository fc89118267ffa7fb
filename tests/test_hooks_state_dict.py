"""Task 7.3: state_dict pre/post hooks and load_state_dict pre/post hooks, compared with PyTorch."""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

import pytest

import minitorch


def _model(lib: Any) -> Any:
    model = lib.nn.Sequential(lib.nn.Linear(2, 2), lib.nn.Linear(2, 1))
    model.register_buffer("steps", lib.zeros(1))
    return model


def _both(torch_ref: Any, scenario: Any) -> tuple[Any, Any]:
    return scenario(minitorch), scenario(torch_ref)


@pytest.mark.task("7.3")
def test_state_dict_pre_and_post_hooks_order_and_arguments(torch_ref: Any) -> None:
    def scenario(lib: Any) -> Any:
        model = _model(lib)
        events = []
        model.register_state_dict_pre_hook(lambda m, prefix, keep_vars: events.append(("pre", prefix, keep_vars)))
        model[1].register_state_dict_pre_hook(lambda m, prefix, keep_vars: events.append(("pre-1", prefix, keep_vars)))

        def post(m: Any, state: Any, prefix: str, local_metadata: Any) -> None:
            events.append(("post", prefix, list(state), dict(local_metadata)))
            state["added"] = lib.ones(1)

        model.register_state_dict_post_hook(post)
        model[0].register_state_dict_post_hook(
            lambda m, state, prefix, meta: events.append(("post-0", prefix, list(state)))
        )
        keys = list(model.state_dict(prefix="net.", keep_vars=True))
        return events, keys

    ours, theirs = _both(torch_ref, scenario)
    assert ours == theirs
    assert ours[1][-1] == "added"


@pytest.mark.task("7.3")
def test_public_post_hook_must_return_none_private_one_may_replace(torch_ref: Any) -> None:
    def scenario(lib: Any) -> Any:
        model = _model(lib)
        handle = model.register_state_dict_post_hook(lambda m, state, prefix, meta: OrderedDict())
        with pytest.raises(RuntimeError) as info:
            model.state_dict()
        handle.remove()
        model._register_state_dict_hook(lambda m, state, prefix, meta: OrderedDict(only=lib.zeros(1)))
        return str(info.value), list(model.state_dict())

    ours, theirs = _both(torch_ref, scenario)
    assert ours == theirs == ("state_dict post-hook must return None", ["only"])


@pytest.mark.task("7.3")
def test_load_pre_hook_can_rename_keys(torch_ref: Any) -> None:
    def scenario(lib: Any) -> Any:
        source, target = _model(lib), _model(lib)
        with lib.no_grad():
            source[0].weight.fill_(3.0)
        old = OrderedDict((k.replace("0.", "first."), v) for k, v in source.state_dict().items())
        calls = []

        def rename(module: Any, state: Any, prefix: str, local_metadata: Any, strict: bool, missing: list,
                   unexpected: list, errors: list) -> None:
            calls.append((type(module).__name__, prefix, strict))
            for key in [k for k in state if k.startswith(prefix + "first.")]:
                state[key.replace("first.", "0.", 1)] = state.pop(key)

        target.register_load_state_dict_pre_hook(rename)
        result = target.load_state_dict(old)
        return calls, repr(result), float(target[0].weight.detach().sum())

    ours, theirs = _both(torch_ref, scenario)
    assert ours == theirs
    assert ours[2] == 12.0


@pytest.mark.task("7.3")
def test_load_post_hook_sees_keys_and_can_silence_strict_errors(torch_ref: Any) -> None:
    def scenario(lib: Any) -> Any:
        model = _model(lib)
        seen = []

        def post(module: Any, incompatible: Any) -> None:
            seen.append((list(incompatible.missing_keys), list(incompatible.unexpected_keys)))
            incompatible.missing_keys.clear()
            incompatible.unexpected_keys.clear()

        model[1].register_load_state_dict_post_hook(lambda m, keys: seen.append(("child", list(keys.missing_keys))))
        model.register_load_state_dict_post_hook(post)
        state = OrderedDict(model.state_dict())
        del state["1.bias"]
        state["extra"] = lib.zeros(1)
        result = model.load_state_dict(state)
        return seen, repr(result)

    ours, theirs = _both(torch_ref, scenario)
    assert ours == theirs
    assert ours[1] == "<All keys matched successfully>"


@pytest.mark.task("7.3")
def test_load_post_hook_returning_a_value_raises(torch_ref: Any) -> None:
    def scenario(lib: Any) -> str:
        model = _model(lib)
        model.register_load_state_dict_post_hook(lambda m, keys: "unexpected")
        with pytest.raises(AssertionError) as info:
            model.load_state_dict(model.state_dict())
        return str(info.value)

    ours, theirs = _both(torch_ref, scenario)
    assert ours == theirs


@pytest.mark.task("7.3")
def test_state_dict_hook_handles_remove() -> None:
    model = _model(minitorch)
    calls = []
    handles = [
        model.register_state_dict_pre_hook(lambda *a: calls.append("pre")),
        model.register_state_dict_post_hook(lambda *a: calls.append("post")),
        model.register_load_state_dict_pre_hook(lambda *a: calls.append("load-pre")),
        model.register_load_state_dict_post_hook(lambda *a: calls.append("load-post")),
    ]
    model.load_state_dict(model.state_dict())
    assert calls == ["pre", "post", "load-pre", "load-post"]
    for handle in handles:
        handle.remove()
    calls.clear()
    model.load_state_dict(model.state_dict())
    assert calls == []
