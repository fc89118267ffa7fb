r"""The time loop of a recurrent layer: one autograd Function per cell kind, forward and
backpropagation through time side by side.

Each Function runs one layer in one direction over a whole sequence. Its input is the
input projection of *every* step, ``xw = x W_{ih}^\top + b`` of shape ``(T, B, G)``
(``G`` = gates × hidden size), computed before the loop in one matmul; each step then
costs one matmul of the hidden state against the stacked gate weights ``W_{hh}`` (all
gates at once) and a few elementwise ops on views of the gate columns.

Why a Function around the whole loop and not autograd over per-step ops: the graph of a
50-step LSTM would hold ~1000 nodes, and every ``xw[t]`` read would send back a gradient
the size of all of ``xw``. Here backward walks the steps in reverse with the saved gate
values (the chain rule written out below), collects the gradient of the pre-activations
of every step, and returns it as the gradient of ``xw``; the weight gradient is then one
matmul over all steps, :math:`\partial W_{hh} = \sum_t \delta_t^\top h_{t-1}`.

``mask`` (``(T, B, 1)`` of 0/1, or ``None``) runs a batch of sequences of different
lengths (a packed batch, padded): where the mask is 0 a sequence is already over (or, in
the reverse direction, not yet begun) and its state passes through the step unchanged,
:math:`h_t = h_{t-1} + m_t (\tilde h_t - h_{t-1})`. So the forward direction's last state
is its final state, and the reverse direction starts from the initial state at each
sequence's own last element.

Where the backend offers fused kernels (the cpu: float32 and float64, no projection, no mask),
an LSTM's and a GRU's loops run there instead (:mod:`minitorch.rnn_dispatch`,
``backends/cpu_rnn.py``): one matmul and one kernel per step each way, the same arithmetic as
the ops below (float64 results equal bit for bit). :data:`use_fused_lstm` and
:data:`use_fused_gru` switch them off.

What each Function returns is a copy of the states it keeps for backward, as PyTorch's layers
return tensors of their own: a user may change a layer's output in place, and backward still
reads the states the steps computed.
"""

from __future__ import annotations

from typing import Optional

import numpy as np

from ... import creation, rnn_dispatch
from ...autograd import Context, Function, is_grad_enabled
from ...tensor import Tensor

__all__ = ["GRUScan", "LSTMScan", "RNNScan", "lstm_step"]

NONLINEARITIES = ("tanh", "relu")

#: run an LSTM layer's time loop in the backend's fused kernels where it offers them (the cpu:
#: float32/float64, no projection, no packed lengths) instead of :func:`lstm_step` per step.
#: Task 5.10's tests switch it off: they grade ``lstm_step``.
use_fused_lstm = True
#: the same for a GRU layer's time loop (no packed lengths)
use_fused_gru = True


def _refuse_double_backward(layer: str) -> None:
    """Raise when the backward pass is itself being recorded (``create_graph=True``).

    The time loop's backward is written out by hand and reads the saved activations (gates,
    slopes, states) as constants: a graph recorded through it would leave out how they depend
    on the weights and the input, and give wrong second derivatives without a word.
    """
    if is_grad_enabled():
        raise RuntimeError(
            f"double backward through {layer} is not supported: the backward of its time loop is written by hand "
            "and treats the saved activations as constants, so a second derivative through it would be wrong. "
            "Differentiate once (create_graph=False), or write the cell with tensor ops for a second derivative"
        )


def _steps(length: int, reverse: bool) -> range:
    """The order in which the forward pass visits the time steps."""
    return range(length - 1, -1, -1) if reverse else range(length)


def _blend(mask: Optional[Tensor], t: int, new: Tensor, old: Tensor) -> Tensor:
    r""":math:`h_{t-1} + m_t(\tilde h_t - h_{t-1})`: the new state where the sequence runs, the old one elsewhere."""
    return new if mask is None else old + mask[t] * (new - old)


def _split_grad(mask: Optional[Tensor], t: int, grad: Tensor) -> tuple[Tensor, Optional[Tensor]]:
    """The gradient of a blended state, split into the part for the step's new state and the part passed by."""
    if mask is None:
        return grad, None
    into_step = mask[t] * grad
    return into_step, grad - into_step


def _previous_states(states: Tensor, initial: Tensor, reverse: bool) -> Tensor:
    """``(T, B, H)``: the state each step started from (the initial state, then the states one step behind)."""
    first = initial.unsqueeze(0)
    if reverse:
        return creation.cat([states[1:], first])
    return creation.cat([first, states[:-1]])


