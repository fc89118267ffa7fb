r"""The further activations: the ELU family, the hard (piecewise-linear) ones, the shrinks,
PReLU, Mish, log-sigmoid, softmin and GLU.

Each is composed of differentiable ops, so autograd supplies the backward (the ELU family's
:math:`e^x - 1` is one small Function, to keep PyTorch's slopes far left). Piecewise
functions are written with ``where``, which sends the gradient to the branch it picked;
choosing the strict or non-strict comparison decides which side's slope a kink gets, and
the choices below give PyTorch's slopes at every kink (e.g. ``hardtanh`` and ``relu6`` have
slope 0 at their bounds, ``elu`` slope :math:`\alpha` at 0). A branch that would overflow
where it is not picked (``exp`` of a large input) is evaluated at a safe input there, so no
:math:`0 \cdot \infty` reaches the gradient.
"""

from __future__ import annotations

import math
from typing import Any, Optional

import numpy as np

from ... import dtypes
from ...autograd.function import Context, Function
from ...ops.dtype_refusals import refuse_bool
from ...shapes import normalize_dim
from ...tensor import Tensor, where
from .activation import _in_place, _softmax_dim, names_its_node, softmax

#: SELU's constants (Klambauer et al., 2017), as PyTorch spells them
SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946
#: relu6's upper bound
RELU6_MAX = 6.0
#: hardswish and hardsigmoid are linear on :math:`(-3, 3)` and reach their bounds there
HARD_KNEE = 3.0
HARD_SPAN = 6.0
#: above this, :math:`\tanh(\log(1 + e^x))` is 1 in float64 (mish is then :math:`x`)
MISH_LINEAR = 20.0

DOUBLE_BYTES = 8  # softshrink's lambda may reach float64's largest value for float64 input, float32's otherwise


def _check_floating(input: Tensor, kernel: str) -> None:  # noqa: A002
    """PyTorch's error for an activation kernel that has no integer version."""
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f'"{kernel}" not implemented for \'{dtypes.scalar_type_name(input.dtype)}\'')


class _ExpMinusOne(Function):
    r""":math:`e^a - 1` (accurate near 0), differentiated as :math:`e^a` itself: the ELU family's
    negative branch. (``expm1``'s own backward forms :math:`e^a` as its output plus one, which
    loses the small slopes far left that PyTorch's ELU gradients keep.)"""

    @staticmethod
    def forward(ctx: Context, a: Tensor) -> Tensor:
        ctx.save_for_backward(a)
        return a.expm1()

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> Tensor:
        (a,) = ctx.saved_tensors
        return grad * a.exp()


class _ZeroKept(Function):
    r"""``out`` with ``x`` itself where :math:`x = \pm 0` (PyTorch's ELU kernels return the input there
    whatever :math:`\alpha`, where :math:`\alpha (e^0 - 1)` would be NaN for an infinite or NaN
    :math:`\alpha`, or :math:`\mp 0` for a negative one); the gradient passes to ``out`` unchanged,
    so the slope at 0 stays the negative branch's :math:`\alpha e^0`."""

    @staticmethod
    def forward(ctx: Context, out: Tensor, x: Tensor) -> Tensor:
        return where(x == 0, x, out)

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> tuple[Tensor, None]:
        return grad, None


#: PyTorch's error for the backward of an in-place ELU (or CELU) with a negative (or NaN) alpha
IN_PLACE_NEGATIVE_SLOPE = (
    "In-place elu backward calculation is triggered with a negative slope which is not supported. This is caused "
    "by calling in-place forward function with a negative slope, please call out-of-place version instead."
)


class _NoBackward(Function):
    r"""``a`` itself whose backward raises PyTorch's error: its in-place ELU differentiates from the
    result, which cannot be undone when :math:`\alpha < 0` (or NaN)."""

    @staticmethod
    def forward(ctx: Context, a: Tensor) -> Tensor:
        return a.clone()

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> Tensor:
        raise RuntimeError(IN_PLACE_NEGATIVE_SLOPE)


