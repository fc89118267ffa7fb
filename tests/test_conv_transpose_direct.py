"""Transposed convolution on the direct convolution kernels (``TransposedConvolution`` in
``minitorch.ops.conv``): values and all three gradients against PyTorch over strides,
paddings, output paddings, dilations, groups, float32 and float64, 1-D and 2-D, batched and
unbatched inputs, with and without a bias; gradients of second order against PyTorch and
central differences; and which calls take the kernels and which the fold.

The sweep forces the kernels (``force_direct``) so that it covers every geometry, also those
where ``F.conv_transpose2d`` would take the fold because the kernels measured slower.
"""

from __future__ import annotations

import itertools
from typing import Any, Optional

import numpy as np
import pytest
from gradcheck import gradcheck

import minitorch
import minitorch.nn.functional as F
from minitorch.backends.base import ConvGeometry
from minitorch.conv_dispatch import has_direct_conv_transpose
from minitorch.nn.functional import conv_transpose
from minitorch.ops.conv import TransposedConvolution
from minitorch.ops.fold import Fold

#: tolerance on the largest absolute difference, relative to the largest magnitude of PyTorch's result
TOLERANCE = {"float64": 1e-12, "float32": 1e-5}
KERNEL = 3
SIZES = (5, 4)  # height and width of the input (a 1-D input has the width)


