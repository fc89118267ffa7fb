"""``utils.checkpoint`` against two oracles: the same model run without checkpoint (gradients
equal bit for bit in float64) and PyTorch's own ``torch.utils.checkpoint`` (values, gradients,
warnings and errors), for both flavours (``use_reentrant`` True and False)."""

from __future__ import annotations

import importlib
import warnings
from typing import Any, Callable

import numpy as np
import pytest

import minitorch
from minitorch.utils.checkpoint import checkpoint

FLAVOURS = {"reentrant": True, "non_reentrant": False}
WIDTHS = (3, 5, 5, 4, 2)
BATCH = 6
REL = 1e-12
DROPOUT = 0.5


def _checkpoint_module(lib: Any) -> Any:
    """The library's own ``utils.checkpoint``: the oracle's functions for torch, ours for minitorch."""
    return importlib.import_module(f"{lib.__name__}.utils.checkpoint")


def _layers(lib: Any) -> list[Any]:
    """Linear layers and tanh between them, with float64 weights from a fixed numpy stream."""
    rng = np.random.default_rng(7)
    layers: list[Any] = []
    for fan_in, fan_out in zip(WIDTHS, WIDTHS[1:]):
        linear = lib.nn.Linear(fan_in, fan_out).double()
        linear.load_state_dict({"weight": lib.tensor(rng.standard_normal((fan_out, fan_in))),
                                "bias": lib.tensor(rng.standard_normal(fan_out))})
        layers += [linear, lib.nn.Tanh()]
    return layers[:-1]


def _data(lib: Any, requires_grad: bool = True) -> Any:
    return lib.tensor(np.random.default_rng(3).standard_normal((BATCH, WIDTHS[0])), requires_grad=requires_grad)


def _parameters(layers: list[Any]) -> list[Any]:
    return [p for layer in layers for p in layer.parameters()]


def _loss(out: Any) -> Any:
    """Squares and sines, so that every element's gradient differs."""
    return (out * out).sum() + out.sin().sum()


def _grads(tensors: list[Any]) -> list[np.ndarray]:
    return [t.grad.detach().numpy().copy() for t in tensors]


def _assert_equal(got: list[np.ndarray], expected: list[np.ndarray]) -> None:
    assert len(got) == len(expected)
    for mine, oracle in zip(got, expected):
        np.testing.assert_array_equal(mine, oracle)


def _assert_close(got: list[np.ndarray], expected: list[np.ndarray]) -> None:
    assert len(got) == len(expected)
    for mine, oracle in zip(got, expected):
        np.testing.assert_allclose(mine, oracle, rtol=REL, atol=REL)


def _run_block(lib: Any, layers: list[Any]) -> Callable[[Any], Any]:
    def block(x: Any) -> Any:
        for layer in layers:
            x = layer(x)
        return x
    return block


def _gradients(lib: Any, use_reentrant: bool | None, checkpointed: bool = True) -> tuple[np.ndarray, list[np.ndarray]]:
    """Output and gradients (input, then every parameter) of the MLP, its middle checkpointed or not."""
    layers = _layers(lib)
    x = _data(lib)
    head, middle, tail = layers[:1], layers[1:4], layers[4:]
    hidden = _run_block(lib, head)(x)
    if checkpointed:
        hidden = _checkpoint_module(lib).checkpoint(_run_block(lib, middle), hidden, use_reentrant=use_reentrant)
    else:
        hidden = _run_block(lib, middle)(hidden)
    out = _run_block(lib, tail)(hidden)
    _loss(out).backward()
    return out.detach().numpy(), _grads([x, *_parameters(layers)])


@pytest.mark.parametrize("use_reentrant", FLAVOURS.values(), ids=FLAVOURS.keys())
def test_gradients_equal_the_plain_run_and_torch(torch_ref: Any, use_reentrant: bool) -> None:
    out, grads = _gradients(minitorch, use_reentrant)
    plain_out, plain_grads = _gradients(minitorch, use_reentrant, checkpointed=False)
    np.testing.assert_array_equal(out, plain_out)
    _assert_equal(grads, plain_grads)
    torch_out, torch_grads = _gradients(torch_ref, use_reentrant)
    np.testing.assert_allclose(out, torch_out, rtol=REL)
    _assert_close(grads, torch_grads)


@pytest.mark.parametrize("use_reentrant", FLAVOURS.values(), ids=FLAVOURS.keys())
def test_grad_fn_is_named_as_torch(torch_ref: Any, use_reentrant: bool) -> None:
    names = []
    for lib in (minitorch, torch_ref):
        linear = _layers(lib)[0]
        out = _checkpoint_module(lib).checkpoint(linear, _data(lib), use_reentrant=use_reentrant)
        names.append(type(out.grad_fn).__name__)
    assert names[0] == names[1]


