"""``minitorch.func.functional_call``, ``stack_module_state``, ``replace_all_batch_norm_modules_``
and the deprecated ``minitorch.nn.utils.stateless.functional_call``, with PyTorch as the oracle.

Each test builds the same module in both libraries (weights copied from NumPy arrays), runs the
same calls and compares outputs, gradients, what the passed dicts hold afterwards, the module's
own state afterwards, and the type (often the text) of the errors. What is checked:

* the call: one dict, a tuple/list of dicts, a partial dict, positional args as a tensor, a
  tuple or a list, kwargs; ``None`` for a tensor; a train-mode batch norm whose running
  statistics go to the passed dict, not the module; a reassigned buffer coming back to the dict;
  the module put back when ``forward`` or a swap raises; plain tensors and tensors requiring
  grad in place of parameters (gradients go to them, with ``backward`` and with ``func.grad``);
  tied weights with and without ``tie_weights``; ``strict``; repeated keys; non-dicts; bad
  paths; a new attribute that only lives during the call; parametrized modules;
* ``stack_module_state``: keys, shapes, values, fresh leaves, its errors; ensembling with
  ``vmap`` over ``functional_call`` as in PyTorch's tutorial (outputs and gradients);
* ``replace_all_batch_norm_modules_``: buffers dropped, batch statistics used afterwards;
* ``nn.utils.stateless.functional_call``: a ``FutureWarning``, the same results.
"""

from __future__ import annotations

import collections
import warnings
from types import ModuleType
from typing import Any, Callable, Optional

import numpy as np
import pytest

import minitorch

RNG = np.random.default_rng(7)
X = RNG.normal(size=(5, 3)).astype(np.float32)


def _arrays(seed: int) -> dict[str, np.ndarray]:
    """Values for every tensor of :func:`_net`, by name (the running statistics not the defaults)."""
    rng = np.random.default_rng(seed)
    return {
        "0.weight": rng.normal(size=(4, 3)).astype(np.float32),
        "0.bias": rng.normal(size=4).astype(np.float32),
        "1.weight": rng.uniform(0.5, 1.5, size=4).astype(np.float32),
        "1.bias": rng.normal(size=4).astype(np.float32),
        "1.running_mean": rng.normal(size=4).astype(np.float32),
        "1.running_var": rng.uniform(0.5, 2.0, size=4).astype(np.float32),
        "1.num_batches_tracked": np.array(3, dtype=np.int64),
        "3.weight": rng.normal(size=(2, 4)).astype(np.float32),
        "3.bias": rng.normal(size=2).astype(np.float32),
    }


PARAMETER_NAMES = ["0.weight", "0.bias", "1.weight", "1.bias", "3.weight", "3.bias"]
BUFFER_NAMES = ["1.running_mean", "1.running_var", "1.num_batches_tracked"]


def _np(tensor: Any) -> np.ndarray:
    return tensor.detach().numpy()


def _load(lib: ModuleType, module: Any, arrays: dict[str, np.ndarray]) -> Any:
    """``module`` with each named tensor overwritten in place by ``arrays[name]``."""
    tensors = {**dict(module.named_parameters()), **dict(module.named_buffers())}
    with lib.no_grad():
        for name, array in arrays.items():
            tensors[name].copy_(lib.tensor(array))
    return module


def _net(lib: ModuleType, seed: int = 0, training: bool = False) -> Any:
    """Linear, BatchNorm1d, ReLU, Linear, with the values of ``_arrays(seed)``."""
    net = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.BatchNorm1d(4), lib.nn.ReLU(), lib.nn.Linear(4, 2))
    _load(lib, net, _arrays(seed))
    return net.train(training)


def _tensors(lib: ModuleType, arrays: dict[str, np.ndarray], requires_grad: bool = False) -> dict[str, Any]:
    """``arrays`` as tensors; with ``requires_grad`` the parameters (not the buffers) require grad."""
    return {name: lib.tensor(array, requires_grad=requires_grad and name in PARAMETER_NAMES)
            for name, array in arrays.items()}


def _state_arrays(module: Any) -> dict[str, np.ndarray]:
    return {name: _np(t).copy() for name, t in [*module.named_parameters(), *module.named_buffers()]}


def _both(run: Callable[[ModuleType], Any]) -> tuple[Any, Any]:
    """``run`` with minitorch, then with PyTorch (imported only by the ``torch_ref`` fixture)."""
    import torch

    return run(minitorch), run(torch)


def _assert_close(ours: Any, theirs: Any) -> None:
    np.testing.assert_allclose(_np(ours), _np(theirs), rtol=1e-5, atol=1e-6)


def _raised(run: Callable[[], Any]) -> BaseException:
    try:
        run()
    except Exception as error:  # noqa: BLE001 - the point is which one
        return error
    raise AssertionError("no exception was raised")


