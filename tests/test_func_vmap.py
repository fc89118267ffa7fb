"""``minitorch.func.vmap`` (also ``minitorch.vmap``) against ``torch.func.vmap``.

Every case builds the same inputs from NumPy arrays in both libraries, runs the same function
under each library's ``vmap`` and compares the outputs' structure, shapes, dtypes and values:
``in_dims`` (int, negative, None, per argument, nested prefixes over dict / tuple / list /
named-tuple arguments), keyword arguments (passed whole), ``out_dims`` (int, negative, per
output, None, a tree), nested ``vmap``, ``vmap`` of ``dot`` / ``mv`` / ``nn.Linear``, ``vmap``
composed with ``grad`` (per-sample gradients) and autograd through ``vmap``.

Errors are checked to be of PyTorch's exception type, with messages naming the offending values.

Random numbers differ between the libraries, so ``randomness`` is checked within minitorch:
``'error'`` refuses every draw and leaves the generator untouched, ``'different'`` draws once per
slice, ``'same'`` gives every slice the numbers of one draw (and leaves the generator as after that
one draw); the guard is thread-local and released when the function raises. PyTorch is the oracle
of which calls raise, and of how nested ``randomness`` modes combine.
"""

from __future__ import annotations

import functools
import threading
from collections import OrderedDict, defaultdict, namedtuple
from types import ModuleType
from typing import Any, Callable, Optional

import numpy as np
import pytest

import minitorch
import minitorch.nn.functional as F
from minitorch import generator as generator_module

RNG = np.random.default_rng(7)
#: a batch of 4 rows of 3 / of 2x3 matrices / of 3 integers, and unbatched 3-vectors
ROWS = RNG.normal(size=(4, 3)).astype(np.float32)
OTHER_ROWS = RNG.normal(size=(4, 3)).astype(np.float32)
MATRICES = RNG.normal(size=(4, 2, 3)).astype(np.float32)
VECTOR = RNG.normal(size=(3,)).astype(np.float32)
INTEGERS = RNG.integers(-5, 5, size=(4, 3))
LINEAR_WEIGHT = RNG.normal(size=(2, 3)).astype(np.float32)
LINEAR_BIAS = RNG.normal(size=(2,)).astype(np.float32)
TARGETS = RNG.normal(size=(4, 2)).astype(np.float32)

Pair = namedtuple("Pair", "first second")

# ---------------------------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------------------------


def _summary(lib: ModuleType, value: Any) -> Any:
    """``value`` with every tensor replaced by (shape, dtype name, float64 values), containers kept
    (their kind by name, so the two libraries' results compare)."""
    if isinstance(value, lib.Tensor):
        values = value.detach().double().numpy() if value.dtype != lib.bool else value.numpy()
        return tuple(value.shape), str(value.dtype).rsplit(".", 1)[-1], values
    if isinstance(value, dict):
        return type(value).__name__, {key: _summary(lib, item) for key, item in value.items()}
    if isinstance(value, (tuple, list)):
        return type(value).__name__, [_summary(lib, item) for item in value]
    return value


def _assert_same_summary(ours: Any, expected: Any, where: str = "output") -> None:
    if isinstance(expected, tuple) and len(expected) == 3 and isinstance(expected[2], np.ndarray):
        assert isinstance(ours, tuple) and len(ours) == 3, f"{where}: {ours!r} is not a tensor"
        assert ours[:2] == expected[:2], f"{where}: (shape, dtype) {ours[:2]} != {expected[:2]}"
        np.testing.assert_allclose(ours[2], expected[2], rtol=1e-5, atol=1e-6, err_msg=where)
        return
    if isinstance(expected, tuple) and len(expected) == 2 and isinstance(expected[1], (dict, list)):
        assert isinstance(ours, tuple) and ours[0] == expected[0], f"{where}: {ours!r} is not a {expected[0]}"
        if isinstance(expected[1], dict):
            assert list(ours[1]) == list(expected[1]), f"{where}: keys {list(ours[1])} != {list(expected[1])}"
            for key in expected[1]:
                _assert_same_summary(ours[1][key], expected[1][key], f"{where}[{key!r}]")
        else:
            assert len(ours[1]) == len(expected[1]), f"{where}: {len(ours[1])} items, expected {len(expected[1])}"
            for index, (mine, theirs) in enumerate(zip(ours[1], expected[1])):
                _assert_same_summary(mine, theirs, f"{where}[{index}]")
        return
    assert ours == expected, f"{where}: {ours!r} != {expected!r}"


