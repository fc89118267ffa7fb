"""What four more tutorial-style corpus scripts found, each checked against PyTorch at run time.

* ``F.embedding`` / ``nn.Embedding``: one ``EmbeddingBackward0`` node (it was a gather and a view,
  so ``grad_fn`` printed ``ViewBackward0``), keeping only the indices; a gradient taken with
  ``create_graph=True`` is an ``EmbeddingDenseBackwardBackward0`` node. The recommender script
  (``matrix_factorization_recommender.py``) prints its user lookup's node.
* ``remove_parametrizations`` of a tensor parametrized by several originals (weight
  normalisation): the value is computed with grad mode as it is, and becomes a new parameter only
  when it requires grad; otherwise (under ``no_grad``, or frozen originals) a buffer. The TCN
  script (``tcn_causal_forecast.py``) removes the weight norm inside ``no_grad``.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np
import pytest

from both_libraries import Case, compare

torch = pytest.importorskip("torch")

#: rows and width of the test table
ROWS, WIDTH = 5, 3


def _table(lib: ModuleType) -> Any:
    """A tie-free float64 table of ROWS x WIDTH that requires grad."""
    values = np.sin(0.9 * np.arange(ROWS * WIDTH)) + 0.1 * np.arange(ROWS * WIDTH)
    return lib.tensor(values.reshape(ROWS, WIDTH), dtype=lib.float64, requires_grad=True)


def _indices(lib: ModuleType) -> Any:
    return lib.tensor([[1, 0, 1], [4, 2, 0]])


def _lookup_and_grad(lib: ModuleType, **kwargs: Any) -> tuple[Any, Any]:
    """The lookup, and the table's gradient of a weighted sum of it."""
    weight = _table(lib)
    out = lib.nn.functional.embedding(_indices(lib), weight, **kwargs)
    scale = lib.arange(1, out.numel() + 1, dtype=out.dtype).reshape(out.shape)
    (out * scale).sum().backward()
    return out, weight.grad


def _double_backward(lib: ModuleType, padding_idx: Any = None) -> tuple[Any, Any]:
    """A gradient taken with create_graph, and the gradient of its cube's sum."""
    weight = _table(lib)
    out = lib.nn.functional.embedding(_indices(lib), weight, padding_idx=padding_idx)
    (grad,) = lib.autograd.grad((out ** 2).sum(), weight, create_graph=True)
    (second,) = lib.autograd.grad((grad ** 3).sum(), weight)
    return grad, second


def _grad_of_incoming(lib: ModuleType) -> Any:
    """The gradient with respect to the incoming gradient, through the embedding's backward."""
    weight = _table(lib)
    out = lib.nn.functional.embedding(_indices(lib), weight, padding_idx=2)
    incoming = lib.linspace(-1, 1, out.numel(), dtype=lib.float64).reshape(out.shape).requires_grad_()
    (grad,) = lib.autograd.grad(out, weight, incoming, create_graph=True)
    return lib.autograd.grad((grad * grad).sum(), incoming)[0]


def _table_changed_in_place(lib: ModuleType) -> Any:
    """The node keeps only the indices: changing the table after the lookup is no error."""
    weight = _table(lib)
    out = lib.nn.functional.embedding(_indices(lib), weight)
    with lib.no_grad():
        weight.mul_(2)
    out.sum().backward()
    return weight.grad


def _node_edges(lib: ModuleType) -> tuple[str, int, str, bool]:
    out = lib.nn.Embedding(ROWS, WIDTH, padding_idx=0)(_indices(lib))
    edges = out.grad_fn.next_functions
    return out.grad_fn.name(), len(edges), type(edges[0][0]).__name__, out._base is None


EMBEDDING_CASES: dict[str, Case] = {
    "plain": lambda lib: _lookup_and_grad(lib),
    "padding_idx": lambda lib: _lookup_and_grad(lib, padding_idx=0),
    "negative padding_idx": lambda lib: _lookup_and_grad(lib, padding_idx=-1),
    "max_norm": lambda lib: _lookup_and_grad(lib, max_norm=1.0),
    "max_norm and padding_idx": lambda lib: _lookup_and_grad(lib, max_norm=1.5, norm_type=1.0, padding_idx=1),
    "0-d index": lambda lib: lib.nn.functional.embedding(lib.tensor(2), _table(lib)),
    "empty index": lambda lib: lib.nn.functional.embedding(lib.tensor([], dtype=lib.int64), _table(lib)),
    "no grad": lambda lib: lib.nn.functional.embedding(_indices(lib), _table(lib).detach()),
    "module": lambda lib: lib.nn.Embedding.from_pretrained(_table(lib).detach(), freeze=False)(_indices(lib)),
    "node and edges": _node_edges,
    "double backward": lambda lib: _double_backward(lib),
    "double backward padding_idx": lambda lib: _double_backward(lib, padding_idx=0),
    "gradient of the incoming gradient": _grad_of_incoming,
    "table changed in place": _table_changed_in_place,
    "out of range": lambda lib: lib.nn.functional.embedding(lib.tensor([5]), _table(lib)),
}


@pytest.mark.parametrize("name", sorted(EMBEDDING_CASES))
def test_embedding_node(name: str) -> None:
    compare(EMBEDDING_CASES[name])


# ---- remove_parametrizations of weight normalisation -------------------------------------------

def _removed(lib: ModuleType, grad_enabled: bool = True, frozen: bool = False) -> tuple[Any, ...]:
    """Weight norm removed from a Linear: the weight's class, where it is kept, and its value."""
    linear = lib.nn.Linear(WIDTH, 2)
    with lib.no_grad():
        linear.weight.copy_(lib.linspace(-1, 1, 2 * WIDTH, dtype=linear.weight.dtype).reshape(2, WIDTH))
    lib.nn.utils.parametrizations.weight_norm(linear)
    if frozen:
        for parameter in linear.parameters():
            parameter.requires_grad_(False)
    with lib.set_grad_enabled(grad_enabled):
        lib.nn.utils.parametrize.remove_parametrizations(linear, "weight")
    weight = linear.weight
    return (type(weight).__name__, weight.requires_grad, weight.grad_fn is None, sorted(linear._parameters),
            sorted(linear._buffers), weight.detach())


REMOVE_CASES: dict[str, Case] = {
    "grad enabled": lambda lib: _removed(lib),
    "under no_grad": lambda lib: _removed(lib, grad_enabled=False),
    "frozen originals": lambda lib: _removed(lib, frozen=True),
}


@pytest.mark.parametrize("name", sorted(REMOVE_CASES))
def test_remove_weight_norm_parametrization(name: str) -> None:
    compare(REMOVE_CASES[name])


def test_removed_buffer_is_in_state_dict_and_module_class_restored() -> None:
    """Under no_grad the weight ends a buffer in both libraries: state_dict keeps it, parameters do not."""
    import minitorch

    def build(lib: ModuleType) -> tuple[Any, ...]:
        linear = lib.nn.utils.parametrizations.weight_norm(lib.nn.Linear(WIDTH, 2))
        with lib.no_grad():
            lib.nn.utils.parametrize.remove_parametrizations(linear, "weight")
        return type(linear).__name__, sorted(linear.state_dict()), [n for n, _ in linear.named_parameters()]

    assert build(minitorch) == build(torch)