def _sum_over_steps(per_step_left: Tensor, per_step_right: Tensor) -> Tensor:
    r""":math:`\sum_{t,b} a_{tb}^\top c_{tb}`: the ``(G, H)`` weight gradient of all steps in one matmul."""
    left = per_step_left.reshape(-1, per_step_left.shape[-1])
    right = per_step_right.reshape(-1, per_step_right.shape[-1])
    return left.t() @ right


def _weight_grad_over_steps(grad_pre: Tensor, states: Tensor, initial: Tensor, reverse: bool) -> Tensor:
    r""":math:`\partial W_{hh} = \sum_t \delta_t^\top h_{t-1}` from ``grad_pre`` ``(T, B, G)`` and the
    states ``(T, B, H)``: one matmul over the steps whose previous state is in ``states`` (slices,
    no copy), plus the first step's product with ``initial``."""
    first = grad_pre.shape[0] - 1 if reverse else 0
    total = grad_pre[first].t() @ initial
    if grad_pre.shape[0] > 1:
        later, previous = (grad_pre[:-1], states[1:]) if reverse else (grad_pre[1:], states[:-1])
        total = total + _sum_over_steps(later, previous)
    return total


def _right_operand(weight: Tensor) -> Tensor:
    """``weight`` for ``x @ weight``, as the transpose of a contiguous copy of its transpose.

    The same matrix, laid out the way the cpu matmul kernel reads its right operand fastest
    (measured: about 1.5x faster for ``(32, 512) @ (512, 128)`` than ``weight`` itself).
    """
    return weight.t().contiguous().t()


def _lstm_gate_scales(size: int, like: Tensor) -> tuple[Tensor, Tensor]:
    r"""``(4H,)`` column factors: 2 on the ``g`` gate's columns (where :math:`\tanh x = 2\sigma(2x) - 1`),
    1 elsewhere; and each gate's slope over :math:`\sigma'(kx)`: 4 for ``g`` (:math:`2 \cdot 2`), 1 elsewhere."""
    blocks = np.ones((4, size))
    scale, slope_scale = blocks.copy(), blocks.copy()
    scale[2], slope_scale[2] = 2.0, 4.0
    return tuple(creation.tensor(v.reshape(-1), dtype=like.dtype, device=like.device) for v in (scale, slope_scale))


def _sigmoid_slope(s: Tensor) -> Tensor:
    r""":math:`\sigma' = \sigma(1-\sigma)`, from the saved :math:`\sigma` (as ``s - s*s``: two ops, no scalar)."""
    return s - s * s


def _tanh_slope(y: Tensor) -> Tensor:
    r""":math:`\tanh' = 1 - \tanh^2`, from the saved :math:`\tanh`."""
    return 1.0 - y * y


def lstm_step(xw_t: Tensor, h: Tensor, c: Tensor, w_hh_t: Tensor, scale: Tensor,
              slope_scale: Tensor) -> tuple[Tensor, Tensor, tuple[Tensor, ...]]:
    r"""One LSTM step from the input's share of the gates ``xw_t`` ``(B, 4H)``, the state ``h``
    ``(B, P)``, ``c`` ``(B, H)`` and ``w_hh_t`` = :math:`W_{hh}^\top` ``(P, 4H)``.

    With :math:`a = xw_t + h W_{hh}^\top` (one matmul for all four gates) split in PyTorch's
    order :math:`a_i, a_f, a_g, a_o`:

    .. math::
        i = \sigma(a_i), \; f = \sigma(a_f), \; g = \tanh(a_g), \; o = \sigma(a_o), \quad
        c' = f c + i g, \quad \mathrm{out} = o \tanh c'

    Returns ``c'``, ``out`` (the new hidden state before any projection) and what
    :meth:`LSTMScan.backward` reads: ``(i, f, g, o, tanh c', c, out, slopes)``, ``slopes``
    ``(B, 4H)`` being each gate's derivative with respect to its pre-activation,
    :math:`\sigma' = \sigma(1 - \sigma)` for ``i, f, o`` and :math:`\tanh' = 1 - g^2` for ``g``.
    ``scale``/``slope_scale`` (from :func:`_lstm_gate_scales`) allow all four gates from a
    single sigmoid, :math:`\tanh x = 2\sigma(2x) - 1`; using them is optional.
    """
    size = c.shape[-1]
    # BEGIN SOLUTION 5.10
    s = ((xw_t + h @ w_hh_t) * scale).sigmoid()
    i, f, o = s[:, :size], s[:, size : 2 * size], s[:, 3 * size :]
    g = s[:, 2 * size : 3 * size] * 2.0 - 1.0
    c_new = f * c + i * g
    tanh_c = c_new.tanh()
    out = o * tanh_c
    # d(gate)/d(pre-activation) for all four gates: k * sigma'(k x) = k * (s - s^2)
    slopes = (s - s * s) * slope_scale
    return c_new, out, (i, f, g, o, tanh_c, c, out, slopes)
    # END SOLUTION


