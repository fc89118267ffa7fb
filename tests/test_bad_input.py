"""Bad input gets PyTorch's error, never a silent wrong result (issue 15).

Every case is written once as a function of the library (``t``: ``minitorch`` or ``torch``)
and its ``nn.functional`` (``F``), and runs on both: the tables are checked against PyTorch
itself, so an expected error type and message, a value or a gradient here is PyTorch's
behaviour, not a copy of ours. Next to the bad inputs sit the valid inputs nearest to them
(a -1 that keeps a size, a crop that leaves nothing, a padding of exactly half a kernel),
so a check cannot reject what PyTorch accepts.
"""

from __future__ import annotations

import re
import warnings
from typing import Any, Callable, NamedTuple, Optional

import numpy as np
import pytest
from layer_helpers import assert_close

import minitorch
import minitorch.nn.functional as MF

NAN = float("nan")
Call = Callable[[Any, Any], Any]


class Bad(NamedTuple):
    """``call(t, F)`` raises ``error`` with a message matching ``pattern`` (PyTorch's message
    matching ``torch_pattern`` instead, where its wording is no help to a reader)."""

    id: str
    call: Call
    error: type[BaseException]
    pattern: str
    torch_pattern: Optional[str] = None


def lit(text: str) -> str:
    """A pattern matching ``text`` literally."""
    return re.escape(text)


def fill_view_of_leaf(t: Any, method: str) -> None:
    x = t.ones(3, requires_grad=True)
    view = x[0]
    {"fill_": lambda: view.fill_(3.0), "zero_": view.zero_, "add_": lambda: view.add_(1.0),
     "mul_": lambda: view.mul_(2.0), "copy_": lambda: view.copy_(t.tensor(2.0))}[method]()


def write_into_leaf(t: Any, method: str) -> None:
    x = t.ones(3, requires_grad=True)
    {"fill_": lambda: x.fill_(3.0), "zero_": x.zero_, "add_": lambda: x.add_(1.0),
     "mul_": lambda: x.mul_(2.0), "copy_": lambda: x.copy_(t.zeros(3))}[method]()


def assign_into_leaf(t: Any) -> None:
    x = t.ones(3, requires_grad=True)
    x[0] = 5.0


def view_then_require_grad(t: Any) -> None:
    x = t.ones(3)
    view = x[1:]
    x.requires_grad_()
    view.fill_(2.0)


def view_of_detached_leaf(t: Any) -> None:
    x = t.ones(3, requires_grad=True).detach().requires_grad_()
    x.view(3, 1)[0].fill_(2.0)


VIEW_OF_LEAF = lit("a view of a leaf Variable that requires grad is being used in an in-place operation.")
LEAF = lit("a leaf Variable that requires grad is being used in an in-place operation.")
NON_CONSTANT_PAD_SIZES = lit(
    "Supported combinations for non-constant padding:\n"
    "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
    "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
    "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)"
)

