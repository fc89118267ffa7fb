"""Shared helpers for the layer tests (step 5): run one computation in minitorch and in
PyTorch from the same NumPy inputs, and compare outputs and gradients.

The gradient comparison backpropagates the same fixed random weighting of the output in
both frameworks, so every output element's gradient path is exercised.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

import numpy as np

import minitorch

F64 = minitorch.float64


def ours(array: Any, grad: bool = False) -> minitorch.Tensor:
    """A minitorch leaf from ``array`` (float64 for floats, int64 for ints, bool for bools)."""
    array = np.asarray(array)
    if array.dtype.kind == "f":
        return minitorch.tensor(array.astype(np.float64), dtype=F64, requires_grad=grad)
    if array.dtype.kind == "b":
        return minitorch.tensor(array, dtype=minitorch.bool)
    return minitorch.tensor(array.astype(np.int64), dtype=minitorch.int64)


def theirs(torch: Any, array: Any, grad: bool = False) -> Any:
    array = np.asarray(array)
    if array.dtype.kind == "f":
        return torch.tensor(array.astype(np.float64), dtype=torch.float64, requires_grad=grad)
    if array.dtype.kind == "b":
        return torch.tensor(array)
    return torch.tensor(array.astype(np.int64))


def values(t: Any) -> np.ndarray:
    """A float64 NumPy copy of a minitorch or torch tensor."""
    if hasattr(t, "detach"):
        t = t.detach()
    return np.array(t.numpy() if hasattr(t, "numpy") else t, dtype=np.float64)


def assert_close(actual: Any, expected: Any, atol: float = 1e-8, rtol: float = 1e-6, what: str = "output") -> None:
    a, e = values(actual), values(expected)
    assert a.shape == e.shape, f"{what}: shape {a.shape} != torch's {e.shape}"
    np.testing.assert_allclose(a, e, atol=atol, rtol=rtol, equal_nan=True, err_msg=what)


def compare_with_torch(
    torch: Any,
    our_fn: Callable[..., minitorch.Tensor],
    torch_fn: Callable[..., Any],
    arrays: Sequence[Any],
    grad: Sequence[int] = (),
    atol: float = 1e-8,
    rtol: float = 1e-6,
    seed: int = 0,
) -> None:
    """Same inputs into both; outputs equal; gradients of ``arrays[i]`` (``i`` in ``grad``) equal."""
    mine = [ours(a, i in grad) if isinstance(a, np.ndarray) else a for i, a in enumerate(arrays)]
    ref = [theirs(torch, a, i in grad) if isinstance(a, np.ndarray) else a for i, a in enumerate(arrays)]
    out, expected = our_fn(*mine), torch_fn(*ref)
    assert_close(out, expected, atol, rtol)
    if not grad:
        return
    weights = np.random.default_rng(seed).standard_normal(tuple(expected.shape))
    (out * ours(weights)).sum().backward()
    (expected * torch.tensor(weights)).sum().backward()
    for i in grad:
        assert mine[i].grad is not None, f"input {i} got no gradient"
        assert_close(mine[i].grad, ref[i].grad, atol, rtol, what=f"gradient of input {i}")


def raised(fn: Callable[[], Any]) -> BaseException:
    """The exception ``fn`` raises (fails the test if it returns).

    A ``NotImplementedError`` (an unfinished course task's stub) propagates unchanged, so a
    stubbed task fails with it rather than with a message mismatch.
    """
    try:
        fn()
    except NotImplementedError:
        raise
    except BaseException as error:  # noqa: BLE001 - the test inspects whatever was raised
        return error
    raise AssertionError("expected an exception, none was raised")


def assert_same_error(our_call: Callable[[], Any], torch_call: Callable[[], Any]) -> None:
    """Both calls raise the same exception type with the same message."""
    mine, ref = raised(our_call), raised(torch_call)
    assert type(ref).__name__ == type(mine).__name__ or isinstance(mine, type(ref)), (
        f"torch raised {type(ref).__name__}, minitorch {type(mine).__name__}: {mine}"
    )
    expected = str(ref).replace("torch.Size", "minitorch.Size")  # our Size prints with our name
    assert str(mine) == expected, f"message differs:\n minitorch: {mine}\n torch:     {ref}"