class RNNScan(Function):
    r"""Elman RNN: :math:`h_t = \phi(xw_t + h_{t-1} W_{hh}^\top)`, :math:`\phi` = tanh or relu.

    Returns the states of all steps, ``(T, B, H)``. The slope :math:`\phi'` follows from
    the states themselves (:math:`1 - h^2`, or :math:`h > 0`), so backward computes it for
    all steps at once. Where the mask holds a state over, the slope is not what the step
    would have had, but no gradient enters the step there.
    """

    @staticmethod
    def forward(ctx: Context, xw: Tensor, w_hh: Tensor, h0: Tensor, mask: Optional[Tensor], reverse: bool = False,
                nonlinearity: str = "tanh") -> Tensor:
        w_hh_t = w_hh.t()
        h = h0
        states: list[Optional[Tensor]] = [None] * xw.shape[0]
        for t in _steps(xw.shape[0], reverse):
            pre = xw[t] + h @ w_hh_t
            new = pre.tanh() if nonlinearity == "tanh" else pre.relu()
            h = states[t] = _blend(mask, t, new, h)
        out = creation.stack(states)
        ctx.reverse, ctx.nonlinearity = reverse, nonlinearity
        ctx.save_for_backward(w_hh, h0, mask, out)
        return out.clone()

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> tuple[Optional[Tensor], ...]:
        _refuse_double_backward("an RNN")
        w_hh, h0, mask, states = ctx.saved_tensors
        slopes = _tanh_slope(states) if ctx.nonlinearity == "tanh" else (states > 0).to(states.dtype)
        w_hh_back = _right_operand(w_hh)
        grad_pre: list[Optional[Tensor]] = [None] * grad.shape[0]
        carried = creation.zeros_like(h0)
        for t in reversed(_steps(grad.shape[0], ctx.reverse)):
            into_step, passed = _split_grad(mask, t, carried + grad[t])
            grad_pre[t] = into_step * slopes[t]
            carried = grad_pre[t] @ w_hh_back
            if passed is not None:
                carried = carried + passed
        grad_xw = creation.stack(grad_pre)
        grad_w_hh = None
        if ctx.needs_input_grad[1]:
            grad_w_hh = _weight_grad_over_steps(grad_xw, states, h0, ctx.reverse)
        return grad_xw, grad_w_hh, carried, None