def _same_error(run: Callable[[ModuleType], Any], exact_message: bool = True) -> BaseException:
    """The exceptions of ``run`` in both libraries: same type (and text), returns minitorch's."""
    ours, theirs = _both(lambda lib: _raised(lambda: run(lib)))
    assert type(ours) is type(theirs), (ours, theirs)
    if exact_message:
        assert str(ours) == str(theirs)
    return ours


# --------------------------------------------------------------------------------- the call


def test_one_dict_replaces_every_parameter_and_buffer(torch_ref: ModuleType) -> None:
    def run(lib: ModuleType) -> tuple[Any, dict[str, np.ndarray]]:
        net = _net(lib, seed=0)
        return lib.func.functional_call(net, _tensors(lib, _arrays(1)), lib.tensor(X)), _state_arrays(net)

    (ours, ours_after), (theirs, _) = _both(run)
    _assert_close(ours, theirs)
    assert not np.allclose(_np(ours), _np(_net(minitorch, seed=0)(minitorch.tensor(X))))  # the dict did count
    for name, array in _arrays(0).items():  # and the module is its own again
        np.testing.assert_array_equal(ours_after[name], array)


@pytest.mark.parametrize("container", [tuple, list, collections.UserList], ids=lambda c: c.__name__)
def test_a_sequence_of_dicts_is_one_dict(container: type, torch_ref: ModuleType) -> None:
    def run(lib: ModuleType) -> Any:
        values = _tensors(lib, _arrays(1))
        dicts = container([{k: values[k] for k in PARAMETER_NAMES}, {k: values[k] for k in BUFFER_NAMES}])
        return lib.func.functional_call(_net(lib), dicts, lib.tensor(X))

    ours, theirs = _both(run)
    _assert_close(ours, theirs)
    _assert_close(ours, minitorch.func.functional_call(_net(minitorch), _tensors(minitorch, _arrays(1)),
                                                       minitorch.tensor(X)))


@pytest.mark.parametrize("keys", [["0.weight"], ["1.running_mean", "1.running_var"], ["3.bias", "1.weight"], []],
                         ids=repr)
def test_names_left_out_keep_the_module_own_tensors(keys: list[str], torch_ref: ModuleType) -> None:
    def run(lib: ModuleType) -> Any:
        new = _arrays(1)
        return lib.func.functional_call(_net(lib, seed=0), {k: lib.tensor(new[k]) for k in keys}, lib.tensor(X))

    ours, theirs = _both(run)
    _assert_close(ours, theirs)
    mixed = {**_arrays(0), **{k: _arrays(1)[k] for k in keys}}  # what the call stands for
    _assert_close(ours, _load(minitorch, _net(minitorch), mixed)(minitorch.tensor(X)))


