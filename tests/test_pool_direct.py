"""The CPU backend's direct max-pooling (``minitorch.ops.pool``, ``minitorch.pool_dispatch``,
``backends/cpu_pool.py``): values, places and gradients against a NumPy oracle and hand-derived
windows (NaN and ``-inf`` included), gradients of first and second order against central
differences, and the geometries the kernel refuses.

``nn.functional.max_pool2d`` (course task 5.5) reaches this kernel on the cpu backend; its own
tests (``test_nn_functional_conv.py``) compare it with PyTorch on both CPU backends.
"""

from __future__ import annotations

import math
import subprocess
import sys
import textwrap

import numpy as np
import pytest
from gradcheck import gradcheck

import minitorch
from minitorch.backends import backend_for
from minitorch.backends.base import PoolGeometry, PoolKernels
from minitorch.ops.pool import MaxPool2d
from minitorch.pool_dispatch import has_direct_max_pool, max_pool2d_backward_op, max_pool2d_op


def _output(size: int, kernel: int, stride: int, pad: int, dilation: int, ceil_mode: bool) -> int:
    """PyTorch's output size (``ceil_mode``: rounded up while the last window starts inside the input or its left padding)."""
    span = size + 2 * pad - dilation * (kernel - 1) - 1
    out = (math.ceil(span / stride) if ceil_mode else span // stride) + 1
    return out - 1 if ceil_mode and (out - 1) * stride >= size + pad else out


def _geometry(shape, kernel, stride, padding=(0, 0), dilation=(1, 1), ceil_mode=False) -> PoolGeometry:
    output = tuple(_output(*args, ceil_mode) for args in zip(shape[-2:], kernel, stride, padding, dilation))
    return PoolGeometry(kernel=kernel, stride=stride, padding=padding, dilation=dilation, output=output)


def oracle(x: np.ndarray, geometry: PoolGeometry) -> tuple[np.ndarray, np.ndarray]:
    """Each window's max and place, visiting its positions inside the input row by row: the first
    one, then any larger value or any NaN, takes over (PyTorch's CPU rule)."""
    height, width = x.shape[-2:]
    planes = x.reshape(-1, height, width)
    out_h, out_w = geometry.output
    values = np.empty((planes.shape[0], out_h, out_w), x.dtype)
    places = np.empty((planes.shape[0], out_h, out_w), np.int64)
    (k_h, k_w), (s_h, s_w), (p_h, p_w), (d_h, d_w) = geometry.kernel, geometry.stride, geometry.padding, geometry.dilation
    for p, plane in enumerate(planes):
        for i in range(out_h):
            for j in range(out_w):
                inside = [(r, c) for r in range(i * s_h - p_h, i * s_h - p_h + d_h * k_h, d_h)
                          for c in range(j * s_w - p_w, j * s_w - p_w + d_w * k_w, d_w) if 0 <= r < height and 0 <= c < width]
                best = inside[0]
                for r, c in inside[1:]:
                    if plane[r, c] > plane[best] or np.isnan(plane[r, c]):
                        best = (r, c)
                values[p, i, j], places[p, i, j] = plane[best], best[0] * width + best[1]
    lead = x.shape[:-2]
    return values.reshape(*lead, out_h, out_w), places.reshape(*lead, out_h, out_w)


CASES = [
    ((2, 3, 8, 8), dict(kernel=(2, 2), stride=(2, 2))),
    ((2, 3, 9, 7), dict(kernel=(3, 3), stride=(2, 2), padding=(1, 1))),
    ((1, 2, 9, 7), dict(kernel=(3, 2), stride=(2, 1), padding=(1, 1), dilation=(2, 1), ceil_mode=True)),
    ((3, 10, 11), dict(kernel=(4, 3), stride=(3, 3), padding=(2, 1), ceil_mode=True)),  # unbatched
    ((2, 2, 6, 6), dict(kernel=(2, 3), stride=(1, 1), dilation=(2, 2))),
    # 2 x 2 windows all inside the plane take an unrolled loop: odd sizes, overlapping, dilated
    ((2, 3, 9, 7), dict(kernel=(2, 2), stride=(2, 2))),
    ((2, 2, 7, 6), dict(kernel=(2, 2), stride=(1, 1))),
    ((1, 2, 8, 9), dict(kernel=(2, 2), stride=(2, 3), dilation=(2, 2))),
    ((2, 2, 9, 7), dict(kernel=(2, 2), stride=(2, 2), ceil_mode=True)),  # the last window sticks out: checked
]


@pytest.mark.parametrize("dtype", [np.float64, np.float32], ids=["float64", "float32"])
@pytest.mark.parametrize("shape,options", CASES, ids=[f"{s}-{o}" for s, o in CASES])
def test_values_and_places_match_the_oracle(shape, options, dtype) -> None:
    geometry = _geometry(shape, **options)
    x = np.random.default_rng(0).standard_normal(shape).astype(dtype)
    x.reshape(-1)[::7] = 0.5  # ties: the first place wins
    values, places = max_pool2d_op(minitorch.tensor(x), geometry)
    expected_values, expected_places = oracle(x, geometry)
    np.testing.assert_array_equal(values.numpy(), expected_values)
    np.testing.assert_array_equal(places.numpy(), expected_places)


def test_a_channels_last_input_is_read_as_its_values() -> None:
    x = np.random.default_rng(1).standard_normal((2, 5, 6, 3))
    view = minitorch.tensor(x).permute(0, 3, 1, 2)
    assert not view.is_contiguous()
    geometry = _geometry(view.shape, (2, 2), (2, 2))
    values, places = max_pool2d_op(view, geometry)
    expected = oracle(np.ascontiguousarray(x.transpose(0, 3, 1, 2)), geometry)
    np.testing.assert_array_equal(values.numpy(), expected[0])
    np.testing.assert_array_equal(places.numpy(), expected[1])


def test_nan_and_minus_infinity_windows_follow_pytorch() -> None:
    """Worked by hand: a NaN takes over from anything, a later NaN from an earlier one; a window
    of ``-inf`` alone (padding around) points at its first position inside the input."""
    nan, inf = math.nan, math.inf
    x = minitorch.tensor([[[[1.0, nan, 3.0, nan], [nan, 2.0, -inf, 5.0]]]])
    values, places = max_pool2d_op(x, _geometry(x.shape, (2, 2), (2, 2)))
    assert np.isnan(values.numpy()).all()
    assert places.tolist() == [[[[4, 3]]]]
    x = minitorch.full((1, 1, 3, 3), -inf, dtype=minitorch.float64)
    values, places = max_pool2d_op(x, _geometry(x.shape, (2, 2), (2, 2), padding=(1, 1)))
    assert (values.numpy() == -inf).all()
    assert places.tolist() == [[[[0, 1], [3, 4]]]]


@pytest.mark.parametrize("stride", [(2, 2), (1, 1)], ids=str)
def test_nans_anywhere_in_2x2_windows_follow_the_oracle(stride: tuple[int, int]) -> None:
    """The unrolled 2 x 2 loop chooses without a branch: NaN in every position of a window, one or several."""
    x = np.random.default_rng(5).standard_normal((3, 2, 10, 12)).astype(np.float32)
    x[np.random.default_rng(6).random(x.shape) < 0.3] = np.nan
    geometry = _geometry(x.shape, (2, 2), stride)
    values, places = max_pool2d_op(minitorch.tensor(x), geometry)
    expected_values, expected_places = oracle(x, geometry)
    np.testing.assert_array_equal(values.numpy(), expected_values)
    np.testing.assert_array_equal(places.numpy(), expected_places)


def test_the_gradient_goes_to_each_window_s_place_and_overlaps_add() -> None:
    x = minitorch.tensor([[[[1.0, 5.0, 2.0], [0.0, 3.0, 4.0]]]], requires_grad=True)
    values, _ = MaxPool2d.apply(x, _geometry(x.shape, (2, 2), (1, 1)))  # windows [1 5; 0 3] and [5 2; 3 4]
    assert values.tolist() == [[[[5.0, 5.0]]]]
    values.backward(minitorch.tensor([[[[10.0, 100.0]]]]))
    assert x.grad.tolist() == [[[[0.0, 110.0, 0.0], [0.0, 0.0, 0.0]]]]
    assert values.grad_fn.name() == "MaxPool2DWithIndicesBackward0"


def test_gradients_of_first_and_second_order_match_central_differences() -> None:
    rng = np.random.default_rng(2)
    geometry = _geometry((2, 2, 5, 6), (3, 2), (2, 2), padding=(1, 1), ceil_mode=True)
    x = minitorch.tensor(rng.permutation(120).reshape(2, 2, 5, 6) / 7.0, requires_grad=True)  # no ties
    gradcheck(lambda x: MaxPool2d.apply(x, geometry)[0], x)
    g = minitorch.tensor(rng.standard_normal((2, 2, *geometry.output)), requires_grad=True)
    probe = minitorch.tensor(rng.standard_normal((2, 2, 5, 6)))

    def first_order(g: minitorch.Tensor) -> minitorch.Tensor:
        with minitorch.enable_grad():
            leaf = x.detach().requires_grad_()
            (grad_x,) = minitorch.autograd.grad(MaxPool2d.apply(leaf, geometry)[0], (leaf,), g, create_graph=True)
            return (grad_x * probe).sum()

    gradcheck(first_order, g)


def test_only_backends_with_the_kernel_and_float32_or_float64_take_the_direct_path() -> None:
    assert isinstance(backend_for("cpu"), PoolKernels)
    x = minitorch.ones(1, 1, 4, 4)
    assert has_direct_max_pool(x) and has_direct_max_pool(x.double())
    assert not has_direct_max_pool(x.half()) and not has_direct_max_pool(x.long())
    with minitorch.backends.use("simple"):
        assert not has_direct_max_pool(x)


@pytest.mark.parametrize("geometry,message", [
    (PoolGeometry((2, 2), (2, 2), (0, 0), (1, 1), (3, 2)), "outside the input"),  # one window too many
    (PoolGeometry((2, 2), (2, 2), (3, 0), (1, 1), (2, 2)), "outside the input"),  # a window in the padding alone
    (PoolGeometry((2, 0), (2, 2), (0, 0), (1, 1), (2, 2)), "outside the input"),
    (PoolGeometry((2, 2), (0, 2), (0, 0), (1, 1), (2, 2)), "outside the input"),
    ((2, 2), "PoolGeometry"),
], ids=["too-many-windows", "padding-only-window", "empty-kernel", "zero-stride", "not-a-geometry"])
def test_geometries_the_kernel_cannot_take_raise_before_it_runs(geometry, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        max_pool2d_op(minitorch.ones(1, 1, 4, 4), geometry)


def test_integer_input_is_refused() -> None:
    with pytest.raises(ValueError, match="float32 or float64"):
        max_pool2d_op(minitorch.ones(1, 1, 4, 4).long(), _geometry((1, 1, 4, 4), (2, 2), (2, 2)))


def test_a_backend_without_the_kernel_is_refused_by_name() -> None:
    with minitorch.backends.use("simple"):
        with pytest.raises(ValueError, match="simple backend has no direct max-pooling"):
            max_pool2d_op(minitorch.ones(1, 1, 4, 4), _geometry((1, 1, 4, 4), (2, 2), (2, 2)))


# ---- the backward kernel (``max_pool2d_backward_op``) ----


def _scatter_oracle(grad: np.ndarray, places: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """Each window's gradient added at its place in its plane, one window after the other."""
    planes = np.zeros((int(np.prod(shape[:-2])), shape[-2] * shape[-1]), grad.dtype)
    for plane, cells, where in zip(planes, grad.reshape(len(planes), -1), places.reshape(len(planes), -1)):
        for value, place in zip(cells, where):
            plane[place] += value
    return planes.reshape(shape)


@pytest.mark.parametrize("shape, kernel, stride", [
    ((2, 3, 6, 7), (3, 3), (2, 1)),  # overlapping windows: places shared, their gradients add up
    ((64, 6, 24, 24), (2, 2), (2, 2)),  # LeNet's first pooling: enough planes for every thread
    ((5, 4), (2, 3), (1, 1)),  # one plane, no batch dimension
], ids=str)
@pytest.mark.parametrize("dtype", [np.float32, np.float64], ids=lambda d: d.__name__)
def test_backward_kernel_adds_each_window_s_gradient_at_its_place(shape, kernel, stride, dtype) -> None:
    rng = np.random.default_rng(4)
    geometry = _geometry(shape, kernel, stride)
    x = minitorch.tensor(rng.standard_normal(shape).astype(dtype), requires_grad=True)
    values, places = MaxPool2d.apply(x, geometry)
    grad = rng.standard_normal(values.shape).astype(dtype)
    values.backward(minitorch.tensor(grad))
    np.testing.assert_array_equal(x.grad.numpy(), _scatter_oracle(grad, places.numpy(), shape))


def test_backward_kernel_takes_a_gradient_of_any_layout() -> None:
    """``values.sum().backward()`` sends a gradient expanded from one number (stride 0)."""
    x = minitorch.tensor(np.arange(32.0).reshape(2, 1, 4, 4) % 7, requires_grad=True)
    values, places = MaxPool2d.apply(x, _geometry(x.shape, (2, 2), (2, 2)))
    values.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), _scatter_oracle(np.ones(values.shape), places.numpy(), x.shape))


def test_backward_kernel_refuses_places_outside_the_plane() -> None:
    grad, places = minitorch.ones(1, 2, 1, 2), minitorch.tensor([[[[0, 3]], [[15, 16]]]])
    with pytest.raises(IndexError, match="1 of the saved indices lie outside their input plane of 4 x 4"):
        max_pool2d_backward_op(grad, places, (1, 2, 4, 4))
    with pytest.raises(IndexError, match="outside their input plane"):
        max_pool2d_backward_op(grad, minitorch.tensor([[[[-1, 3]], [[0, 1]]]]), (1, 2, 4, 4))


def test_indices_altered_behind_the_version_counter_are_refused_in_a_child_process() -> None:
    """The places of ``return_indices=True`` rewritten through NumPy after the forward: backward
    must raise, not write outside the gradient (in a child, so a stray write cannot take the run)."""
    script = textwrap.dedent("""
        import numpy as np
        import minitorch
        x = minitorch.randn(1, 1, 4, 4, requires_grad=True)
        values, places = minitorch.nn.functional.max_pool2d(x, 2, return_indices=True)
        np.asarray(places.numpy())[0, 0, 0, 0] = 10**9
        try:
            values.sum().backward()
        except IndexError as error:
            print("refused:", error)
    """)
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert "refused: max_pool2d backward: 1 of the saved indices lie outside their input plane of 4 x 4" in result.stdout


@pytest.mark.parametrize("grad, places, shape, named", [
    (minitorch.ones(1, 1, 2, 2), minitorch.zeros(1, 1, 2, 3, dtype=minitorch.int64), (1, 1, 4, 4), "[1, 1, 2, 3]"),
    (minitorch.ones(1, 1, 2, 2), minitorch.zeros(1, 1, 2, 2, dtype=minitorch.int32), (1, 1, 4, 4), "int32"),
    (minitorch.ones(1, 1, 2, 2, dtype=minitorch.int64), minitorch.zeros(1, 1, 2, 2, dtype=minitorch.int64),
     (1, 1, 4, 4), "int64"),
    (minitorch.ones(1, 1, 2, 2), minitorch.zeros(1, 1, 2, 2, dtype=minitorch.int64), (2, 1, 4, 4), "[2, 1, 4, 4]"),
], ids=["shapes", "index-dtype", "integer-gradient", "batch"])
def test_backward_op_refuses_operands_of_other_shapes_or_dtypes(grad, places, shape, named: str) -> None:
    with pytest.raises(ValueError, match="max_pool2d backward kernel") as error:
        max_pool2d_backward_op(grad, places, shape)
    assert named in str(error.value)
