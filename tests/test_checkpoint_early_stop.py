"""The non-reentrant ``utils.checkpoint`` against PyTorch's own: which parts of the function the
recomputation runs again (``early_stop``, ``set_checkpoint_early_stop``), what
``determinism_check`` compares (the tensors saved for backward, not the outputs) and its errors,
and ``debug`` / ``set_checkpoint_debug_enabled``. Each program runs under both libraries and
must observe the same: hook counts, gradients, error types and messages."""

from __future__ import annotations

import importlib
from contextlib import contextmanager, nullcontext
from typing import Any, Callable, Iterator

import numpy as np
import pytest

import minitorch
from torch_oracle import import_torch

WIDTH = 3
BATCH = 2
REL = 1e-12
SEED = 5


def _checkpoint_module(lib: Any) -> Any:
    return importlib.import_module(f"{lib.__name__}.utils.checkpoint")


def _both(program: Callable[[Any], Any]) -> tuple[Any, Any]:
    """``program`` run with minitorch, then with PyTorch."""
    torch = import_torch()
    return program(minitorch), program(torch)


def _error(action: Callable[[], Any]) -> tuple[str, str]:
    """The type and text of the error ``action`` raises, library names made alike."""
    with pytest.raises(Exception) as caught:
        action()
    return type(caught.value).__name__, str(caught.value).replace("minitorch.", "torch.")


def _without_tip(message: str) -> str:
    """A CheckpointError's text before PyTorch's closing tip about ``debug=True``."""
    return message.split("\nTip:")[0]


def _sequential(lib: Any) -> tuple[Any, list[int], list[int]]:
    """Linear, Tanh, Linear, ReLU with float64 weights from a fixed numpy stream, and per layer
    how many times its forward started (pre-hooks) and finished (forward hooks)."""
    rng = np.random.default_rng(SEED)
    first, second = lib.nn.Linear(WIDTH, WIDTH).double(), lib.nn.Linear(WIDTH, WIDTH).double()
    for linear in (first, second):
        linear.load_state_dict({"weight": lib.tensor(rng.standard_normal((WIDTH, WIDTH))),
                                "bias": lib.tensor(rng.standard_normal(WIDTH))})
    model = lib.nn.Sequential(first, lib.nn.Tanh(), second, lib.nn.ReLU())
    started, finished = [0] * len(model), [0] * len(model)
    for index, layer in enumerate(model):
        layer.register_forward_pre_hook(lambda module, args, i=index: started.__setitem__(i, started[i] + 1))
        layer.register_forward_hook(lambda module, args, out, i=index: finished.__setitem__(i, finished[i] + 1))
    return model, started, finished


def _input(lib: Any) -> Any:
    return lib.tensor(np.random.default_rng(SEED + 1).standard_normal((BATCH, WIDTH)), requires_grad=True)


def _grads(model: Any, x: Any) -> list[np.ndarray]:
    return [t.grad.detach().numpy().copy() for t in (x, *model.parameters())]


def _counts_and_grads(lib: Any, early_stop: bool | None, globally: bool, use_reentrant: bool = False,
                      ) -> tuple[list[int], list[int], list[np.ndarray]]:
    """Hook counts and gradients of a checkpointed Sequential: ``early_stop`` passed to
    ``checkpoint`` (None: not passed) or, with ``globally``, set by ``set_checkpoint_early_stop``
    around the forward only."""
    model, started, finished = _sequential(lib)
    x = _input(lib)
    module = _checkpoint_module(lib)
    keywords = {} if early_stop is None or globally else {"early_stop": early_stop}
    with module.set_checkpoint_early_stop(early_stop) if globally else nullcontext():
        out = module.checkpoint(model, x, use_reentrant=use_reentrant, **keywords)
    (out * out.sin()).sum().backward()
    return started, finished, _grads(model, x)


def _assert_same_run(got: tuple, expected: tuple) -> None:
    assert got[:2] == expected[:2]
    for mine, oracle in zip(got[2], expected[2]):
        np.testing.assert_allclose(mine, oracle, rtol=REL, atol=REL)


CASES = {"default": (None, False), "passed_true": (True, False), "passed_false": (False, False),
         "set_false": (False, True), "set_true_over_default": (True, True)}


@pytest.mark.parametrize("early_stop, globally", CASES.values(), ids=CASES.keys())
def test_the_recomputation_stops_after_the_last_saved_tensor_as_torch(early_stop: bool | None,
                                                                     globally: bool) -> None:
    got, expected = _both(lambda lib: _counts_and_grads(lib, early_stop, globally))
    _assert_same_run(got, expected)
    stops = early_stop is not False
    # ReLU saves its result: the rerun ends inside it, before its forward hook
    assert got[1] == ([2, 2, 2, 1] if stops else [2, 2, 2, 2])
    assert got[0] == [2, 2, 2, 2]


def test_set_checkpoint_early_stop_overrides_the_argument_as_torch() -> None:
    def run(lib: Any) -> tuple:
        model, started, finished = _sequential(lib)
        x = _input(lib)
        module = _checkpoint_module(lib)
        with module.set_checkpoint_early_stop(False):
            out = module.checkpoint(model, x, use_reentrant=False, early_stop=True)
        out.sum().backward()  # outside the block: the forward's setting holds
        return started, finished, _grads(model, x)

    got, expected = _both(run)
    _assert_same_run(got, expected)
    assert got[1] == [2, 2, 2, 2]