def _assert_matches_pytorch(run: Callable[[ModuleType], Any], torch_ref: ModuleType) -> None:
    """``run(lib)`` gives the same structure, shapes, dtypes and values in both libraries."""
    expected = _summary(torch_ref, run(torch_ref))
    ours = _summary(minitorch, run(minitorch))
    _assert_same_summary(ours, expected)


def _raised(call: Callable[[], Any]) -> BaseException:
    with pytest.raises(Exception) as caught:
        call()
    return caught.value


def _linear(lib: ModuleType) -> Any:
    layer = lib.nn.Linear(3, 2)
    with lib.no_grad():
        layer.weight.copy_(lib.tensor(LINEAR_WEIGHT))
        layer.bias.copy_(lib.tensor(LINEAR_BIAS))
    return layer


def _rng_state() -> np.ndarray:
    return minitorch.random.get_rng_state().numpy().copy()


# ---------------------------------------------------------------------------------------------
# in_dims, out_dims and outputs, against PyTorch
# ---------------------------------------------------------------------------------------------

MAPPED_CASES: dict[str, Callable[[ModuleType], Any]] = {
    "in_dims int 1": lambda L: L.vmap(lambda column: column * 2 + 1, in_dims=1)(L.tensor(ROWS)),
    "in_dims negative": lambda L: L.vmap(lambda matrix: matrix.sum(0), in_dims=-1)(L.tensor(MATRICES)),
    "in_dims None for one argument": lambda L: L.vmap(L.mv, in_dims=(0, None))(L.tensor(MATRICES), L.tensor(VECTOR)),
    "in_dims tuple per argument": lambda L: L.vmap(lambda row, column: row * column, in_dims=(0, 1))(
        L.tensor(ROWS), L.tensor(OTHER_ROWS.T.copy())),
    "in_dims dict prefix": lambda L: L.vmap(lambda d, y: d["a"] * d["b"] + y, in_dims=({"a": 0, "b": None}, 1))(
        {"a": L.tensor(ROWS), "b": L.tensor(VECTOR)}, L.tensor(OTHER_ROWS.T.copy())),
    "in_dims dict prefix over an OrderedDict": lambda L: L.vmap(lambda d: d["a"] * 3, in_dims=({"a": 0},))(
        OrderedDict(a=L.tensor(ROWS))),
    "in_dims tuple prefix over a tuple argument": lambda L: L.vmap(lambda pair, y: pair[0] + pair[1] * y,
                                                                   in_dims=((0, None), 0))(
        (L.tensor(ROWS), L.tensor(VECTOR)), L.tensor(OTHER_ROWS)),
    "in_dims int for a whole tuple argument": lambda L: L.vmap(lambda pair: pair[0] * pair[1], in_dims=(0,))(
        (L.tensor(ROWS), L.tensor(OTHER_ROWS))),
    "in_dims list prefix over a list argument": lambda L: L.vmap(lambda items: items[0] - items[1], in_dims=([0, 1],))(
        [L.tensor(ROWS), L.tensor(OTHER_ROWS.T.copy())]),
    "in_dims named tuple prefix": lambda L: L.vmap(lambda pair: pair.first / (pair.second.abs() + 1),
                                                   in_dims=(Pair(1, None),))(
        Pair(L.tensor(ROWS.T.copy()), L.tensor(VECTOR))),
    "kwargs passed unmapped": lambda L: L.vmap(lambda row, scale, shift=0.0: row * scale + shift)(
        L.tensor(ROWS), scale=L.tensor(VECTOR), shift=2.0),
    "out_dims int 1": lambda L: L.vmap(lambda matrix: matrix.exp(), out_dims=1)(L.tensor(MATRICES)),
    "out_dims negative": lambda L: L.vmap(lambda matrix: matrix * 2, in_dims=2, out_dims=-2)(L.tensor(MATRICES)),
    "out_dims tuple for tuple outputs": lambda L: L.vmap(lambda matrix: (matrix.sum(1), matrix.t(), matrix.amax()),
                                                         out_dims=(1, -1, 0))(L.tensor(MATRICES)),
    "out_dims one-tuple for one tensor": lambda L: L.vmap(lambda matrix: matrix + 1, out_dims=(2,))(L.tensor(MATRICES)),
    "out_dims None for a constant": lambda L: L.vmap(lambda row: (row.sin(), L.ones(2), 5.0), out_dims=(0, None, None))(
        L.tensor(ROWS)),
    "out_dims None for a tensor computed from an unmapped input": lambda L: L.vmap(
        lambda row, vector: (row + vector, vector.cos()), in_dims=(0, None), out_dims=(0, None))(
        L.tensor(ROWS), L.tensor(VECTOR)),
    "out_dims list for list outputs": lambda L: L.vmap(lambda row: [row * 2, row.unsqueeze(0)], out_dims=[0, 2])(
        L.tensor(ROWS)),
    "out_dims dict for dict outputs": lambda L: L.vmap(lambda matrix: {"sum": matrix.sum(0), "same": matrix},
                                                       out_dims={"sum": -1, "same": 2})(L.tensor(MATRICES)),
    "dict output": lambda L: L.vmap(lambda row: {"norm": (row * row).sum().sqrt(), "half": row / 2})(L.tensor(ROWS)),
    "named tuple output": lambda L: L.vmap(lambda row: Pair(row.max(), row.argmax()))(L.tensor(ROWS)),
    "defaultdict output": lambda L: dict(L.vmap(lambda row: defaultdict(list, {"double": row * 2}))(L.tensor(ROWS))),
    "nested tuple output": lambda L: L.vmap(lambda row: (row, (row.sum(), {"neg": -row})), out_dims=(0, (0, 1)))(
        L.tensor(ROWS)),
    "integer input": lambda L: L.vmap(lambda row: row.sum() * 3, in_dims=-1)(L.tensor(INTEGERS)),
    "bool output": lambda L: L.vmap(lambda row: row > 0)(L.tensor(INTEGERS)),
    "int32 indexing": lambda L: L.vmap(lambda row: row[1:])(L.tensor(INTEGERS).int()),
    "float64 kept": lambda L: L.vmap(lambda row: row.mean())(L.tensor(ROWS.astype(np.float64))),
    "dot": lambda L: L.vmap(L.dot)(L.tensor(ROWS), L.tensor(OTHER_ROWS)),
    "mv": lambda L: L.vmap(L.mv)(L.tensor(MATRICES), L.tensor(ROWS)),
    "nn.Linear on each row": lambda L: L.vmap(_linear(L))(L.tensor(ROWS)),
    "nested vmap": lambda L: L.vmap(L.vmap(L.dot))(L.tensor(MATRICES), L.tensor(MATRICES[::-1].copy())),
    "nested vmap outer product": lambda L: L.vmap(L.vmap(L.mul, in_dims=(None, 0)), in_dims=(0, None))(
        L.tensor(ROWS[:, 0].copy()), L.tensor(VECTOR)),
    "nested vmap with inner in_dims and out_dims": lambda L: L.vmap(
        L.vmap(lambda x, y: x * y, in_dims=(0, None), out_dims=1), in_dims=(0, 0))(L.tensor(MATRICES), L.tensor(ROWS)),
    "chunk_size": lambda L: L.vmap(lambda row: row.cumsum(0), chunk_size=3)(L.tensor(ROWS)),
}


