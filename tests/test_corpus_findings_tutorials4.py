"""What the fourth round of tutorial-style corpus scripts found, each checked against PyTorch.

* ``type(t)`` prints ``<class 'minitorch.Tensor'>`` (and ``Size``, ``dtype``, ``device`` likewise),
  as PyTorch names its public classes after the package (``<class 'torch.Tensor'>``), not after
  the file that defines them (the text classification script printed it in an error message).
* ``nn.TripletMarginWithDistanceLoss`` and ``F.triplet_margin_with_distance_loss``: the triplet
  loss under any distance (the metric-learning script).
* ``Tensor.fill_diagonal_`` (with ``wrap``, on cubes, recorded as ``CopySlices``): the retrieval
  step of the metric-learning script masks each point's distance to itself with it.
"""

from __future__ import annotations

import pickle
from types import ModuleType
from typing import Any, Callable

import numpy as np
import pytest

import minitorch

Case = Callable[[ModuleType], Any]


def _as_torch(text: str) -> str:
    return text.replace("minitorch.", "torch.")


# ---- public class names ----

def test_public_classes_are_named_after_the_package(torch_ref: ModuleType) -> None:
    def names(lib: ModuleType) -> list[str]:
        t = lib.ones(2, 3)
        return [str(type(t)), str(type(t.shape)), str(type(t.dtype)), str(type(lib.device("cpu"))),
                str(lib.Tensor), lib.typename(lib.Tensor), lib.typename(lib.Size)]

    assert [_as_torch(name) for name in names(minitorch)] == names(torch_ref)


def test_renamed_classes_still_pickle_and_copy() -> None:
    t = minitorch.tensor([[1.0, 2.0], [3.0, 4.0]])
    again = pickle.loads(pickle.dumps((t, t.shape, t.dtype, t.device)))
    assert again[0].tolist() == t.tolist()
    assert again[1] == minitorch.Size([2, 2]) and type(again[1]) is minitorch.Size
    assert again[2] is minitorch.float32
    assert again[3] == minitorch.device("cpu")


def test_error_naming_a_tensor_type_reads_as_torch(torch_ref: ModuleType) -> None:
    def message(lib: ModuleType) -> str:
        bag = lib.nn.EmbeddingBag(4, 2)
        with pytest.raises(ValueError) as error:
            bag(lib.tensor([[0, 1], [2, 3]]), lib.tensor([0, 1]))
        return str(error.value)

    assert _as_torch(message(minitorch)) == message(torch_ref)


# ---- triplet loss under any distance ----

def _triplets(lib: ModuleType) -> tuple[Any, Any, Any]:
    def make(scale: float, shift: float) -> Any:
        values = np.sin(scale * np.arange(12.0) + shift).reshape(4, 3)
        return lib.tensor(values, dtype=lib.float64, requires_grad=True)

    return make(0.3, 0.0), make(0.3, 0.2), make(0.8, 1.0)


def _cosine_distance(lib: ModuleType) -> Callable[[Any, Any], Any]:
    return lambda x, y: 1.0 - lib.nn.functional.cosine_similarity(x, y)


TRIPLET_CASES: dict[str, Callable[[ModuleType, Any, Any, Any], Any]] = {
    "default distance": lambda lib, a, p, n: lib.nn.functional.triplet_margin_with_distance_loss(a, p, n),
    "cosine, margin": lambda lib, a, p, n: lib.nn.functional.triplet_margin_with_distance_loss(
        a, p, n, distance_function=_cosine_distance(lib), margin=0.3),
    "swap, sum": lambda lib, a, p, n: lib.nn.functional.triplet_margin_with_distance_loss(
        a, p, n, swap=True, margin=2.0, reduction="sum"),
    "none": lambda lib, a, p, n: lib.nn.functional.triplet_margin_with_distance_loss(
        a, p, n, margin=1.5, reduction="none").sum(),
    "module, default": lambda lib, a, p, n: lib.nn.TripletMarginWithDistanceLoss(margin=1.5)(a, p, n),
    "module, l1 distance, swap": lambda lib, a, p, n: lib.nn.TripletMarginWithDistanceLoss(
        distance_function=lib.nn.PairwiseDistance(p=1.0), swap=True, margin=3.0)(a, p, n),
    "matches triplet_margin_loss": lambda lib, a, p, n: lib.nn.functional.triplet_margin_loss(a, p, n, margin=1.5),
}


