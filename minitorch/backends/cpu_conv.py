r"""Direct 2-D convolution on the CPU: the :class:`~.base.ConvKernels` of the cpu backend.

The course builds a convolution from a window view and one matrix product (task 5.3): it
copies the input :math:`K_h K_w` times over into columns, multiplies, and in the backward
adds the columns' gradient back onto the input. Here three kernels compute the same sums
without the columns.

**One long run per kernel position.** The input is padded once, into a contiguous buffer
of planes :math:`H_p \times W_p`. For stride 1 the output is computed on a grid as wide as
the padded input: output ``(i, j)`` lands at ``i * W_p + j``. Then for a kernel position
``(u, v)`` the input it reads sits at that place plus one fixed offset
``u * d_h * W_p + v * d_w``, so the whole plane's update is one contiguous run,

.. math:: \mathrm{acc}[t] \mathrel{+}= w[o, c, u, v]\; x_p[c, t + u d_h W_p + v d_w], \qquad 0 \le t < (H_o - 1) W_p + W_o,

which LLVM vectorises, instead of :math:`H_o` short rows of :math:`W_o`. The last
:math:`W_p - W_o` places of each wide row are never copied out (they hold sums across the
row's end). A strided convolution runs row by row instead, and reads every ``s_w``-th value.

The gradients are the same runs read the other way:

- the input's, :math:`\partial x_p[c, t + \mathrm{off}] \mathrel{+}= w\, g[o, t]`, one padded plane per
  ``(n, c)`` (so threads never write the same element), then cropped;
- the weight's, :math:`\partial w[o, c, u, v] = \sum_n g[n, o, \cdot] \cdot x_p[n, c, \cdot + \mathrm{off}]`, a
  dot product per sample, in float64 across samples.

Both read the output gradient on the wide grid, with zeros in the places that are not
outputs, so that those places add nothing.

Every kernel takes flat contiguous arrays and the geometry as one int64 array (see
:func:`_layout`); the Python functions at the bottom make them. The kernels take any geometry,
but :func:`minitorch.nn.functional.conv2d` calls them only where :func:`direct_pays`: short
runs with many channels, and strided convolutions, go faster as a matrix product.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit, prange

from ..tensor_data import TensorData
from . import kernel_cache
from .base import ConvGeometry
from .cpu_kernels import KERNEL_OPTIONS, REDUCE_OPTIONS, prange_only
from .cpu_thread_governor import governed

# cached under a digest of this file's source and of what it compiles in (see :mod:`.kernel_cache`)
kernel_cache.register(__file__)

#: a multiply and the add of its product may become one fused multiply-add (one rounding), as in
#: PyTorch's convolutions: the kernels are made of them, and compiled without this each was two
#: instructions (the forward kernel on AVX-512: 167 vmulps + 167 vaddps, now 101 vfmadd*ps)
CONV_OPTIONS = {**KERNEL_OPTIONS, "fastmath": {"contract"}}
#: the weight gradient's options: its sums over the samples may also be reordered (summed in SIMD lanes)
CONV_REDUCE_OPTIONS = {**REDUCE_OPTIONS, "fastmath": {"reassoc", "contract"}}

# positions in the int64 geometry array the kernels take
(BATCH, CHANNELS, OUT_CHANNELS, GROUPS, KERNEL_H, KERNEL_W, STRIDE_H, STRIDE_W, DILATION_H, DILATION_W,
 PADDED_H, PADDED_W, OUT_H, OUT_W, PITCH, ROWS, RUN) = range(17)


#: the most taps (or output channels) one pass over a run takes at once: each element of the
#: run it writes is then loaded and stored once per five multiply-adds, not once per one. Five
#: covers a row of the 3x3 and 5x5 kernels in one pass.
BLOCK = 5


#: output channels the forward computes together when a group has a multiple of them: each run
#: of the input loaded then serves four accumulators (LeNet's second convolution, 6 -> 16
#: channels on 10 x 10 outputs: 0.75 -> 0.53 ms)
OUT_BLOCK = 4


@njit(inline="always", **KERNEL_OPTIONS)
def block_size(total: int) -> int:
    """The size of each pass when ``total`` taps are taken ``BLOCK`` at most at a time in as few, even passes
    (1 when there are none: a loop's step)."""
    passes = max(1, (total + BLOCK - 1) // BLOCK)
    return max(1, (total + passes - 1) // passes)


@njit(inline="always", **KERNEL_OPTIONS)
def block_runs(a: np.ndarray, start: int, spacing: int, available: int, count: int) -> tuple:
    """``a[start + t * spacing :][:count]`` for ``t < BLOCK``; those at ``t >= available`` repeat the last one."""
    last = available - 1
    first = (start, start + min(1, last) * spacing, start + min(2, last) * spacing, start + min(3, last) * spacing,
             start + min(4, last) * spacing)
    return (a[first[0] : first[0] + count], a[first[1] : first[1] + count], a[first[2] : first[2] + count],
            a[first[3] : first[3] + count], a[first[4] : first[4] + count])


@njit(inline="always", **KERNEL_OPTIONS)
def block_values(a: np.ndarray, start: int, spacing: int, available: int) -> tuple:
    """``a[start + t * spacing]`` for ``t < BLOCK``; those at ``t >= available`` repeat the last one."""
    last = available - 1
    return (a[start], a[start + min(1, last) * spacing], a[start + min(2, last) * spacing],
            a[start + min(3, last) * spacing], a[start + min(4, last) * spacing])


# The two loops below are inlined into the kernels (inline="always"): as functions of their own
# they cost a call, the slices' set-up and the vector loop's checks for every run, about as
# much as a run of a small plane's (LeNet's 10 x 10 output: 1.56 -> 0.86 ms for its forward).
# Inlined, they compile with their kernel's options.


@njit(inline="always", **KERNEL_OPTIONS)
def multiply_add_runs(target: np.ndarray, sources: tuple, weights: tuple, taps: int, count: int) -> None:
    """``target[j] += sum(weights[t] * sources[t][j] for t < taps)`` for ``j < count`` (``taps`` from 1 to 5)."""
    s0, s1, s2, s3, s4 = sources
    w0, w1, w2, w3, w4 = weights
    if taps == 5:
        for j in range(count):
            target[j] += ((w0 * s0[j] + w1 * s1[j]) + (w2 * s2[j] + w3 * s3[j])) + w4 * s4[j]
    elif taps == 4:
        for j in range(count):
            target[j] += (w0 * s0[j] + w1 * s1[j]) + (w2 * s2[j] + w3 * s3[j])
    elif taps == 3:
        for j in range(count):
            target[j] += (w0 * s0[j] + w1 * s1[j]) + w2 * s2[j]
    elif taps == 2:
        for j in range(count):
            target[j] += w0 * s0[j] + w1 * s1[j]
    else:
        for j in range(count):
            target[j] += w0 * s0[j]


@njit(inline="always", **KERNEL_OPTIONS)
def multiply_add_runs4(t0: np.ndarray, t1: np.ndarray, t2: np.ndarray, t3: np.ndarray, sources: tuple,
                       w0: tuple, w1: tuple, w2: tuple, w3: tuple, taps: int, count: int) -> None:
    """:func:`multiply_add_runs` into four targets ``t_k`` with their own weights ``w_k``, each source
    element loaded once for all four (the same sums, term for term)."""
    s0, s1, s2, s3, s4 = sources
    a0, a1, a2, a3, a4 = w0
    b0, b1, b2, b3, b4 = w1
    c0, c1, c2, c3, c4 = w2
    d0, d1, d2, d3, d4 = w3
    if taps == 5:
        for j in range(count):
            x0, x1, x2, x3, x4 = s0[j], s1[j], s2[j], s3[j], s4[j]
            t0[j] += ((a0 * x0 + a1 * x1) + (a2 * x2 + a3 * x3)) + a4 * x4
            t1[j] += ((b0 * x0 + b1 * x1) + (b2 * x2 + b3 * x3)) + b4 * x4
            t2[j] += ((c0 * x0 + c1 * x1) + (c2 * x2 + c3 * x3)) + c4 * x4
            t3[j] += ((d0 * x0 + d1 * x1) + (d2 * x2 + d3 * x3)) + d4 * x4
    elif taps == 4:
        for j in range(count):
            x0, x1, x2, x3 = s0[j], s1[j], s2[j], s3[j]
            t0[j] += (a0 * x0 + a1 * x1) + (a2 * x2 + a3 * x3)
            t1[j] += (b0 * x0 + b1 * x1) + (b2 * x2 + b3 * x3)
            t2[j] += (c0 * x0 + c1 * x1) + (c2 * x2 + c3 * x3)
            t3[j] += (d0 * x0 + d1 * x1) + (d2 * x2 + d3 * x3)
    elif taps == 3:
        for j in range(count):
            x0, x1, x2 = s0[j], s1[j], s2[j]
            t0[j] += (a0 * x0 + a1 * x1) + a2 * x2
            t1[j] += (b0 * x0 + b1 * x1) + b2 * x2
            t2[j] += (c0 * x0 + c1 * x1) + c2 * x2
            t3[j] += (d0 * x0 + d1 * x1) + d2 * x2
    elif taps == 2:
        for j in range(count):
            x0, x1 = s0[j], s1[j]
            t0[j] += a0 * x0 + a1 * x1
            t1[j] += b0 * x0 + b1 * x1
            t2[j] += c0 * x0 + c1 * x1
            t3[j] += d0 * x0 + d1 * x1
    else:
        for j in range(count):
            x0 = s0[j]
            t0[j] += a0 * x0
            t1[j] += b0 * x0
            t2[j] += c0 * x0
            t3[j] += d0 * x0


@njit(inline="always", **KERNEL_OPTIONS)
def dot_runs(a: np.ndarray, sources: tuple, taps: int, count: int) -> tuple:
    """``sum(a[j] * sources[t][j] for j < count)`` for ``t < BLOCK`` in ``a``'s dtype; only the first
    ``taps`` are computed, the others are 0. In a kernel compiled with ``reassoc`` the sums are
    split over SIMD lanes."""
    s0, s1, s2, s3, s4 = sources
    t0 = t1 = t2 = t3 = t4 = a.dtype.type(0)
    if taps == 5:
        for j in range(count):
            t0 += a[j] * s0[j]
            t1 += a[j] * s1[j]
            t2 += a[j] * s2[j]
            t3 += a[j] * s3[j]
            t4 += a[j] * s4[j]
    elif taps == 4:
        for j in range(count):
            t0 += a[j] * s0[j]
            t1 += a[j] * s1[j]
            t2 += a[j] * s2[j]
            t3 += a[j] * s3[j]
    elif taps == 3:
        for j in range(count):
            t0 += a[j] * s0[j]
            t1 += a[j] * s1[j]
            t2 += a[j] * s2[j]
    elif taps == 2:
        for j in range(count):
            t0 += a[j] * s0[j]
            t1 += a[j] * s1[j]
    else:
        for j in range(count):
            t0 += a[j] * s0[j]
    return t0, t1, t2, t3, t4


@njit(inline="always", **KERNEL_OPTIONS)
def strided_dot_run(a: np.ndarray, b: np.ndarray, step: int) -> float:
    """``sum(a[j] * b[j * step])`` over ``a`` in ``a``'s dtype."""
    total = a.dtype.type(0)
    for j in range(a.size):
        total += a[j] * b[j * step]
    return total


@njit(inline="always", **KERNEL_OPTIONS)
def strided_multiply_add_run(target: np.ndarray, scale: float, source: np.ndarray, count: int, target_step: int,
                             source_step: int) -> None:
    """``target[j * target_step] += scale * source[j * source_step]`` for ``j < count``."""
    for j in range(count):
        target[j * target_step] += scale * source[j * source_step]


@njit(parallel=prange_only(), **CONV_OPTIONS)
def forward_kernel(out: np.ndarray, x: np.ndarray, w: np.ndarray, bias: np.ndarray, geometry: np.ndarray) -> None:
    """``out`` ``(N, O, H_o, W_o)`` from the padded ``x`` ``(N, C, H_p, W_p)``, ``w`` and ``bias`` ``(O,)``;
    ``OUT_BLOCK`` output channels per task where a group's count is a multiple of it, else one."""
    batch, channels, out_channels = geometry[BATCH], geometry[CHANNELS], geometry[OUT_CHANNELS]
    group_channels, group_outputs = channels // geometry[GROUPS], out_channels // geometry[GROUPS]
    kernel_h, kernel_w, dilation_w = geometry[KERNEL_H], geometry[KERNEL_W], geometry[DILATION_W]
    padded_w, plane = geometry[PADDED_W], geometry[PADDED_H] * geometry[PADDED_W]
    out_h, out_w, pitch, rows, run = geometry[OUT_H], geometry[OUT_W], geometry[PITCH], geometry[ROWS], geometry[RUN]
    row_step, step = geometry[STRIDE_H] * padded_w, geometry[STRIDE_W]
    span = (out_h - 1) * pitch + out_w
    tap_block = block_size(kernel_w)
    width = OUT_BLOCK if group_outputs % OUT_BLOCK == 0 else 1  # output channels per task
    next_output = group_channels * kernel_h * kernel_w  # from one output channel's weights to the next
    for task in prange(batch * out_channels // width):
        n, o = task // (out_channels // width), task % (out_channels // width) * width
        first_channel = (o // group_outputs) * group_channels
        acc = np.empty(width * span, out.dtype)  # output channel o + k at k * span
        for k in range(width):
            acc[k * span : (k + 1) * span] = bias[o + k]
        for c in range(group_channels):
            x_plane = (n * channels + first_channel + c) * plane
            for u in range(kernel_h):
                weights_at = ((o * group_channels + c) * kernel_h + u) * kernel_w
                row_start = x_plane + u * geometry[DILATION_H] * padded_w
                for r in range(rows):
                    first = row_start + r * row_step
                    if step == 1:
                        for v in range(0, kernel_w, tap_block):
                            taps = min(tap_block, kernel_w - v)
                            sources = block_runs(x, first + v * dilation_w, dilation_w, taps, run)
                            at = weights_at + v
                            if width == OUT_BLOCK:
                                multiply_add_runs4(
                                    acc[r * pitch : r * pitch + run], acc[span + r * pitch : span + r * pitch + run],
                                    acc[2 * span + r * pitch : 2 * span + r * pitch + run],
                                    acc[3 * span + r * pitch : 3 * span + r * pitch + run], sources,
                                    block_values(w, at, 1, taps), block_values(w, at + next_output, 1, taps),
                                    block_values(w, at + 2 * next_output, 1, taps),
                                    block_values(w, at + 3 * next_output, 1, taps), taps, run)
                            else:
                                multiply_add_runs(acc[r * pitch : r * pitch + run], sources,
                                                  block_values(w, at, 1, taps), taps, run)
                    else:
                        for k in range(width):
                            target = acc[k * span + r * pitch : k * span + r * pitch + run]
                            for v in range(kernel_w):
                                start = first + v * dilation_w
                                strided_multiply_add_run(target, w[weights_at + k * next_output + v],
                                                         x[start : start + (run - 1) * step + 1], run, 1, step)
        for k in range(width):
            target = (n * out_channels + o + k) * out_h * out_w
            for i in range(out_h):
                out[target + i * out_w : target + (i + 1) * out_w] = acc[k * span + i * pitch : k * span + i * pitch + out_w]


@njit(parallel=prange_only(), **CONV_OPTIONS)
def input_grad_kernel(grad_x: np.ndarray, grad: np.ndarray, w: np.ndarray, geometry: np.ndarray) -> None:
    """The padded input's gradient ``(N, C, H_p, W_p)`` from ``grad`` on the output grid of pitch ``PITCH``."""
    batch, channels, out_channels = geometry[BATCH], geometry[CHANNELS], geometry[OUT_CHANNELS]
    group_channels, group_outputs = channels // geometry[GROUPS], out_channels // geometry[GROUPS]
    kernel_h, kernel_w = geometry[KERNEL_H], geometry[KERNEL_W]
    taps_per_weight = group_channels * kernel_h * kernel_w  # from one output channel's weights to the next
    padded_w, plane = geometry[PADDED_W], geometry[PADDED_H] * geometry[PADDED_W]
    pitch, rows, run = geometry[PITCH], geometry[ROWS], geometry[RUN]
    row_step, step = geometry[STRIDE_H] * padded_w, geometry[STRIDE_W]
    span = (geometry[OUT_H] - 1) * pitch + geometry[OUT_W]
    channel_block = block_size(group_outputs)
    for task in prange(batch * channels):
        n, channel = task // channels, task % channels
        group, c = channel // group_channels, channel % group_channels
        target_plane = grad_x[task * plane : (task + 1) * plane]
        target_plane[:] = 0
        # output channels up to BLOCK at a time: one pass over each run of the input's gradient
        for o in range(group * group_outputs, (group + 1) * group_outputs, channel_block):
            block = min(channel_block, (group + 1) * group_outputs - o)
            grad_plane = (n * out_channels + o) * span
            for u in range(kernel_h):
                for v in range(kernel_w):
                    weights_at = ((o * group_channels + c) * kernel_h + u) * kernel_w + v
                    start = u * geometry[DILATION_H] * padded_w + v * geometry[DILATION_W]
                    for r in range(rows):
                        first = start + r * row_step
                        if step == 1:
                            multiply_add_runs(target_plane[first : first + run],
                                              block_runs(grad, grad_plane + r * pitch, span, block, run),
                                              block_values(w, weights_at, taps_per_weight, block), block, run)
                        else:
                            for t in range(block):
                                source = grad_plane + t * span + r * pitch
                                strided_multiply_add_run(target_plane[first : first + (run - 1) * step + 1],
                                                         w[weights_at + t * taps_per_weight],
                                                         grad[source : source + run], run, step, 1)


@njit(parallel=prange_only(), **CONV_REDUCE_OPTIONS)
def weight_grad_kernel(grad_w: np.ndarray, grad: np.ndarray, x: np.ndarray, geometry: np.ndarray) -> None:
    """The weight's gradient ``(O, C/groups, K_h, K_w)`` from ``grad`` on the output grid and the padded ``x``.

    Compiled with ``reassoc``: everything here is a sum.
    """
    batch, channels, out_channels = geometry[BATCH], geometry[CHANNELS], geometry[OUT_CHANNELS]
    group_channels, group_outputs = channels // geometry[GROUPS], out_channels // geometry[GROUPS]
    kernel_h, kernel_w, dilation_w = geometry[KERNEL_H], geometry[KERNEL_W], geometry[DILATION_W]
    padded_w, plane = geometry[PADDED_W], geometry[PADDED_H] * geometry[PADDED_W]
    pitch, rows, run = geometry[PITCH], geometry[ROWS], geometry[RUN]
    row_step, step = geometry[STRIDE_H] * padded_w, geometry[STRIDE_W]
    span = (geometry[OUT_H] - 1) * pitch + geometry[OUT_W]
    taps_per_channel = kernel_h * kernel_w
    tap_block = block_size(kernel_w)
    for task in prange(out_channels * group_channels):
        o, c = task // group_channels, task % group_channels
        channel = (o // group_outputs) * group_channels + c
        totals = np.zeros(taps_per_channel)  # float64 across samples and rows
        # sample by sample: its gradient plane and input plane stay in cache for every tap
        for n in range(batch):
            grad_plane = (n * out_channels + o) * span
            x_plane = (n * channels + channel) * plane
            for u in range(kernel_h):
                row_start = x_plane + u * geometry[DILATION_H] * padded_w
                for r in range(rows):
                    first, source = row_start + r * row_step, grad[grad_plane + r * pitch : grad_plane + r * pitch + run]
                    if step == 1:
                        for v in range(0, kernel_w, tap_block):
                            taps = min(tap_block, kernel_w - v)
                            sums = dot_runs(source, block_runs(x, first + v * dilation_w, dilation_w, taps, run), taps, run)
                            for t in range(taps):
                                totals[u * kernel_w + v + t] += sums[t]
                    else:
                        for v in range(kernel_w):
                            start = first + v * dilation_w
                            totals[u * kernel_w + v] += strided_dot_run(source, x[start : start + (run - 1) * step + 1], step)
        grad_w[task * taps_per_channel : (task + 1) * taps_per_channel] = totals


@njit(parallel=prange_only(), **KERNEL_OPTIONS)
def widen_kernel(wide: np.ndarray, grad: np.ndarray, pitch: int) -> None:
    """Each ``(H_o, W_o)`` plane of the 4-d ``grad`` (any strides) onto rows ``pitch`` apart, zeros between them."""
    batch, out_channels, out_h, out_w = grad.shape
    span = (out_h - 1) * pitch + out_w
    for p in prange(batch * out_channels):
        n, o = p // out_channels, p % out_channels
        target = wide[p * span : (p + 1) * span]
        for i in range(out_h):
            row = target[i * pitch : i * pitch + min(pitch, span - i * pitch)]
            for j in range(out_w):
                row[j] = grad[n, o, i, j]
            row[out_w:] = 0


# ---- the backend's methods: where the kernels pay, and the three computations ----


def _layout(x_shape: tuple[int, ...], w_shape: tuple[int, ...], geometry: ConvGeometry) -> np.ndarray:
    """The geometry array the kernels read (see the names at the top of this file).

    ``PITCH`` is the distance between output rows in the kernels' accumulators and output
    gradients; ``ROWS`` runs of ``RUN`` elements cover a plane: one run as wide as the
    padded plane for stride 1, else one per output row.
    """
    batch, channels, height, width = x_shape
    out_channels, _, kernel_h, kernel_w = w_shape
    (top, bottom), (left, right) = geometry.padding
    out_h, out_w = geometry.output_size(height, width, kernel_h, kernel_w)
    padded_w = width + left + right
    if geometry.stride == (1, 1):
        pitch, rows, run = padded_w, 1, (out_h - 1) * padded_w + out_w
    else:
        pitch, rows, run = out_w, out_h, out_w
    return np.array([
        batch, channels, out_channels, geometry.groups, kernel_h, kernel_w, *geometry.stride, *geometry.dilation,
        height + top + bottom, padded_w, out_h, out_w, pitch, rows, run,
    ], np.int64)


#: below this many elements per run, the runs' set-up outweighs their arithmetic (see :func:`direct_pays`)
SHORT_RUN = 128
#: up to this many input channels per group, the columns' matrix product has too few terms to win anyway
FEW_CHANNELS = 32


def direct_pays(x_shape: tuple[int, ...], w_shape: tuple[int, ...], geometry: ConvGeometry) -> bool:
    """Whether these kernels beat the course's window view and matrix product for these shapes.

    Measured on a 2-core machine, forward and backward, float32: for stride 1 they win by 1.2x
    to 17x (LeNet's layers, 3 to 64 channels on 16 x 16 to 32 x 32 planes, depthwise and 1 x 1
    convolutions), but lose where a run is short *and* a group has many channels: 64 channels
    on 8 x 8 planes, 3 x 3 (runs of 78 elements): 13.7 against 7.6 ms; 1 x 1: 3.1 against
    1.2 ms. A strided convolution reads every ``s``-th input, which does not vectorise: 2.7x
    slower (32 x 16 x 32 x 32, 32 filters 3 x 3, stride 2), so the matrix product takes it.
    """
    if geometry.stride != (1, 1):
        return False
    layout = _layout(x_shape, w_shape, geometry)
    return bool(layout[RUN] >= SHORT_RUN or w_shape[1] <= FEW_CHANNELS)


#: from this many elements per run the kernels beat a transposed convolution's fold whatever its channels
LONG_RUN = 768
#: up to this many output channels per group, a transposed convolution's fold loses to the kernels even on short runs
FEW_OUTPUTS = 8


def transposed_direct_pays(x_shape: tuple[int, ...], w_shape: tuple[int, ...], geometry: ConvGeometry) -> bool:
    """:func:`direct_pays` for a transposed convolution: these kernels against its matrix product and
    fold. ``x_shape`` is its output (the input of the convolution whose input gradient it is), ``w_shape``
    its weight ``(C, O/groups, KH, KW)``: ``C`` input channels, ``O`` output channels.

    The fold's product sums over ``C/groups`` terms, and its columns grow with ``O`` alone, so it
    gains on the kernels as the input channels grow. Measured on a 2-core machine, forward and
    backward, float32, batch 16, 3 x 3 kernels, padding 1 (kernels' time over the fold's): with
    16 input channels 0.5x to 0.8x from 16 x 16 planes (runs of 286) on; with 64 input channels
    1.2x to 2.5x on 8 x 8 planes, 1.05x to 1.3x on 16 x 16, 0.8x to 0.9x on 28 x 28 and 32 x 32
    (runs of 838 and 1086); on 8 x 8 planes with 3 output channels 0.7x for 16 input channels,
    0.9x for 32, 1.2x for 64. Strided, they lose: 4.8x (16 to 3 channels on 16 x 16 planes,
    4 x 4 kernel, stride 2), 26x (64 to 32 channels on 8 x 8 planes, the same kernel).
    """
    if geometry.stride != (1, 1):
        return False
    run = _layout(x_shape, w_shape, geometry)[RUN]
    inputs, outputs = w_shape[0] // geometry.groups, w_shape[1]
    return bool(run >= LONG_RUN or (inputs <= FEW_CHANNELS and (run >= SHORT_RUN or outputs <= FEW_OUTPUTS)))


def _padded(x: TensorData, geometry: ConvGeometry) -> np.ndarray:
    """``x`` as a flat contiguous ``(N, C, H_p, W_p)`` buffer with the zeros of ``geometry.padding`` around each plane."""
    (top, bottom), (left, right) = geometry.padding
    if not (top or bottom or left or right):
        return x.contiguous_buffer()
    batch, channels, height, width = x.shape
    padded = np.zeros((batch, channels, height + top + bottom, width + left + right), x.storage.dtype)
    padded[:, :, top : top + height, left : left + width] = x.numpy_view()
    return padded.reshape(-1)


def _on_grid(grad: TensorData, layout: np.ndarray) -> np.ndarray:
    """The output gradient as the kernels read it: contiguous rows ``PITCH`` apart, zeros between them."""
    pitch, out_h, out_w = int(layout[PITCH]), int(layout[OUT_H]), int(layout[OUT_W])
    if pitch == out_w and grad.is_contiguous():
        return grad.buffer
    planes = int(layout[BATCH] * layout[OUT_CHANNELS])
    wide = np.empty(planes * ((out_h - 1) * pitch + out_w), grad.storage.dtype)
    governed(grad.size, widen_kernel, wide, grad.numpy_view(), pitch)
    return wide


def _taps(w: TensorData) -> int:
    """Multiply-adds per output element: a filter's size (input channels per group x kernel height x width)."""
    return math.prod(w.shape[1:])


def conv2d(x: TensorData, w: TensorData, bias: TensorData | None, geometry: ConvGeometry, out: TensorData) -> None:
    """:meth:`~.base.ConvKernels.conv2d` (``out`` fresh and contiguous)."""
    layout = _layout(x.shape, w.shape, geometry)
    bias_values = np.zeros(w.shape[0], out.storage.dtype) if bias is None else bias.contiguous_buffer()
    governed(out.size * _taps(w), forward_kernel, out.buffer, _padded(x, geometry), w.contiguous_buffer(),
             bias_values, layout)


def conv2d_input_grad(grad: TensorData, w: TensorData, geometry: ConvGeometry, out: TensorData) -> None:
    """:meth:`~.base.ConvKernels.conv2d_input_grad` into the fresh contiguous ``out`` (``x``'s shape)."""
    layout = _layout(out.shape, w.shape, geometry)
    (top, bottom), (left, right) = geometry.padding
    batch, channels, height, width = out.shape
    work = grad.size * _taps(w)
    if not (top or bottom or left or right):
        governed(work, input_grad_kernel, out.buffer, _on_grid(grad, layout), w.contiguous_buffer(), layout)
        return
    padded = np.empty((batch, channels, int(layout[PADDED_H]), int(layout[PADDED_W])), out.storage.dtype)
    governed(work, input_grad_kernel, padded.reshape(-1), _on_grid(grad, layout), w.contiguous_buffer(), layout)
    out.numpy_view()[...] = padded[:, :, top : top + height, left : left + width]


def conv2d_weight_grad(grad: TensorData, x: TensorData, geometry: ConvGeometry, out: TensorData) -> None:
    """:meth:`~.base.ConvKernels.conv2d_weight_grad` into the fresh contiguous ``out`` (``w``'s shape)."""
    layout = _layout(x.shape, out.shape, geometry)
    governed(grad.size * _taps(out), weight_grad_kernel, out.buffer, _on_grid(grad, layout),
             _padded(x, geometry), layout)