@pytest.mark.parametrize("case", list(MAPPED_CASES), ids=str)
def test_vmap_matches_pytorch(case: str, torch_ref: ModuleType) -> None:
    _assert_matches_pytorch(MAPPED_CASES[case], torch_ref)


def test_a_dict_prefix_maps_only_its_mapped_entries() -> None:
    """Beyond matching PyTorch: the unmapped entry reaches every call whole, the mapped one as a slice."""
    seen: list[tuple[tuple[int, ...], tuple[int, ...]]] = []

    def record(d: dict[str, minitorch.Tensor], y: minitorch.Tensor) -> minitorch.Tensor:
        seen.append((tuple(d["a"].shape), tuple(d["b"].shape)))
        return y

    minitorch.vmap(record, in_dims=({"a": 0, "b": None}, 1))({"a": minitorch.tensor(ROWS),
                                                               "b": minitorch.tensor(MATRICES)},
                                                              minitorch.tensor(OTHER_ROWS.T.copy()))
    assert seen == [((3,), (4, 2, 3))] * 4


def test_a_dict_of_in_dims_is_read_by_key_whatever_its_order() -> None:
    """``in_dims={'b': None, 'a': 1}`` against ``{'a': ..., 'b': ...}`` maps ``a`` over dim 1.

    Not compared with PyTorch: 2.13 pairs such a prefix's entries with the argument's in the
    prefix's order (it would map ``b`` over dim 1 here and pass ``a`` whole).
    """
    columns, vector = minitorch.tensor(ROWS.T.copy()), minitorch.tensor(VECTOR)
    out = minitorch.vmap(lambda d: d["a"] - d["b"], in_dims=({"b": None, "a": 1},))({"a": columns, "b": vector})
    np.testing.assert_allclose(out.numpy(), ROWS - VECTOR, rtol=1e-6)