@pytest.mark.parametrize("name", list(TRIPLET_CASES))
def test_triplet_margin_with_distance_loss_as_torch(name: str, torch_ref: ModuleType) -> None:
    results = []
    for lib in (minitorch, torch_ref):
        anchor, positive, negative = _triplets(lib)
        loss = TRIPLET_CASES[name](lib, anchor, positive, negative)
        loss.backward()
        results.append([loss.item()] + [np.asarray(t.grad.tolist()) for t in (anchor, positive, negative)])
    ours, theirs = results
    assert ours[0] == pytest.approx(theirs[0], rel=1e-12)
    for got, expected in zip(ours[1:], theirs[1:]):
        np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-14)


def test_triplet_with_distance_is_triplet_margin_loss_by_default() -> None:
    a, p, n = _triplets(minitorch)
    with_distance = minitorch.nn.functional.triplet_margin_with_distance_loss(a, p, n, margin=1.5, reduction="none")
    plain = minitorch.nn.functional.triplet_margin_loss(a, p, n, margin=1.5, reduction="none")
    np.testing.assert_allclose(with_distance.tolist(), plain.tolist(), rtol=1e-15)


TRIPLET_ERRORS: dict[str, Case] = {
    "functional margin 0": lambda lib: lib.nn.functional.triplet_margin_with_distance_loss(
        lib.ones(2, 3), lib.ones(2, 3), lib.ones(2, 3), margin=0.0),
    "functional bad reduction": lambda lib: lib.nn.functional.triplet_margin_with_distance_loss(
        lib.ones(2, 3), lib.ones(2, 3), lib.ones(2, 3), margin=-1.0, reduction="avg"),
    "functional ranks": lambda lib: lib.nn.functional.triplet_margin_with_distance_loss(
        lib.ones(2, 3), lib.ones(3), lib.ones(2, 3)),
    "module margin": lambda lib: lib.nn.TripletMarginWithDistanceLoss(margin=-0.5),
    "positional distance": lambda lib: lib.nn.TripletMarginWithDistanceLoss(lib.nn.PairwiseDistance()),
}


@pytest.mark.parametrize("name", list(TRIPLET_ERRORS))
def test_triplet_with_distance_errors_as_torch(name: str, torch_ref: ModuleType) -> None:
    outcomes = []
    for lib in (minitorch, torch_ref):
        with pytest.raises(Exception) as error:
            TRIPLET_ERRORS[name](lib)
        outcomes.append((error.type, _as_torch(str(error.value))))
    ours, theirs = outcomes
    assert ours[0] is theirs[0]
    if ours[0] is not TypeError:  # a TypeError's text is Python's, naming our own __init__
        assert ours[1] == theirs[1]


def test_triplet_with_distance_repr_as_torch(torch_ref: ModuleType) -> None:
    def reprs(lib: ModuleType) -> list[str]:
        return [repr(lib.nn.TripletMarginWithDistanceLoss()),
                repr(lib.nn.TripletMarginWithDistanceLoss(distance_function=_cosine_distance(lib), margin=0.5)),
                str([name for name, _ in lib.nn.TripletMarginWithDistanceLoss().named_modules()])]

    assert reprs(minitorch) == reprs(torch_ref)


# ---- fill_diagonal_ ----

def _filled(lib: ModuleType, shape: tuple[int, ...], value: Any, wrap: bool = False, dtype: Any = None,
            transpose: bool = False) -> list:
    t = lib.zeros(*shape, dtype=dtype or lib.float64)
    if transpose:
        t = t.t()
    result = t.fill_diagonal_(value, wrap=wrap)
    assert result is t
    return t.tolist()


