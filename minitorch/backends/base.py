"""The one interface every backend implements.

A backend computes on :class:`~minitorch.tensor_data.TensorData` and knows nothing of
autograd. Callers allocate ``out`` (its shape and dtype are already decided) and pass
operands whose dtype already is the computation dtype; the backend only fills ``out``.
Any operand may be a non-contiguous view; ``out`` may be a view too (in-place ops).

Op names are shared by all backends: :mod:`.opcodes` holds the one table of names, op codes
and scalar bodies, which ``simple`` runs in Python, ``cpu`` compiles with Numba and ``cuda``
compiles as device functions.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Optional, Protocol, Sequence, runtime_checkable

import numpy as np

from ..tensor_data import Shape, TensorData
from .. import dtypes
from . import opcodes

#: the op names every backend takes, from the one table in :mod:`.opcodes`
UNARY_OPS = opcodes.UNARY
BINARY_OPS = opcodes.BINARY
REDUCE_OPS = opcodes.REDUCE
ARG_REDUCE_OPS = opcodes.ARG_REDUCE


class Backend(Protocol):
    """What a device needs to run every tensor operation."""

    name: str

    def empty(self, size: int, dtype: dtypes.dtype) -> np.ndarray:
        """Fresh, uninitialised 1-D storage of ``size`` elements."""

    def map(self, op: str, a: TensorData, out: TensorData) -> None:
        """``out[i] = op(a[i])``; ``a`` broadcasts to ``out.shape``."""

    def zip(self, op: str, a: TensorData, b: TensorData, out: TensorData) -> None:
        """``out[i] = op(a[i], b[i])``; ``a`` and ``b`` broadcast to ``out.shape``."""

    def reduce(self, op: str, a: TensorData, dim: int, out: TensorData) -> None:
        """Reduce ``a`` along ``dim`` into ``out`` (``a.shape`` with ``shape[dim] = 1``)."""

    def arg_reduce(self, op: str, a: TensorData, dim: int, out: TensorData) -> None:
        """Like :meth:`reduce`, writing int64 positions along ``dim`` of the extreme values."""

    def matmul(self, a: TensorData, b: TensorData, out: TensorData) -> None:
        """Batched matrix product.

        ``a`` is ``(*batch_a, n, k)``, ``b`` is ``(*batch_b, k, m)`` and ``out`` is
        ``(*batch, n, m)``, all three of the same rank; the batch dimensions of ``a`` and
        ``b`` broadcast to ``batch``.
        """

    # ---- the indexing primitives: overlapping views, gather and scatter (step 5) ----

    def accumulate(self, src: TensorData, out: TensorData) -> None:
        """``out[i] += src[i]`` for every index ``i`` of ``out.shape`` (``src`` broadcasts to it).

        ``out`` may be a view whose distinct indices share storage elements (the sliding
        windows of a convolution overlap): every contribution must land, as if the indices
        were visited one after another. A backend may run in parallel only over parts of
        ``out`` that provably touch disjoint storage. This is the backward of a window view.
        """

    def gather(self, a: TensorData, dim: int, index: TensorData, out: TensorData) -> None:
        """``out[i] = a[i with i[dim] replaced by index[i]]`` for every index ``i`` of ``out.shape``.

        ``index`` is int64 with ``out``'s shape (any strides, stride 0 included); ``a`` has the
        same rank (at least 1) and ``index.shape[d] <= a.shape[d]`` for ``d != dim``; every
        index value lies in ``[0, a.shape[dim])``. The caller
        (:func:`~minitorch.dispatch.gather_op`) has checked all of it: a backend need not.
        """

    def scatter_add(self, src: TensorData, dim: int, index: TensorData, out: TensorData) -> None:
        """``out[i with i[dim] replaced by index[i]] += src[i]`` for every index ``i`` of ``index.shape``.

        The reverse of :meth:`gather` (its backward); targets that repeat add up, so no two
        updates of one element may race. ``index`` and ``out`` are as for :meth:`gather`;
        ``src`` has their rank and ``index.shape[d] <= src.shape[d]`` for every ``d`` (it may
        be larger: only the part ``index`` covers is read). Checked by the caller
        (:func:`~minitorch.dispatch.scatter_add_op`).
        """

    # ---- fused ops: one call for a formula the primitives above also compute ----

    def log_softmax(self, a: TensorData, out: TensorData) -> None:
        r"""``out = a - m - log(sum(exp(a - m)))`` along the rows of the 2-D floating ``a``, ``m`` each row's max.

        :math:`\log \mathrm{softmax}`, the first half of cross-entropy. ``out`` has ``a``'s
        shape and dtype, and shares no memory with it. :func:`log_softmax_by_primitives` computes it from the primitives;
        a backend may run it in one pass over each row instead (the CPU's kernel).
        """


@dataclass(frozen=True)
class ConvGeometry:
    """How a 2-D convolution's windows sit on its input, one pair per spatial dimension (height, width).

    ``padding`` is ``((top, bottom), (left, right))`` zeros; ``groups`` splits the input and
    output channels into that many independent convolutions.
    """

    stride: tuple[int, int]
    padding: tuple[tuple[int, int], tuple[int, int]]
    dilation: tuple[int, int]
    groups: int

    def output_size(self, height: int, width: int, kernel_height: int, kernel_width: int) -> tuple[int, int]:
        r"""The number of windows along each dimension: :math:`\lfloor (n + p - d(k - 1) - 1)/s \rfloor + 1`."""
        sizes = []
        for size, (before, after), k, step, dilation in zip(
            (height, width), self.padding, (kernel_height, kernel_width), self.stride, self.dilation
        ):
            sizes.append((size + before + after - dilation * (k - 1) - 1) // step + 1)
        return sizes[0], sizes[1]


@runtime_checkable
class ConvKernels(Protocol):
    r"""The direct 2-D convolution a backend may offer besides :class:`Backend`'s set (the CPU does).

    .. math:: y[n, o, i, j] = b_o + \sum_{c, u, v} w[o, c, u, v]\, x[n, g C_g + c, i s_h + u d_h - p_t, j s_w + v d_w - p_l]

    where :math:`C_g = C/\text{groups}` and :math:`g = \lfloor o / (O/\text{groups}) \rfloor` is the group of
    output channel ``o``: it sees the input channels of its own group only. Positions outside the input
    read zero. The two gradients are the adjoints of this map, one per argument. Where a
    backend does not have them, a convolution is a window view and one matrix product.

    Shapes: ``x`` ``(N, C, H, W)``, ``w`` ``(O, C/groups, KH, KW)``, ``bias`` ``(O,)`` or
    ``None``, the output ``(N, O, *geometry.output_size(H, W, KH, KW))``; every operand is
    float32 or float64 (one dtype for all), any layout; the results are fresh, contiguous and
    at least one output position exists. The caller (:func:`minitorch.conv_dispatch.conv2d_op`)
    checks all of it.
    """

    def conv2d_pays(self, x_shape: Shape, w_shape: Shape, geometry: ConvGeometry, transposed: bool = False) -> bool:
        """Whether the kernels below are expected to beat a window view and a matrix product for
        these shapes (the caller takes the latter where they are not); ``transposed``: for the
        transposed convolution whose output has ``x_shape``, against its matrix product and fold."""

    def conv2d(self, x: TensorData, w: TensorData, bias: Optional[TensorData], geometry: ConvGeometry,
               out: TensorData) -> None:
        """``out = conv2d(x, w) + bias``."""

    def conv2d_input_grad(self, grad: TensorData, w: TensorData, geometry: ConvGeometry, out: TensorData) -> None:
        r"""``out`` (``x``'s shape) :math:`= \partial \langle g, \mathrm{conv2d}(x, w)\rangle / \partial x` for ``grad`` :math:`g`."""

    def conv2d_weight_grad(self, grad: TensorData, x: TensorData, geometry: ConvGeometry, out: TensorData) -> None:
        r"""``out`` (``w``'s shape) :math:`= \partial \langle g, \mathrm{conv2d}(x, w)\rangle / \partial w` for ``grad`` :math:`g`."""


@dataclass(frozen=True)
class PoolGeometry:
    """A 2-D pooling's windows: ``kernel``, ``stride``, ``padding`` (the same on both sides) and
    ``dilation`` per spatial dimension (height, width), and the ``output`` size they give
    (``ceil_mode`` already applied). Every window holds at least one input position."""

    kernel: tuple[int, int]
    stride: tuple[int, int]
    padding: tuple[int, int]
    dilation: tuple[int, int]
    output: tuple[int, int]


@runtime_checkable
class PoolKernels(Protocol):
    """The direct 2-D max-pooling a backend may offer besides :class:`Backend`'s set (the CPU does)."""

    def max_pool2d(self, x: TensorData, geometry: PoolGeometry, values: TensorData, indices: TensorData) -> None:
        r"""Each window's maximum of ``x`` ``(..., H, W)`` into ``values`` and its place into ``indices`` (int64),
        both ``(..., *geometry.output)``, fresh and contiguous.

        A place is ``row * W + column`` in the input's plane. As PyTorch's CPU kernel: the window's
        positions are visited row by row, a larger value or any NaN takes over, and a window of
        ``-inf`` alone gives its first position inside the input. ``x`` is float32 or float64, any
        layout; the caller (:func:`minitorch.pool_dispatch.max_pool2d_op`) has checked the shapes.
        """

    def max_pool2d_backward(self, grad: TensorData, indices: TensorData, grad_x: TensorData) -> int:
        r"""The input's gradient: each of ``grad``'s values added, in the plane it came from, at the
        place ``indices`` holds for it (:meth:`max_pool2d`'s), into ``grad_x`` ``(..., H, W)``, fresh and
        contiguous, which starts from zeros. ``grad`` (float32 or float64, any layout) and ``indices``
        have the pooled shape ``(..., OH, OW)``. Returns how many places lie outside their plane (skipped:
        the caller, :func:`minitorch.pool_dispatch.max_pool2d_backward_op`, raises for any).
        """


@dataclass(frozen=True)
class AdamStep:
    r"""The numbers of one Adam step, the same for every element of a parameter.

    ``step_size`` is :math:`\gamma / (1-\beta_1^t)` and ``bias_correction2_sqrt``
    :math:`\sqrt{1-\beta_2^t}` at step :math:`t`; ``weight_decay`` :math:`\lambda` is added to
    the gradient as :math:`\lambda\theta` (Adam), or with ``decoupled`` shrinks the parameter by
    ``1 - lr * weight_decay`` first (AdamW); ``maximize`` negates the gradient.
    """

    beta1: float
    beta2: float
    eps: float
    lr: float
    step_size: float
    bias_correction2_sqrt: float
    weight_decay: float = 0.0
    decoupled: bool = False
    maximize: bool = False


@dataclass(frozen=True)
class SgdStep:
    r"""The numbers of one SGD step, the same for every element of a parameter.

    The gradient, negated with ``maximize``, plus ``weight_decay`` :math:`\lambda` times the
    parameter, is the direction :math:`d`; with ``momentum`` :math:`\mu` the buffer becomes
    :math:`b = d` at the ``first`` step and :math:`\mu b + (1 - \tau) d` after (``dampening``
    :math:`\tau`), and the step is along :math:`b`, or :math:`d + \mu b` with ``nesterov``.
    """

    lr: float
    momentum: float = 0.0
    dampening: float = 0.0
    weight_decay: float = 0.0
    nesterov: bool = False
    maximize: bool = False
    first: bool = False


@runtime_checkable
class OptimizerKernels(Protocol):
    """A fused optimizer update a backend may offer besides :class:`Backend`'s set (the cpu and cuda backends do)."""

    def adam_step(self, param: TensorData, grad: TensorData, exp_avg: TensorData, exp_avg_sq: TensorData,
                  max_exp_avg_sq: Optional[TensorData], step: AdamStep) -> None:
        """One Adam step of ``param`` in place, and of its moments ``exp_avg`` and ``exp_avg_sq`` (and,
        with amsgrad, the running maximum ``max_exp_avg_sq``), from ``grad``.

        The same arithmetic as the tensor ops of :func:`minitorch.optim.adam.adam_update`, in the
        parameter's dtype and order, so the same results. Every operand is contiguous, of one shape
        and of one dtype, float32 or float64; the caller
        (:func:`minitorch.optim_dispatch.adam_step_op`) has checked it.
        """

    def sgd_step(self, param: TensorData, grad: TensorData, momentum_buffer: Optional[TensorData], step: SgdStep) -> None:
        """One SGD step of ``param`` in place, and of its ``momentum_buffer`` (``None`` without momentum),
        from ``grad``: the arithmetic of the tensor ops of :class:`minitorch.optim.SGD`, so the same
        results. Operands as for :meth:`adam_step` (checked by :func:`minitorch.optim_dispatch.sgd_step_op`).
        """


@runtime_checkable
class MulAddKernels(Protocol):
    r""":math:`a b + c` rounded once, which a backend may offer besides :class:`Backend`'s set (the
    CPU does): PyTorch computes ``add``/``sub`` with ``alpha``, ``lerp`` and ``addcmul`` so.
    Elsewhere it is a ``mul`` and an ``add``, rounded twice."""

    def mul_add(self, a: TensorData, b: TensorData, c: TensorData, out: TensorData) -> None:
        """``out = a * b + c`` with one rounding, each operand broadcast to ``out``'s shape: all of
        one floating dtype (the caller, :func:`minitorch.dispatch.mul_add_op`, has checked it).
        ``out`` may be ``c`` itself (an update in place), and may share memory with ``a`` or ``b``."""


@runtime_checkable
class LossKernels(Protocol):
    r"""Cross-entropy with class indices in one kernel each way, which a backend may offer besides
    :class:`Backend`'s set (the CPU does); elsewhere it is a log-softmax and a few primitives.

    For logits ``x`` ``(n, classes)`` and int64 targets ``target`` ``(n,)``: the loss of row
    :math:`i` is :math:`\ell_i = -\log \mathrm{softmax}(x_i)_{y_i}`, 0 where
    :math:`y_i` is ``ignore_index``.
    """

    def target_range(self, target: TensorData, ignore_index: int) -> tuple[int, int, int]:
        """``(low, high, counted)``: the smallest and largest of the int64 vector ``target`` other than
        ``ignore_index``, and how many those are (``(0, 0, 0)`` when none is)."""

    def cross_entropy(self, x: TensorData, target: TensorData, ignore_index: int, log_p: TensorData,
                      losses: TensorData) -> float:
        """The rows' log-softmax of ``x`` into ``log_p`` (``x``'s shape), each row's loss into ``losses``
        ``(n,)``; returns the losses' sum in float64.

        ``x`` is float32 or float64, any layout, with at least one class; ``log_p`` and ``losses`` are fresh,
        contiguous and of its dtype; every target is ``ignore_index`` or a class (the caller,
        :func:`minitorch.loss_dispatch.cross_entropy_op`, has checked them with :meth:`target_range`).
        """

    def cross_entropy_backward(self, log_p: TensorData, target: TensorData, ignore_index: int, grad: TensorData,
                               divisor: int, grad_x: TensorData) -> None:
        r"""The logits' gradient into ``grad_x`` (``log_p``'s shape, fresh and contiguous):
        :math:`w_i (e^{\log p_{ic}} - [c = y_i])` with :math:`w_i` = ``grad[i] / divisor`` in ``log_p``'s
        dtype (``grad`` is ``(n,)``, or 0-d for every row), 0 for an ignored row."""


@runtime_checkable
class RecurrentKernels(Protocol):
    r"""An LSTM's and a GRU's time loop with one kernel per step each way, which a backend may
    offer besides :class:`Backend`'s set (the CPU does); elsewhere each step is a dozen primitives.

    The sequence buffers are contiguous and of one float dtype (float32 or float64): ``xw``,
    ``gates``, ``slopes``, ``grad_pre`` ``(T, B, 4H)``; ``tanh_c``, ``cs``, ``hs`` ``(T, B, H)``; the
    caller (:mod:`minitorch.rnn_dispatch`) has checked and allocated them.
    """

    def lstm_forward(self, xw: TensorData, w_hh_t: TensorData, h0: TensorData, c0: TensorData, reverse: bool,
                     gates: TensorData, slopes: TensorData, tanh_c: TensorData, cs: TensorData, hs: TensorData,
                     hw: TensorData) -> None:
        r"""Every step of one direction (from the last step back when ``reverse``): ``hw`` =
        :math:`h_{t-1} W_{hh}^\top` (``w_hh_t`` ``(H, 4H)``, from ``h0`` ``(B, H)`` first), then the
        gates, the states ``cs[t]``, ``hs[t]`` and what backward reads, from ``xw[t] + hw``
        (``c0`` ``(B, H)`` the first cell state; ``hw`` a ``(B, 4H)`` scratch buffer)."""

    def lstm_backward(self, grad: TensorData, w_hh: TensorData, reverse: bool, gates: TensorData,
                      slopes: TensorData, tanh_c: TensorData, cs: TensorData, c0: TensorData,
                      carried_h: TensorData, carried_c: TensorData, grad_pre: TensorData) -> None:
        """Backpropagation through every step, the forward's order reversed: ``grad`` ``(T, B, H)``
        holds the gradient of each step's hidden state; each step's pre-activation gradient goes to
        ``grad_pre[t]``; ``carried_h``, ``carried_c`` ``(B, H)`` come in as the gradients of the final
        hidden and cell states (beyond ``grad``'s) and leave as those of ``h0`` and ``c0`` (``w_hh``
        ``(4H, H)``). With ``T``, ``B`` or ``H`` zero the caller does not call."""

    def gru_forward(self, xw: TensorData, w_hh_t: TensorData, b_hh: TensorData, h0: TensorData, reverse: bool,
                    rzn: TensorData, hwn: TensorData, hs: TensorData, hw: TensorData) -> None:
        r"""Every step of one GRU direction: ``hw`` = :math:`h_{t-1} W_{hh}^\top` (``w_hh_t`` ``(H, 3H)``)
        plus ``b_hh`` ``(3H,)`` (empty: no bias), then the gates ``rzn[t]`` ``(B, 3H)``, the share of
        the hidden state in ``n``, ``hwn[t]`` ``(B, H)``, and the state ``hs[t]``."""

    def gru_backward(self, grad: TensorData, w_hh: TensorData, reverse: bool, rzn: TensorData, hwn: TensorData,
                     hs: TensorData, h0: TensorData, carried: TensorData, direct: TensorData,
                     grad_x: TensorData, grad_hw: TensorData) -> None:
        """Backpropagation through every GRU step: ``grad`` ``(T, B, H)`` the states' gradients; each
        step's gradients of ``xw[t]`` and of ``hw`` go to ``grad_x[t]`` and ``grad_hw[t]`` ``(B, 3H)``;
        ``carried`` ``(B, H)`` receives the gradient of ``h0`` (``direct`` is scratch of its shape)."""


@runtime_checkable
class ConcatKernels(Protocol):
    """Joining many tensors in one call, which a backend may offer besides copying each into its
    slice of the result with :meth:`Backend.map` (the CPU does: a batch of 64 samples is one
    call instead of 64)."""

    def cat(self, parts: Sequence[TensorData], dim: int, out: TensorData) -> None:
        """Copy ``parts``, one after another along ``dim``, into ``out``: all of ``out``'s dtype
        and of its shape but along ``dim``, where their lengths add up to ``out``'s (checked by
        the caller); ``out`` shares no memory with them."""


@functools.lru_cache(maxsize=None)
def _class_offers(backend_class: type, kernels: type) -> bool:
    return issubclass(backend_class, kernels)


def offers(backend: object, kernels: type) -> bool:
    """Whether ``backend`` has the methods of the protocol ``kernels`` (:class:`ConvKernels`,
    :class:`PoolKernels`, :class:`OptimizerKernels`, :class:`MulAddKernels`, :class:`LossKernels`, :class:`RecurrentKernels`, :class:`ConcatKernels`): asked once per backend class, as a
    protocol's own ``isinstance``
    compares every method each time (about 20 us)."""
    return _class_offers(type(backend), kernels)


def check_reduce_shapes(a: TensorData, dim: int, out: TensorData) -> None:
    """Raise if ``out`` is not ``a``'s shape with ``dim`` reduced to 1 (a caller bug)."""
    expected: Shape = a.shape[:dim] + (1,) + a.shape[dim + 1 :]
    if out.shape != expected:
        raise ValueError(f"reduce of shape {a.shape} along {dim} needs out shape {expected}, got {out.shape}")


def reduce_has_work(a: TensorData, dim: int, out: TensorData) -> bool:
    """:func:`check_reduce_shapes`, then whether ``out`` has any element to compute."""
    check_reduce_shapes(a, dim, out)
    return out.size > 0


def log_softmax_by_primitives(backend: Backend, a: TensorData, out: TensorData) -> None:
    """:meth:`Backend.log_softmax` as five primitive calls, with temporaries in ``backend``'s memory.

    A row's max and its ``log(sum(exp(a - max)))`` are columns of shape ``(rows, 1)``, which
    the primitives broadcast along the rows.
    """
    rows, width = a.shape
    if out.size == 0:
        return
    dtype = out.dtype

    def fresh(shape: Shape) -> TensorData:
        return TensorData(backend.empty(rows * shape[1], dtype), shape)

    column = fresh((rows, 1))
    backend.reduce("max", a, 1, column)
    backend.zip("sub", a, column, out)  # out: the shifted rows
    exps = fresh((rows, width))
    backend.map("exp", out, exps)
    backend.reduce("sum", exps, 1, column)
    backend.map("log", column, column)
    backend.zip("sub", out, column, out)