def _refused_in_place(compute: Any, alpha: float, inplace: bool) -> Any:
    r"""``compute``, its result's backward refused when in place with :math:`\alpha < 0` or NaN, as PyTorch's."""
    if not inplace or alpha >= 0:
        return compute
    return lambda x: _NoBackward.apply(compute(x))


def _negative_branch(x: Tensor, branch: Tensor, alpha: float) -> Tensor:
    r"""The ELU family's negative branch, ``x`` itself at zero unless :math:`0 < \alpha < \infty`
    (where the branch is already :math:`\pm 0` there and nothing need change)."""
    return branch if 0 < alpha < math.inf else _ZeroKept.apply(branch, x)


def _at_most(x: Tensor, bound: float = 0.0) -> Tensor:
    """``x`` where :math:`x \\le \\text{bound}` (or NaN), else ``bound``: a safe input for a branch used only there."""
    return where(x > bound, bound, x)


@names_its_node("EluBackward0")
def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:  # noqa: A002
    r""":math:`x` for :math:`x > 0`, else :math:`\alpha (e^x - 1)`."""
    _check_floating(input, "elu_cpu")
    def compute(x: Tensor) -> Tensor:
        return where(x > 0, x, _negative_branch(x, alpha * _ExpMinusOne.apply(_at_most(x)), alpha))

    return _in_place(input, _refused_in_place(compute, alpha, inplace), inplace, "EluBackward1")


def elu_(input: Tensor, alpha: float = 1.0) -> Tensor:  # noqa: A002
    return elu(input, alpha, inplace=True)