FILL_CASES: dict[str, Case] = {
    "square": lambda lib: _filled(lib, (4, 4), 2.5),
    "wide": lambda lib: _filled(lib, (2, 5), 1.0, wrap=True),
    "tall": lambda lib: _filled(lib, (6, 3), 7.0),
    "tall wrapped": lambda lib: _filled(lib, (7, 3), 5.0, wrap=True),
    "tall wrapped, many": lambda lib: _filled(lib, (10, 2), 3.0, wrap=True),
    "one row taller": lambda lib: _filled(lib, (4, 3), 1.0, wrap=True),
    "cube": lambda lib: _filled(lib, (3, 3, 3), -1.0),
    "int with a float": lambda lib: _filled(lib, (3, 3), 2.7, dtype=lib.int64),
    "bool": lambda lib: _filled(lib, (3, 2), True, dtype=lib.bool),
    "transposed": lambda lib: _filled(lib, (3, 4), 9.0, transpose=True),
    "infinite": lambda lib: _filled(lib, (3, 3), float("inf")),
    "slice of a matrix": lambda lib: (lambda m: (m[:, 1:].fill_diagonal_(4.0), m.tolist())[1])(
        lib.zeros(4, 4, dtype=lib.float64)),
}


@pytest.mark.parametrize("name", list(FILL_CASES))
def test_fill_diagonal_as_torch(name: str, torch_ref: ModuleType) -> None:
    assert FILL_CASES[name](minitorch) == FILL_CASES[name](torch_ref)


FILL_ERRORS: dict[str, Case] = {
    "vector": lambda lib: lib.zeros(3).fill_diagonal_(1.0),
    "uneven cube": lambda lib: lib.zeros(3, 3, 2).fill_diagonal_(1.0),
    "leaf that requires grad": lambda lib: lib.zeros(2, 2, requires_grad=True).fill_diagonal_(1.0),
}


@pytest.mark.parametrize("name", list(FILL_ERRORS))
def test_fill_diagonal_errors_as_torch(name: str, torch_ref: ModuleType) -> None:
    outcomes = []
    for lib in (minitorch, torch_ref):
        with pytest.raises(RuntimeError) as error:
            FILL_ERRORS[name](lib)
        outcomes.append(str(error.value))
    assert outcomes[0] == outcomes[1]


def test_fill_diagonal_gradient_as_torch(torch_ref: ModuleType) -> None:
    def run(lib: ModuleType) -> tuple[str, list, list]:
        x = lib.tensor(np.arange(1.0, 10.0).reshape(3, 3), dtype=lib.float64, requires_grad=True)
        y = x * 3
        y.fill_diagonal_(lib.tensor(2.0, dtype=lib.float64))
        (y * lib.tensor(np.arange(9.0).reshape(3, 3), dtype=lib.float64)).sum().backward()
        return type(y.grad_fn).__name__, y.tolist(), x.grad.tolist()

    ours, theirs = run(minitorch), run(torch_ref)
    assert ours == theirs
    assert theirs[0] == "CopySlices"


FILL_TYPE_ERRORS: dict[str, Case] = {
    "tensor of two": lambda lib: lib.zeros(2, 2).fill_diagonal_(lib.ones(2)),
    "tensor that requires grad": lambda lib: lib.zeros(2, 2).fill_diagonal_(lib.tensor(1.0, requires_grad=True)),
    "string": lambda lib: lib.zeros(2, 2).fill_diagonal_("a"),
    "int wrap": lambda lib: lib.zeros(2, 2).fill_diagonal_(1.0, 2),
}


@pytest.mark.parametrize("name", list(FILL_TYPE_ERRORS))
def test_fill_diagonal_argument_types_as_torch(name: str, torch_ref: ModuleType) -> None:
    outcomes = []
    for lib in (minitorch, torch_ref):
        with pytest.raises(TypeError) as error:
            FILL_TYPE_ERRORS[name](lib)
        outcomes.append(str(error.value))
    assert outcomes[0] == outcomes[1]


def test_fill_diagonal_under_no_grad_keeps_the_version_count_moving() -> None:
    t = minitorch.zeros(3, 3)
    before = t._version
    t.fill_diagonal_(1.0)
    assert t._version > before
    assert t.diagonal().tolist() == [1.0, 1.0, 1.0]
