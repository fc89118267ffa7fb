"""In-place writes inside a transformed function into tensors it captured, PyTorch as the oracle.

Under ``grad``, ``vjp``, ``jvp``, ``jacrev``, ``jacfwd`` and ``hessian`` PyTorch refuses a write
into a tensor the function neither received as a positional input nor made (a batch norm's
running statistics, a global), before anything is written; writes into the inputs and into
tensors made inside are allowed. Under ``vmap`` minitorch refuses every such write (PyTorch
makes an unbatched one once for the batch, which a function run once per slice cannot do).
Found by the per-sample-gradient corpus script: ``vmap(grad(f))`` of a net with batch norm in
training mode, which PyTorch's tutorial patches with ``replace_all_batch_norm_modules_``.
"""

from __future__ import annotations

import threading
from types import ModuleType
from typing import Any, Callable, Optional

import pytest

import minitorch

#: a case gets the library and a captured tensor of three zeros, and runs a transform
Case = Callable[[ModuleType, Any], Any]


def _twice(x: Any) -> Any:
    return (x * 2).sum()


def _inner_made(lib: ModuleType, captured: Any) -> Any:
    def f(x: Any) -> Any:
        inner = lib.zeros(3)
        inner.add_(x)
        inner[0] = 4.0
        return inner.sum()
    return lib.func.grad(f)(lib.ones(3))


def _second_argument(lib: ModuleType, captured: Any) -> Any:
    def f(x: Any, y: Any) -> Any:
        y.add_(1)
        y.detach()[1] = 3.0
        return _twice(x)
    return lib.func.grad(f)(lib.ones(3), lib.zeros(2))


def _under_no_grad(lib: ModuleType, captured: Any) -> Any:
    def f(x: Any) -> Any:
        with lib.no_grad():
            captured.add_(1)
        return _twice(x)
    return lib.func.grad(f)(lib.ones(3))


def _nested_outer_capture(lib: ModuleType, captured: Any) -> Any:
    def outer(x: Any) -> Any:
        made_outside_inner = lib.zeros(3)

        def inner(z: Any) -> Any:
            made_outside_inner.add_(1)
            return _twice(z)
        return lib.func.grad(inner)(x).sum()
    return lib.func.grad(outer)(lib.ones(3))


def _nested_plain(lib: ModuleType, captured: Any) -> Any:
    return lib.func.grad(lambda y: lib.func.grad(_twice)(y * y).sum())(lib.ones(3))


def _with(transform: str) -> Case:
    def case(lib: ModuleType, captured: Any) -> Any:
        def f(x: Any) -> Any:
            captured.add_(1)
            return _twice(x)
        x = lib.ones(3)
        if transform == "vjp":
            return lib.func.vjp(f, x)[0]
        if transform == "jvp":
            return lib.func.jvp(f, (x,), (x,))[1]
        return getattr(lib.func, transform)(f)(x)
    return case


def _batch_norm_in_training(lib: ModuleType, captured: Any) -> Any:
    norm = lib.nn.BatchNorm1d(3)
    try:
        return lib.func.grad(lambda x: norm(x).pow(2).sum())(lib.tensor([[1.0, 2.0, 3.0], [0.0, 1.0, 5.0]]))
    finally:
        captured.copy_(norm.running_mean)  # what the refused call left in the running mean (all zeros)


CASES: dict[str, Case] = {
    "inner tensors": _inner_made,
    "second argument": _second_argument,
    "under no_grad": _under_no_grad,
    "nested, captured from the outer level": _nested_outer_capture,
    "nested, no write": _nested_plain,
    "vjp": _with("vjp"),
    "jvp": _with("jvp"),
    "jacrev": _with("jacrev"),
    "jacfwd": _with("jacfwd"),
    "hessian": _with("hessian"),
    "batch norm in training": _batch_norm_in_training,
}


def _writing(write: Callable[[Any, Any], None]) -> Case:
    def case(lib: ModuleType, captured: Any) -> Any:
        def f(x: Any) -> Any:
            write(lib, captured)
            return _twice(x)
        return lib.func.grad(f)(lib.ones(3))
    return case