ERRORS = [
    # ---- shapes: negative sizes, -1 where it can't be inferred
    Bad("expand_negative_existing", lambda t, F: t.ones(3).expand(-2), RuntimeError,
        lit("The expanded size of the tensor (-2) must match the existing size (3) at non-singleton dimension 0.")),
    Bad("expand_minus_one_leading", lambda t, F: t.ones(3).expand(-1, 3), RuntimeError,
        lit("The expanded size of the tensor (-1) isn't allowed in a leading, non-existing dimension 0")),
    Bad("broadcast_to_minus_one_leading", lambda t, F: t.ones(3).broadcast_to((-1, 3)).sum(), RuntimeError,
        lit("The expanded size of the tensor (-1) isn't allowed in a leading, non-existing dimension 0")),
    Bad("expand_negative_singleton", lambda t, F: t.ones(1, 3).expand(-2, 3), RuntimeError,
        lit("The expanded size of the tensor (-2) must be non-negative"), lit("numel: integer multiplication overflow")),
    Bad("expand_negative_leading", lambda t, F: t.ones(3).expand(2, -3, 3), RuntimeError,
        lit("The expanded size of the tensor (-3) must be non-negative"), lit("numel: integer multiplication overflow")),
    Bad("view_two_unknowns", lambda t, F: t.ones(6).view(-1, -1), RuntimeError, lit("only one dimension can be inferred")),
    Bad("view_negative", lambda t, F: t.ones(6).view(-2, 3), RuntimeError,
        lit("invalid shape dimension -2 at index 0 of shape [-2, 3]")),
    Bad("reshape_negative", lambda t, F: t.ones(6).reshape(2, -3), RuntimeError,
        lit("invalid shape dimension -3 at index 1 of shape [2, -3]")),
    Bad("view_unknown_does_not_divide", lambda t, F: t.ones(6).view(-1, 4), RuntimeError,
        lit("shape '[-1, 4]' is invalid for input of size 6")),
    Bad("reshape_unknown_next_to_zero", lambda t, F: t.ones(6).reshape(0, -1), RuntimeError,
        lit("shape '[0, -1]' is invalid for input of size 6")),
    Bad("reshape_empty_ambiguous", lambda t, F: t.ones(0).reshape(0, -1), RuntimeError,
        lit("cannot reshape tensor of 0 elements into shape [0, -1] because the unspecified dimension size -1 "
            "can be any value and is ambiguous")),
    Bad("unflatten_does_not_multiply", lambda t, F: t.ones(6).unflatten(0, (-1, 4)), RuntimeError,
        lit("unflatten: Provided sizes [-1, 4] don't multiply up to the size of dim 0 (6) in the input tensor")),
    Bad("zeros_negative", lambda t, F: t.zeros(-1), RuntimeError, lit("zeros: Dimension size must be non-negative.")),
    Bad("ones_negative", lambda t, F: t.ones((2, -3)), RuntimeError,
        lit("Trying to create tensor with negative dimension -3: [2, -3]")),
    Bad("empty_negative", lambda t, F: t.empty(-1), RuntimeError, lit("Trying to create tensor with negative dimension -1: [-1]")),
    Bad("full_negative", lambda t, F: t.full((2, -5), 1.0), RuntimeError,
        lit("Trying to create tensor with negative dimension -5: [2, -5]")),
    Bad("rand_negative", lambda t, F: t.rand(2, -3), RuntimeError, lit("Trying to create tensor with negative dimension -3: [2, -3]")),
    Bad("randn_negative", lambda t, F: t.randn(-1), RuntimeError, lit("Trying to create tensor with negative dimension -1: [-1]")),
    Bad("randint_negative", lambda t, F: t.randint(0, 3, (-2,)), RuntimeError,
        lit("Trying to create tensor with negative dimension -2: [-2]")),
    Bad("tensor_constructor_negative", lambda t, F: t.Tensor(2, -1), RuntimeError,
        lit("Trying to create tensor with negative dimension -1: [2, -1]")),
    Bad("new_zeros_negative", lambda t, F: t.ones(2).new_zeros(-1), RuntimeError,
        lit("Trying to create tensor with negative dimension -1: [-1]")),
    Bad("eye_negative_n", lambda t, F: t.eye(-1), RuntimeError, lit("n must be greater or equal to 0, got -1")),
    Bad("eye_negative_m", lambda t, F: t.eye(2, -1), RuntimeError, lit("m must be greater or equal to 0, got -1")),
    Bad("arange_zero_step", lambda t, F: t.arange(0, 5, 0), RuntimeError, lit("step must be nonzero")),
    Bad("arange_wrong_sign", lambda t, F: t.arange(5, 0), RuntimeError, lit("upper bound and lower bound inconsistent with step sign")),
    Bad("arange_wrong_sign_negative_step", lambda t, F: t.arange(0, 5, -1), RuntimeError,
        lit("upper bound and lower bound inconsistent with step sign")),
    Bad("arange_negative_end", lambda t, F: t.arange(-1), RuntimeError, lit("upper bound and lower bound inconsistent with step sign")),
    Bad("arange_infinite", lambda t, F: t.arange(0, float("inf")), RuntimeError, lit("unsupported range: 0 -> inf")),
    Bad("linspace_negative_steps", lambda t, F: t.linspace(0, 1, -1), RuntimeError, lit("number of steps must be non-negative")),
    # ---- convolution
    Bad("conv1d_zero_dilation", lambda t, F: F.conv1d(t.ones(1, 1, 5), t.ones(1, 1, 2), dilation=0), RuntimeError,
        lit("dilation should be greater than zero, but got [1, 0]")),
    Bad("conv1d_negative_dilation", lambda t, F: F.conv1d(t.ones(1, 1, 5), t.ones(1, 1, 2), dilation=-1), RuntimeError,
        lit("dilation should be greater than zero")),
    Bad("conv2d_mixed_dilation", lambda t, F: F.conv2d(t.ones(1, 1, 4, 4), t.ones(1, 1, 2, 2), dilation=(2, -1)), RuntimeError,
        lit("dilation should be greater than zero")),
    Bad("conv2d_zero_dilation", lambda t, F: F.conv2d(t.ones(1, 1, 4, 4), t.ones(1, 1, 2, 2), dilation=(1, 0)), RuntimeError,
        lit("dilation should be greater than zero, but got [1, 0]")),
    Bad("conv1d_zero_stride", lambda t, F: F.conv1d(t.ones(1, 1, 5), t.ones(1, 1, 2), stride=0), RuntimeError,
        lit("non-positive stride is not supported")),
    Bad("conv1d_negative_stride", lambda t, F: F.conv1d(t.ones(1, 1, 5), t.ones(1, 1, 2), stride=-1), RuntimeError,
        lit("non-positive stride is not supported")),
    Bad("conv2d_zero_stride", lambda t, F: F.conv2d(t.ones(1, 1, 4, 4), t.ones(1, 1, 2, 2), stride=(1, 0)), RuntimeError,
        lit("non-positive stride is not supported")),
    Bad("conv1d_negative_padding", lambda t, F: F.conv1d(t.ones(1, 1, 5), t.ones(1, 1, 2), padding=-1), RuntimeError,
        lit("negative padding is not supported")),
    Bad("conv2d_negative_padding", lambda t, F: F.conv2d(t.ones(1, 1, 4, 4), t.ones(1, 1, 2, 2), padding=-1), RuntimeError,
        lit("negative padding is not supported")),
    Bad("conv2d_negative_padding_before_channels", lambda t, F: F.conv2d(t.ones(1, 2, 4, 4), t.ones(1, 1, 2, 2), padding=(0, -1)),
        RuntimeError, lit("negative padding is not supported")),
    Bad("conv1d_kernel_larger_than_input", lambda t, F: F.conv1d(t.ones(1, 1, 5), t.ones(1, 1, 6)), RuntimeError,
        lit("Calculated padded input size per channel: (5). Kernel size: (6). Kernel size can't be greater than actual input size")),
    Bad("conv1d_dilated_kernel_larger_than_input", lambda t, F: F.conv1d(t.ones(1, 1, 5), t.ones(1, 1, 3), dilation=3), RuntimeError,
        lit("Calculated padded input size per channel: (5). Kernel size: (7).")),
    Bad("conv2d_kernel_larger_than_input", lambda t, F: F.conv2d(t.ones(1, 1, 4, 4), t.ones(1, 1, 2, 5)), RuntimeError,
        lit("Calculated padded input size per channel: (4 x 4). Kernel size: (2 x 5).")),
    Bad("conv1d_empty_kernel", lambda t, F: F.conv1d(t.ones(1, 1, 5), t.ones(1, 1, 0)), RuntimeError,
        lit("kernel size should be greater than zero, but got kernel_height: 1 kernel_width: 0")),
    Bad("conv2d_groups_do_not_divide_weight", lambda t, F: F.conv2d(t.ones(1, 4, 4, 4), t.ones(3, 2, 2, 2), groups=2), RuntimeError,
        lit("Given groups=2, expected weight to be divisible by 2 at dimension 0, but got weight of size [[3, 2, 2, 2]] instead")),
    Bad("conv1d_groups_do_not_match_channels", lambda t, F: F.conv1d(t.ones(1, 3, 5), t.ones(2, 1, 2), groups=2), RuntimeError,
        lit("Given groups=2, weight of size [2, 1, 2], expected input[1, 3, 5] to have 2 channels, but got 3 channels instead")),
    Bad("conv1d_zero_groups", lambda t, F: F.conv1d(t.ones(1, 4, 5), t.ones(2, 2, 2), groups=0), RuntimeError,
        lit("non-positive groups is not supported")),
    Bad("conv2d_bad_padding_string", lambda t, F: F.conv2d(t.ones(1, 1, 4, 4), t.ones(1, 1, 2, 2), padding="bogus"), RuntimeError,
        lit("Invalid padding string: 'bogus'")),
    Bad("conv2d_module_zero_stride", lambda t, F: t.nn.Conv2d(1, 1, 2, stride=0)(t.ones(1, 1, 4, 4)), RuntimeError,
        lit("non-positive stride is not supported")),
    Bad("conv1d_module_zero_dilation", lambda t, F: t.nn.Conv1d(1, 1, 2, dilation=0)(t.ones(1, 1, 4)), RuntimeError,
        lit("dilation should be greater than zero, but got [1, 0]")),
    Bad("conv2d_module_groups", lambda t, F: t.nn.Conv2d(3, 2, 2, groups=2), ValueError, lit("in_channels must be divisible by groups")),
    # ---- pooling (2-D words and 1-D pooling seen as 2-D of height 1, as PyTorch words them)
    Bad("max_pool2d_zero_stride", lambda t, F: F.max_pool2d(t.ones(1, 1, 4, 4), 2, stride=0), RuntimeError,
        lit("stride should not be zero")),
    Bad("max_pool2d_zero_kernel", lambda t, F: F.max_pool2d(t.ones(1, 1, 4, 4), 0), RuntimeError, lit("stride should not be zero")),
    Bad("max_pool2d_zero_kernel_with_stride", lambda t, F: F.max_pool2d(t.ones(1, 1, 4, 4), (2, 0), stride=1), RuntimeError,
        lit("kernel size should be greater than zero, but got kH: 2 kW: 0")),
    Bad("max_pool2d_negative_kernel", lambda t, F: F.max_pool2d(t.ones(1, 1, 4, 4), -1), RuntimeError,
        lit("kernel size should be greater than zero, but got kH: -1 kW: -1")),
    Bad("max_pool2d_negative_stride", lambda t, F: F.max_pool2d(t.ones(1, 1, 4, 4), 2, stride=(1, -1)), RuntimeError,
        lit("stride should be greater than zero, but got dH: 1 dW: -1")),
    Bad("max_pool2d_zero_dilation", lambda t, F: F.max_pool2d(t.ones(1, 1, 4, 4), 2, dilation=(1, 0)), RuntimeError,
        lit("dilation should be greater than zero, but got dilationH: 1 dilationW: 0")),
    Bad("max_pool2d_negative_padding", lambda t, F: F.max_pool2d(t.ones(1, 1, 4, 4), 2, padding=(0, -1)), RuntimeError,
        lit("pad must be non-negative, but got pad: -1")),
    Bad("max_pool2d_padding_over_half", lambda t, F: F.max_pool2d(t.ones(1, 1, 4, 4), 2, padding=2), RuntimeError,
        lit("pad should be at most half of effective kernel size, but got pad=2, kernel_size=2 and dilation=1")),
    Bad("max_pool2d_padding_over_half_of_undilated", lambda t, F: F.max_pool2d(t.ones(1, 1, 8, 8), 2, padding=2, dilation=3),
        RuntimeError, lit("pad should be smaller than or equal to half of kernel size, but got padW = 2, padH = 2, kW = 2, kH = 2")),
    Bad("max_pool2d_kernel_larger_than_input", lambda t, F: F.max_pool2d(t.ones(1, 1, 4, 4), 5), RuntimeError,
        lit("Given input size: (1x4x4). Calculated output size: (1x0x0). Output size is too small")),
    Bad("max_pool2d_with_indices_zero_stride", lambda t, F: F.max_pool2d(t.ones(1, 1, 4, 4), 2, stride=0, return_indices=True),
        RuntimeError, lit("stride should not be zero")),
    Bad("max_pool1d_zero_stride", lambda t, F: F.max_pool1d(t.ones(1, 1, 4), 2, stride=0), RuntimeError,
        lit("max_pool1d() stride must be greater than zero, but got 0")),
    Bad("max_pool1d_zero_kernel", lambda t, F: F.max_pool1d(t.ones(1, 1, 4), 0), RuntimeError,
        lit("max_pool1d() kernel_size must be greater than zero, but got 0")),
    Bad("max_pool1d_negative_stride", lambda t, F: F.max_pool1d(t.ones(1, 1, 4), 2, stride=-1), RuntimeError,
        lit("max_pool1d() stride must be greater than zero, but got -1")),
    Bad("max_pool1d_negative_padding", lambda t, F: F.max_pool1d(t.ones(1, 1, 4), 2, padding=-1), RuntimeError,
        lit("max_pool1d() padding must be non-negative, but got -1")),
    Bad("max_pool1d_padding_over_half", lambda t, F: F.max_pool1d(t.ones(1, 1, 4), 2, padding=2), RuntimeError,
        lit("max_pool1d() padding should be at most half of kernel size, but got padding=2 and kernel_size=2")),
    Bad("max_pool1d_negative_dilation", lambda t, F: F.max_pool1d(t.ones(1, 1, 4), 2, dilation=-1), RuntimeError,
        lit("max_pool1d() dilation must be greater than zero, but got -1")),
    Bad("max_pool1d_kernel_larger_than_input", lambda t, F: F.max_pool1d(t.ones(1, 1, 4), 5), RuntimeError,
        lit("max_pool1d() Invalid computed output size: 0")),
    Bad("max_pool1d_with_indices_zero_dilation", lambda t, F: F.max_pool1d(t.ones(1, 1, 4), 2, dilation=0, return_indices=True),
        RuntimeError, lit("dilation should be greater than zero, but got dilationH: 1 dilationW: 0")),
    Bad("max_pool1d_with_indices_too_small", lambda t, F: F.max_pool1d(t.ones(1, 1, 4), 2, dilation=4, return_indices=True),
        RuntimeError, lit("Given input size: (1x1x4). Calculated output size: (1x1x0). Output size is too small")),
    Bad("avg_pool2d_zero_stride", lambda t, F: F.avg_pool2d(t.ones(1, 1, 4, 4), 2, stride=(1, 0)), RuntimeError,
        lit("stride should not be zero")),
    Bad("avg_pool2d_zero_kernel", lambda t, F: F.avg_pool2d(t.ones(1, 1, 4, 4), 0, stride=1), RuntimeError,
        lit("kernel size should be greater than zero, but got kH: 0 kW: 0")),
    Bad("avg_pool2d_negative_stride", lambda t, F: F.avg_pool2d(t.ones(1, 1, 4, 4), 2, stride=-1), RuntimeError,
        lit("stride should be greater than zero, but got dH: -1 dW: -1")),
    Bad("avg_pool2d_negative_padding", lambda t, F: F.avg_pool2d(t.ones(1, 1, 4, 4), 2, padding=-1), RuntimeError,
        lit("pad must be non-negative, but got pad: -1")),
    Bad("avg_pool2d_zero_divisor", lambda t, F: F.avg_pool2d(t.ones(1, 1, 4, 4), 2, divisor_override=0), RuntimeError,
        lit("divisor must be not zero")),
    Bad("avg_pool1d_zero_stride", lambda t, F: F.avg_pool1d(t.ones(1, 1, 4), 2, stride=0), RuntimeError,
        lit("stride should not be zero")),
    Bad("avg_pool1d_zero_kernel", lambda t, F: F.avg_pool1d(t.ones(1, 1, 4), 0, stride=1), RuntimeError,
        lit("kernel size should be greater than zero, but got kH: 1 kW: 0")),
    Bad("avg_pool1d_negative_stride", lambda t, F: F.avg_pool1d(t.ones(1, 1, 4), 2, stride=-1), RuntimeError,
        lit("stride should be greater than zero, but got dH: 1 dW: -1")),
    Bad("avg_pool1d_kernel_larger_than_input", lambda t, F: F.avg_pool1d(t.ones(2, 3, 4), 5), RuntimeError,
        lit("Given input size: (3x1x4). Calculated output size: (3x1x0). Output size is too small")),
    Bad("max_pool2d_module_zero_stride", lambda t, F: t.nn.MaxPool2d(2, stride=0)(t.ones(1, 1, 4, 4)), RuntimeError,
        lit("stride should not be zero")),
    Bad("max_pool1d_module_zero_stride", lambda t, F: t.nn.MaxPool1d(2, stride=0)(t.ones(1, 1, 4)), RuntimeError,
        lit("max_pool1d() stride must be greater than zero, but got 0")),
    Bad("avg_pool2d_module_zero_kernel", lambda t, F: t.nn.AvgPool2d(0)(t.ones(1, 1, 4, 4)), RuntimeError,
        lit("stride should not be zero")),
    Bad("avg_pool1d_module_zero_stride", lambda t, F: t.nn.AvgPool1d(2, stride=0)(t.ones(1, 1, 4)), RuntimeError,
        lit("stride should not be zero")),
    Bad("adaptive_avg_pool2d_negative", lambda t, F: F.adaptive_avg_pool2d(t.ones(1, 1, 4, 4), (2, -1)), RuntimeError,
        lit("adaptive_avg_pool2d: elements of output_size must be greater than or equal to 0 but received {2, -1}")),
    Bad("adaptive_avg_pool1d_negative", lambda t, F: F.adaptive_avg_pool1d(t.ones(1, 1, 4), -1), RuntimeError,
        lit("adaptive_avg_pool2d: elements of output_size must be greater than or equal to 0 but received {1, -1}")),
    # ---- padding
    Bad("pad_crops_more_than_size", lambda t, F: F.pad(t.ones(3), (-5, 0)), RuntimeError, lit("narrow(): length must be non-negative.")),
    Bad("pad_crops_both_sides_past_size", lambda t, F: F.pad(t.ones(3), (-2, -2)), RuntimeError,
        lit("narrow(): length must be non-negative.")),
    Bad("pad_crops_then_grows", lambda t, F: F.pad(t.ones(3), (-4, 2)), RuntimeError, lit("narrow(): length must be non-negative.")),
    Bad("pad_crops_outer_dimension", lambda t, F: F.pad(t.ones(2, 3), (0, 0, -3, 0)), RuntimeError,
        lit("narrow(): length must be non-negative.")),
    Bad("pad_odd_length", lambda t, F: F.pad(t.ones(3), (1, 1, 1)), RuntimeError, lit("Padding length must be divisible by 2")),
    Bad("pad_too_long", lambda t, F: F.pad(t.ones(3), (1, 1, 1, 1)), RuntimeError,
        lit("Padding length should be less than or equal to two times the input dimension but got padding length 4 and input of dimension 1")),
    Bad("pad_float_amount", lambda t, F: F.pad(t.ones(1, 2, 3), (1.5, 0)), TypeError,
        lit("pad(): argument 'pad' (position 2) must be tuple of ints, but found element of type float at pos 0")),
    Bad("pad_unknown_mode", lambda t, F: F.pad(t.ones(1, 2, 3), (1, 0), mode="bogus"), NotImplementedError,
        lit("Unrecognised padding mode bogus")),
    Bad("pad_reflect_1d_input", lambda t, F: F.pad(t.ones(3), (1, 0), mode="reflect"), NotImplementedError,
        lit("Padding size 2 is not supported for 1D input tensor.\n") + NON_CONSTANT_PAD_SIZES),
    Bad("pad_replicate_too_many_dims", lambda t, F: F.pad(t.ones(1, 2, 3), (1, 0, 1, 0, 1, 0), mode="replicate"),
        NotImplementedError, lit("Padding size 6 is not supported for 3D input tensor.")),
    Bad("pad_circular_2d_input_two_dims", lambda t, F: F.pad(t.ones(2, 3), (1, 0, 1, 0), mode="circular"), NotImplementedError,
        lit("Padding size 4 is not supported for 2D input tensor.")),
    Bad("pad_reflect_value", lambda t, F: F.pad(t.ones(1, 2, 3), (1, 0), mode="reflect", value=2.0), RuntimeError,
        lit('Padding mode "reflect" doesn\'t take in value argument')),
    Bad("pad_reflect_as_wide_as_input", lambda t, F: F.pad(t.ones(1, 2, 3), (3, -1), mode="reflect"), RuntimeError,
        lit("Argument #4: Padding size should be less than the corresponding input dimension, but got: padding (3, -1) "
            "at dimension 2 of input [1, 2, 3]")),
    Bad("pad_reflect_crops_everything", lambda t, F: F.pad(t.ones(2, 3), (-2, -1), mode="reflect"), RuntimeError,
        lit("input (W: 3) is too small. Calculated output W: 0")),
    Bad("pad_replicate_crops_past_size", lambda t, F: F.pad(t.ones(2, 3), (0, -4), mode="replicate"), RuntimeError,
        lit("input (W: 3) is too small. Calculated output W: -1")),
    Bad("pad_replicate_2d_crops_past_size", lambda t, F: F.pad(t.ones(1, 2, 3), (0, 0, -3, 0), mode="replicate"), RuntimeError,
        lit("Trying to create tensor with negative dimension -1: [1, -1, 3]")),
    Bad("pad_circular_crops_past_size", lambda t, F: F.pad(t.ones(1, 2, 3), (-2, -2), mode="circular"), RuntimeError,
        lit("Negative padding value is resulting in an empty dimension")),
    Bad("pad_circular_wraps_twice", lambda t, F: F.pad(t.ones(1, 2, 3), (4, 0), mode="circular"), RuntimeError,
        lit("Padding value causes wrapping around more than once.")),
    # ---- integer powers
    Bad("int_tensor_negative_power", lambda t, F: t.tensor([2]) ** -1, RuntimeError,
        lit("Integers to negative integer powers are not allowed.")),
    Bad("int_scalar_tensor_negative_power", lambda t, F: t.tensor(2) ** -2, RuntimeError,
        lit("Integers to negative integer powers are not allowed.")),
    Bad("int32_pow_method_negative", lambda t, F: t.tensor([2], dtype=t.int32).pow(-1), RuntimeError,
        lit("Integers to negative integer powers are not allowed.")),
    Bad("bool_negative_power", lambda t, F: t.tensor([True]) ** -1, RuntimeError,
        lit("Integers to negative integer powers are not allowed.")),
    Bad("one_negative_power", lambda t, F: t.tensor([1]) ** -1, RuntimeError,
        lit("Integers to negative integer powers are not allowed.")),
    # ---- binary cross-entropy
    Bad("bce_nan_input", lambda t, F: F.binary_cross_entropy(t.tensor([NAN]), t.tensor([1.0])), RuntimeError,
        lit("all elements of input should be between 0 and 1")),
    Bad("bce_input_above_one", lambda t, F: F.binary_cross_entropy(t.tensor([1.5]), t.tensor([1.0])), RuntimeError,
        lit("all elements of input should be between 0 and 1")),
    Bad("bce_target_above_one", lambda t, F: F.binary_cross_entropy(t.tensor([0.5]), t.tensor([1.5])), RuntimeError,
        lit("all elements of target should be between 0 and 1")),
    Bad("bce_target_negative", lambda t, F: F.binary_cross_entropy(t.tensor([0.5]), t.tensor([-0.5])), RuntimeError,
        lit("all elements of target should be between 0 and 1")),
    Bad("bce_nan_target", lambda t, F: F.binary_cross_entropy(t.tensor([0.5]), t.tensor([NAN])), RuntimeError,
        lit("all elements of target should be between 0 and 1")),
    Bad("bce_unknown_reduction", lambda t, F: F.binary_cross_entropy(t.tensor([0.5]), t.tensor([1.0]), reduction="bogus"),
        ValueError, lit("bogus is not a valid value for reduction")),
    Bad("bce_unknown_reduction_before_range", lambda t, F: F.binary_cross_entropy(t.tensor([NAN]), t.tensor([1.0]), reduction="avg"),
        ValueError, lit("avg is not a valid value for reduction")),
    Bad("bce_integer_target", lambda t, F: F.binary_cross_entropy(t.tensor([0.5]), t.tensor([1])), RuntimeError,
        lit("Found dtype Long but expected Float")),
    Bad("bce_weight_grows_the_loss", lambda t, F: F.binary_cross_entropy(t.tensor([0.5]), t.tensor([1.0]), weight=t.tensor([1.0, 2.0])),
        RuntimeError, lit("output with shape [1] doesn't match the broadcast shape [2]")),
    Bad("bce_module_unknown_reduction", lambda t, F: t.nn.BCELoss(reduction="bogus")(t.tensor([0.5]), t.tensor([1.0])), ValueError,
        lit("bogus is not a valid value for reduction")),
    Bad("mse_unknown_reduction", lambda t, F: F.mse_loss(t.tensor([0.5]), t.tensor([1.0]), reduction="bogus"), ValueError,
        lit("bogus is not a valid value for reduction")),
    Bad("cross_entropy_unknown_reduction", lambda t, F: F.cross_entropy(t.tensor([[0.5, 0.1]]), t.tensor([1]), reduction="bogus"),
        ValueError, lit("bogus is not a valid value for reduction")),
    # ---- in-place writes into leaves that require grad, and views of them
    *[Bad(f"{method}_view_of_leaf", lambda t, F, m=method: fill_view_of_leaf(t, m), RuntimeError, VIEW_OF_LEAF)
      for method in ("fill_", "zero_", "add_", "mul_", "copy_")],
    *[Bad(f"{method}_leaf", lambda t, F, m=method: write_into_leaf(t, m), RuntimeError, LEAF)
      for method in ("fill_", "zero_", "add_", "mul_", "copy_")],
    Bad("setitem_leaf", lambda t, F: assign_into_leaf(t), RuntimeError, VIEW_OF_LEAF),
    Bad("view_made_before_requires_grad", lambda t, F: view_then_require_grad(t), RuntimeError, VIEW_OF_LEAF),
    Bad("view_of_view_of_leaf", lambda t, F: view_of_detached_leaf(t), RuntimeError, VIEW_OF_LEAF),
    # ---- integer tensors never require grad
    Bad("requires_grad_on_long", lambda t, F: t.ones(3, requires_grad=True).long().requires_grad_(), RuntimeError,
        lit("only Tensors of floating point dtype can require gradients")),
    Bad("requires_grad_setter_on_bool", lambda t, F: setattr(t.ones(3, dtype=t.bool), "requires_grad", True), RuntimeError,
        lit("only Tensors of floating point and complex dtype can require gradients")),
    Bad("factory_integer_requires_grad", lambda t, F: t.tensor([1, 2], requires_grad=True), RuntimeError,
        lit("Only Tensors of floating point and complex dtype can require gradients")),
    Bad("filled_integer_requires_grad", lambda t, F: t.zeros(3, dtype=t.int32, requires_grad=True), RuntimeError,
        lit("Only Tensors of floating point and complex dtype can require gradients")),
    Bad("backward_through_long", lambda t, F: t.ones(3, requires_grad=True).long().sum().backward(), RuntimeError,
        lit("element 0 of tensors does not require grad and does not have a grad_fn")),
    Bad("retain_grad_on_long", lambda t, F: t.ones(3, requires_grad=True).long().retain_grad(), RuntimeError,
        lit("can't retain_grad on Tensor that has requires_grad=False")),
    Bad("hook_on_comparison", lambda t, F: (t.ones(3, requires_grad=True) > 0).register_hook(lambda g: g), RuntimeError,
        lit("cannot register a hook on a tensor that doesn't require gradient")),
    Bad("amax_empty_dim", lambda t, F: t.ones(2, 0).amax(1), IndexError, lit("amax(): Expected reduction dim 1 to have non-zero size.")),
]


