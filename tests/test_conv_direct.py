"""The CPU backend's direct convolution (``minitorch.ops.conv``, ``minitorch.conv_dispatch``,
``backends/cpu_conv.py``): values and both gradients against a float64 NumPy oracle written
from the definition, over strides, paddings, dilations, groups, 1-D inputs and operand
layouts; gradients of first and second order against central differences; the shapes the
kernels refuse.

``nn.functional.conv2d`` (course task 5.3) reaches these kernels on the cpu backend; its own
tests (``test_nn_functional_conv.py``) compare it with PyTorch on both CPU backends.
"""

from __future__ import annotations

from typing import Optional

import numpy as np
import pytest
from gradcheck import gradcheck

import minitorch
from minitorch.backends import backend_for
from minitorch.backends.base import ConvGeometry, ConvKernels
from minitorch.conv_dispatch import conv2d_input_grad_op, conv2d_op, conv2d_weight_grad_op, has_direct_conv
from minitorch.ops.conv import Convolution


def _geometry(stride=(1, 1), padding=((0, 0), (0, 0)), dilation=(1, 1), groups=1) -> ConvGeometry:
    return ConvGeometry(stride=stride, padding=padding, dilation=dilation, groups=groups)


def _patches(xp: np.ndarray, u: int, v: int, geometry: ConvGeometry, out_h: int, out_w: int) -> tuple:
    """The slices of the padded input that kernel position ``(u, v)`` reads for every output position."""
    (s_h, s_w), (d_h, d_w) = geometry.stride, geometry.dilation
    return (slice(None), slice(None), slice(u * d_h, u * d_h + s_h * (out_h - 1) + 1, s_h),
            slice(v * d_w, v * d_w + s_w * (out_w - 1) + 1, s_w))


def oracle(x: np.ndarray, w: np.ndarray, b: Optional[np.ndarray], g: np.ndarray, geometry: ConvGeometry):
    """Output, input gradient and weight gradient for output gradient ``g``, in float64, from the
    definition: each kernel position ``(u, v)`` adds ``w[:, :, u, v]`` times a strided slice of the
    padded input, group by group; the gradients are the same sums read backwards."""
    x, w, g = (np.asarray(a, np.float64) for a in (x, w, g))
    (top, bottom), (left, right) = geometry.padding
    xp = np.pad(x, ((0, 0), (0, 0), (top, bottom), (left, right)))
    groups, (o_total, c_group, k_h, k_w) = geometry.groups, w.shape
    o_group = o_total // groups
    out_h, out_w = g.shape[2], g.shape[3]
    out = np.zeros(g.shape)
    grad_xp, grad_w = np.zeros_like(xp), np.zeros_like(w)
    for group in range(groups):
        cs, os_ = slice(group * c_group, (group + 1) * c_group), slice(group * o_group, (group + 1) * o_group)
        for u in range(k_h):
            for v in range(k_w):
                where = _patches(xp, u, v, geometry, out_h, out_w)
                patch = xp[where][:, cs]
                out[:, os_] += np.einsum("nchw,oc->nohw", patch, w[os_, :, u, v])
                grad_xp[where][:, cs] += np.einsum("nohw,oc->nchw", g[:, os_], w[os_, :, u, v])
                grad_w[os_, :, u, v] += np.einsum("nohw,nchw->oc", g[:, os_], patch)
    if b is not None:
        out += np.asarray(b, np.float64)[None, :, None, None]
    height, width = x.shape[2], x.shape[3]
    return out, grad_xp[:, :, top : top + height, left : left + width], grad_w