def test_a_dict_of_out_dims_is_read_by_key_whatever_its_order() -> None:
    """The same for ``out_dims`` (PyTorch 2.13 would put the batch of ``sum`` at dim 2 here, and raise)."""
    out = minitorch.vmap(lambda matrix: {"sum": matrix.sum(0), "same": matrix},
                         out_dims={"same": 2, "sum": -1})(minitorch.tensor(MATRICES))
    assert list(out) == ["sum", "same"]
    np.testing.assert_allclose(out["sum"].numpy(), MATRICES.sum(1).T, rtol=1e-5)
    np.testing.assert_array_equal(out["same"].numpy(), MATRICES.transpose(1, 2, 0))


def test_vmap_is_exposed_as_minitorch_vmap_and_keeps_the_name(torch_ref: ModuleType) -> None:
    def scaled(row: Any) -> Any:
        """Twice the row."""
        return row * 2

    assert minitorch.vmap is minitorch.func.vmap
    ours, theirs = minitorch.vmap(scaled), torch_ref.vmap(scaled)
    assert (ours.__name__, ours.__doc__) == (theirs.__name__, theirs.__doc__) == ("scaled", "Twice the row.")


# ---------------------------------------------------------------------------------------------
# composition with grad, and autograd through vmap
# ---------------------------------------------------------------------------------------------


def _per_sample_grads(lib: ModuleType) -> Any:
    def loss(weight: Any, bias: Any, x: Any, target: Any) -> Any:
        return ((x @ weight.T + bias - target) ** 2).sum()

    per_sample = lib.func.vmap(lib.func.grad(loss, argnums=(0, 1)), in_dims=(None, None, 0, 0))
    return per_sample(lib.tensor(LINEAR_WEIGHT), lib.tensor(LINEAR_BIAS), lib.tensor(ROWS), lib.tensor(TARGETS))


def _grad_of_a_vmapped_function(lib: ModuleType) -> Any:
    return lib.func.grad(lambda x: lib.vmap(lambda row: (row.sin() * row).sum())(x).pow(2).sum())(lib.tensor(ROWS))


def _ensemble_by_functional_call(lib: ModuleType) -> Any:
    layer = _linear(lib)
    params = {name: lib.stack([value.detach(), value.detach() * -0.5]) for name, value in layer.named_parameters()}
    return lib.vmap(lambda p, x: lib.func.functional_call(layer, p, (x,)), in_dims=(0, None))(params, lib.tensor(ROWS))


@pytest.mark.parametrize("run", [_per_sample_grads, _grad_of_a_vmapped_function, _ensemble_by_functional_call],
                         ids=lambda run: run.__name__.strip("_"))
def test_vmap_composes_with_torch_func_as_pytorch(run: Callable[[ModuleType], Any], torch_ref: ModuleType) -> None:
    _assert_matches_pytorch(run, torch_ref)


