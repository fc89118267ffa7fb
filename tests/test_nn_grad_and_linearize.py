"""What the conv + batch norm fusion, activation checkpointing and NTK corpus scripts found.

* ``torch.nn.grad`` (also ``F.grad``) was missing: ``conv{1,2,3}d_input`` and
  ``conv{1,2,3}d_weight``, a convolution's gradients as functions, which the fusion tutorial's
  hand-written backward calls. Checked here against PyTorch at strides, paddings, dilations and
  groups, at input sizes a strided convolution maps to one output size, through a second
  derivative, and for a size no convolution could have produced.
* ``torch.func.linearize`` was missing: the value of a function and its Jacobian-vector product
  at fixed primals, reusable for many tangents (the NTK script pushes every pulled-back basis
  vector through one).
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import numpy as np
import pytest

import minitorch

#: (spatial dims, batch, in channels, out channels, input size, kernel, stride, padding, dilation, groups)
CASES = [
    (1, 2, 3, 4, (9,), (3,), 2, 1, 1, 1),
    (1, 1, 4, 2, (10,), (2,), 3, 0, 2, 2),
    (2, 2, 3, 4, (7, 6), (3, 3), 1, 0, 1, 1),
    (2, 2, 3, 4, (7, 6), (3, 2), (2, 1), (1, 0), 1, 1),
    (2, 1, 4, 6, (8, 9), (3, 3), 2, 1, (1, 2), 2),
    (3, 1, 2, 2, (5, 4, 6), (2, 3, 2), (2, 1, 2), (0, 1, 1), 1, 1),
]
SEED = 55
TOLERANCE = 1e-10


def _array(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    return rng.standard_normal(shape)


def _operands(case: tuple) -> tuple[np.ndarray, np.ndarray, dict[str, Any]]:
    dims, batch, channels, out_channels, size, kernel, stride, padding, dilation, groups = case
    rng = np.random.default_rng(SEED)
    x = _array(rng, (batch, channels, *size))
    w = _array(rng, (out_channels, channels // groups, *kernel))
    return x, w, {"stride": stride, "padding": padding, "dilation": dilation, "groups": groups}


def _grads(lib: ModuleType, dims: int, x: np.ndarray, w: np.ndarray, options: dict[str, Any]) -> list[np.ndarray]:
    """conv{dims}d_input and conv{dims}d_weight of ``lib`` for a fixed output gradient."""
    conv = getattr(lib.nn.functional, f"conv{dims}d")
    x_t, w_t = lib.tensor(x), lib.tensor(w)
    out_shape = tuple(conv(x_t, w_t, **options).shape)
    grad_out = lib.tensor(np.cos(np.arange(np.prod(out_shape))).reshape(out_shape))
    grad_x = getattr(lib.nn.grad, f"conv{dims}d_input")(x_t.shape, w_t, grad_out, **options)
    grad_w = getattr(lib.nn.grad, f"conv{dims}d_weight")(x_t, w_t.shape, grad_out, **options)
    return [grad_x.detach().numpy(), grad_w.detach().numpy()]


@pytest.mark.parametrize("case", CASES, ids=[f"{c[0]}d-case{i}" for i, c in enumerate(CASES)])
def test_conv_gradients_as_functions_match_pytorch(torch_ref: ModuleType, case: tuple) -> None:
    x, w, options = _operands(case)
    dims = case[0]
    ours, theirs = _grads(minitorch, dims, x, w, options), _grads(torch_ref, dims, x, w, options)
    for name, mine, expected in zip(("input", "weight"), ours, theirs):
        assert mine.shape == expected.shape, f"conv{dims}d_{name}: shape {mine.shape} != PyTorch's {expected.shape}"
        np.testing.assert_allclose(mine, expected, rtol=TOLERANCE, atol=TOLERANCE,
                                   err_msg=f"conv{dims}d_{name} with {options}")


def test_functional_reaches_the_same_module(torch_ref: ModuleType) -> None:
    import minitorch.nn.functional as F  # noqa: N812 - as users write it

    assert F.grad is minitorch.nn.grad
    assert torch_ref.nn.functional.grad is torch_ref.nn.grad
    names = [f"conv{d}d_{what}" for d in (1, 2, 3) for what in ("input", "weight")]
    assert [hasattr(minitorch.nn.grad, n) for n in names] == [hasattr(torch_ref.nn.grad, n) for n in names]


def _second_derivatives(lib: ModuleType, x: np.ndarray, w: np.ndarray) -> list[np.ndarray]:
    """Gradients of a loss of the helpers' results with respect to every tensor argument."""
    options = {"stride": 2, "padding": 1}
    x_t, w_t = lib.tensor(x, requires_grad=True), lib.tensor(w, requires_grad=True)
    out_shape = tuple(lib.nn.functional.conv2d(x_t, w_t, **options).shape)
    grad_out = lib.tensor(np.sin(np.arange(np.prod(out_shape))).reshape(out_shape), requires_grad=True)
    grad_x = lib.nn.grad.conv2d_input(x_t.shape, w_t, grad_out, **options)
    grad_w = lib.nn.grad.conv2d_weight(x_t, w_t.shape, grad_out, **options)
    loss = (grad_x ** 2).sum() + (grad_w * w_t.detach()).sum()
    found = lib.autograd.grad(loss, (x_t, w_t, grad_out))
    return [g.detach().numpy() for g in found]