#: (input shape, weight shape, geometry): stride 1 (the wide runs), strided rows, padding on
#: one side only, dilation, groups up to depthwise, a 1x1 kernel, a kernel as large as the input
CASES = [
    ((2, 3, 7, 8), (4, 3, 3, 3), _geometry()),
    ((2, 3, 7, 8), (4, 3, 3, 3), _geometry(padding=((1, 1), (1, 1)))),
    ((1, 2, 6, 9), (3, 2, 5, 2), _geometry(padding=((2, 0), (0, 3)))),
    ((2, 3, 9, 9), (2, 3, 3, 3), _geometry(dilation=(2, 3), padding=((1, 2), (2, 1)))),
    ((2, 4, 9, 8), (6, 2, 3, 3), _geometry(stride=(2, 2), padding=((1, 1), (1, 1)), groups=2)),
    ((2, 4, 9, 8), (6, 2, 3, 3), _geometry(stride=(1, 2), groups=2)),
    ((2, 4, 9, 8), (6, 4, 3, 3), _geometry(stride=(3, 1), dilation=(1, 2))),
    ((2, 6, 5, 5), (6, 1, 3, 3), _geometry(padding=((1, 1), (1, 1)), groups=6)),
    ((3, 5, 4, 6), (7, 5, 1, 1), _geometry()),
    ((2, 3, 4, 5), (2, 3, 4, 5), _geometry()),
    ((2, 9, 6, 6), (10, 9, 2, 6), _geometry(padding=((0, 0), (1, 1)))),  # 9 and 10 channels: blocks of 4 and a rest
    # a multiple of 4 output channels per group: the forward computes 4 at a time, for runs of
    # 1 to 5 taps, strided, dilated and in groups
    ((3, 5, 4, 6), (8, 5, 1, 1), _geometry()),
    ((2, 3, 9, 9), (4, 3, 3, 2), _geometry(dilation=(2, 3), padding=((1, 2), (2, 1)))),
    ((2, 3, 7, 8), (4, 3, 2, 4), _geometry()),
    ((2, 2, 9, 9), (4, 2, 5, 5), _geometry(padding=((2, 2), (2, 2)))),
    ((2, 2, 6, 9), (8, 2, 2, 6), _geometry()),
    ((2, 4, 9, 8), (8, 2, 3, 3), _geometry(padding=((1, 1), (1, 1)), groups=2)),
    ((2, 4, 9, 8), (8, 2, 3, 3), _geometry(stride=(1, 2), groups=2)),
]
DTYPES = {"float64": (np.float64, 1e-11), "float32": (np.float32, 2e-5)}


def _case_id(case) -> str:
    x_shape, w_shape, geometry = case
    return f"{x_shape}-{w_shape}-s{geometry.stride}-p{geometry.padding}-d{geometry.dilation}-g{geometry.groups}"


def _assert_close(ours: minitorch.Tensor, expected: np.ndarray, tolerance: float) -> None:
    got = ours.detach().numpy().astype(np.float64)
    assert got.shape == expected.shape
    scale = max(1.0, float(np.abs(expected).max(initial=0.0)))
    np.testing.assert_allclose(got, expected, rtol=0, atol=tolerance * scale)


@pytest.mark.parametrize("dtype_name", DTYPES)
@pytest.mark.parametrize("case", CASES, ids=[_case_id(c) for c in CASES])
def test_forward_and_both_gradients_match_the_oracle(case, dtype_name: str) -> None:
    x_shape, w_shape, geometry = case
    dtype, tolerance = DTYPES[dtype_name]
    rng = np.random.default_rng(0)
    x, w, b = (rng.standard_normal(s).astype(dtype) for s in (x_shape, w_shape, (w_shape[0],)))
    out_shape = (x_shape[0], w_shape[0], *geometry.output_size(*x_shape[2:], *w_shape[2:]))
    g = rng.standard_normal(out_shape).astype(dtype)
    expected = oracle(x, w, b, g, geometry)
    X, W, B, G = (minitorch.tensor(a) for a in (x, w, b, g))
    _assert_close(conv2d_op(X, W, B, geometry), expected[0], tolerance)
    _assert_close(conv2d_input_grad_op(G, W, geometry, x_shape), expected[1], tolerance)
    _assert_close(conv2d_weight_grad_op(G, X, geometry, w_shape), expected[2], tolerance)


def test_any_operand_layout_gives_the_same_values() -> None:
    """A channels-last input, a transposed weight, a sliced bias and a broadcast output gradient
    (stride 0, as ``.sum().backward()`` gives) are read as their values."""
    geometry = _geometry(padding=((1, 1), (1, 1)))
    rng = np.random.default_rng(1)
    x, w, b = rng.standard_normal((2, 3, 6, 7)), rng.standard_normal((4, 3, 3, 3)), rng.standard_normal(8)
    g = np.ones((2, 4, 6, 7))
    expected = oracle(x, w, b[::2], g, geometry)
    X = minitorch.tensor(np.ascontiguousarray(x.transpose(0, 2, 3, 1))).permute(0, 3, 1, 2)
    W = minitorch.tensor(np.ascontiguousarray(w.transpose(3, 2, 1, 0))).permute(3, 2, 1, 0)
    B = minitorch.tensor(b)[::2]
    G = minitorch.tensor(1.0, dtype=minitorch.float64).expand(2, 4, 6, 7)
    assert not (X.is_contiguous() or W.is_contiguous() or B.is_contiguous() or G.is_contiguous())
    _assert_close(conv2d_op(X, W, B, geometry), expected[0], 1e-11)
    _assert_close(conv2d_input_grad_op(G, W, geometry, x.shape), expected[1], 1e-11)
    _assert_close(conv2d_weight_grad_op(G, X, geometry, w.shape), expected[2], 1e-11)