def _geometries() -> list[dict[str, Any]]:
    """Every stride 1-3 with every padding 0-2, dilation 1-2 and groups 1-2; the second spatial
    dimension takes other values than the first, the output padding runs through ``0 .. stride - 1``,
    and batched or not, bias or not, float32 or float64 and 1-D or 2-D alternate (every stride meets
    both dtypes in both ranks, every group count, padding and dilation both ranks)."""
    cases = []
    for i, (stride, padding, dilation, groups) in enumerate(itertools.product((1, 2, 3), (0, 1, 2), (1, 2), (1, 2))):
        stride_w = stride % 3 + 1
        cases.append({
            "stride": (stride, stride_w), "padding": (padding, 2 - padding), "dilation": (dilation, 3 - dilation),
            "output_padding": (i % stride, (i + 1) % stride_w), "groups": groups, "dims": 1 + (i + i // 2) % 2,
            "batched": i % 3 != 0, "bias": i // 2 % 3 != 1, "dtype": ("float32", "float64")[(i + i // 4) % 2],
        })
    return cases


CASES = _geometries()


def _case_id(case: dict[str, Any]) -> str:
    return "-".join(f"{key}{value}" for key, value in case.items()).replace(" ", "")


def _keywords(case: dict[str, Any]) -> dict[str, Any]:
    """``F.conv_transpose{1,2}d``'s geometry arguments; a 1-D case takes the width's."""
    names = ("stride", "padding", "dilation", "output_padding")
    if case["dims"] == 1:
        return {**{name: case[name][1] for name in names}, "groups": case["groups"]}
    return {**{name: case[name] for name in names}, "groups": case["groups"]}


def _functions(torch: Any, dims: int) -> tuple[Any, Any]:
    return ((F.conv_transpose1d, torch.nn.functional.conv_transpose1d) if dims == 1
            else (F.conv_transpose2d, torch.nn.functional.conv_transpose2d))


@pytest.fixture
def force_direct(monkeypatch: pytest.MonkeyPatch) -> None:
    """``F.conv_transpose1d/2d`` take the kernels wherever they can (``output_padding < stride``)."""
    monkeypatch.setattr(conv_transpose, "has_direct_conv_transpose", lambda *args: True)


def _direct_node(out: minitorch.Tensor) -> bool:
    """Whether ``out`` (or, unbatched, the result it squeezes) is a :class:`TransposedConvolution`'s."""
    node = out.grad_fn
    if node is not None and node.name() == "SqueezeBackward1":
        node = node.next_functions[0][0]
    return node is not None and node.function is TransposedConvolution


def _graph_has(out: minitorch.Tensor, function: type) -> bool:
    """Whether a node of ``function`` is anywhere in ``out``'s graph."""
    seen, stack = set(), [out.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        if getattr(node, "function", None) is function:
            return True
        stack.extend(next_node for next_node, _ in getattr(node, "next_functions", ()))
    return False


def _assert_close(ours: minitorch.Tensor, expected: Any, tolerance: float, what: str) -> None:
    got, want = ours.detach().numpy().astype(np.float64), expected.detach().numpy()
    assert got.shape == want.shape, f"{what}: shape {got.shape} != torch's {want.shape}"
    scale = max(1.0, float(np.abs(want).max(initial=0.0)))
    np.testing.assert_allclose(got, want, rtol=0, atol=tolerance * scale, err_msg=what)


@pytest.mark.parametrize("case", CASES, ids=[_case_id(c) for c in CASES])
def test_values_and_gradients_match_torch(torch_ref: Any, force_direct: None, case: dict[str, Any]) -> None:
    """The forward and the gradients of the input, the weight and the bias against PyTorch in
    float64 on the same values (for float32 too: the oracle computes the float32 values in float64)."""
    dims, groups, dtype = case["dims"], case["groups"], case["dtype"]
    in_channels, out_per_group = 2 * groups, 3 - groups
    spatial = SIZES[2 - dims :]
    x_shape = ((2,) if case["batched"] else ()) + (in_channels, *spatial)
    w_shape = (in_channels, out_per_group) + (KERNEL,) * dims
    rng = np.random.default_rng(CASES.index(case))
    arrays = [rng.standard_normal(x_shape).astype(dtype), rng.standard_normal(w_shape).astype(dtype)]
    arrays.append(rng.standard_normal(out_per_group * groups).astype(dtype) if case["bias"] else None)
    ours_fn, torch_fn = _functions(torch_ref, dims)
    kwargs = _keywords(case)
    mine = [None if a is None else minitorch.tensor(a, requires_grad=True) for a in arrays]
    ref = [None if a is None else torch_ref.tensor(a.astype(np.float64), requires_grad=True) for a in arrays]
    out, expected = ours_fn(*mine, **kwargs), torch_fn(*ref, **kwargs)
    assert _direct_node(out) and out.dtype == mine[0].dtype
    tolerance = TOLERANCE[dtype]
    _assert_close(out, expected, tolerance, "output")
    weights = rng.standard_normal(tuple(expected.shape))
    (out * minitorch.tensor(weights.astype(dtype))).sum().backward()
    (expected * torch_ref.tensor(weights.astype(dtype).astype(np.float64))).sum().backward()
    for name, a, b in zip(("input", "weight", "bias"), mine, ref):
        if a is not None:
            _assert_close(a.grad, b.grad, tolerance, f"gradient of the {name}")


def test_only_some_inputs_need_gradients(torch_ref: Any, force_direct: None) -> None:
    """Only the input needs a gradient (a frozen weight and bias), only the weight and the bias, only the bias."""
    rng = np.random.default_rng(7)
    x, w, b = rng.standard_normal((2, 4, 3, 3)), rng.standard_normal((4, 3, 3, 3)), rng.standard_normal(3)
    for needs in ((True, False, False), (False, True, True), (False, False, True)):
        mine = [minitorch.tensor(a, requires_grad=r) for a, r in zip((x, w, b), needs)]
        ref = [torch_ref.tensor(a, requires_grad=r) for a, r in zip((x, w, b), needs)]
        out = F.conv_transpose2d(*mine, stride=2, padding=1, output_padding=1)
        expected = torch_ref.nn.functional.conv_transpose2d(*ref, stride=2, padding=1, output_padding=1)
        assert _direct_node(out)
        (out * out).sum().backward()
        (expected * expected).sum().backward()
        for a, r, need in zip(mine, ref, needs):
            assert (a.grad is not None) is need
            if need:
                _assert_close(a.grad, r.grad, TOLERANCE["float64"], "gradient")


def test_any_operand_layout_gives_the_same_values(torch_ref: Any, force_direct: None) -> None:
    """A channels-last input, a permuted weight and a sliced bias are read as their values."""
    rng = np.random.default_rng(8)
    x, w, b = rng.standard_normal((2, 4, 5, 6)), rng.standard_normal((4, 2, 3, 2)), rng.standard_normal(4)
    X = minitorch.tensor(np.ascontiguousarray(x.transpose(0, 2, 3, 1)), requires_grad=True).permute(0, 3, 1, 2)
    W = minitorch.tensor(np.ascontiguousarray(w.transpose(3, 2, 1, 0))).permute(3, 2, 1, 0)
    B = minitorch.tensor(b)[::2]
    assert not (X.is_contiguous() or W.is_contiguous() or B.is_contiguous())
    out = F.conv_transpose2d(X, W, B, stride=(2, 1), padding=1, dilation=(1, 2))
    expected = torch_ref.nn.functional.conv_transpose2d(torch_ref.tensor(x), torch_ref.tensor(w),
                                                        torch_ref.tensor(b[::2]), stride=(2, 1), padding=1, dilation=(1, 2))
    assert _direct_node(out)
    _assert_close(out, expected, TOLERANCE["float64"], "output")


def test_the_node_is_named_as_pytorch_names_it(torch_ref: Any, force_direct: None) -> None:
    out = F.conv_transpose2d(minitorch.ones(1, 2, 3, 3, requires_grad=True), minitorch.ones(2, 1, 2, 2))
    expected = torch_ref.nn.functional.conv_transpose2d(torch_ref.ones(1, 2, 3, 3, requires_grad=True),
                                                        torch_ref.ones(2, 1, 2, 2))
    assert out.grad_fn.name() == type(expected.grad_fn).__name__ == "ConvolutionBackward0"


def test_hessian_vector_product_matches_torch(torch_ref: Any, force_direct: None) -> None:
    """Second order through the kernels' op: the gradient of the input's gradient (with
    ``create_graph``), against PyTorch."""
    rng = np.random.default_rng(9)
    x, w, b = rng.standard_normal((2, 4, 3, 4)), rng.standard_normal((4, 1, 3, 2)), rng.standard_normal(2)
    direction = rng.standard_normal(x.shape)

    def run(lib: Any) -> tuple[np.ndarray, ...]:
        x_, w_, b_ = (lib.tensor(a, dtype=lib.float64, requires_grad=True) for a in (x, w, b))
        out = lib.nn.functional.conv_transpose2d(x_, w_, b_, stride=2, padding=(1, 0), dilation=(1, 2), groups=2)
        grad_x, grad_w = lib.autograd.grad(out.tanh().sum(), (x_, w_), create_graph=True)
        hv = lib.autograd.grad((grad_x * lib.tensor(direction)).sum() + (grad_w ** 2).sum(), (x_, w_, b_))
        return tuple(t.detach().numpy() for t in (grad_x, grad_w, *hv))

    for mine, theirs in zip(run(minitorch), run(torch_ref)):
        np.testing.assert_allclose(mine, theirs, rtol=1e-11, atol=1e-12)


@pytest.mark.parametrize("geometry", [
    ConvGeometry(stride=(1, 1), padding=((1, 1), (0, 0)), dilation=(1, 1), groups=1),
    ConvGeometry(stride=(2, 1), padding=((0, 0), (1, 1)), dilation=(1, 2), groups=2),
], ids=["padded", "strided-dilated-groups"])
def test_gradients_of_first_and_second_order_match_central_differences(geometry: ConvGeometry) -> None:
    rng = np.random.default_rng(10)
    x = minitorch.tensor(rng.standard_normal((2, 2, 3, 3)), requires_grad=True)
    w = minitorch.tensor(rng.standard_normal((2, 4 // geometry.groups, 2, 3)), requires_grad=True)
    b = minitorch.tensor(rng.standard_normal(4), requires_grad=True)
    out_sizes = [(n - 1) * s - before - after + d * (k - 1) + 1 for n, k, s, (before, after), d
                 in zip((3, 3), (2, 3), geometry.stride, geometry.padding, geometry.dilation)]
    out_shape = (2, 4, *out_sizes)
    gradcheck(lambda x, w, b: TransposedConvolution.apply(x, w, b, geometry, out_shape), x, w, b)
    g = minitorch.tensor(rng.standard_normal(out_shape), requires_grad=True)
    probe_x, probe_w = (minitorch.tensor(rng.standard_normal(tuple(t.shape))) for t in (x, w))

    def first_order(x: minitorch.Tensor, w: minitorch.Tensor, g: minitorch.Tensor) -> minitorch.Tensor:
        """A weighted sum of both gradients, built differentiably (also where gradcheck evaluates without a graph)."""
        with minitorch.enable_grad():
            x, w = (t if t.requires_grad else t.detach().requires_grad_() for t in (x, w))
            grad_x, grad_w = minitorch.autograd.grad(TransposedConvolution.apply(x, w, None, geometry, out_shape),
                                                     (x, w), g, create_graph=True)
            return (grad_x * probe_x).sum() + (grad_w * probe_w).sum()

    gradcheck(first_order, x, w, g)


# ---- which path a call takes ----


def _path(x_shape: tuple[int, ...], w_shape: tuple[int, ...], dtype: Optional[minitorch.dtype] = None,
          **kwargs: Any) -> tuple[bool, bool]:
    """(kernels, fold): whether the graph of ``F.conv_transpose1d/2d`` holds the kernels' op, the fold."""
    x = minitorch.zeros(*x_shape, dtype=dtype or minitorch.float32, requires_grad=True)
    w = minitorch.zeros(*w_shape, dtype=dtype or minitorch.float32)
    out = (F.conv_transpose1d if len(w_shape) == 3 else F.conv_transpose2d)(x, w, **kwargs)
    return _direct_node(out), _graph_has(out, Fold)


@pytest.mark.parametrize("x_shape,w_shape,kwargs", [
    ((16, 16, 32, 32), (16, 3, 3, 3), {"padding": 1}),  # a decoder's last layer
    ((16, 16, 8, 8), (16, 3, 3, 3), {"padding": 1}),  # short runs, few output channels
    ((8, 32, 16, 16), (32, 1, 3, 3), {"padding": 1, "groups": 32}),  # depthwise
    ((16, 64, 32, 32), (64, 32, 3, 3), {"padding": 1}),  # many channels, long runs
    ((16, 16, 200), (16, 16, 5), {"padding": 2}),  # 1-D
    ((16, 16, 200), (16, 16, 5), {"padding": 2, "dilation": 2}),
    ((3, 16, 16), (3, 8, 3, 3), {}),  # unbatched
], ids=["decoder-output", "few-outputs", "depthwise", "wide-long", "1d", "1d-dilated", "unbatched"])
def test_where_the_kernels_measured_faster_they_run(x_shape, w_shape, kwargs) -> None:
    assert _path(x_shape, w_shape, **kwargs) == (True, False)
    assert _path(x_shape, w_shape, minitorch.float64, **kwargs) == (True, False)


@pytest.mark.parametrize("x_shape,w_shape,kwargs", [
    # the benchmarked DCGAN stage: strided, the kernels measured over 20x slower than the matrix product
    ((16, 64, 8, 8), (64, 32, 4, 4), {"stride": 2, "padding": 1}),
    ((16, 16, 16, 16), (16, 3, 4, 4), {"stride": 2, "padding": 1}),  # strided, few channels: still slower
    ((16, 64, 8, 8), (64, 64, 3, 3), {"padding": 1}),  # many channels on short runs
    # many input channels on runs of 286: the convolution's test (conv2d_pays) would take the kernels
    ((16, 64, 16, 16), (64, 16, 3, 3), {"padding": 1}),
    # output_padding >= stride (allowed below the dilation): the convolution would not give back the input's shape
    ((2, 4, 9, 9), (4, 3, 3, 3), {"dilation": 3, "output_padding": 2}),
    ((2, 4, 9), (4, 3, 3), {"dilation": 3, "output_padding": 1}),
    ((2, 4, 3, 3, 3), (4, 3, 2, 2, 2), {}),  # 3-D
], ids=["dcgan-stage", "strided-few-channels", "wide-short", "many-inputs", "output-padding-2d", "output-padding-1d",
        "3d"])
def test_where_the_kernels_cannot_or_do_not_pay_the_fold_runs(x_shape, w_shape, kwargs) -> None:
    function = {3: F.conv_transpose1d, 4: F.conv_transpose2d, 5: F.conv_transpose3d}[len(x_shape)]
    out = function(minitorch.zeros(*x_shape, requires_grad=True), minitorch.zeros(*w_shape), **kwargs)
    assert not _direct_node(out) and _graph_has(out, Fold)


def test_output_padding_at_the_stride_takes_the_fold_even_when_the_kernels_are_forced(force_direct: None) -> None:
    assert _path((2, 4, 5, 5), (4, 3, 3, 3), dilation=2, output_padding=1) == (False, True)
    assert _path((2, 4, 5, 5), (4, 3, 3, 3), stride=2, dilation=3, output_padding=(2, 1)) == (False, True)
    assert _path((2, 4, 5, 5), (4, 3, 3, 3), stride=2, dilation=3, output_padding=(1, 1)) == (True, False)


def test_other_dtypes_and_backends_take_the_fold() -> None:
    x, w = minitorch.ones(2, 4, 8, 8), minitorch.ones(4, 3, 3, 3)
    geometry = ConvGeometry(stride=(1, 1), padding=((0, 0), (0, 0)), dilation=(1, 1), groups=1)
    shape = (2, 3, 10, 10)
    assert has_direct_conv_transpose(x, w, None, geometry, shape)
    assert has_direct_conv_transpose(x.double(), w.double(), minitorch.ones(3).double(), geometry, shape)
    assert not has_direct_conv_transpose(x.half(), w.half(), None, geometry, shape)
    assert not has_direct_conv_transpose(x, w.double(), None, geometry, shape)
    assert not has_direct_conv_transpose(x, w, minitorch.ones(3).double(), geometry, shape)
    with minitorch.backends.use("simple"):
        assert not has_direct_conv_transpose(x, w, None, geometry, shape)
        assert _path((2, 4, 8, 8), (4, 3, 3, 3)) == (False, True)