def _dropout_gradient(use_reentrant: bool, checkpointed: bool, preserve_rng_state: bool = True) -> list[np.ndarray]:
    """Gradients of a block with dropout after seeding, and the next random draw after backward."""
    minitorch.manual_seed(11)
    layers = _layers(minitorch)
    x = _data(minitorch)

    def block(a: Any) -> Any:
        return layers[2](minitorch.nn.functional.dropout(layers[0](a).tanh(), p=DROPOUT, training=True))

    if checkpointed:
        out = checkpoint(block, x, use_reentrant=use_reentrant, preserve_rng_state=preserve_rng_state)
    else:
        out = block(x)
    _loss(out).backward()
    return _grads([x, *_parameters(layers[:3])]) + [minitorch.rand(4).numpy()]


@pytest.mark.parametrize("use_reentrant", FLAVOURS.values(), ids=FLAVOURS.keys())
def test_dropout_replays_its_mask_and_leaves_the_stream_where_the_plain_run_does(use_reentrant: bool) -> None:
    _assert_equal(_dropout_gradient(use_reentrant, checkpointed=True),
                  _dropout_gradient(use_reentrant, checkpointed=False))


@pytest.mark.parametrize("use_reentrant", FLAVOURS.values(), ids=FLAVOURS.keys())
def test_without_preserve_rng_state_the_recomputation_draws_a_new_mask(use_reentrant: bool) -> None:
    got = _dropout_gradient(use_reentrant, checkpointed=True, preserve_rng_state=False)
    plain = _dropout_gradient(use_reentrant, checkpointed=False)
    assert not np.array_equal(got[0], plain[0])


def _keyword_run(lib: Any, checkpointed: bool) -> list[np.ndarray]:
    x = _data(lib)
    shift = lib.tensor(np.linspace(-1.0, 1.0, WIDTHS[0]), requires_grad=True)

    def scaled(a: Any, *, scale: float, offset: Any) -> Any:
        return (a * scale + offset).tanh()

    if checkpointed:
        out = _checkpoint_module(lib).checkpoint(scaled, x, scale=1.5, offset=shift, use_reentrant=False)
    else:
        out = scaled(x, scale=1.5, offset=shift)
    _loss(out).backward()
    return _grads([x, shift])


def test_keyword_arguments_reach_the_function_and_their_tensors_get_gradients(torch_ref: Any) -> None:
    got = _keyword_run(minitorch, checkpointed=True)
    _assert_equal(got, _keyword_run(minitorch, checkpointed=False))
    _assert_close(got, _keyword_run(torch_ref, checkpointed=True))


def _error(action: Callable[[], Any]) -> tuple[type, str]:
    with pytest.raises(Exception) as caught:
        action()
    return type(caught.value), str(caught.value)


def test_the_reentrant_flavour_refuses_keyword_arguments_as_torch(torch_ref: Any) -> None:
    errors = [_error(lambda lib=lib: _checkpoint_module(lib).checkpoint(
        lambda a, scale: a * scale, _data(lib), scale=2.0, use_reentrant=True)) for lib in (minitorch, torch_ref)]
    assert errors[0] == errors[1]


def _several(lib: Any, use_reentrant: bool, use_both: bool) -> tuple[list[Any], list[np.ndarray]]:
    x = _data(lib)
    linear = _layers(lib)[0]

    def split(a: Any) -> tuple[Any, Any, int, None]:
        hidden = linear(a)
        return hidden.tanh(), (hidden * hidden).sum(dim=1), 3, None

    first, second, number, nothing = _checkpoint_module(lib).checkpoint(split, x, use_reentrant=use_reentrant)
    loss = _loss(first) + (second.cos().sum() if use_both else 0)
    loss.backward()
    return [number, nothing, first.requires_grad, second.requires_grad], _grads([x, *linear.parameters()])


@pytest.mark.parametrize("use_both", [True, False], ids=["both_outputs", "first_output"])
@pytest.mark.parametrize("use_reentrant", FLAVOURS.values(), ids=FLAVOURS.keys())
def test_several_outputs_and_non_tensor_outputs(torch_ref: Any, use_reentrant: bool, use_both: bool) -> None:
    got_items, got = _several(minitorch, use_reentrant, use_both)
    ref_items, expected = _several(torch_ref, use_reentrant, use_both)
    assert got_items == ref_items
    _assert_close(got, expected)


def _frozen_input(lib: Any, use_reentrant: bool) -> tuple[bool, list[str], list[Any]]:
    """A checkpoint whose tensor input does not require grad: does the output, and what warns?"""
    linear = _layers(lib)[0]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = _checkpoint_module(lib).checkpoint(linear, _data(lib, requires_grad=False), use_reentrant=use_reentrant)
    grads: list[Any] = []
    if out.requires_grad:
        _loss(out).backward()
        grads = _grads(list(linear.parameters()))
    return out.requires_grad, [str(w.message) for w in caught], grads