def test_the_reentrant_flavour_always_reruns_everything_as_torch() -> None:
    got, expected = _both(lambda lib: _counts_and_grads(lib, None, False, use_reentrant=True))
    _assert_same_run(got, expected)
    assert got[1] == [2, 2, 2, 2]


def test_gradients_do_not_depend_on_early_stop() -> None:
    stopped = _counts_and_grads(minitorch, True, False)
    full = _counts_and_grads(minitorch, False, False)
    for mine, other in zip(stopped[2], full[2]):
        np.testing.assert_array_equal(mine, other)


def test_each_backward_pass_recomputes_again_as_torch() -> None:
    def run(lib: Any) -> tuple:
        model, started, finished = _sequential(lib)
        x = _input(lib)
        loss = _checkpoint_module(lib).checkpoint(model, x, use_reentrant=False).sum()
        loss.backward(retain_graph=True)
        lib.autograd.grad(loss, x)
        return started, finished, _grads(model, x)

    got, expected = _both(run)
    _assert_same_run(got, expected)
    assert got[1] == [3, 3, 3, 1]


def test_nested_checkpoints_recompute_as_torch() -> None:
    def run(lib: Any) -> tuple:
        model, started, finished = _sequential(lib)
        x = _input(lib)
        module = _checkpoint_module(lib)

        def outer(a: Any) -> Any:
            inner = module.checkpoint(lambda b: model[1](model[0](b)), a, use_reentrant=False)
            return model[3](model[2](inner))

        module.checkpoint(outer, x, use_reentrant=False).pow(2).sum().backward()
        return started, finished, _grads(model, x)

    got, expected = _both(run)
    _assert_same_run(got, expected)


def test_checkpoint_sequential_reruns_up_to_each_segments_last_saved_tensor_as_torch() -> None:
    def run(lib: Any) -> list[int]:
        model, _, finished = _sequential(lib)
        _checkpoint_module(lib).checkpoint_sequential(model, 2, _input(lib), use_reentrant=False).sum().backward()
        return finished

    got, expected = _both(run)
    assert got == expected


@pytest.mark.parametrize("early_stop", [True, False], ids=["early_stop", "full"])
@pytest.mark.parametrize("retain_graph", [True, False], ids=["retain", "free"])
def test_a_backward_inside_the_function_as_torch(early_stop: bool, retain_graph: bool) -> None:
    """PyTorch's own example: ``autograd.grad`` inside the checkpointed function reruns it."""
    def run(lib: Any) -> tuple[int, np.ndarray]:
        calls = [0]

        def function(a: Any) -> Any:
            calls[0] += 1
            (inner,) = lib.autograd.grad(a.sin().cos().sum(), a, retain_graph=retain_graph)
            return a.cos() * inner

        x = _input(lib)
        _checkpoint_module(lib).checkpoint(function, x, use_reentrant=False, early_stop=early_stop).sum().backward()
        return calls[0], x.grad.numpy()

    got, expected = _both(run)
    assert got[0] == expected[0]
    np.testing.assert_allclose(got[1], expected[1], rtol=REL, atol=REL)


def test_the_graph_is_the_ordinary_one_as_torch() -> None:
    def names(lib: Any) -> list[str]:
        model, _, _ = _sequential(lib)
        out = _checkpoint_module(lib).checkpoint(model, _input(lib), use_reentrant=False)
        node = out.grad_fn
        return [node.name(), *[type(n).__name__ for n, _ in node.next_functions if n is not None]]

    got, expected = _both(names)
    assert got == expected


def _changing(lib: Any, first: Callable[[Any], Any], later: Callable[[Any], Any], **keywords: Any) -> list[int]:
    """Checkpoint a function that runs ``first`` the first time and ``later`` after; backward;
    how many times it ran."""
    calls = [0]

    def function(a: Any) -> Any:
        calls[0] += 1
        return first(a) if calls[0] == 1 else later(a)

    x = lib.ones(WIDTH, WIDTH, dtype=lib.float64, requires_grad=True)
    _checkpoint_module(lib).checkpoint(function, x, use_reentrant=False, **keywords).sum().backward()
    return calls


def test_an_output_of_another_shape_passes_when_nothing_is_saved_as_torch() -> None:
    got, expected = _both(lambda lib: _changing(lib, lambda a: a * 2, lambda a: (a * 2)[1:]))
    assert got == expected == [1]  # nothing saved: never recomputed


def test_saved_tensors_of_another_shape_fail_with_torchs_message() -> None:
    got, expected = _both(lambda lib: _error(lambda: _changing(lib, lambda a: a.tanh(), lambda a: a[1:].tanh())))
    assert got[0] == expected[0] == "CheckpointError"
    assert _without_tip(got[1]) == _without_tip(expected[1])
    assert "tensor at position 0" in got[1]