def test_helpers_are_differentiable_like_pytorch(torch_ref: ModuleType) -> None:
    x, w, _ = _operands(CASES[3])
    for name, mine, expected in zip(("input", "weight", "grad_output"), _second_derivatives(minitorch, x, w),
                                    _second_derivatives(torch_ref, x, w)):
        np.testing.assert_allclose(mine, expected, rtol=TOLERANCE, atol=TOLERANCE,
                                   err_msg=f"the gradient reaching {name} through conv2d_input/conv2d_weight")


def test_no_graph_without_grad_mode() -> None:
    x = minitorch.ones(1, 1, 4, 4, dtype=minitorch.float64, requires_grad=True)
    grad_out = minitorch.ones(1, 1, 2, 2, dtype=minitorch.float64)
    with minitorch.no_grad():
        grad_w = minitorch.nn.grad.conv2d_weight(x, (1, 1, 3, 3), grad_out)
    assert not grad_w.requires_grad and grad_w.grad_fn is None
    # every kernel offset sees the four output positions, each reading one input of value one
    assert grad_w.tolist() == [[[[4.0] * 3] * 3]]


def test_an_input_size_no_convolution_gives_is_refused(torch_ref: ModuleType) -> None:
    for lib in (minitorch, torch_ref):
        weight = lib.ones(1, 1, 3, 3, dtype=lib.float64)
        grad_out = lib.ones(1, 1, 3, 3, dtype=lib.float64)
        # stride 2 from 3 outputs: inputs of 7 or 8 rows; 10 rows is no convolution's input
        assert tuple(lib.nn.grad.conv2d_input((1, 1, 8, 7), weight, grad_out, stride=2).shape) == (1, 1, 8, 7)
        with pytest.raises(RuntimeError):
            lib.nn.grad.conv2d_input((1, 1, 10, 7), weight, grad_out, stride=2)


# ---- torch.func.linearize ----

def _two_outputs(lib: ModuleType) -> Any:
    def func(a: Any, params: dict[str, Any]) -> tuple[Any, Any]:
        hidden = lib.tanh(a @ params["w"] + params["b"])
        return hidden.sum(0), (hidden * a[:, :1]).exp()
    return func


def _linearized(lib: ModuleType) -> list[np.ndarray]:
    rng = np.random.default_rng(SEED)
    a = lib.tensor(rng.standard_normal((4, 3)))
    params = {"w": lib.tensor(rng.standard_normal((3, 2))), "b": lib.tensor(rng.standard_normal(2))}
    output, jvp_fn = lib.func.linearize(_two_outputs(lib), a, params)
    results = [t.numpy() for t in output]
    for k in range(2):  # one jvp_fn, several tangents
        tangent_a = lib.tensor(np.cos(np.arange(12.0) + k).reshape(4, 3))
        tangents = {"w": lib.tensor(np.sin(np.arange(6.0) * (k + 1)).reshape(3, 2)), "b": lib.ones(2, dtype=lib.float64)}
        results += [t.detach().numpy() for t in jvp_fn(tangent_a, tangents)]
        _, expected = lib.func.jvp(_two_outputs(lib), (a, params), (tangent_a, tangents))
        results += [t.detach().numpy() for t in expected]
    return results


def test_linearize_matches_pytorch_and_jvp(torch_ref: ModuleType) -> None:
    ours, theirs = _linearized(minitorch), _linearized(torch_ref)
    assert len(ours) == len(theirs)
    for index, (mine, expected) in enumerate(zip(ours, theirs)):
        np.testing.assert_allclose(mine, expected, rtol=TOLERANCE, atol=TOLERANCE, err_msg=f"result {index}")
    # within each library, jvp_fn and jvp give the same products
    for k in range(2):
        base = 2 + 4 * k
        for j in range(2):
            np.testing.assert_allclose(ours[base + j], ours[base + 2 + j], rtol=TOLERANCE, atol=TOLERANCE)


def test_linearize_refuses_a_tangent_unlike_its_primal(torch_ref: ModuleType) -> None:
    for lib in (minitorch, torch_ref):
        _, jvp_fn = lib.func.linearize(lib.sin, lib.zeros(3, dtype=lib.float64))
        assert jvp_fn(lib.ones(3, dtype=lib.float64)).tolist() == [1.0, 1.0, 1.0]
        for wrong in (lib.ones(4, dtype=lib.float64), lib.ones(3, dtype=lib.float32)):
            with pytest.raises(RuntimeError, match="doesn't match"):
                jvp_fn(wrong)
        with pytest.raises(RuntimeError, match="argspec"):
            jvp_fn(lib.ones(3, dtype=lib.float64), lib.ones(3, dtype=lib.float64))