@pytest.mark.parametrize("use_reentrant", FLAVOURS.values(), ids=FLAVOURS.keys())
def test_an_input_without_grad(torch_ref: Any, use_reentrant: bool) -> None:
    requires, messages, grads = _frozen_input(minitorch, use_reentrant)
    ref_requires, ref_messages, ref_grads = _frozen_input(torch_ref, use_reentrant)
    assert (requires, messages) == (ref_requires, ref_messages)
    _assert_close(grads, ref_grads)


def test_an_integer_tensor_argument(torch_ref: Any) -> None:
    results = []
    for lib in (minitorch, torch_ref):
        for use_reentrant in FLAVOURS.values():
            x = _data(lib)
            rows = lib.tensor([4, 0, 2])
            out = _checkpoint_module(lib).checkpoint(lambda a, index: a[index].exp(), x, rows,
                                                    use_reentrant=use_reentrant)
            out.sum().backward()
            results.append(x.grad.numpy())
    _assert_close(results[:2], results[2:])


@pytest.mark.parametrize("use_reentrant", FLAVOURS.values(), ids=FLAVOURS.keys())
def test_under_no_grad_nothing_is_recorded(torch_ref: Any, use_reentrant: bool) -> None:
    outputs = []
    for lib in (minitorch, torch_ref):
        linear = _layers(lib)[0]
        with lib.no_grad():
            out = _checkpoint_module(lib).checkpoint(linear, _data(lib), use_reentrant=use_reentrant)
        assert not out.requires_grad
        outputs.append(out.numpy())
    _assert_close(outputs[:1], outputs[1:])


def _sequential_run(lib: Any, segments: int, as_list: bool, use_reentrant: bool | None) -> list[np.ndarray]:
    layers = _layers(lib)
    x = _data(lib)
    functions = layers if as_list else lib.nn.Sequential(*layers)
    if segments:
        out = _checkpoint_module(lib).checkpoint_sequential(functions, segments, x, use_reentrant=use_reentrant)
    else:
        out = _run_block(lib, layers)(x)
    _loss(out).backward()
    return [out.detach().numpy()] + _grads([x, *_parameters(layers)])


@pytest.mark.parametrize("segments", [1, 2, 3, 7])
@pytest.mark.parametrize("as_list", [False, True], ids=["sequential", "list"])
@pytest.mark.parametrize("use_reentrant", FLAVOURS.values(), ids=FLAVOURS.keys())
def test_checkpoint_sequential_segments(torch_ref: Any, segments: int, as_list: bool, use_reentrant: bool) -> None:
    got = _sequential_run(minitorch, segments, as_list, use_reentrant)
    _assert_equal(got, _sequential_run(minitorch, 0, as_list, use_reentrant))
    _assert_close(got, _sequential_run(torch_ref, segments, as_list, use_reentrant))


def test_more_segments_than_functions_fails_as_torch(torch_ref: Any) -> None:
    errors = [_error(lambda lib=lib: _checkpoint_module(lib).checkpoint_sequential(
        _layers(lib)[:2], 3, _data(lib), use_reentrant=False)) for lib in (minitorch, torch_ref)]
    assert errors[0] == errors[1]


def test_checkpoint_sequential_refuses_unknown_keywords_as_torch(torch_ref: Any) -> None:
    errors = [_error(lambda lib=lib: _checkpoint_module(lib).checkpoint_sequential(
        _layers(lib), 2, _data(lib), use_reentrant=False, speed=1)) for lib in (minitorch, torch_ref)]
    assert errors[0] == errors[1]


def _warnings_without_use_reentrant(lib: Any) -> list[tuple[type, str]]:
    module = _checkpoint_module(lib)
    layers = _layers(lib)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        module.checkpoint(layers[0], _data(lib))
        module.checkpoint_sequential(layers, 2, _data(lib))
    return [(w.category, str(w.message)) for w in caught]


def test_not_passing_use_reentrant_warns_as_torch_and_uses_the_reentrant_flavour(torch_ref: Any) -> None:
    got = _warnings_without_use_reentrant(minitorch)
    assert got == _warnings_without_use_reentrant(torch_ref)
    assert got  # torch 2.13 warns (it does not raise)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        names = [type(_checkpoint_module(lib).checkpoint(_layers(lib)[0], _data(lib)).grad_fn).__name__
                 for lib in (minitorch, torch_ref)]
    assert names[0] == names[1]