class LSTMScan(Function):
    r"""LSTM, gates in PyTorch's order :math:`i, f, g, o` (``G = 4H``):

    .. math::
        (i, f, g, o) = (\sigma, \sigma, \tanh, \sigma)(xw_t + h_{t-1} W_{hh}^\top), \quad
        c_t = f c_{t-1} + i g, \quad h_t = (o \tanh c_t)\, W_{hr}^\top

    (no :math:`W_{hr}` without a projection). Returns ``(hs, c_n)``: the hidden state of every
    step ``(T, B, P)`` (``P`` = projection or hidden size) and the final cell state ``(B, H)``.
    Backward gets the gradient of each (None for one that no gradient reached); the final cell
    state's starts the cell gradient that the steps carry back.

    All four gates come from one sigmoid over the whole ``(B, 4H)`` pre-activation, the
    ``g`` columns doubled first: :math:`\tanh x = 2\sigma(2x) - 1`. The same sigmoid gives
    every gate's slope at once, :math:`\sigma'(kx) \cdot k` scaled, saved for backward.
    """

    @staticmethod
    def forward(ctx: Context, xw: Tensor, w_hh: Tensor, w_hr: Optional[Tensor], h0: Tensor, c0: Tensor,
                mask: Optional[Tensor], reverse: bool = False) -> tuple[Tensor, Tensor]:
        ctx.fused = (use_fused_lstm and w_hr is None and mask is None
                     and rnn_dispatch.fused_lstm_fits(xw, w_hh, h0, c0))
        ctx.reverse = reverse
        steps = xw.shape[0]
        if ctx.fused:
            sequence = rnn_dispatch.lstm_forward_op(xw, w_hh, h0, c0, reverse)
            ctx.save_for_backward(w_hh, h0, c0, *sequence)
            return sequence.hs.clone(), (sequence.cs[0 if reverse else steps - 1] if steps else c0).clone()
        size = c0.shape[-1]
        scale, slope_scale = _lstm_gate_scales(size, xw)
        w_hh_t = w_hh.t()
        w_hr_t = None if w_hr is None else w_hr.t()
        h, c = h0, c0
        hs: list[Optional[Tensor]] = [None] * steps
        saved: list[tuple[Tensor, ...]] = [()] * steps
        for t in _steps(steps, reverse):
            c_new, out, saved[t] = lstm_step(xw[t], h, c, w_hh_t, scale, slope_scale)
            h_new = out if w_hr_t is None else out @ w_hr_t
            h, c = _blend(mask, t, h_new, h), _blend(mask, t, c_new, c)
            hs[t] = h
        states = creation.stack(hs)
        ctx.save_for_backward(w_hh, w_hr, h0, c0, mask, states, *[value for step in saved for value in step])
        return states.clone(), c.clone()

    @staticmethod
    def backward(ctx: Context, grad_h: Optional[Tensor], grad_c: Optional[Tensor]) -> tuple[Optional[Tensor], ...]:
        _refuse_double_backward("an LSTM")
        if ctx.fused:
            return LSTMScan._fused_backward(ctx, grad_h, grad_c)
        w_hh, w_hr, h0, c0, mask, states, *flat = ctx.saved_tensors
        steps = states.shape[0]
        per_step = len(flat) // steps
        saved = [flat[t * per_step : (t + 1) * per_step] for t in range(steps)]
        grad_h = creation.zeros_like(states) if grad_h is None else grad_h
        w_hh_back = _right_operand(w_hh)
        grad_pre: list[Optional[Tensor]] = [None] * steps
        grad_h_new: list[Optional[Tensor]] = [None] * steps
        carried_h = creation.zeros_like(h0)
        carried_c = creation.zeros_like(c0) if grad_c is None else grad_c
        for t in reversed(_steps(steps, ctx.reverse)):
            i, f, g, o, tanh_c, c_prev, out, slopes = saved[t]
            d_h, passed_h = _split_grad(mask, t, carried_h + grad_h[t])
            d_c, passed_c = _split_grad(mask, t, carried_c)
            grad_h_new[t] = d_h
            d_out = d_h if w_hr is None else d_h @ w_hr
            d_o = d_out * tanh_c
            d_out_o = d_out * o  # out = o tanh(c): into c through tanh' = 1 - tanh^2
            d_c = d_c + d_out_o - d_out_o * tanh_c * tanh_c
            d_gates = creation.cat([d_c * g, d_c * c_prev, d_c * i, d_o], dim=1)
            grad_pre[t] = d_gates * slopes
            carried_h = grad_pre[t] @ w_hh_back
            carried_c = d_c * f
            if passed_h is not None:
                carried_h, carried_c = carried_h + passed_h, carried_c + passed_c
        grad_xw = creation.stack(grad_pre)
        grad_w_hh = grad_w_hr = None
        if ctx.needs_input_grad[1]:
            grad_w_hh = _weight_grad_over_steps(grad_xw, states, h0, ctx.reverse)
        if w_hr is not None and ctx.needs_input_grad[2]:
            grad_w_hr = _sum_over_steps(creation.stack(grad_h_new), creation.stack([step[6] for step in saved]))
        return grad_xw, grad_w_hh, grad_w_hr, carried_h, carried_c, None

    @staticmethod
    def _fused_backward(ctx: Context, grad_h: Optional[Tensor], grad_c: Optional[Tensor]) -> tuple[Optional[Tensor], ...]:
        """:meth:`backward` through the backend's fused kernels (the forward ran them too)."""
        w_hh, h0, c0, *saved = ctx.saved_tensors
        sequence = rnn_dispatch.LstmSequence(*saved)
        dtype = sequence.hs.dtype
        grad_xw, grad_h0, grad_c0 = rnn_dispatch.lstm_backward_op(
            None if grad_h is None else grad_h.to(dtype), None if grad_c is None else grad_c.to(dtype),
            w_hh, c0, sequence, ctx.reverse)
        grad_w_hh = None
        if ctx.needs_input_grad[1]:
            grad_w_hh = _weight_grad_over_steps(grad_xw, sequence.hs, h0, ctx.reverse)
        return grad_xw, grad_w_hh, None, grad_h0, grad_c0, None