def test_one_dimensional_operands_run_as_height_one() -> None:
    geometry = _geometry(stride=(1, 2), padding=((0, 0), (2, 1)), dilation=(1, 2), groups=2)
    rng = np.random.default_rng(2)
    x, w, b = rng.standard_normal((3, 4, 11)), rng.standard_normal((6, 2, 3)), rng.standard_normal(6)
    out_len = geometry.output_size(1, 11, 1, 3)[1]
    g = rng.standard_normal((3, 6, out_len))
    out, grad_x, grad_w = oracle(x[:, :, None], w[:, :, None], b, g[:, :, None], geometry)
    X, W, B, G = (minitorch.tensor(a) for a in (x, w, b, g))
    _assert_close(conv2d_op(X, W, B, geometry), out[:, :, 0], 1e-11)
    _assert_close(conv2d_input_grad_op(G, W, geometry, x.shape), grad_x[:, :, 0], 1e-11)
    _assert_close(conv2d_weight_grad_op(G, X, geometry, w.shape), grad_w[:, :, 0], 1e-11)


def test_no_output_channels_gives_an_empty_output_and_a_zero_input_gradient() -> None:
    geometry = _geometry(padding=((1, 1), (1, 1)))
    X, W = minitorch.ones(2, 3, 4, 4, dtype=minitorch.float64), minitorch.ones(0, 3, 3, 3, dtype=minitorch.float64)
    G = minitorch.ones(2, 0, 4, 4, dtype=minitorch.float64)
    assert conv2d_op(X, W, None, geometry).shape == (2, 0, 4, 4)
    grad_x = conv2d_input_grad_op(G, W, geometry, (2, 3, 4, 4))
    assert grad_x.shape == (2, 3, 4, 4) and not grad_x.numpy().any()
    assert conv2d_weight_grad_op(G, X, geometry, (0, 3, 3, 3)).shape == (0, 3, 3, 3)


def test_an_empty_batch_gives_empty_outputs_and_a_zero_weight_gradient() -> None:
    geometry = _geometry(padding=((1, 1), (1, 1)))
    X, W = minitorch.zeros(0, 2, 4, 4, dtype=minitorch.float64), minitorch.ones(3, 2, 3, 3, dtype=minitorch.float64)
    G = minitorch.zeros(0, 3, 4, 4, dtype=minitorch.float64)
    assert conv2d_op(X, W, None, geometry).shape == (0, 3, 4, 4)
    assert conv2d_input_grad_op(G, W, geometry, (0, 2, 4, 4)).shape == (0, 2, 4, 4)
    grad_w = conv2d_weight_grad_op(G, X, geometry, (3, 2, 3, 3))
    assert grad_w.shape == (3, 2, 3, 3) and not grad_w.numpy().any()


@pytest.mark.parametrize("geometry", [_geometry(padding=((1, 1), (1, 1))), _geometry(stride=(2, 1), groups=2)],
                         ids=["padded", "strided-groups"])