def test_per_sample_grads_equal_one_backward_per_sample() -> None:
    """The per-sample gradient of row i is the gradient of the loss of row i alone."""
    weight_grads, bias_grads = _per_sample_grads(minitorch)
    for index in range(len(ROWS)):
        weight = minitorch.tensor(LINEAR_WEIGHT, requires_grad=True)
        bias = minitorch.tensor(LINEAR_BIAS, requires_grad=True)
        ((minitorch.tensor(ROWS[index]) @ weight.T + bias - minitorch.tensor(TARGETS[index])) ** 2).sum().backward()
        np.testing.assert_allclose(weight_grads[index].numpy(), weight.grad.numpy(), rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(bias_grads[index].numpy(), bias.grad.numpy(), rtol=1e-5, atol=1e-6)


def _backward_through_vmap(lib: ModuleType) -> tuple[Any, Any, Any]:
    mapped = lib.tensor(MATRICES, requires_grad=True)
    shared = lib.tensor(VECTOR, requires_grad=True)
    out = lib.vmap(lambda matrix, vector: (matrix * vector).tanh(), in_dims=(1, None), out_dims=-1)(mapped, shared)
    (out.pow(2) * lib.arange(out.numel()).reshape(out.shape)).sum().backward()
    return out, mapped.grad, shared.grad


def test_gradients_flow_back_through_vmap_as_in_pytorch(torch_ref: ModuleType) -> None:
    """Both the mapped input and the unmapped one (whose gradient sums over the batch) get PyTorch's grads."""
    _assert_matches_pytorch(_backward_through_vmap, torch_ref)
    out, mapped_grad, shared_grad = _backward_through_vmap(minitorch)
    assert out.requires_grad and mapped_grad is not None and shared_grad is not None
    assert np.abs(mapped_grad.numpy()).sum() > 0 and np.abs(shared_grad.numpy()).sum() > 0


def test_nn_linear_under_vmap_backpropagates_to_its_parameters(torch_ref: ModuleType) -> None:
    def run(lib: ModuleType) -> tuple[Any, Any]:
        layer = _linear(lib)
        lib.vmap(layer)(lib.tensor(ROWS)).pow(2).sum().backward()
        return layer.weight.grad, layer.bias.grad

    _assert_matches_pytorch(run, torch_ref)


def test_an_in_place_write_to_a_mapped_slice_writes_the_input(torch_ref: ModuleType) -> None:
    def run(lib: ModuleType) -> tuple[Any, Any]:
        batch = lib.tensor(ROWS)
        out = lib.vmap(lambda row: row.mul_(2), in_dims=1)(batch)
        return out, batch

    _assert_matches_pytorch(run, torch_ref)


# ---------------------------------------------------------------------------------------------
# errors: PyTorch's exception type, and messages that name the offending values
# ---------------------------------------------------------------------------------------------


def _identity(x: Any) -> Any:
    return x


def _first(x: Any, y: Any) -> Any:
    return x


#: (call(lib), pieces of minitorch's message): each call must raise PyTorch's exception type
ERROR_CASES: dict[str, tuple[Callable[[ModuleType], Any], list[str]]] = {
    "no inputs": (lambda L: L.vmap(lambda: L.ones(1))(), ["got no inputs"]),
    "mismatched batch sizes": (lambda L: L.vmap(L.add)(L.tensor(ROWS), L.tensor(MATRICES[:3])), ["[4, 3]"]),
    "mismatched batch sizes across in_dims": (
        lambda L: L.vmap(L.add, in_dims=(0, 1))(L.tensor(ROWS), L.tensor(ROWS)), ["[4, 3]"]),
    "in_dim past the last dimension": (lambda L: L.vmap(_identity, in_dims=2)(L.tensor(ROWS)),
                                       ["in_dim=2", "dimensionality 2", "-2 <= in_dim < 2"]),
    "in_dim before the first dimension": (lambda L: L.vmap(_identity, in_dims=-4)(L.tensor(MATRICES)),
                                          ["in_dim=-4", "dimensionality 3"]),
    "in_dim for a 0-d tensor": (lambda L: L.vmap(_identity)(L.tensor(1.5)), ["in_dim=0", "dimensionality 0"]),
    "in_dim for a non-tensor": (lambda L: L.vmap(_first, in_dims=(0, 0))(L.tensor(ROWS), 2.5),
                                ["in_dim=0", "float", "non-Tensor"]),
    "in_dim that is not an integer": (lambda L: L.vmap(_identity, in_dims=(0.5,))(L.tensor(ROWS)),
                                      ["in_dim=0.5", "integer dimension or None"]),
    "in_dims with too few entries": (lambda L: L.vmap(_first, in_dims=(0,))(L.tensor(ROWS), L.tensor(ROWS)),
                                     ["in_dims=(0,)", "not compatible"]),
    "in_dims with too many entries": (lambda L: L.vmap(_identity, in_dims=(0, 0))(L.tensor(ROWS)),
                                      ["in_dims=(0, 0)", "not compatible"]),
    "in_dims dict with other keys": (
        lambda L: L.vmap(lambda d: d["a"], in_dims=({"a": 0, "c": None},))({"a": L.tensor(ROWS), "b": L.tensor(ROWS)}),
        ["'c'", "not compatible"]),
    "in_dims tuple for a list argument": (
        lambda L: L.vmap(lambda items: items[0], in_dims=((0, 0),))([L.tensor(ROWS), L.tensor(ROWS)]),
        ["in_dims=((0, 0),)", "not compatible"]),
    "in_dims tuple for a tensor": (lambda L: L.vmap(_identity, in_dims=((0,),))(L.tensor(ROWS)),
                                   ["in_dims=((0,),)", "not compatible"]),
    "in_dims a list": (lambda L: L.vmap(_identity, in_dims=[0])(L.tensor(ROWS)), ["in_dims=[0]", "list"]),
    "in_dims None": (lambda L: L.vmap(_identity, in_dims=None)(L.tensor(ROWS)), ["in_dims=None", "NoneType"]),
    "in_dims a string": (lambda L: L.vmap(_identity, in_dims="0")(L.tensor(ROWS)), ["in_dims=0", "str"]),
    "no mapped tensor": (lambda L: L.vmap(_first, in_dims=(None, None))(L.tensor(ROWS), L.tensor(ROWS)),
                         ["at least one Tensor"]),
    "non-tensor output with int out_dims": (lambda L: L.vmap(lambda row: 3.0)(L.tensor(ROWS)), ["float", "out_dims"]),
    "None output with int out_dims": (lambda L: L.vmap(lambda row: None)(L.tensor(ROWS)), ["NoneType"]),
    "non-tensor in a tuple output": (lambda L: L.vmap(lambda row: (row, "label"))(L.tensor(ROWS)), ["str"]),
    "batched output with out_dims None": (lambda L: L.vmap(lambda row: row * 2, out_dims=None)(L.tensor(ROWS)),
                                          ["out_dim is None"]),
    "out_dims a string": (lambda L: L.vmap(_identity, out_dims="1")(L.tensor(ROWS)), ["out_dims=1", "must be an int"]),
    "out_dims with a float inside": (lambda L: L.vmap(lambda row: (row, row), out_dims=(0, 1.5))(L.tensor(ROWS)),
                                     ["out_dims=(0, 1.5)"]),
    "out_dims with too many entries": (lambda L: L.vmap(lambda row: (row, row), out_dims=(0, 0, 0))(L.tensor(ROWS)),
                                       ["out_dims=(0, 0, 0)", "not compatible"]),
    "out_dims list for a tuple output": (lambda L: L.vmap(lambda row: (row, row), out_dims=[0, 0])(L.tensor(ROWS)),
                                         ["out_dims=[0, 0]", "not compatible"]),
    "out_dims two-tuple for one tensor": (lambda L: L.vmap(_identity, out_dims=(0, 0))(L.tensor(ROWS)),
                                          ["out_dims=(0, 0)", "not compatible"]),
    "out_dim out of range": (lambda L: L.vmap(_identity, out_dims=2)(L.tensor(ROWS)), ["2"]),
    "out_dim negative out of range": (lambda L: L.vmap(_identity, out_dims=-3)(L.tensor(ROWS)), ["-3"]),
    "bad randomness string": (lambda L: L.vmap(_identity, randomness="sometimes"), ["sometimes", "'same'"]),
    "chunk_size zero": (lambda L: L.vmap(_identity, chunk_size=0), ["chunk_size", "0"]),
    "outputs of data-dependent shape": (lambda L: L.vmap(lambda row: row[row > 0])(L.tensor(ROWS)), []),
}


@pytest.mark.parametrize("case", list(ERROR_CASES), ids=str)
def test_vmap_raises_pytorchs_exception_type(case: str, torch_ref: ModuleType) -> None:
    call, pieces = ERROR_CASES[case]
    expected = _raised(lambda: call(torch_ref))
    ours = _raised(lambda: call(minitorch))
    assert type(ours) is type(expected), f"minitorch raised {ours!r}, PyTorch {expected!r}"
    for piece in pieces:
        assert piece in str(ours), f"{piece!r} not in {str(ours)!r}"


@pytest.mark.parametrize("dims", [{"in_dims": [0]}, {"in_dims": None}, {"out_dims": [0]}, {"out_dims": "1"}],
                         ids=repr)
def test_dims_are_checked_when_the_function_is_called_not_when_it_is_made(dims: dict[str, Any],
                                                                          torch_ref: ModuleType) -> None:
    for lib in (torch_ref, minitorch):
        mapped = lib.vmap(_identity, **dims)
        with pytest.raises(ValueError):
            mapped(lib.tensor(ROWS))


def test_messages_name_the_function_and_a_partials_function() -> None:
    def features(x: Any, scale: float) -> Any:
        return x * scale

    with pytest.raises(ValueError, match=r"vmap\(features, in_dims=2"):
        minitorch.vmap(features, in_dims=2)(minitorch.tensor(ROWS), 1.0)
    with pytest.raises(ValueError, match=r"functools\.partial\(features, \.\.\.\)"):
        minitorch.vmap(functools.partial(features, scale=1.0), in_dims=[0])(minitorch.tensor(ROWS))


# ---------------------------------------------------------------------------------------------
# randomness
# ---------------------------------------------------------------------------------------------

#: (name, draw(lib, row)): a random op on one slice
RANDOM_OPS: dict[str, Callable[[ModuleType, Any], Any]] = {
    "rand": lambda L, row: row + L.rand(3),
    "randn_like": lambda L, row: row + L.randn_like(row),
    "randint": lambda L, row: row + L.randint(0, 5, (3,)),
    "dropout in training": lambda L, row: L.nn.functional.dropout(row, 0.5, training=True),
    "Dropout module in training": lambda L, row: L.nn.Dropout(0.5).train()(row),
    "bernoulli": lambda L, row: L.bernoulli(row.sigmoid()),
    "uniform_": lambda L, row: row.clone().uniform_() + row,
}


@pytest.mark.parametrize("op", list(RANDOM_OPS), ids=str)
def test_randomness_error_refuses_a_draw_and_leaves_the_generator_alone(op: str, torch_ref: ModuleType) -> None:
    draw = RANDOM_OPS[op]
    expected = _raised(lambda: torch_ref.vmap(lambda row: draw(torch_ref, row))(torch_ref.tensor(ROWS)))
    minitorch.manual_seed(11)
    before = _rng_state()
    ours = _raised(lambda: minitorch.vmap(lambda row: draw(minitorch, row))(minitorch.tensor(ROWS)))
    assert type(ours) is type(expected) is RuntimeError
    assert "randomness error mode" in str(ours)
    np.testing.assert_array_equal(_rng_state(), before)
    # the guard is released: a draw now works, and is the draw that follows the seed
    after_error = minitorch.rand(5).numpy()
    minitorch.manual_seed(11)
    np.testing.assert_array_equal(after_error, minitorch.rand(5).numpy())


def test_dropout_in_eval_mode_draws_nothing_and_is_allowed(torch_ref: ModuleType) -> None:
    _assert_matches_pytorch(lambda L: L.vmap(lambda row: L.nn.functional.dropout(row, 0.5, training=False))(
        L.tensor(ROWS)), torch_ref)
    _assert_matches_pytorch(lambda L: L.vmap(L.nn.Dropout(0.5).eval())(L.tensor(ROWS)), torch_ref)


def test_randomness_error_is_the_default_and_random_ops_outside_vmap_are_untouched() -> None:
    with pytest.raises(RuntimeError, match="randomness error mode"):
        minitorch.vmap(lambda row: row + minitorch.rand(3))(minitorch.tensor(ROWS))
    with pytest.raises(RuntimeError, match="randomness error mode"):
        minitorch.vmap(lambda row: row + minitorch.rand(3), randomness="error")(minitorch.tensor(ROWS))
    assert minitorch.rand(2).shape == (2,)


def test_randomness_different_draws_once_per_slice_in_order() -> None:
    minitorch.manual_seed(3)
    out = minitorch.vmap(lambda row: row * 0 + minitorch.rand(3), randomness="different")(minitorch.tensor(ROWS))
    state_after = _rng_state()
    minitorch.manual_seed(3)
    one_per_slice = np.stack([minitorch.rand(3).numpy() for _ in range(len(ROWS))])
    values = out.numpy()
    assert len({tuple(row) for row in values}) == len(ROWS), "every slice must draw its own numbers"
    np.testing.assert_array_equal(values, one_per_slice)
    np.testing.assert_array_equal(state_after, _rng_state())


@pytest.mark.parametrize("op", ["rand", "randn_like", "dropout in training"], ids=str)
def test_randomness_same_gives_every_slice_one_draw(op: str) -> None:
    draw = RANDOM_OPS[op]
    zeros = np.zeros_like(ROWS) + 1.0
    minitorch.manual_seed(5)
    out = minitorch.vmap(lambda row: draw(minitorch, row), randomness="same")(minitorch.tensor(zeros)).numpy()
    state_after = _rng_state()
    minitorch.manual_seed(5)
    one_draw = draw(minitorch, minitorch.tensor(zeros[0])).numpy()
    for row in out:
        np.testing.assert_array_equal(row, one_draw)
    np.testing.assert_array_equal(state_after, _rng_state())
    minitorch.manual_seed(5)
    assert not np.array_equal(state_after, _rng_state()), "the one draw must have moved the generator"


def test_randomness_same_rewinds_a_cuda_generator_first_made_by_the_first_slice(
        monkeypatch: pytest.MonkeyPatch) -> None:
    if not minitorch.cuda.is_available():
        pytest.skip("no CUDA GPU, and NUMBA_ENABLE_CUDASIM is off")
    monkeypatch.delitem(generator_module._DEFAULTS, "cuda", raising=False)
    out = minitorch.vmap(lambda row: row + minitorch.rand(2, device="cuda"), randomness="same")(
        minitorch.zeros(3, 2, device="cuda")).cpu().numpy()
    assert not np.array_equal(out[0], out[0] * 0)
    for row in out[1:]:
        np.testing.assert_array_equal(row, out[0])


#: (outer, inner) randomness of vmap(vmap(draw)): what PyTorch does with each
NESTED_RANDOMNESS = [("error", "different"), ("different", "error"), ("same", "different"),
                     ("different", "same"), ("same", "same")]


def _nested_draws(lib: ModuleType, outer: str, inner: str) -> Any:
    inner_map = lib.vmap(lambda value: value + lib.rand(()), randomness=inner)
    return lib.vmap(inner_map, randomness=outer)(lib.zeros(3, 4))


def _pattern(values: np.ndarray) -> tuple[bool, bool]:
    """Whether the rows are all equal, and whether the columns are all equal."""
    return bool((values == values[:1]).all()), bool((values == values[:, :1]).all())


@pytest.mark.parametrize(("outer", "inner"), NESTED_RANDOMNESS, ids=repr)
def test_nested_randomness_modes_combine_as_in_pytorch(outer: str, inner: str, torch_ref: ModuleType) -> None:
    try:
        expected: Any = _pattern(_nested_draws(torch_ref, outer, inner).numpy())
    except RuntimeError:
        expected = RuntimeError
    if expected is RuntimeError:
        with pytest.raises(RuntimeError, match="randomness error mode"):
            _nested_draws(minitorch, outer, inner)
        assert minitorch.rand(1).shape == (1,)
    else:
        assert _pattern(_nested_draws(minitorch, outer, inner).numpy()) == expected


def test_the_draw_guard_is_released_when_the_function_raises() -> None:
    def failing(row: Any) -> Any:
        raise KeyError("from the mapped function")

    with pytest.raises(KeyError, match="from the mapped function"):
        minitorch.vmap(failing)(minitorch.tensor(ROWS))
    assert minitorch.rand(4).shape == (4,)
    assert F.dropout(minitorch.ones(50), 0.5, training=True).eq(0).any()


def test_the_draw_guard_is_thread_local() -> None:
    """While one thread runs vmap with randomness='error', another thread may still draw."""
    drawn_elsewhere: list[Optional[np.ndarray]] = []
    failures: list[BaseException] = []

    def draw_in_another_thread() -> None:
        try:
            drawn_elsewhere.append(minitorch.rand(2).numpy())
        except BaseException as error:  # noqa: BLE001 - reported by the assertion below
            failures.append(error)

    def mapped(row: Any) -> Any:
        worker = threading.Thread(target=draw_in_another_thread)
        worker.start()
        worker.join()
        with pytest.raises(RuntimeError, match="randomness error mode"):
            minitorch.rand(2)  # this thread is still refused
        return row * 2

    out = minitorch.vmap(mapped)(minitorch.tensor(ROWS))
    assert failures == []
    assert len(drawn_elsewhere) == len(ROWS)
    np.testing.assert_array_equal(out.numpy(), ROWS * 2)


def test_a_guard_in_another_thread_does_not_refuse_this_one() -> None:
    inside = threading.Event()
    leave = threading.Event()
    failures: list[BaseException] = []

    def hold_the_guard(row: Any) -> Any:
        inside.set()
        leave.wait(timeout=10)
        return row

    def run_vmap() -> None:
        try:
            minitorch.vmap(hold_the_guard)(minitorch.tensor(ROWS[:1]))
        except BaseException as error:  # noqa: BLE001 - reported by the assertion below
            failures.append(error)

    worker = threading.Thread(target=run_vmap)
    worker.start()
    try:
        assert inside.wait(timeout=10)
        assert minitorch.rand(3).shape == (3,)
    finally:
        leave.set()
        worker.join()
    assert failures == []


def test_an_in_place_write_into_an_unmapped_input_is_refused(torch_ref: ModuleType) -> None:
    """PyTorch refuses to write batched values into an unbatched tensor; the loop here would
    repeat the write once per slice, so it refuses too (after the first slice)."""
    for lib in (minitorch, torch_ref):
        x = lib.arange(6.0).reshape(3, 2)
        with pytest.raises(RuntimeError):
            lib.func.vmap(lambda a, b: b.add_(a), in_dims=(0, None))(x, lib.zeros(2))
    with pytest.raises(RuntimeError, match=r"not mapped \(in_dim None, shape \(2,\)\)"):
        minitorch.func.vmap(lambda a, b: b.mul_(2), in_dims=(0, None))(minitorch.ones(3, 2), minitorch.ones(2))


def test_an_in_place_write_into_a_mapped_input_is_allowed(torch_ref: ModuleType) -> None:
    results = []
    for lib in (minitorch, torch_ref):
        x = lib.arange(6.0).reshape(3, 2)
        out = lib.func.vmap(lambda a, b: a.add_(b), in_dims=(0, None))(x, lib.tensor([1.0, -1.0]))
        results.append((out.numpy().copy(), x.numpy().copy()))
    np.testing.assert_array_equal(results[0][0], results[1][0])
    np.testing.assert_array_equal(results[0][1], results[1][1])