@names_its_node("EluBackward0")
def selu(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002
    r""":math:`s \cdot \mathrm{elu}(x, \alpha)`, fixed :math:`\alpha \approx 1.6733`, :math:`s \approx 1.0507`."""
    _check_floating(input, "elu_cpu")

    def compute(x: Tensor) -> Tensor:
        return where(x > 0, SELU_SCALE * x, (SELU_ALPHA * SELU_SCALE) * _ExpMinusOne.apply(_at_most(x)))

    return _in_place(input, compute, inplace, "EluBackward1")


def selu_(input: Tensor) -> Tensor:  # noqa: A002
    return selu(input, inplace=True)


@names_its_node("CeluBackward0")
def celu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:  # noqa: A002
    r""":math:`\max(0, x) + \min(0, \alpha (e^{x/\alpha} - 1))`."""
    _check_floating(input, "elu_cpu")
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")

    def compute(x: Tensor) -> Tensor:
        return where(x > 0, x, _negative_branch(x, alpha * _ExpMinusOne.apply(_at_most(x) * (1.0 / alpha)), alpha))

    return _in_place(input, _refused_in_place(compute, alpha, inplace), inplace, "CeluBackward1")


def celu_(input: Tensor, alpha: float = 1.0) -> Tensor:  # noqa: A002
    return celu(input, alpha, inplace=True)


@names_its_node("HardtanhBackward0")
def hardtanh(input: Tensor, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> Tensor:  # noqa: A002
    r"""``input`` clamped to :math:`[\mathrm{min\_val}, \mathrm{max\_val}]`, slope 0 at the bounds themselves."""
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    if input.dtype is dtypes.bool_:
        raise RuntimeError("Bool inputs not supported for hardtanh")

    def compute(x: Tensor) -> Tensor:
        return where(x <= min_val, min_val, where(x >= max_val, max_val, x)).to(x.dtype)

    return _in_place(input, compute, inplace, "HardtanhBackward0")


def hardtanh_(input: Tensor, min_val: float = -1.0, max_val: float = 1.0) -> Tensor:  # noqa: A002
    return hardtanh(input, min_val, max_val, inplace=True)


def relu6(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002
    r""":math:`\min(\max(0, x), 6)`."""
    return hardtanh(input, 0.0, RELU6_MAX, inplace)


@names_its_node("HardswishBackward0")
def hardswish(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002
    r""":math:`x \cdot \mathrm{relu6}(x + 3) / 6`: 0 up to -3, :math:`x` from 3."""
    _check_floating(input, "hardswish_cpu")

    def compute(x: Tensor) -> Tensor:
        return where(x <= -HARD_KNEE, 0.0, where(x >= HARD_KNEE, x, x * (x + HARD_KNEE) / HARD_SPAN))

    return _in_place(input, compute, inplace, "HardswishBackward0")


@names_its_node("HardsigmoidBackward0")
def hardsigmoid(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002
    r""":math:`\mathrm{relu6}(x + 3) / 6`: 0 up to -3, 1 from 3, slope :math:`1/6` between.

    (PyTorch's backward uses :math:`1/6` rounded to single precision even for float64; this
    one uses the float64 value.)
    """
    _check_floating(input, "hardsigmoid_cpu")

    def compute(x: Tensor) -> Tensor:
        return where(x <= -HARD_KNEE, 0.0, where(x >= HARD_KNEE, 1.0, (x + HARD_KNEE) / HARD_SPAN))

    return _in_place(input, compute, inplace, "HardsigmoidBackward0")


@names_its_node("MishBackward0")
def mish(input: Tensor, inplace: bool = False) -> Tensor:  # noqa: A002
    r""":math:`x \tanh(\mathrm{softplus}(x))`."""
    _check_floating(input, "mish_cpu")

    def compute(x: Tensor) -> Tensor:
        # softplus as log(1 + e^x), PyTorch's form; above MISH_LINEAR it is x to within tanh's rounding to 1
        smooth = where(x > MISH_LINEAR, x, _at_most(x, MISH_LINEAR).exp().log1p())
        return x * smooth.tanh()

    return _in_place(input, compute, inplace, "MishBackward0")


@names_its_node("LogSigmoidBackward0")
def logsigmoid(input: Tensor) -> Tensor:  # noqa: A002
    r""":math:`\log \sigma(x) = \min(x, 0) - \log(1 + e^{-|x|})`, finite for every finite :math:`x`."""
    _check_floating(input, "log_sigmoid_cpu")
    negative = input < 0
    low = where(negative, input, 0.0)  # each branch sees only the inputs it is picked for
    high = where(negative, 0.0, input)
    return where(negative, low - low.exp().log1p(), -((-high).exp().log1p()))


def softsign(input: Tensor) -> Tensor:  # noqa: A002
    r""":math:`x / (1 + |x|)`."""
    return input / (input.abs() + 1)


def tanhshrink(input: Tensor) -> Tensor:  # noqa: A002
    r""":math:`x - \tanh(x)`."""
    return input - input.tanh()


@names_its_node("SoftshrinkBackward0")
def softshrink(input: Tensor, lambd: float = 0.5) -> Tensor:  # noqa: A002
    r""":math:`x - \lambda` above :math:`\lambda`, :math:`x + \lambda` below :math:`-\lambda`, else 0."""
    _check_floating(input, "softshrink_check")
    largest = float(np.finfo(np.float64 if input.dtype.itemsize == DOUBLE_BYTES else np.float32).max)
    if not 0 <= lambd <= largest:  # nan too
        raise RuntimeError(
            f"lambda must be in range [0, {largest:g}] for input dtype {dtypes.scalar_type_name(input.dtype)}, "
            f"but found {lambd:g}"
        )
    return where(input > lambd, input - lambd, where(input < -lambd, input + lambd, input * 0.0))


@names_its_node("HardshrinkBackward0")
def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:  # noqa: A002
    r""":math:`x` where :math:`|x| > \lambda`, else 0."""
    _check_floating(input, "hardshrink_cpu")
    return where((input >= -lambd) & (input <= lambd), 0.0, input)


def _threshold(input: Tensor, bound: float, value: float, inplace: bool) -> Tensor:  # noqa: A002
    refuse_bool("threshold_cpu", input.dtype)
    return _in_place(input, lambda x: where(x <= bound, value, x).to(x.dtype), inplace, "ThresholdBackward1", overlap_ok=True)


@names_its_node("ThresholdBackward0")
def threshold(input: Tensor, threshold: float, value: float, inplace: bool = False) -> Tensor:  # noqa: A002
    r""":math:`x` where :math:`x > \mathrm{threshold}`, else ``value``."""
    return _threshold(input, threshold, value, inplace)


def threshold_(input: Tensor, threshold: float, value: float) -> Tensor:  # noqa: A002
    return _threshold(input, threshold, value, inplace=True)


@names_its_node("PreluKernelBackward0")
def prelu(input: Tensor, weight: Tensor) -> Tensor:  # noqa: A002
    r""":math:`x` for :math:`x > 0`, else :math:`a_c x`: one slope per channel (dimension 1), or one for all."""
    if weight.dtype is not input.dtype:
        raise RuntimeError(f"prelu: Type promoting not supported. Got {dtypes.scalar_type_name(input.dtype)} and "
                           f"{dtypes.scalar_type_name(weight.dtype)}")
    count = weight.numel()
    if count != 1:
        if input.dim() == 0:
            raise RuntimeError("Not allow zero-dim input tensor.")
        channels = input.shape[1] if input.dim() >= 2 else 1
        if count != channels:
            raise RuntimeError(
                "Mismatch of parameter numbers and input channel size. "
                f"Found parameter numbers = {count} and channel size = {channels}."
            )
    slopes = weight.reshape(()) if count == 1 else weight.reshape(-1, *(1,) * max(input.dim() - 2, 0))
    return where(input > 0, input, slopes * input)


def softmin(input: Tensor, dim: Optional[int] = None, _stacklevel: int = 3, dtype: Any = None) -> Tensor:  # noqa: A002
    r""":math:`e^{-x_i} / \sum_j e^{-x_j}` along ``dim``."""
    if dim is None:
        dim = _softmax_dim("softmin", input.dim())
    return softmax(-input, dim, dtype=dtype)


@names_its_node("GluBackward0")
def glu(input: Tensor, dim: int = -1) -> Tensor:  # noqa: A002
    r""":math:`a \otimes \sigma(b)` where :math:`a, b` are the two halves of ``input`` along ``dim``."""
    if input.dim() == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    d = normalize_dim(dim, input.dim())
    size = input.shape[d]
    if size % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {d} is size {size}")
    _check_floating(input, "glu_cpu")
    half = size // 2
    return input.narrow(d, 0, half) * input.narrow(d, half, half).sigmoid()


#: ``rrelu``'s default range of negative slopes, PyTorch's
RRELU_LOWER, RRELU_UPPER = 1.0 / 8.0, 1.0 / 3.0


@names_its_node("RreluWithNoiseBackward0")
def rrelu(input: Tensor, lower: float = RRELU_LOWER, upper: float = RRELU_UPPER, training: bool = False,  # noqa: A002
          inplace: bool = False) -> Tensor:
    r"""Randomized leaky ReLU: :math:`x` for :math:`x \ge 0`, else :math:`a x` with :math:`a` drawn
    uniformly from :math:`[\mathrm{lower}, \mathrm{upper}]` for each element in training, and
    :math:`(\mathrm{lower} + \mathrm{upper}) / 2` in evaluation."""
    _check_floating(input, "rrelu_with_noise_cpu")
    for name, bound in (("lower", lower), ("upper", upper)):
        if not math.isfinite(bound):
            raise RuntimeError(f"rrelu: {name} bound must be finite, got {bound}")
    if lower > upper:
        raise RuntimeError("Lower bound should be less than or equal to the upper bound")
    if training:
        from ...creation import rand_like

        slopes = rand_like(input.detach()) * (upper - lower) + lower
    else:
        slopes = (lower + upper) / 2.0
    return _in_place(input, lambda x: where(x >= 0, x, x * slopes), inplace, "RreluWithNoiseBackward1")


def rrelu_(input: Tensor, lower: float = RRELU_LOWER, upper: float = RRELU_UPPER, training: bool = False) -> Tensor:  # noqa: A002
    return rrelu(input, lower, upper, training, inplace=True)