def test_gradients_of_first_and_second_order_match_central_differences(geometry: ConvGeometry) -> None:
    rng = np.random.default_rng(3)
    x = minitorch.tensor(rng.standard_normal((2, 2, 5, 4)), requires_grad=True)
    w = minitorch.tensor(rng.standard_normal((2, 2 // geometry.groups, 3, 2)), requires_grad=True)
    b = minitorch.tensor(rng.standard_normal(2), requires_grad=True)
    gradcheck(lambda x, w, b: Convolution.apply(x, w, b, geometry), x, w, b)
    out_shape = Convolution.apply(x, w, b, geometry).shape
    g = minitorch.tensor(rng.standard_normal(tuple(out_shape)), requires_grad=True)
    probe_x, probe_w = (minitorch.tensor(rng.standard_normal(tuple(t.shape))) for t in (x, w))

    def first_order(x: minitorch.Tensor, w: minitorch.Tensor, g: minitorch.Tensor) -> minitorch.Tensor:
        """A weighted sum of both gradients, built differentiably (also where gradcheck evaluates without a graph)."""
        with minitorch.enable_grad():
            x, w = (t if t.requires_grad else t.detach().requires_grad_() for t in (x, w))
            grad_x, grad_w = minitorch.autograd.grad(Convolution.apply(x, w, None, geometry), (x, w), g,
                                                     create_graph=True)
            return (grad_x * probe_x).sum() + (grad_w * probe_w).sum()

    gradcheck(first_order, x, w, g)


def test_the_graph_names_the_node_as_pytorch_does() -> None:
    x = minitorch.ones(1, 1, 3, 3, requires_grad=True)
    y = Convolution.apply(x, minitorch.ones(1, 1, 2, 2), None, _geometry())
    assert y.grad_fn.name() == "ConvolutionBackward0"


def test_only_backends_with_the_kernels_and_float32_or_float64_take_the_direct_path() -> None:
    assert isinstance(backend_for("cpu"), ConvKernels)
    x, w, geometry = minitorch.ones(1, 1, 3, 3), minitorch.ones(1, 1, 2, 2), _geometry()
    assert has_direct_conv(x, w, None, geometry)
    assert has_direct_conv(x.double(), w.double(), minitorch.ones(1).double(), geometry)
    assert not has_direct_conv(x.half(), w.half(), None, geometry)
    assert not has_direct_conv(x, w.double(), None, geometry)
    assert not has_direct_conv(x, w, minitorch.ones(1).double(), geometry)
    with minitorch.backends.use("simple"):
        assert not has_direct_conv(x, w, None, geometry)


@pytest.mark.parametrize("x_shape,w_shape,geometry,pays", [
    ((64, 1, 28, 28), (6, 1, 5, 5), _geometry(padding=((2, 2), (2, 2))), True),  # LeNet's first layer
    ((64, 6, 14, 14), (16, 6, 5, 5), _geometry(), True),  # and its second
    ((8, 64, 32, 32), (64, 64, 3, 3), _geometry(padding=((1, 1), (1, 1))), True),  # many channels, long runs
    ((16, 64, 8, 8), (64, 64, 3, 3), _geometry(padding=((1, 1), (1, 1))), False),  # many channels, short runs
    ((32, 16, 32, 32), (32, 16, 3, 3), _geometry(stride=(2, 2), padding=((1, 1), (1, 1))), False),  # strided
], ids=["lenet-1", "lenet-2", "wide-long", "wide-short", "strided"])
def test_the_cpu_backend_takes_the_kernels_where_they_measured_faster(x_shape, w_shape, geometry, pays) -> None:
    """Where the direct kernels measured slower than a window view and a matrix product (the
    shapes in ``cpu_conv.direct_pays``), ``F.conv2d`` takes the latter."""
    assert backend_for("cpu").conv2d_pays(x_shape, w_shape, geometry) is pays
    x, w = minitorch.zeros(*x_shape), minitorch.zeros(*w_shape)
    assert has_direct_conv(x, w, None, geometry) is pays


@pytest.mark.parametrize("call,message", [
    (lambda: conv2d_op(minitorch.ones(1, 3, 5, 5), minitorch.ones(2, 2, 3, 3), None, _geometry()), "do not fit"),
    (lambda: conv2d_op(minitorch.ones(1, 2, 2, 2), minitorch.ones(2, 2, 3, 3), None, _geometry()), "no output"),
    (lambda: conv2d_op(minitorch.ones(1, 2, 5, 5), minitorch.ones(2, 2, 3, 3), minitorch.ones(3), _geometry()),
     "bias of shape"),
    (lambda: conv2d_op(minitorch.ones(1, 2, 5, 5), minitorch.ones(3, 1, 3, 3), None, _geometry(groups=2)),
     "do not fit"),
    (lambda: conv2d_op(minitorch.ones(1, 2, 5, 5), minitorch.ones(2, 2, 3, 3), None, _geometry(stride=(0, 1))),
     "do not fit"),
    (lambda: conv2d_op(minitorch.ones(1, 2, 5, 5).half(), minitorch.ones(2, 2, 3, 3).half(), None, _geometry()),
     "float32 or float64"),
    (lambda: conv2d_op(minitorch.ones(1, 2, 5, 5, 1), minitorch.ones(2, 2, 3, 3), None, _geometry()), "4-d"),
    (lambda: conv2d_input_grad_op(minitorch.ones(1, 2, 4, 4), minitorch.ones(2, 2, 3, 3), _geometry(), (1, 2, 5, 5)),
     "gradient of shape"),
    (lambda: conv2d_weight_grad_op(minitorch.ones(1, 2, 3, 3), minitorch.ones(1, 2, 5, 5), _geometry(), (2, 2, 2, 2)),
     "gradient of shape"),
    (lambda: conv2d_op(minitorch.ones(1, 2, 5, 5), minitorch.ones(2, 2, 3, 3), None, (1, 1)), "ConvGeometry"),
], ids=["channels", "too-small", "bias", "groups", "stride-0", "half", "rank", "input-grad-shape", "weight-grad-shape",
        "geometry"])
def test_shapes_the_kernels_cannot_take_raise_before_any_kernel_runs(call, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        call()


def test_a_backend_without_the_kernels_is_refused_by_name() -> None:
    with minitorch.backends.use("simple"):
        x, w = minitorch.ones(1, 1, 3, 3), minitorch.ones(1, 1, 2, 2)
        with pytest.raises(ValueError, match="simple backend has no direct convolution"):
            conv2d_op(x, w, None, _geometry())