class GRUScan(Function):
    r"""GRU, gates in PyTorch's order :math:`r, z, n` (``G = 3H``), with :math:`hw_t = h_{t-1} W_{hh}^\top + b_{hh}`:

    .. math::
        (r, z) = \sigma(xw_t + hw_t)_{r,z}, \quad n = \tanh(xw_{t,n} + r\, hw_{t,n}), \quad
        h_t = n + z (h_{t-1} - n)

    ``b_hh`` stays apart from ``xw`` because ``r`` multiplies its ``n`` part. Returns the
    states of all steps, ``(T, B, H)``.
    """

    @staticmethod
    def forward(ctx: Context, xw: Tensor, w_hh: Tensor, b_hh: Optional[Tensor], h0: Tensor, mask: Optional[Tensor],
                reverse: bool = False) -> Tensor:
        ctx.fused = use_fused_gru and mask is None and rnn_dispatch.fused_gru_fits(xw, w_hh, b_hh, h0)
        if ctx.fused:
            sequence = rnn_dispatch.gru_forward_op(xw, w_hh, b_hh, h0, reverse)
            ctx.reverse = reverse
            ctx.save_for_backward(w_hh, h0, *sequence)
            return sequence.hs.clone()
        size = h0.shape[-1]
        w_hh_t = w_hh.t()
        h = h0
        hs: list[Optional[Tensor]] = [None] * xw.shape[0]
        saved: list[tuple[Tensor, ...]] = [()] * xw.shape[0]
        for t in _steps(xw.shape[0], reverse):
            hw = h @ w_hh_t if b_hh is None else h @ w_hh_t + b_hh
            x_t = xw[t]
            rz = (x_t[:, : 2 * size] + hw[:, : 2 * size]).sigmoid()
            r, z = rz[:, :size], rz[:, size:]
            hw_n = hw[:, 2 * size :]
            n = (x_t[:, 2 * size :] + r * hw_n).tanh()
            saved[t] = (r, z, n, hw_n)
            h = hs[t] = _blend(mask, t, n + z * (h - n), h)
        states = creation.stack(hs)
        ctx.reverse = reverse
        ctx.save_for_backward(w_hh, h0, mask, states, *[value for step in saved for value in step])
        return states.clone()

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> tuple[Optional[Tensor], ...]:
        _refuse_double_backward("a GRU")
        if ctx.fused:
            return GRUScan._fused_backward(ctx, grad)
        w_hh, h0, mask, states, *flat = ctx.saved_tensors
        steps = grad.shape[0]
        saved = [flat[t * 4 : (t + 1) * 4] for t in range(steps)]
        previous = _previous_states(states, h0, ctx.reverse)
        w_hh_back = _right_operand(w_hh)
        grad_x: list[Optional[Tensor]] = [None] * steps
        grad_hw: list[Optional[Tensor]] = [None] * steps
        carried = creation.zeros_like(h0)
        for t in reversed(_steps(steps, ctx.reverse)):
            r, z, n, hw_n = saved[t]
            d_h, passed = _split_grad(mask, t, carried + grad[t])
            d_n_pre = (d_h - d_h * z) * _tanh_slope(n)
            d_r_pre = d_n_pre * hw_n * _sigmoid_slope(r)
            d_z_pre = d_h * (previous[t] - n) * _sigmoid_slope(z)
            grad_x[t] = creation.cat([d_r_pre, d_z_pre, d_n_pre], dim=1)
            grad_hw[t] = creation.cat([d_r_pre, d_z_pre, d_n_pre * r], dim=1)
            carried = grad_hw[t] @ w_hh_back + d_h * z
            if passed is not None:
                carried = carried + passed
        grad_xw = creation.stack(grad_x)
        all_grad_hw = creation.stack(grad_hw)
        grad_w_hh = _weight_grad_over_steps(all_grad_hw, states, h0, ctx.reverse) if ctx.needs_input_grad[1] else None
        grad_b_hh = all_grad_hw.reshape(-1, all_grad_hw.shape[-1]).sum(0) if ctx.needs_input_grad[2] else None
        return grad_xw, grad_w_hh, grad_b_hh, carried, None

    @staticmethod
    def _fused_backward(ctx: Context, grad: Tensor) -> tuple[Optional[Tensor], ...]:
        """:meth:`backward` through the backend's fused kernels (the forward ran them too)."""
        w_hh, h0, *saved = ctx.saved_tensors
        sequence = rnn_dispatch.GruSequence(*saved)
        grad_xw, all_grad_hw, grad_h0 = rnn_dispatch.gru_backward_op(
            grad.to(sequence.hs.dtype), w_hh, h0, sequence, ctx.reverse)
        grad_w_hh = _weight_grad_over_steps(all_grad_hw, sequence.hs, h0, ctx.reverse) if ctx.needs_input_grad[1] else None
        grad_b_hh = all_grad_hw.reshape(-1, all_grad_hw.shape[-1]).sum(0) if ctx.needs_input_grad[2] else None
        return grad_xw, grad_w_hh, grad_b_hh, grad_h0, None