def raised_by(call: Call, library: Any, functional: Any) -> BaseException:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # PyTorch warns about some of these calls on the way
        try:
            call(library, functional)
        except Exception as error:  # noqa: BLE001 - the test inspects whatever was raised
            return error
    raise AssertionError("no exception was raised")


def check_raised(error: BaseException, case: Bad, pattern: str) -> None:
    # NotImplementedError is a RuntimeError: a table row for RuntimeError must not accept it
    wrong_kind = case.error is RuntimeError and isinstance(error, NotImplementedError)
    assert isinstance(error, case.error) and not wrong_kind, f"expected {case.error.__name__}, got {type(error).__name__}: {error}"
    assert re.search(pattern, str(error)), f"message {str(error)!r} does not match {pattern!r}"


@pytest.mark.parametrize("case", ERRORS, ids=[c.id for c in ERRORS])
def test_bad_input_raises(backend: str, case: Bad) -> None:
    check_raised(raised_by(case.call, minitorch, MF), case, case.pattern)


@pytest.mark.parametrize("case", ERRORS, ids=[c.id for c in ERRORS])
def test_the_table_is_pytorchs(torch_ref, case: Bad) -> None:
    """The expected error of every row is the one PyTorch raises."""
    check_raised(raised_by(case.call, torch_ref, torch_ref.nn.functional), case, case.torch_pattern or case.pattern)