def test_an_output_of_another_shape_passes_when_the_saved_tensors_match_as_torch() -> None:
    got, expected = _both(lambda lib: _changing(lib, lambda a: a.tanh() * 2, lambda a: (a.tanh() * 2)[1:]))
    assert got == expected == [2]


def test_fewer_saved_tensors_fail_even_without_a_determinism_check_as_torch() -> None:
    def run(lib: Any) -> tuple[str, str]:
        return _error(lambda: _changing(lib, lambda a: a.tanh().tanh(), lambda a: a.tanh(), determinism_check="none"))

    got, expected = _both(run)
    assert got[0] == expected[0] == "CheckpointError"
    assert _without_tip(got[1]) == _without_tip(expected[1])
    assert "Number of tensors saved during forward: 2" in got[1]


def test_more_saved_tensors_fail_without_early_stop_and_pass_with_it_as_torch() -> None:
    def run(lib: Any, early_stop: bool) -> Any:
        return _changing(lib, lambda a: a.tanh(), lambda a: a.tanh().tanh(), early_stop=early_stop)

    got, expected = _both(lambda lib: run(lib, True))
    assert got == expected == [2]
    got, expected = _both(lambda lib: _error(lambda: run(lib, False)))
    assert got[0] == expected[0] == "CheckpointError"
    assert _without_tip(got[1]) == _without_tip(expected[1])


def test_reading_saved_tensors_twice_fails_as_torch() -> None:
    def run(lib: Any) -> tuple[str, str]:
        class Square(lib.autograd.Function):
            @staticmethod
            def forward(ctx: Any, a: Any) -> Any:
                ctx.save_for_backward(a)
                return a * a

            @staticmethod
            def backward(ctx: Any, grad: Any) -> Any:
                ctx.saved_tensors  # noqa: B018 - the first read
                (a,) = ctx.saved_tensors
                return 2 * a * grad

        x = _input(lib)
        out = _checkpoint_module(lib).checkpoint(lambda a: Square.apply(a.sin()), x, use_reentrant=False)
        return _error(lambda: out.sum().backward())

    got, expected = _both(run)
    assert got == expected


def test_an_input_changed_in_place_after_the_forward_fails_as_torch() -> None:
    def run(lib: Any) -> str:
        hidden = _input(lib) * 1
        out = _checkpoint_module(lib).checkpoint(lambda a: a.sin(), hidden, use_reentrant=False)
        hidden.add_(1)
        return _error(lambda: out.sum().backward())[0]

    got, expected = _both(run)
    assert got == expected == "RuntimeError"


class _Counted:
    """A context manager that counts how often it was entered."""

    def __init__(self) -> None:
        self.entered = 0

    @contextmanager
    def __call__(self) -> Iterator[None]:
        self.entered += 1
        yield


def _context_entries(lib: Any, grad: bool) -> list[int]:
    forward, recompute = _Counted(), _Counted()
    model, _, _ = _sequential(lib)
    with nullcontext() if grad else lib.no_grad():
        out = _checkpoint_module(lib).checkpoint(model, _input(lib), use_reentrant=False,
                                                 context_fn=lambda: (forward(), recompute()))
    if grad:
        out.sum().backward()
    return [forward.entered, recompute.entered]


@pytest.mark.parametrize("grad", [True, False], ids=["grad", "no_grad"])
def test_context_fn_is_entered_as_torch(grad: bool) -> None:
    got, expected = _both(lambda lib: _context_entries(lib, grad))
    assert got == expected


def test_a_forward_context_that_swallows_the_error_fails_as_torch() -> None:
    @contextmanager
    def swallowing() -> Iterator[None]:
        try:
            yield
        except ValueError:
            pass

    def failing(a: Any) -> Any:
        raise ValueError("inside")

    def run(lib: Any) -> tuple[str, str]:
        return _error(lambda: _checkpoint_module(lib).checkpoint(
            failing, _input(lib), use_reentrant=False, context_fn=lambda: (swallowing(), nullcontext())))

    got, expected = _both(run)
    assert got == expected


@pytest.mark.parametrize("how", ["argument", "set_debug"])
def test_debug_refuses_a_context_fn_as_torch(how: str) -> None:
    def run(lib: Any) -> tuple[str, str]:
        module = _checkpoint_module(lib)
        keywords = {"debug": True} if how == "argument" else {}

        def call() -> Any:
            with module.set_checkpoint_debug_enabled(True) if how == "set_debug" else nullcontext():
                return module.checkpoint(lambda a: a.sin(), _input(lib), use_reentrant=False,
                                         context_fn=lambda: (nullcontext(), nullcontext()), **keywords)

        return _error(call)

    got, expected = _both(run)
    assert got == expected


def test_debug_without_errors_changes_nothing_as_torch() -> None:
    def run(lib: Any) -> tuple:
        model, started, finished = _sequential(lib)
        x = _input(lib)
        module = _checkpoint_module(lib)
        with module.set_checkpoint_debug_enabled(None):
            out = module.checkpoint(model, x, use_reentrant=False, debug=True)
        out.sum().backward()
        return started, finished, _grads(model, x)

    got, expected = _both(run)
    _assert_same_run(got, expected)
