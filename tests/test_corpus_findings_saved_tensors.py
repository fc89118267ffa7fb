"""Ops recorded as one node from several (``mse_loss``, ``nll_loss``, ``trace``, ``addcmul``, the
fused ``cross_entropy``, ...) check the tensors PyTorch's node saves, and only those: an in-place
change to one before backward, or a second backward after the graph was freed, raises PyTorch's
error; an in-place change to a tensor PyTorch does not save is no error. Found by the style
transfer corpus script (an in-place ReLU after a transparent loss module). PyTorch is the oracle.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any, Callable, Optional

import numpy as np
import pytest

import minitorch

Case = Callable[[ModuleType], Any]


def _x(lib: ModuleType, values: Any = (1.0, -2.0, 3.0)) -> Any:
    return lib.tensor(values, dtype=lib.float64, requires_grad=True)


def mse_input_relu_(lib: ModuleType) -> Any:
    x = _x(lib)
    y = x * 1
    loss = lib.nn.functional.mse_loss(y, lib.zeros(3, dtype=lib.float64))
    lib.nn.ReLU(inplace=True)(y)  # the style-transfer pitfall: the loss's input changed after the loss
    loss.backward()
    return x.grad


def mse_target_(lib: ModuleType) -> Any:
    x = _x(lib)
    target = lib.tensor([0.5, 0.5, 0.5], dtype=lib.float64)
    loss = lib.nn.functional.mse_loss(x, target)
    target.mul_(2)
    loss.backward()
    return x.grad


def mse_twice(lib: ModuleType) -> Any:
    x = _x(lib)
    loss = lib.nn.functional.mse_loss(x, lib.zeros(3, dtype=lib.float64))
    loss.backward()
    loss.backward()
    return x.grad


def mse_retained_twice(lib: ModuleType) -> Any:
    x = _x(lib)
    loss = lib.nn.functional.mse_loss(x, lib.zeros(3, dtype=lib.float64))
    loss.backward(retain_graph=True)
    loss.backward()
    return x.grad


def mse_create_graph(lib: ModuleType) -> Any:
    x = _x(lib)
    loss = lib.nn.functional.mse_loss(x * x, lib.zeros(3, dtype=lib.float64))
    (grad,) = lib.autograd.grad(loss, x, create_graph=True)
    grad.sum().backward()
    return x.grad


def huber_twice(lib: ModuleType) -> Any:
    x = _x(lib)
    loss = lib.nn.functional.huber_loss(x, lib.zeros(3, dtype=lib.float64))
    loss.backward()
    loss.backward()
    return x.grad


def smooth_l1_input_(lib: ModuleType) -> Any:
    x = _x(lib)
    y = x * 1
    loss = lib.nn.functional.smooth_l1_loss(y, lib.zeros(3, dtype=lib.float64))
    y.add_(1)
    loss.backward()
    return x.grad


def soft_margin_input_(lib: ModuleType) -> Any:
    x = _x(lib)
    y = x * 1
    loss = lib.nn.functional.soft_margin_loss(y, lib.tensor([1.0, -1.0, 1.0], dtype=lib.float64))
    y.add_(1)
    loss.backward()
    return x.grad


def multi_margin_input_(lib: ModuleType) -> Any:
    x = _x(lib, [[0.1, 0.2, 0.7]])
    y = x * 1
    loss = lib.nn.functional.multi_margin_loss(y, lib.tensor([1]))
    y.add_(1)
    loss.backward()
    return x.grad


def bce_logits_input_(lib: ModuleType) -> Any:
    x = _x(lib)
    y = x * 1
    loss = lib.nn.functional.binary_cross_entropy_with_logits(y, lib.tensor([1.0, 0.0, 1.0], dtype=lib.float64))
    y.add_(1)
    loss.backward()
    return x.grad


def nll_input_(lib: ModuleType) -> Any:
    x = _x(lib, [[0.1, 0.2, 0.7]])
    log_p = x.log_softmax(1)
    loss = lib.nn.functional.nll_loss(log_p, lib.tensor([2]))
    log_p.mul_(1.5)
    loss.backward()
    return x.grad


def cross_entropy_logits_(lib: ModuleType) -> Any:
    x = _x(lib, [[0.1, 0.2, 0.7]])
    logits = x * 1
    loss = lib.nn.functional.cross_entropy(logits, lib.tensor([1]))
    logits.mul_(2)  # PyTorch saves the log-probabilities, not the logits: no error
    loss.backward()
    return x.grad


def cross_entropy_target_(lib: ModuleType) -> Any:
    x = _x(lib, [[0.1, 0.2, 0.7]])
    target = lib.tensor([1])
    loss = lib.nn.functional.cross_entropy(x, target)
    target.add_(1)
    loss.backward()
    return x.grad


def trace_input_(lib: ModuleType) -> Any:
    x = lib.arange(4.0, dtype=lib.float64).reshape(2, 2).requires_grad_()
    y = x * 1
    total = y.trace()
    y.mul_(3)  # PyTorch's trace keeps only the sizes
    total.backward()
    return x.grad


def trace_input_create_graph(lib: ModuleType) -> Any:
    x = lib.arange(4.0, dtype=lib.float64).reshape(2, 2).requires_grad_()
    y = x * 1
    total = y.trace()
    y.mul_(3)
    return lib.autograd.grad(total, x, create_graph=True)[0]


def addcmul_input_(lib: ModuleType) -> Any:
    a, b = _x(lib, [1.0, 1.0, 1.0]), _x(lib, [1.0, 2.0, 3.0])
    c = lib.tensor([4.0, 5.0, 6.0], dtype=lib.float64)
    s = a * 1
    out = lib.addcmul(s, b, c, value=0.5)
    s.mul_(2)  # the added tensor is never saved
    out.sum().backward()
    return b.grad


def addcmul_tensor2_(lib: ModuleType) -> Any:
    a, b = _x(lib, [1.0, 1.0, 1.0]), _x(lib, [1.0, 2.0, 3.0])
    c = lib.tensor([4.0, 5.0, 6.0], dtype=lib.float64)
    out = lib.addcmul(a, b, c, value=0.5)
    c.mul_(2)  # read by tensor1's gradient
    out.sum().backward()
    return b.grad


def addcdiv_divisor_(lib: ModuleType) -> Any:
    a = _x(lib, [1.0, 1.0, 1.0])
    b, c = lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64), lib.tensor([4.0, 5.0, 6.0], dtype=lib.float64)
    out = lib.addcdiv(a, b, c)
    c.mul_(2)  # a divisor is saved even when only the added tensor needs a gradient
    out.sum().backward()
    return a.grad


def embedding_bag_weight_(lib: ModuleType) -> Any:
    w = lib.arange(12.0, dtype=lib.float64).reshape(4, 3).requires_grad_()
    rows = w * 1
    out = lib.nn.functional.embedding_bag(lib.tensor([0, 2, 1, 3]), rows, lib.tensor([0, 2]))
    rows.mul_(2)  # the weight's own gradient reads only its size
    out.sum().backward()
    return w.grad


def embedding_bag_per_sample_weights(lib: ModuleType) -> Any:
    w = lib.arange(12.0, dtype=lib.float64).reshape(4, 3).requires_grad_()
    rows = w * 1
    psw = lib.ones(4, dtype=lib.float64, requires_grad=True)
    out = lib.nn.functional.embedding_bag(lib.tensor([0, 2, 1, 3]), rows, lib.tensor([0, 2]), mode="sum",
                                          per_sample_weights=psw)
    rows.mul_(2)
    out.sum().backward()
    return psw.grad


def embedding_bag_indices_2d(lib: ModuleType) -> Any:
    w = lib.arange(12.0, dtype=lib.float64).reshape(4, 3).requires_grad_()
    indices = lib.tensor([[0, 2], [1, 3]])
    out = lib.nn.functional.embedding_bag(indices, w)
    indices.add_(0)
    out.sum().backward()
    return w.grad


CASES: dict[str, Case] = {case.__name__: case for case in (
    mse_input_relu_, mse_target_, mse_twice, mse_retained_twice, mse_create_graph, huber_twice, smooth_l1_input_,
    soft_margin_input_, multi_margin_input_, bce_logits_input_, nll_input_, cross_entropy_logits_,
    cross_entropy_target_, trace_input_, trace_input_create_graph, addcmul_input_, addcmul_tensor2_,
    addcdiv_divisor_, embedding_bag_weight_, embedding_bag_per_sample_weights, embedding_bag_indices_2d,
)}


def _outcome(lib: ModuleType, case: Case) -> tuple[Optional[str], Optional[np.ndarray]]:
    """PyTorch's error message (its ``torch.`` names as minitorch prints them), or the gradient."""
    try:
        grad = case(lib)
    except RuntimeError as error:
        return str(error), None
    return None, np.asarray(grad.detach().tolist())


@pytest.mark.parametrize("name", list(CASES))
def test_saved_tensors_checked_as_torch(name: str, torch_ref: ModuleType) -> None:
    error, grad = _outcome(minitorch, CASES[name])
    error_ref, grad_ref = _outcome(torch_ref, CASES[name])
    assert error == error_ref
    if grad_ref is not None:
        assert grad is not None
        np.testing.assert_allclose(grad, grad_ref, rtol=1e-12, atol=1e-14)