# ------------------------------------------------------------- the valid inputs next to them

VALID: list[tuple[str, Call]] = [
    ("expand_minus_one_keeps", lambda t, F: t.arange(3.0).expand(2, -1)),
    ("expand_minus_one_on_singleton", lambda t, F: t.ones(1, 3).expand(-1, 3)),
    ("expand_singleton_to_zero", lambda t, F: t.ones(1).expand(0)),
    ("broadcast_to_minus_one", lambda t, F: t.arange(3.0).broadcast_to((2, -1))),
    ("view_infers_one", lambda t, F: t.arange(6.0).view(2, 3, -1)),
    ("reshape_empty_infers", lambda t, F: t.ones(0).reshape(2, -1)),
    ("reshape_empty_rows", lambda t, F: t.ones(0, 3).reshape(-1, 3)),
    ("unflatten_infers", lambda t, F: t.arange(6.0).unflatten(0, (-1, 3))),
    ("zeros_empty", lambda t, F: t.zeros(0, 2)),
    ("arange_counts_down", lambda t, F: t.arange(5, 0, -1)),
    ("arange_empty", lambda t, F: t.arange(3, 3)),
    ("linspace_empty", lambda t, F: t.linspace(0, 1, 0)),
    ("eye_empty", lambda t, F: t.eye(0, 2)),
    ("conv1d_padding_makes_room", lambda t, F: F.conv1d(t.arange(5.0).view(1, 1, 5), t.ones(1, 1, 7), padding=1)),
    ("conv2d_kernel_as_large_as_input", lambda t, F: F.conv2d(t.arange(16.0).view(1, 1, 4, 4), t.ones(1, 1, 4, 4))),
    ("conv2d_dilation_fits", lambda t, F: F.conv2d(t.arange(25.0).view(1, 1, 5, 5), t.ones(1, 1, 3, 3), dilation=2)),
    ("conv2d_groups", lambda t, F: F.conv2d(t.arange(64.0).view(1, 4, 4, 4), t.ones(2, 2, 2, 2), groups=2, stride=2)),
    ("max_pool2d_half_kernel_padding", lambda t, F: F.max_pool2d(t.arange(16.0).view(1, 1, 4, 4), 4, padding=2)),
    ("max_pool2d_dilated_padding", lambda t, F: F.max_pool2d(t.arange(64.0).view(1, 1, 8, 8), 3, padding=1, dilation=2)),
    ("max_pool2d_ceil_mode", lambda t, F: F.max_pool2d(t.arange(16.0).view(1, 1, 4, 4), 3, stride=2, ceil_mode=True)),
    ("max_pool1d_kernel_as_large_as_input", lambda t, F: F.max_pool1d(t.arange(4.0).view(1, 1, 4), 4)),
    ("avg_pool2d_half_kernel_padding", lambda t, F: F.avg_pool2d(t.arange(16.0).view(1, 1, 4, 4), 2, padding=1)),
    ("avg_pool1d_stride_one", lambda t, F: F.avg_pool1d(t.arange(4.0).view(1, 1, 4), 2, stride=1)),
    ("avg_pool2d_negative_divisor", lambda t, F: F.avg_pool2d(t.arange(16.0).view(1, 1, 4, 4), 2, divisor_override=-1)),
    ("adaptive_avg_pool2d_zero", lambda t, F: F.adaptive_avg_pool2d(t.ones(1, 1, 4, 4), (0, 2))),
    ("adaptive_avg_pool1d_zero", lambda t, F: F.adaptive_avg_pool1d(t.ones(1, 1, 4), 0)),
    ("pad_crops_to_nothing", lambda t, F: F.pad(t.ones(3), (-3, 0))),
    ("pad_crops_and_grows", lambda t, F: F.pad(t.arange(3.0), (-1, 2))),
    ("pad_crops_both_sides_to_nothing", lambda t, F: F.pad(t.ones(3), (-2, -1))),
    ("pad_reflect_crop_one_side_reflect_other", lambda t, F: F.pad(t.arange(3.0).view(1, 1, 3), (-1, 2), mode="reflect")),
    ("pad_reflect_reflect_one_side_crop_other", lambda t, F: F.pad(t.arange(3.0).view(1, 1, 3), (2, -1), mode="reflect")),
    ("pad_reflect_2d_mixed", lambda t, F: F.pad(t.arange(6.0).view(1, 1, 2, 3), (-1, 2, 1, -1), mode="reflect")),
    ("pad_replicate_mixed", lambda t, F: F.pad(t.arange(3.0).view(1, 1, 3), (2, -1), mode="replicate")),
    ("pad_replicate_2d_crops_to_nothing", lambda t, F: F.pad(t.ones(1, 2, 3), (0, 0, -2, 0), mode="replicate")),
    ("pad_circular_mixed", lambda t, F: F.pad(t.arange(3.0).view(1, 1, 3), (-1, 2), mode="circular")),
    ("pad_circular_crops_to_nothing", lambda t, F: F.pad(t.ones(1, 2, 3), (-2, -1), mode="circular")),
    ("pad_circular_whole_size", lambda t, F: F.pad(t.arange(3.0).view(1, 1, 3), (3, 0), mode="circular")),
    ("int_power_zero", lambda t, F: t.tensor([2, -3]) ** 0),
    ("int_power_float_negative", lambda t, F: t.tensor([2, 4]) ** -1.0),
    ("float_power_int_negative", lambda t, F: t.tensor([2.0, 4.0]) ** -1),
    ("int_power_negative_int_tensor", lambda t, F: t.tensor([0, 1, -1, 2, -2, 3]) ** t.tensor([-1, -1, -1, -1, -1, -2])),
    ("int_power_negative_int_tensor_even", lambda t, F: t.tensor([0, 1, -1, 2]) ** t.tensor([-2, -2, -2, -3])),
    ("int32_power_broadcast", lambda t, F: t.tensor([[0], [2]], dtype=t.int32) ** t.tensor([-1, 2], dtype=t.int32)),
    ("bool_power_int_tensor", lambda t, F: t.tensor([True, False]) ** t.tensor([-1, -1])),
    ("number_power_negative_int_tensor", lambda t, F: 2 ** t.tensor([-1, 0, 1])),
    ("bce_at_the_bounds", lambda t, F: F.binary_cross_entropy(t.tensor([0.0, 1.0, 0.5]), t.tensor([1.0, 1.0, 0.0]))),
    ("bce_broadcast_weight", lambda t, F: F.binary_cross_entropy(t.tensor([[0.5, 0.2]]), t.tensor([[1.0, 0.0]]), weight=t.tensor([2.0]))),
    ("bce_with_logits_target_outside", lambda t, F: F.binary_cross_entropy_with_logits(t.tensor([0.5]), t.tensor([1.5]))),
    ("max_with_nan", lambda t, F: t.tensor([1.0, NAN, 2.0]).max()),
    ("amax_with_nan", lambda t, F: t.tensor([[1.0, NAN], [2.0, 1.0]]).amax(1)),
    ("amin_keepdim", lambda t, F: t.tensor([[1.0, 3.0], [2.0, 0.0]]).amin(0, keepdim=True)),
    ("maximum_with_nan", lambda t, F: t.maximum(t.tensor([1.0, NAN, NAN]), t.tensor([NAN, 1.0, NAN]))),
    ("clamp_nan", lambda t, F: t.tensor([1.0, NAN, 2.0]).clamp(1.5, 1.8)),
    ("clamp_int_with_float_bound", lambda t, F: t.tensor([-3, 0, 5]).clamp(min=-1.5)),
]