CASES.update({
    "add_": _writing(lambda lib, c: c.add_(1)),
    "copy_": _writing(lambda lib, c: c.copy_(lib.ones(3))),
    "fill_": _writing(lambda lib, c: c.fill_(2.0)),
    "setitem": _writing(lambda lib, c: c.__setitem__(0, 5.0)),
    "index_put": _writing(lambda lib, c: c.__setitem__(lib.tensor([0, 2]), 5.0)),
    "masked_fill_": _writing(lambda lib, c: c.masked_fill_(c == 0, 2.0)),
    "view mul_": _writing(lambda lib, c: c[:2].add_(1)),
    "detach add_": _writing(lambda lib, c: c.detach().add_(1)),
    "data add_": _writing(lambda lib, c: c.data.add_(1)),
    "parameter sub_": _writing(lambda lib, c: c.sub_(0.1)),
})


def _outcome(lib: ModuleType, case: Case) -> tuple[Optional[type], str, list]:
    """(exception type, the message's start, the captured tensor afterwards)."""
    captured = lib.zeros(3)
    try:
        case(lib, captured)
    except Exception as error:  # noqa: BLE001 - the exception is the result compared
        # PyTorch's message goes on to name the ATen operator; minitorch's the tensor's shape
        return type(error), str(error).split(" operation")[0], captured.tolist()
    return None, "", captured.tolist()


@pytest.mark.parametrize("name", list(CASES))
def test_captured_writes_as_torch(name: str, torch_ref: ModuleType) -> None:
    assert _outcome(minitorch, CASES[name]) == _outcome(torch_ref, CASES[name])


def test_refusal_message() -> None:
    captured = minitorch.zeros(2, 3)

    def f(x: Any) -> Any:
        captured.add_(1)
        return x.sum()

    with pytest.raises(RuntimeError, match=r"mutate a captured Tensor \(of shape \[2, 3\]\)\. This is not supported; "
                                           r"please rewrite the function being transformed to explicitly accept"):
        minitorch.func.grad(f)(minitorch.ones(2))


VMAP_CASES: dict[str, Callable[[Any], Callable[[Any], Any]]] = {
    "unbatched add_": lambda captured: lambda x: (captured.add_(1), x * 2)[1],
    "batched copy_": lambda captured: lambda x: (captured.copy_(x), x * 2)[1],
    "under grad": lambda captured: minitorch.func.grad(lambda x: (captured.add_(1), _twice(x))[1]),
}


@pytest.mark.parametrize("name", list(VMAP_CASES))
def test_vmap_refuses_writes_into_captured_tensors(name: str) -> None:
    captured = minitorch.zeros(3)
    with pytest.raises(RuntimeError, match="captured"):
        minitorch.func.vmap(VMAP_CASES[name](captured))(minitorch.ones(4, 3))
    assert captured.tolist() == [0.0, 0.0, 0.0]


def test_vmap_allows_writes_into_its_inputs_and_what_it_makes() -> None:
    batch = minitorch.zeros(4, 3)

    def f(row: Any) -> Any:
        made = minitorch.zeros(3)
        made.add_(row + 1)
        row.add_(2)  # a slice of a mapped input: the write lands in the batch, as PyTorch's does
        return made

    out = minitorch.func.vmap(f)(batch)
    assert out.tolist() == [[1.0] * 3] * 4
    assert batch.tolist() == [[2.0] * 3] * 4


def test_writes_after_the_transform_are_free_again() -> None:
    captured = minitorch.zeros(3)
    kept: list[Any] = []

    def f(x: Any) -> Any:
        kept.append(minitorch.zeros(3))
        return _twice(x)

    minitorch.func.grad(f)(minitorch.ones(3))
    captured.add_(1)
    kept[0].add_(1)
    assert captured.tolist() == kept[0].tolist() == [1.0, 1.0, 1.0]

    def g(x: Any) -> Any:
        kept[0].add_(1)  # made by an earlier transform call: captured by this one
        return _twice(x)

    with pytest.raises(RuntimeError, match="captured"):
        minitorch.func.grad(g)(minitorch.ones(3))


def test_another_threads_level_does_not_refuse_this_threads_writes() -> None:
    inside, release = threading.Event(), threading.Event()
    captured = minitorch.zeros(3)

    def f(x: Any) -> Any:
        inside.set()
        release.wait(timeout=30)
        return _twice(x)

    worker = threading.Thread(target=lambda: minitorch.func.grad(f)(minitorch.ones(3)))
    worker.start()
    try:
        assert inside.wait(timeout=30)
        captured.add_(1)  # this thread has no transform open
    finally:
        release.set()
        worker.join()
    assert captured.tolist() == [1.0, 1.0, 1.0]