def _counting_module(lib: ModuleType) -> Any:
    class Counting(lib.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.lin = lib.nn.Linear(2, 2)

        def forward(self, *xs: Any, scale: float = 1.0, shift: Optional[Any] = None) -> Any:
            """``(sum of lin(x) over every tensor given, flattening lists) * scale + shift``, ``len(xs)``."""
            flat = [x for arg in xs for x in (arg if isinstance(arg, list) else [arg])]
            out = sum(self.lin(x) for x in flat) * scale if flat else self.lin.bias * scale
            return (out if shift is None else out + shift), len(xs)

    return Counting()


@pytest.mark.parametrize(("args", "kwargs"), [
    ("tensor", None), ("tuple1", None), ("tuple2", None), ("list", None), ("none", None), ("empty", None),
    ("tensor", {"scale": 3.0}), ("tuple2", {"scale": -1.0, "shift": "tensor"}), ("none", {"shift": "tensor"}),
], ids=repr)
def test_args_and_kwargs_reach_forward(args: str, kwargs: Optional[dict[str, Any]], torch_ref: ModuleType) -> None:
    """A tuple is the positional arguments, anything else (a list too) is the one argument."""
    ones = np.ones((1, 2), np.float32)

    def run(lib: ModuleType) -> tuple[np.ndarray, int]:
        x = lib.tensor(ones)
        given = {"tensor": x, "tuple1": (x,), "tuple2": (x, x * 2), "list": [x, x], "none": None, "empty": ()}[args]
        named = None if kwargs is None else {k: (lib.tensor([0.5]) if v == "tensor" else v) for k, v in kwargs.items()}
        values = {"lin.weight": lib.tensor([[1.0, 2.0], [3.0, -4.0]]), "lin.bias": lib.tensor([0.25, -0.5])}
        out, count = lib.func.functional_call(_counting_module(lib), values, given, named)
        return _np(out), count

    (ours, ours_count), (theirs, theirs_count) = _both(run)
    assert ours_count == theirs_count == {"tensor": 1, "tuple1": 1, "tuple2": 2, "list": 1}.get(args, 0)
    np.testing.assert_allclose(ours, theirs, rtol=1e-6)
    bias = np.array([0.25, -0.5], np.float32)
    scale = 1.0 if kwargs is None else kwargs.get("scale", 1.0)
    assert not np.allclose(ours, 0) and (args not in ("none", "empty") or np.allclose(ours, bias * scale + (
        0.5 if kwargs else 0.0)))


def test_train_mode_batch_norm_writes_its_running_stats_into_the_dict(torch_ref: ModuleType) -> None:
    def run(lib: ModuleType) -> tuple[Any, dict[str, np.ndarray], dict[str, np.ndarray], bool]:
        net = _net(lib, seed=0, training=True)
        originals = {name: t for name, t in net.named_buffers()}
        given = _tensors(lib, _arrays(1))
        out = lib.func.functional_call(net, given, lib.tensor(X))
        same_objects = all(t is originals[n] for n, t in net.named_buffers())
        return out, {k: _np(given[k]) for k in BUFFER_NAMES}, _state_arrays(net), same_objects

    (ours, ours_given, ours_after, same), (theirs, theirs_given, _, _) = _both(run)
    _assert_close(ours, theirs)
    for name in BUFFER_NAMES:
        np.testing.assert_allclose(ours_given[name], theirs_given[name], rtol=1e-5, atol=1e-6)
    assert int(ours_given["1.num_batches_tracked"]) == 4
    assert not np.allclose(ours_given["1.running_mean"], _arrays(1)["1.running_mean"])
    assert same
    for name, array in _arrays(0).items():
        np.testing.assert_array_equal(ours_after[name], array)


def _reassigning_module(lib: ModuleType) -> Any:
    class Reassigning(lib.nn.Module):
        """``self.foo = self.foo + x``: a new tensor in the buffer's slot, not an in-place write."""

        def __init__(self) -> None:
            super().__init__()
            self.register_buffer("foo", lib.zeros(()))

        def forward(self, x: Any) -> Any:
            self.foo = self.foo + x
            return self.foo

    return Reassigning()


@pytest.mark.parametrize("tie_weights", [True, False])
@pytest.mark.parametrize("as_tuple", [False, True])
def test_a_reassigned_buffer_comes_back_to_the_dict_passed(tie_weights: bool, as_tuple: bool,
                                                             torch_ref: ModuleType) -> None:
    """PyTorch writes into the dict it was given: the caller's one dict, or its merged copy of a tuple."""
    def run(lib: ModuleType) -> tuple[float, float, float]:
        module = _reassigning_module(lib)
        given = {"foo": lib.tensor(5.0)}
        out = lib.func.functional_call(module, (given,) if as_tuple else given, lib.tensor(1.0),
                                       tie_weights=tie_weights)
        return float(out.detach()), float(given["foo"]), float(module.foo)

    ours, theirs = _both(run)
    assert ours == theirs
    assert ours == (6.0, 5.0 if as_tuple else 6.0, 0.0)


def test_none_in_place_of_a_tensor(torch_ref: ModuleType) -> None:
    def run(lib: ModuleType) -> Any:
        lin = _load(lib, lib.nn.Linear(3, 4), {"weight": _arrays(0)["0.weight"], "bias": _arrays(0)["0.bias"]})
        out = lib.func.functional_call(lin, {"bias": None}, lib.tensor(X))
        assert lin.bias is not None
        return out

    ours, theirs = _both(run)
    _assert_close(ours, theirs)
    np.testing.assert_allclose(_np(ours), X @ _arrays(0)["0.weight"].T, rtol=1e-5, atol=1e-6)


def _raising_module(lib: ModuleType) -> Any:
    class Raising(lib.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.lin = lib.nn.Linear(2, 2)
            self.register_buffer("buf", lib.ones(2))

        def forward(self, x: Any) -> Any:
            raise KeyError("inside forward")

    return Raising()


def test_the_module_is_put_back_when_forward_raises(torch_ref: ModuleType) -> None:
    def run(lib: ModuleType) -> tuple[str, bool]:
        module = _raising_module(lib)
        before = {name: t for name, t in [*module.named_parameters(), *module.named_buffers()]}
        given = {"lin.weight": lib.zeros(2, 2), "buf": lib.zeros(2), "extra": lib.ones(1), "lin.extra": lib.ones(1)}
        error = _raised(lambda: lib.func.functional_call(module, given, lib.ones(1, 2)))
        after = {name: t for name, t in [*module.named_parameters(), *module.named_buffers()]}
        restored = (after.keys() == before.keys() and all(after[k] is before[k] for k in before)
                    and not hasattr(module, "extra") and not hasattr(module.lin, "extra")
                    and isinstance(module.lin.weight, lib.nn.Parameter))
        return type(error).__name__, restored

    ours, theirs = _both(run)
    assert ours == theirs == ("KeyError", True)


@pytest.mark.parametrize(("key", "value"), [
    ("lin.weight.foo", "tensor"),  # a path through a tensor: TypeError
    ("nope.weight", "tensor"),     # a submodule that is not there: AttributeError
    ("lin.bias", 3.0),             # not a tensor: TypeError
    ("lin", "tensor"),             # a submodule's slot: TypeError
])
def test_a_bad_key_or_value_raises_as_pytorch_and_undoes_the_keys_before_it(key: str, value: Any,
                                                                            torch_ref: ModuleType) -> None:
    def run(lib: ModuleType) -> None:
        module = _raising_module(lib)
        weight = module.lin.weight
        given = {"lin.weight": lib.zeros(2, 2), "new_attribute": lib.ones(1),
                 key: lib.ones(2) if value == "tensor" else value}
        try:
            lib.func.functional_call(module, given, lib.ones(1, 2))
        finally:
            assert module.lin.weight is weight
            assert not hasattr(module, "new_attribute")
            assert isinstance(module.lin, lib.nn.Linear)

    _same_error(run, exact_message=False)


def test_a_new_attribute_lives_only_during_the_call(torch_ref: ModuleType) -> None:
    def run(lib: ModuleType) -> tuple[list[np.ndarray], bool, bool, np.ndarray]:
        seen: list[np.ndarray] = []

        class Peeking(lib.nn.Module):
            def __init__(self) -> None:
                super().__init__()
                self.lin = lib.nn.Linear(2, 2)

            def forward(self, x: Any) -> Any:
                seen.extend([_np(self.extra), _np(self.lin.extra)])
                return self.lin(x) + self.extra

        module = Peeking()
        given = {"extra": lib.tensor([1.0, 2.0]), "lin.extra": lib.tensor([3.0])}
        lib.func.functional_call(module, given, lib.ones(1, 2))
        return seen, hasattr(module, "extra"), hasattr(module.lin, "extra"), _np(given["extra"])

    ours, theirs = _both(run)
    for a, b in zip(ours[0], theirs[0]):
        np.testing.assert_array_equal(a, b)
    assert len(ours[0]) == 2 and ours[1:3] == theirs[1:3] == (False, False)
    np.testing.assert_array_equal(ours[3], theirs[3])


@pytest.mark.parametrize("requires_grad", [False, True])
def test_tensors_in_place_of_parameters_need_not_be_parameters(requires_grad: bool, torch_ref: ModuleType) -> None:
    def run(lib: ModuleType) -> tuple[Any, bool, bool]:
        net = _net(lib)
        given = _tensors(lib, _arrays(2), requires_grad=requires_grad)
        out = lib.func.functional_call(net, given, lib.tensor(X))
        return out, out.requires_grad, all(isinstance(p, lib.nn.Parameter) for p in net.parameters())

    (ours, ours_rg, ours_kept), (theirs, theirs_rg, _) = _both(run)
    _assert_close(ours, theirs)
    assert ours_rg == theirs_rg == requires_grad
    assert ours_kept


def test_gradients_go_to_the_dict_tensors_not_the_module(torch_ref: ModuleType) -> None:
    def run(lib: ModuleType) -> tuple[dict[str, np.ndarray], list[Any]]:
        net = _net(lib, training=True)
        given = _tensors(lib, _arrays(2), requires_grad=True)
        out = lib.func.functional_call(net, given, lib.tensor(X))
        (out ** 2).sum().backward()
        return {k: _np(given[k].grad) for k in PARAMETER_NAMES}, [p.grad for p in net.parameters()]

    (ours, ours_module), (theirs, _) = _both(run)
    for name in PARAMETER_NAMES:
        np.testing.assert_allclose(ours[name], theirs[name], rtol=1e-4, atol=1e-5)
        assert np.abs(ours[name]).sum() > 0
    assert ours_module == [None] * len(PARAMETER_NAMES)


def test_func_grad_over_functional_call(torch_ref: ModuleType) -> None:
    def run(lib: ModuleType) -> dict[str, Any]:
        net = _net(lib)
        params = {k: lib.tensor(_arrays(2)[k]) for k in PARAMETER_NAMES}

        def loss(ps: dict[str, Any]) -> Any:
            return (lib.func.functional_call(net, ps, (lib.tensor(X),)) ** 2).mean()

        return lib.func.grad(loss)(params)

    ours, theirs = _both(run)
    assert list(ours) == list(theirs) == PARAMETER_NAMES
    for name in PARAMETER_NAMES:
        np.testing.assert_allclose(_np(ours[name]), _np(theirs[name]), rtol=1e-4, atol=1e-6)


# ------------------------------------------------------------------------------ tied weights


def _tied_module(lib: ModuleType) -> Any:
    class Tied(lib.nn.Module):
        """One Parameter under two names: ``x + foo + 2 * bar + buf``."""

        def __init__(self) -> None:
            super().__init__()
            self.foo = lib.nn.Parameter(lib.tensor(1.0))
            self.bar = self.foo
            self.register_buffer("buf", lib.tensor(10.0))

        def forward(self, x: Any) -> Any:
            return x + self.foo + 2 * self.bar + self.buf

    return Tied()


@pytest.mark.parametrize(("keys", "tie_weights"), [
    (["foo"], True), (["bar"], True), (["foo"], False), (["bar"], False), (["foo", "bar"], True),
    (["foo", "bar"], False), (["foo", "buf"], True), ([], True),
], ids=repr)
def test_one_value_for_a_tied_parameter(keys: list[str], tie_weights: bool, torch_ref: ModuleType) -> None:
    def run(lib: ModuleType) -> tuple[float, bool]:
        module = _tied_module(lib)
        zero = lib.tensor(0.0)
        out = lib.func.functional_call(module, {k: zero for k in keys}, lib.tensor(0.0), tie_weights=tie_weights)
        return float(out.detach()), module.foo is module.bar and isinstance(module.foo, lib.nn.Parameter)

    ours, theirs = _both(run)
    assert ours == theirs
    expected = {("foo",): 10.0 if tie_weights else 12.0, ("bar",): 10.0 if tie_weights else 11.0,
                ("foo", "bar"): 10.0, ("foo", "buf"): 0.0, (): 13.0}[tuple(keys)]
    assert ours == (expected, True)


def test_two_values_for_a_tied_parameter(torch_ref: ModuleType) -> None:
    def run(lib: ModuleType) -> None:
        lib.func.functional_call(_tied_module(lib), {"foo": lib.tensor(0.0), "bar": lib.tensor(0.0)}, lib.tensor(0.0))

    error = _same_error(run)
    assert isinstance(error, ValueError) and "tie_weights=False" in str(error)

    def untied(lib: ModuleType) -> float:
        module = _tied_module(lib)
        out = lib.func.functional_call(module, {"foo": lib.tensor(0.0), "bar": lib.tensor(5.0)}, lib.tensor(0.0),
                                       tie_weights=False)
        return float(out.detach())

    assert _both(untied) == (20.0, 20.0)


@pytest.mark.parametrize("tie_weights", [True, False])
def test_strict_counts_the_tied_names(tie_weights: bool, torch_ref: ModuleType) -> None:
    """With tying, ``foo`` alone stands for ``bar`` too; without, ``bar`` is missing."""
    def run(lib: ModuleType) -> Any:
        given = {"foo": lib.tensor(0.0), "buf": lib.tensor(0.0)}
        return lib.func.functional_call(_tied_module(lib), given, lib.tensor(0.0), strict=True, tie_weights=tie_weights)

    if tie_weights:
        assert tuple(float(out.detach()) for out in _both(run)) == (0.0, 0.0)
    else:
        error = _same_error(run)
        assert isinstance(error, RuntimeError) and "Missing key(s): 'bar'." in str(error)


def test_a_submodule_held_twice_is_put_back(torch_ref: ModuleType) -> None:
    """Two paths to one slot are undone last in, first out, so the module ends as it began.

    PyTorch 2.x restores them first in, first out and leaves the passed tensor in the module
    (``lin.weight is zeros`` afterwards); here only the output is compared with it.
    """
    def run(lib: ModuleType) -> tuple[Any, bool]:
        root = lib.nn.Module()
        lin = _load(lib, lib.nn.Linear(3, 4), {"weight": _arrays(0)["0.weight"], "bias": _arrays(0)["0.bias"]})
        root.a, root.b = lin, lin
        weight = lin.weight
        root.forward = lambda x: root.a(x) + root.b(x)
        out = lib.func.functional_call(root, {"a.weight": lib.zeros(4, 3)}, lib.tensor(X))
        return out, lin.weight is weight

    (ours, restored), (theirs, _) = _both(run)
    _assert_close(ours, theirs)
    np.testing.assert_allclose(_np(ours), np.broadcast_to(2 * _arrays(0)["0.bias"], (5, 4)), rtol=1e-6)
    assert restored


# ----------------------------------------------------------------------------------- errors


@pytest.mark.parametrize("case", ["missing", "unexpected", "both", "exact"])
def test_strict_names_the_missing_and_unexpected_keys(case: str, torch_ref: ModuleType) -> None:
    def run(lib: ModuleType) -> Any:
        given = _tensors(lib, _arrays(1))
        if case in ("missing", "both"):
            del given["0.bias"], given["1.num_batches_tracked"]
        if case in ("unexpected", "both"):
            given["zzz"] = lib.ones(1)
            given["0.extra"] = lib.ones(1)
        return lib.func.functional_call(_net(lib), given, lib.tensor(X), strict=True)

    if case == "exact":
        ours, theirs = _both(run)
        _assert_close(ours, theirs)
        return
    error = _same_error(run)
    assert isinstance(error, RuntimeError)
    assert ("'0.bias'" in str(error)) == (case != "unexpected")
    assert ("'zzz'" in str(error)) == (case != "missing")


def test_a_key_in_two_dicts_is_ambiguous(torch_ref: ModuleType) -> None:
    def run(lib: ModuleType) -> None:
        given = _tensors(lib, _arrays(1))
        lib.func.functional_call(_net(lib), (given, {"0.bias": given["0.bias"]}, {"0.bias": given["0.bias"]}),
                                 lib.tensor(X))

    error = _same_error(run)
    assert isinstance(error, ValueError) and "['0.bias']" in str(error)


@pytest.mark.parametrize("dicts", [42, None, "abc", {1, 2}, ({},  3), [{}, "x"]], ids=repr)
def test_not_a_dict_or_a_sequence_of_dicts(dicts: Any, torch_ref: ModuleType) -> None:
    error = _same_error(lambda lib: lib.func.functional_call(_net(lib), dicts, lib.tensor(X)))
    assert isinstance(error, ValueError)


# ------------------------------------------------------------------------- parametrizations


def _square(lib: ModuleType) -> Any:
    """A parametrization ``w * w``, with no ``right_inverse``."""
    class Square(lib.nn.Module):
        def forward(self, weight: Any) -> Any:
            return weight * weight

    return Square()


def _parametrized_linear(lib: ModuleType, kind: str) -> Any:
    lin = _load(lib, lib.nn.Linear(3, 4), {"weight": _arrays(0)["0.weight"], "bias": _arrays(0)["0.bias"]})
    if kind == "weight_norm":
        return lib.nn.utils.parametrizations.weight_norm(lin)
    return lib.nn.utils.parametrize.register_parametrization(lin, "weight", _square(lib))


@pytest.mark.parametrize(("kind", "keys"), [
    ("weight_norm", ["parametrizations.weight.original0", "parametrizations.weight.original1"]),
    ("weight_norm", ["parametrizations.weight.original1"]),
    ("square", ["parametrizations.weight.original"]),
    ("weight_norm", ["weight"]),  # through right_inverse into the originals, and back
], ids=repr)
def test_a_parametrized_module_takes_its_originals(kind: str, keys: list[str], torch_ref: ModuleType) -> None:
    values = {"parametrizations.weight.original0": RNG.uniform(1, 2, size=(4, 1)).astype(np.float32),
              "parametrizations.weight.original1": RNG.normal(size=(4, 3)).astype(np.float32),
              "parametrizations.weight.original": RNG.normal(size=(4, 3)).astype(np.float32),
              "weight": RNG.normal(size=(4, 3)).astype(np.float32)}

    def run(lib: ModuleType) -> tuple[Any, Any, Any, list[str]]:
        lin = _parametrized_linear(lib, kind)
        before = lin(lib.tensor(X))
        out = lib.func.functional_call(lin, {k: lib.tensor(values[k]) for k in keys}, lib.tensor(X))
        return out, before, lin(lib.tensor(X)), sorted(dict(lin.named_parameters()))

    (ours, ours_before, ours_after, ours_names), (theirs, _, _, theirs_names) = _both(run)
    _assert_close(ours, theirs)
    assert not np.allclose(_np(ours), _np(ours_before))
    np.testing.assert_allclose(_np(ours_after), _np(ours_before), rtol=1e-5, atol=1e-6)
    assert ours_names == theirs_names
    if keys == ["weight"]:
        np.testing.assert_allclose(_np(ours), X @ values["weight"].T + _arrays(0)["0.bias"], rtol=1e-4, atol=1e-5)


def test_a_parametrization_without_right_inverse_refuses_its_plain_name(torch_ref: ModuleType) -> None:
    def run(lib: ModuleType) -> None:
        lin = _parametrized_linear(lib, "square")
        original = lin.parametrizations.weight.original
        try:
            lib.func.functional_call(lin, {"bias": lib.zeros(4), "weight": lib.ones(4, 3)}, lib.tensor(X))
        finally:
            assert lin.parametrizations.weight.original is original
            np.testing.assert_array_equal(_np(lin.bias), _arrays(0)["0.bias"])

    assert isinstance(_same_error(run, exact_message=False), RuntimeError)


def test_strict_with_a_parametrized_module_wants_the_originals(torch_ref: ModuleType) -> None:
    def run(lib: ModuleType) -> None:
        lin = _parametrized_linear(lib, "square")
        lib.func.functional_call(lin, {"weight": lib.ones(4, 3), "bias": lib.zeros(4)}, lib.tensor(X), strict=True)

    error = _same_error(run)
    assert "'parametrizations.weight.original'" in str(error) and "'weight'" in str(error)


# ------------------------------------------------------------------------ stack_module_state


def _models(lib: ModuleType, count: int = 3, training: bool = False) -> list[Any]:
    return [_net(lib, seed=10 + i, training=training) for i in range(count)]


def test_stack_module_state_stacks_by_name(torch_ref: ModuleType) -> None:
    def run(lib: ModuleType) -> tuple[dict[str, Any], dict[str, Any], list[Any]]:
        models = _models(lib)
        params, buffers = lib.func.stack_module_state(models)
        return params, buffers, models

    (params, buffers, models), (theirs_params, theirs_buffers, _) = _both(run)
    assert list(params) == list(theirs_params) == PARAMETER_NAMES
    assert list(buffers) == list(theirs_buffers) == BUFFER_NAMES
    for ours_dict, theirs_dict in ((params, theirs_params), (buffers, theirs_buffers)):
        for name, stacked in ours_dict.items():
            assert tuple(stacked.shape) == tuple(theirs_dict[name].shape) == (3, *_arrays(0)[name].shape)
            assert str(stacked.dtype).rsplit(".", 1)[-1] == str(theirs_dict[name].dtype).rsplit(".", 1)[-1]
            np.testing.assert_array_equal(_np(stacked), np.stack([_arrays(10 + i)[name] for i in range(3)]))
    for name, stacked in params.items():
        assert stacked.requires_grad and stacked.is_leaf and stacked.grad_fn is None
    for name, stacked in buffers.items():
        assert not stacked.requires_grad
    # unrelated to the models': gradients stay with the stack, writes do not reach the models
    sum(p.sum() for p in params.values()).backward()
    assert all(p.grad is None for model in models for p in model.parameters())
    assert np.array_equal(_np(params["0.bias"].grad), np.ones((3, 4), np.float32))
    with minitorch.no_grad():
        params["0.weight"].fill_(7.0)
        buffers["1.running_mean"].fill_(7.0)
    np.testing.assert_array_equal(_np(models[1][0].weight), _arrays(11)["0.weight"])
    np.testing.assert_array_equal(_np(models[1][1].running_mean), _arrays(11)["1.running_mean"])


def test_stack_module_state_of_frozen_models_gives_no_grad_leaves(torch_ref: ModuleType) -> None:
    def run(lib: ModuleType) -> list[tuple[str, bool, bool]]:
        models = lib.nn.ModuleList(_models(lib, 2))
        for model in models:
            model.requires_grad_(False)
        params, _ = lib.func.stack_module_state(models)
        return [(name, p.requires_grad, p.is_leaf) for name, p in params.items()]

    ours, theirs = _both(run)
    assert ours == theirs == [(name, False, True) for name in PARAMETER_NAMES]


@pytest.mark.parametrize("case", ["empty", "train_and_eval", "two_classes", "mixed_requires_grad"])
def test_stack_module_state_refuses_unlike_models(case: str, torch_ref: ModuleType) -> None:
    def run(lib: ModuleType) -> Any:
        models = _models(lib, 2)
        if case == "empty":
            models = []
        elif case == "train_and_eval":
            models[1].train()
        elif case == "two_classes":
            models.append(lib.nn.Linear(3, 4))
        else:
            models[1][3].bias.requires_grad_(False)
        return lib.func.stack_module_state(models)

    assert isinstance(_same_error(run), RuntimeError)


# ------------------------------------------------------------------------------- ensembling


@pytest.mark.parametrize("batched_data", [False, True])
def test_ensembling_with_vmap_over_functional_call(batched_data: bool, torch_ref: ModuleType) -> None:
    """PyTorch's model-ensembling tutorial: one base model, stacked state, vmap; eval-mode
    batch norm reads the stacked running statistics."""
    data = RNG.normal(size=(3, 5, 3) if batched_data else (5, 3)).astype(np.float32)

    def run(lib: ModuleType) -> tuple[Any, dict[str, Any]]:
        models = _models(lib)
        params, buffers = lib.func.stack_module_state(models)
        base = models[0]

        def one(p: dict[str, Any], b: dict[str, Any], x: Any) -> Any:
            return lib.func.functional_call(base, (p, b), (x,))

        out = lib.func.vmap(one, in_dims=(0, 0, 0 if batched_data else None))(params, buffers, lib.tensor(data))
        (out ** 2).sum().backward()
        return out, params

    (ours, ours_params), (theirs, theirs_params) = _both(run)
    assert tuple(ours.shape) == tuple(theirs.shape) == (3, 5, 2)
    _assert_close(ours, theirs)
    for i in range(3):  # model i on its own data
        x = data[i] if batched_data else data
        _assert_close(ours[i], _models(minitorch)[i](minitorch.tensor(x)))
    for name in PARAMETER_NAMES:
        np.testing.assert_allclose(_np(ours_params[name].grad), _np(theirs_params[name].grad), rtol=1e-4, atol=1e-5)


def test_ensembling_train_mode_batch_norm_after_replacing_it(torch_ref: ModuleType) -> None:
    def run(lib: ModuleType) -> Any:
        models = [lib.func.replace_all_batch_norm_modules_(model) for model in _models(lib, training=True)]
        params, buffers = lib.func.stack_module_state(models)
        assert buffers == {}
        base = models[0]
        return lib.func.vmap(lambda p, x: lib.func.functional_call(base, p, x), in_dims=(0, None))(
            params, lib.tensor(X))

    ours, theirs = _both(run)
    _assert_close(ours, theirs)


# ------------------------------------------------------------------ replace_all_batch_norm_modules_


def _norms(lib: ModuleType) -> Any:
    """Batch norms at several depths, one not tracking, and an instance norm (not a batch norm)."""
    root = lib.nn.Sequential(
        lib.nn.Linear(3, 4), lib.nn.BatchNorm1d(4),
        lib.nn.Sequential(lib.nn.Unflatten(1, (2, 2)), lib.nn.InstanceNorm1d(2, track_running_stats=True),
                          lib.nn.Flatten(), lib.nn.BatchNorm1d(4, affine=False)),
        lib.nn.BatchNorm1d(4, track_running_stats=False),
    )
    _load(lib, root, {"0.weight": _arrays(0)["0.weight"], "0.bias": _arrays(0)["0.bias"],
                      "1.running_mean": _arrays(0)["1.running_mean"], "1.running_var": _arrays(0)["1.running_var"],
                      "2.1.running_mean": np.full(2, 0.5, np.float32)})
    return root


@pytest.mark.parametrize("training", [False, True])
def test_replace_all_batch_norm_modules_drops_the_running_stats(training: bool, torch_ref: ModuleType) -> None:
    def run(lib: ModuleType) -> tuple[Any, list[str], list[tuple[bool, bool]], Any]:
        root = _norms(lib)
        assert lib.func.replace_all_batch_norm_modules_(root) is root
        root.train(training)
        out = root(lib.tensor(X))
        flags = [(m.track_running_stats, m.running_mean is None and m.running_var is None
                  and m.num_batches_tracked is None) for m in (root[1], root[2][3], root[3])]
        return out, sorted(root.state_dict()), flags, root[2][1].running_mean

    (ours, ours_keys, ours_flags, ours_instance), (theirs, theirs_keys, theirs_flags, theirs_instance) = _both(run)
    _assert_close(ours, theirs)
    assert ours_keys == theirs_keys
    assert "2.1.running_mean" in ours_keys and not any(k.startswith("1.running") for k in ours_keys)
    assert ours_flags == theirs_flags == [(False, True)] * 3
    _assert_close(ours_instance, theirs_instance)
    # batch statistics: each column of the first batch norm's output has mean ~0
    hidden = minitorch.tensor(X) @ minitorch.tensor(_arrays(0)["0.weight"]).T + minitorch.tensor(_arrays(0)["0.bias"])
    normed = (_np(hidden) - _np(hidden).mean(0)) / np.sqrt(_np(hidden).var(0) + 1e-5)
    replaced = minitorch.func.replace_all_batch_norm_modules_(_norms(minitorch)).train(training)
    np.testing.assert_allclose(_np(replaced[1](hidden)), normed, rtol=1e-4, atol=1e-5)


def test_replace_leaves_a_batch_norm_that_already_stopped_tracking(torch_ref: ModuleType) -> None:
    """PyTorch only touches the ones with ``track_running_stats``; one turned off by hand keeps
    its buffers, which evaluation still normalises with."""
    def run(lib: ModuleType) -> tuple[Any, bool]:
        bn = _load(lib, lib.nn.BatchNorm1d(4), {k.split(".", 1)[1]: v for k, v in _arrays(0).items()
                                                if k.startswith("1.")}).eval()
        bn.track_running_stats = False
        lib.func.replace_all_batch_norm_modules_(bn)
        return bn(lib.tensor(X @ _arrays(0)["0.weight"].T)), bn.running_mean is not None

    (ours, ours_kept), (theirs, theirs_kept) = _both(run)
    _assert_close(ours, theirs)
    assert ours_kept and theirs_kept


# ------------------------------------------------------------------ nn.utils.stateless (deprecated)


def test_stateless_functional_call_warns_and_calls(torch_ref: ModuleType) -> None:
    def run(lib: ModuleType) -> tuple[Any, Any, list[tuple[type, str]]]:
        net = _net(lib, training=True)
        given = _tensors(lib, _arrays(1))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = lib.nn.utils.stateless.functional_call(net, given, lib.tensor(X), tie_weights=True, strict=True)
        return out, given["1.running_mean"], [(w.category, w.filename) for w in caught]

    (ours, ours_mean, ours_caught), (theirs, theirs_mean, theirs_caught) = _both(run)
    _assert_close(ours, theirs)
    _assert_close(ours_mean, theirs_mean)
    assert ours_caught == [(FutureWarning, __file__)]
    assert [c for c, _ in theirs_caught] == [FutureWarning]
    with pytest.warns(FutureWarning, match="deprecated"):
        again = minitorch.nn.utils.stateless.functional_call(_net(minitorch), _tensors(minitorch, _arrays(1)),
                                                             minitorch.tensor(X))
    _assert_close(again, minitorch.func.functional_call(_net(minitorch), _tensors(minitorch, _arrays(1)),
                                                        minitorch.tensor(X)))