def _as_array(value: Any) -> np.ndarray:
    value = value.detach() if hasattr(value, "detach") else value
    return np.asarray(value.tolist(), dtype=np.float64).reshape(tuple(value.shape))


@pytest.mark.parametrize("case", VALID, ids=[c[0] for c in VALID])
def test_valid_input_nearby_matches_torch(backend: str, torch_ref, case: tuple[str, Call]) -> None:
    _, call = case
    mine, theirs = call(minitorch, MF), call(torch_ref, torch_ref.nn.functional)
    assert str(mine.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    expected = _as_array(theirs)
    assert _as_array(mine).shape == expected.shape
    np.testing.assert_allclose(_as_array(mine), expected, rtol=1e-6, atol=0, equal_nan=True)


# ----------------------------------------------------- gradients where NaN or a tie is involved

GRADIENTS: list[tuple[str, list[list], Callable[..., Any]]] = [
    ("max_nan", [[1.0, NAN]], lambda t, x: x.max()),
    ("min_nan", [[1.0, NAN]], lambda t, x: x.min()),
    ("max_two_nans", [[NAN, 1.0, NAN]], lambda t, x: x.max()),
    ("max_nan_2d", [[[1.0, NAN], [NAN, 2.0]]], lambda t, x: x.max()),
    ("max_ties", [[3.0, 1.0, 3.0]], lambda t, x: x.max()),
    ("max_dim_nan", [[[1.0, NAN], [2.0, 1.0]]], lambda t, x: x.max(1).values),
    ("min_dim_nan", [[[1.0, NAN], [2.0, 1.0]]], lambda t, x: x.min(0).values),
    ("max_dim_all_nan_row", [[[NAN, NAN], [2.0, 1.0]]], lambda t, x: x.max(1).values),
    ("amax_nan", [[[1.0, NAN], [2.0, 2.0]]], lambda t, x: x.amax(1)),
    ("amax_ties", [[[2.0, 2.0], [2.0, 1.0]]], lambda t, x: x.amax()),
    ("amax_two_dims_keepdim", [[[[1.0, 4.0], [4.0, 0.0]], [[3.0, 3.0], [1.0, 2.0]]]], lambda t, x: x.amax((0, 2), keepdim=True)),
    ("amin_nan", [[[1.0, NAN], [2.0, 2.0]]], lambda t, x: x.amin(1)),
    ("maximum_nan", [[1.0, NAN, NAN, 2.0], [NAN, 1.0, NAN, 2.0]], lambda t, a, b: t.maximum(a, b)),
    ("minimum_nan", [[1.0, NAN, NAN, 2.0], [NAN, 1.0, NAN, 2.0]], lambda t, a, b: t.minimum(a, b)),
    ("maximum_broadcast_ties", [[[1.0], [3.0]], [1.0, 2.0, 3.0]], lambda t, a, b: t.maximum(a, b)),
    ("clamp_at_bounds", [[1.0, NAN, 2.0, 1.5, 1.8]], lambda t, x: x.clamp(1.5, 1.8)),
    ("clamp_min_at_bound", [[1.5, NAN, 2.0]], lambda t, x: x.clamp(min=1.5)),
    ("clamp_max_at_bound", [[1.5, NAN, 2.0]], lambda t, x: x.clamp(max=1.5)),
]


def gradients(library: Any, call: Callable[..., Any], inputs: list[list], device: str = "cpu") -> tuple[Any, list[Any]]:
    """``call``'s output and the gradients of its inputs (leaves of float64 on ``device``) of the
    output weighted by 1, 2, 3, ... (so each output element's path is told apart)."""
    leaves = [library.tensor(x, dtype=library.float64, device=device, requires_grad=True) for x in inputs]
    out = call(library, *leaves)
    weights = library.arange(1, out.numel() + 1, dtype=library.float64, device=device).reshape(out.shape)
    (out * weights).sum().backward()
    return out, [leaf.grad for leaf in leaves]


@pytest.mark.parametrize("case", GRADIENTS, ids=[c[0] for c in GRADIENTS])
def test_gradients_with_nan_and_ties_match_torch(backend: str, torch_ref, case: tuple[str, list[list], Callable[..., Any]]) -> None:
    _, inputs, call = case
    out, grads = gradients(minitorch, call, inputs)
    expected_out, expected_grads = gradients(torch_ref, call, inputs)
    assert_close(out, expected_out)
    for i, (grad, expected) in enumerate(zip(grads, expected_grads)):
        assert_close(grad, expected, what=f"gradient of input {i}")


# --------------------------------------- integer results, and overwritten values in the graph

CONVERSIONS: list[tuple[str, Callable[[Any, Any], Any]]] = [
    ("long", lambda t, x: x.long()),
    ("int", lambda t, x: x.int()),
    ("bool", lambda t, x: x.bool()),
    ("to_int64", lambda t, x: x.to(t.int64)),
    ("to_dtype_int32", lambda t, x: x.to(dtype=t.int32)),
    ("type_as_long", lambda t, x: x.type_as(t.ones(1, dtype=t.int64))),
    ("double_then_long", lambda t, x: x.double().long()),
    ("long_then_float", lambda t, x: x.long().float()),
    ("long_times_two", lambda t, x: x.long() * 2),
    ("long_sum", lambda t, x: x.long().sum()),
    ("long_slice", lambda t, x: x.long()[0]),
    ("long_clone", lambda t, x: x.long().clone()),
    ("where_long", lambda t, x: t.where(x > 0, x.long(), 0)),
    ("argmax", lambda t, x: x.argmax()),
    ("max_indices", lambda t, x: x.max(0).indices),
    ("comparison", lambda t, x: x > 0),
    ("double", lambda t, x: x.double()),
    ("half", lambda t, x: x.half()),
]


@pytest.mark.parametrize("case", CONVERSIONS, ids=[c[0] for c in CONVERSIONS])
def test_integer_results_never_require_grad(backend: str, torch_ref, case: tuple[str, Callable[[Any, Any], Any]]) -> None:
    _, call = case
    mine = call(minitorch, minitorch.tensor([1.5, -2.0, 3.0], requires_grad=True))
    theirs = call(torch_ref, torch_ref.tensor([1.5, -2.0, 3.0], requires_grad=True))
    assert (mine.requires_grad, mine.grad_fn is None, mine.is_leaf) == (theirs.requires_grad, theirs.grad_fn is None, theirs.is_leaf)


OVERWRITES: list[tuple[str, Callable[[Any, Any, Any], Any]]] = [
    ("fill_", lambda t, y, v: y.fill_(3.0)),
    ("zero_", lambda t, y, v: y.zero_()),
    ("fill_with_tensor", lambda t, y, v: y.fill_(v)),
    ("copy_constant", lambda t, y, v: y.copy_(t.tensor([4.0, 5.0, 6.0], dtype=t.float64))),
    ("copy_broadcast_tensor", lambda t, y, v: y.copy_(v * t.ones(1, dtype=t.float64))),
    ("copy_inf", lambda t, y, v: y.copy_(t.full((3,), float("inf"), dtype=t.float64))),
]


@pytest.mark.parametrize("case", OVERWRITES, ids=[c[0] for c in OVERWRITES])
def test_overwriting_a_non_leaf_cuts_its_gradient(backend: str, torch_ref, case: tuple[str, Callable[[Any, Any, Any], Any]]) -> None:
    """The overwritten values' gradient is 0; the new values' gradient reaches what they came from."""
    _, write = case
    results = []
    for library in (minitorch, torch_ref):
        x = library.tensor([1.0, 2.0, 3.0], dtype=library.float64, requires_grad=True)
        v = library.tensor(7.0, dtype=library.float64, requires_grad=True)
        y = x * 2
        write(library, y, v)
        (y * library.tensor([1.0, 2.0, 3.0], dtype=library.float64)).sum().backward()
        results.append((y, x.grad, v.grad))
    (y, x_grad, v_grad), (expected_y, expected_x_grad, expected_v_grad) = results
    assert_close(y, expected_y)
    assert_close(x_grad, expected_x_grad, what="gradient of the overwritten tensor's input")
    assert (v_grad is None) == (expected_v_grad is None)
    if v_grad is not None:
        assert_close(v_grad, expected_v_grad, what="gradient of the new value")


VIEW_WRITES = {
    "fill": lambda lib, y: y[0].fill_(3.0),
    "zero": lambda lib, y: y[0].zero_(),
    "copy": lambda lib, y: y[1:].copy_(lib.zeros(2)),
    "add": lambda lib, y: y[0].add_(1.0),
}


@pytest.mark.parametrize("write", sorted(VIEW_WRITES))
def test_writing_into_a_view_of_a_non_leaf_follows_torch(backend: str, write: str, torch_ref: Any) -> None:
    """A write into a view of a non-leaf rewrites the base's history (CopySlices), as in PyTorch:
    the written elements stop carrying gradient to x."""
    grads = []
    for lib in (minitorch, torch_ref):
        x = lib.ones(3, requires_grad=True)
        y = x * 2
        VIEW_WRITES[write](lib, y)
        (y * lib.tensor([1.0, 2.0, 3.0])).sum().backward()
        grads.append((y.detach().tolist(), x.grad.tolist()))
    assert grads[0] == grads[1]


def test_in_place_writes_under_no_grad_still_work(backend: str) -> None:
    x = minitorch.ones(3, requires_grad=True)
    with minitorch.no_grad():
        x[0].fill_(3.0)
        x[1:].mul_(2.0)
        x.view(3)[2].add_(1.0)
    assert x.tolist() == [3.0, 2.0, 3.0] and x.requires_grad and x.is_leaf


# ------------------------------------------------------------------ the same on the GPU


@pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")  # amax's 0/0 on the simulator
@pytest.mark.parametrize("case", ["max_nan", "amax_nan", "maximum_nan", "clamp_at_bounds"])
def test_gradients_with_nan_on_every_device(device: str, torch_ref, case: str) -> None:
    _, inputs, call = next(c for c in GRADIENTS if c[0] == case)
    out, grads = gradients(minitorch, call, inputs, device)
    expected_out, expected_grads = gradients(torch_ref, call, inputs)
    assert_close(out.cpu(), expected_out)
    for grad, expected in zip(grads, expected_grads):
        assert grad.device.type == device
        assert_close(grad.cpu(), expected)


def test_fixes_hold_on_every_device(device: str, torch_ref) -> None:
    base, exponent = [0, 1, -1, 2, -3], [-1, -2, -3, -1, 2]
    powered = minitorch.tensor(base, device=device) ** minitorch.tensor(exponent, device=device)
    assert powered.cpu().tolist() == (torch_ref.tensor(base) ** torch_ref.tensor(exponent)).tolist()
    with pytest.raises(RuntimeError, match=lit("Integers to negative integer powers are not allowed.")):
        minitorch.tensor([2], device=device) ** -1
    with pytest.raises(RuntimeError, match="all elements of input should be between 0 and 1"):
        MF.binary_cross_entropy(minitorch.tensor([NAN, 0.5], device=device), minitorch.tensor([1.0, 0.0], device=device))
    with pytest.raises(RuntimeError, match=lit("Trying to create tensor with negative dimension -1: [-1]")):
        minitorch.empty(-1, device=device)
    with pytest.raises(RuntimeError, match="isn't allowed in a leading, non-existing dimension 0"):
        minitorch.ones(3, device=device).expand(-1, 3)
    x = minitorch.ones(3, device=device, requires_grad=True)
    assert not x.long().requires_grad
    with pytest.raises(RuntimeError, match=VIEW_OF_LEAF):
        x[0].fill_(2.0)