@pytest.mark.parametrize("how", ["autograd_grad", "backward_inputs"])
def test_the_reentrant_flavour_refuses_a_partial_backward_as_torch(torch_ref: Any, how: str) -> None:
    def run(lib: Any) -> None:
        x = _data(lib)
        out = _checkpoint_module(lib).checkpoint(lambda a: a.tanh(), x, use_reentrant=True).sum()
        if how == "autograd_grad":
            lib.autograd.grad(out, x)
        else:
            out.backward(inputs=[x])

    assert _error(lambda: run(minitorch)) == _error(lambda: run(torch_ref))


def test_the_reentrant_flavour_needs_an_output_that_requires_grad_as_torch(torch_ref: Any) -> None:
    def run(lib: Any) -> None:
        out = _checkpoint_module(lib).checkpoint(lambda a: a.detach() * 2, _data(lib), use_reentrant=True)
        out.sum().backward()

    assert _error(lambda: run(minitorch)) == _error(lambda: run(torch_ref))


def _autograd_grad(lib: Any, checkpointed: bool) -> list[np.ndarray]:
    layers = _layers(lib)
    x = _data(lib)
    block = _run_block(lib, layers)
    out = _checkpoint_module(lib).checkpoint(block, x, use_reentrant=False) if checkpointed else block(x)
    found = lib.autograd.grad(_loss(out), [x, *_parameters(layers)])
    assert all(p.grad is None for p in _parameters(layers))
    return [g.numpy() for g in found]


def test_autograd_grad_through_the_non_reentrant_flavour(torch_ref: Any) -> None:
    got = _autograd_grad(minitorch, checkpointed=True)
    _assert_equal(got, _autograd_grad(minitorch, checkpointed=False))
    _assert_close(got, _autograd_grad(torch_ref, checkpointed=True))


def _second_derivative(lib: Any, checkpointed: bool) -> list[np.ndarray]:
    layers = _layers(lib)
    x = _data(lib)
    block = _run_block(lib, layers)
    out = _checkpoint_module(lib).checkpoint(block, x, use_reentrant=False) if checkpointed else block(x)
    (first,) = lib.autograd.grad(_loss(out), x, create_graph=True)
    (first * first).sum().backward()
    return _grads([x, *_parameters(layers)])


def test_double_backward_through_the_non_reentrant_flavour(torch_ref: Any) -> None:
    got = _second_derivative(minitorch, checkpointed=True)
    _assert_close(got, _second_derivative(minitorch, checkpointed=False))
    _assert_close(got, _second_derivative(torch_ref, checkpointed=True))


@pytest.mark.parametrize("use_reentrant", FLAVOURS.values(), ids=FLAVOURS.keys())
def test_a_second_backward_without_retain_graph_fails_as_torch(torch_ref: Any, use_reentrant: bool) -> None:
    def run(lib: Any) -> None:
        out = _loss(_checkpoint_module(lib).checkpoint(_run_block(lib, _layers(lib)), _data(lib),
                                                       use_reentrant=use_reentrant))
        out.backward()
        out.backward()

    assert _error(lambda: run(minitorch)) == _error(lambda: run(torch_ref))


def test_an_unknown_determinism_check_fails_as_torch(torch_ref: Any) -> None:
    errors = [_error(lambda lib=lib: _checkpoint_module(lib).checkpoint(
        lambda a: a * 2, _data(lib), use_reentrant=False, determinism_check="exact")) for lib in (minitorch, torch_ref)]
    assert errors[0] == errors[1]


def test_a_recomputation_of_another_shape_is_a_checkpoint_error() -> None:
    calls = []

    def changing(a: Any) -> Any:
        calls.append(None)
        return a.tanh() if len(calls) == 1 else a[1:].tanh()

    out = checkpoint(changing, _data(minitorch), use_reentrant=False)
    with pytest.raises(minitorch.utils.checkpoint.CheckpointError, match="different metadata"):
        out.sum().backward()


def _batchnorm_statistics(lib: Any, use_reentrant: bool) -> list[np.ndarray]:
    linear, norm = _layers(lib)[0], lib.nn.BatchNorm1d(WIDTHS[1]).double()
    out = _checkpoint_module(lib).checkpoint(lambda a: norm(linear(a)).tanh(), _data(lib), use_reentrant=use_reentrant)
    _loss(out).backward()
    return [norm.running_mean.numpy(), norm.running_var.numpy(), norm.num_batches_tracked.numpy()]


@pytest.mark.parametrize("use_reentrant", FLAVOURS.values(), ids=FLAVOURS.keys())
def test_batchnorm_inside_updates_its_statistics_in_the_recomputation_too_as_torch(torch_ref: Any,
                                                                                    use_reentrant: bool) -> None:
    got = _batchnorm_statistics(minitorch, use_reentrant)
    _assert_close(got, _batchnorm_statistics(torch_ref, use_reentrant))
    assert got[2] == 2  # the forward and the recomputation
