r"""``gradcheck`` and ``gradgradcheck``: a function's derivatives against central differences,
as ``torch.autograd.gradcheck``.

``gradcheck(fn, inputs)`` differentiates ``fn`` with respect to each floating point tensor of
``inputs`` that requires grad, and checks, for every differentiable output, that the Jacobian
backward computes (row by row, :math:`e_j^\top J`) matches the one central differences measure
(:math:`(f(x + \epsilon e_k) - f(x - \epsilon e_k)) / 2\epsilon`, each input element nudged in
place): elementwise :math:`|a - n| \le \text{atol} + \text{rtol}\,|n|`. It returns True, or
raises :class:`GradcheckError` (False with ``raise_exception=False``) naming the output and
input and printing both Jacobians, in PyTorch's layout ``(input.numel(), output.numel())``::

    from minitorch.autograd import gradcheck

    x = minitorch.randn(3, 4, dtype=minitorch.float64, requires_grad=True)
    w = minitorch.randn(4, 2, dtype=minitorch.float64, requires_grad=True)
    assert gradcheck(lambda x, w: (x @ w).tanh(), (x, w), eps=1e-6, atol=1e-4)

As PyTorch's, it also checks that backward gives the same result twice (up to ``nondet_tol``),
scales with the output gradient, copes with undefined output gradients
(``check_undefined_grad``) and returns gradients of the inputs' dtype (``check_grad_dtypes``);
``check_forward_ad=True`` checks forward-mode AD's Jacobian (one one-hot tangent per column)
against the same central differences, and ``fast_mode=True`` compares :math:`v^\top J u` for
random unit vectors :math:`u, v` instead of whole Jacobians. :func:`gradgradcheck` runs
``gradcheck`` on the function's gradient (built with ``create_graph=True``), checking second
derivatives.

``minitorch.autograd.gradcheck`` is the function, as in PyTorch; this module is reached by
name: ``from minitorch.autograd.gradcheck import GradcheckError``. Where minitorch differs:

* ``fast_mode`` draws :math:`u, v` from minitorch's own generator (a fresh
  :class:`~minitorch.Generator` each call, so runs repeat), and ``gradgradcheck``'s random
  ``grad_outputs`` from minitorch's default generator: other numbers than PyTorch's;
* ``check_batched_grad`` and ``check_batched_forward_grad`` are accepted and check nothing:
  minitorch has no batched backward (``vmap`` calls the function once per slice), so a
  batched gradient is the per-slice ones by construction;
* an undefined output gradient is no gradient at all in minitorch's engine (None in an op's
  slot, zeros for a custom Function unless it calls ``ctx.set_materialize_grads(False)``), so
  ``check_undefined_grad`` checks one output left out at a time;
* no complex or sparse tensors (``masked`` is accepted and unused);
* outputs that are not tensors are skipped (PyTorch fails on them), and output numbers in
  messages count differentiable outputs exactly (PyTorch's can be off past an integer output);
* the numerical Jacobian is computed once and shared by the backward and forward checks.
"""

from __future__ import annotations

import warnings
from typing import Any, Callable, Optional, Sequence

import numpy as np

from ..creation import empty, rand
from ..dtypes import float64
from ..generator import Generator
from ..tensor import Tensor
from . import grad as autograd_grad
from .gradient_properties import (
    backward_handles_undefined_grads,
    backward_multiplies_grad_output,
    forward_handles_undefined_tangents,
)
from .jacobians import (
    Jacobian,
    as_tuple,
    backward_rows,
    forward_jacobians,
    forward_jvp,
    like,
    numerical_jacobians,
    numerical_jvp,
    requires_grad,
    stack_rows,
    to_numpy,
    vector_jacobian_product,
)

__all__ = ["GradcheckError", "gradcheck", "gradgradcheck"]


class GradcheckError(RuntimeError):
    """What :func:`gradcheck` and :func:`gradgradcheck` raise when a check fails."""


class _Case:
    """One gradcheck run: the function, its inputs and outputs, and the tolerances."""

    def __init__(self, func: Callable[..., Any], inputs: tuple, eps: float, atol: float, rtol: float,
                 nondet_tol: float, check_grad_dtypes: bool) -> None:
        self.func, self.inputs = func, inputs
        self.eps, self.atol, self.rtol, self.nondet_tol = eps, atol, rtol, nondet_tol
        self.check_grad_dtypes = check_grad_dtypes
        #: positions of the inputs checked (tensors requiring grad); "input j" in messages is the j-th of them
        self.positions = [p for p, x in enumerate(inputs) if requires_grad(x)]
        self.diff_inputs = [inputs[p] for p in self.positions]
        self.func_out = as_tuple(func(*inputs))
        #: positions among ``func_out`` of the differentiable outputs; "output i" is the i-th of them
        self.out_positions = [p for p, o in enumerate(self.func_out) if requires_grad(o)]
        self.outputs = [self.func_out[p] for p in self.out_positions]
        self._numerical: dict[int, list[Optional[Jacobian]]] = {}

    def numerical(self, position: int) -> list[Optional[Jacobian]]:
        """Central-difference Jacobians of every output with respect to input ``position`` (cached)."""
        if position not in self._numerical:
            self._numerical[position] = numerical_jacobians(self.func, self.inputs, position, self.func_out, self.eps)
        return self._numerical[position]

    def others(self, output_index: int) -> list[Tensor]:
        return [o for i, o in enumerate(self.outputs) if i != output_index]

    def backward_jacobians(self, output_index: int) -> list[Jacobian]:
        """Backward's Jacobians of output ``output_index`` (row by row), run twice to check it is
        deterministic; the gradients' shape and (``check_grad_dtypes``) dtype checked."""
        output, others = self.outputs[output_index], self.others(output_index)
        first, sizes_ok, types_ok = stack_rows(backward_rows(output, others, self.diff_inputs), self.diff_inputs)
        second, _, _ = stack_rows(backward_rows(output, others, self.diff_inputs), self.diff_inputs)
        self.check_backward(first, second, sizes_ok, types_ok)
        return first

    def check_backward(self, first: Sequence[np.ndarray], second: Sequence[np.ndarray], sizes_ok: bool,
                        types_ok: bool) -> None:
        if not types_ok and self.check_grad_dtypes:
            raise GradcheckError("Gradient has dtype mismatch")
        if not sizes_ok:
            raise GradcheckError("Analytical gradient has incorrect size")
        if any(a.size and np.abs(a - b).max() > self.nondet_tol for a, b in zip(first, second)):
            raise GradcheckError(
                "Backward is not reentrant, i.e., running backward with same input and grad_output multiple times "
                "gives different values, although analytical gradient matches numerical gradient."
                f"The tolerance for nondeterminism was {self.nondet_tol}.\n\nIf the backward relies on "
                "non-deterministic operations, pass gradcheck/gradgradcheck `nondet_tol=<tol>`.")

    def close(self, analytical: np.ndarray, numerical: np.ndarray, atol: float) -> bool:
        """PyTorch's ``allclose`` after type promotion: :math:`|a - n| \\le atol + rtol |n|`."""
        common = np.result_type(analytical, numerical)
        return bool(np.allclose(analytical.astype(common), numerical.astype(common), rtol=self.rtol, atol=atol))


def _mismatch(analytical: Tensor, numerical: Tensor, output_index: int, input_index: int, forward: bool) -> str:
    """PyTorch's message for a Jacobian mismatch."""
    mode = "computed with forward mode " if forward else ""
    return (f"Jacobian {mode}mismatch for output {output_index:d} with respect to input {input_index:d},\n"
            f"numerical:{numerical}\nanalytical:{analytical}\n")


def _no_differentiable_outputs(case: _Case) -> None:
    """With no differentiable output, the numerical gradient must be zero."""
    for position in case.positions:
        if any(j is not None and (j != 0).any() for j in case.numerical(position)):
            raise GradcheckError("Numerical gradient for function expected to be zero")


def _no_differentiable_outputs_along(jvps: Sequence[Optional[np.ndarray]], tolerance: float) -> None:
    """Fast mode's version: with no differentiable output, :math:`J u` must be zero (up to ``tolerance``)."""
    if any(jvp is not None and jvp.size and np.abs(jvp).max() > tolerance for jvp in jvps):
        raise GradcheckError("Numerical gradient for function expected to be zero")


# ---- slow mode: whole Jacobians ----

def _slow_backward(case: _Case) -> None:
    if not case.outputs:
        _no_differentiable_outputs(case)
        return
    numerical = {p: case.numerical(p) for p in case.positions}
    for i, (output, out_position) in enumerate(zip(case.outputs, case.out_positions)):
        for j, (analytical, inp) in enumerate(zip(case.backward_jacobians(i), case.diff_inputs)):
            expected = numerical[case.positions[j]][out_position]
            assert expected is not None  # a differentiable output is a floating point tensor
            if not case.close(analytical, expected, case.atol):
                raise GradcheckError(_mismatch(like(analytical, inp.dtype, inp.device),
                                               like(expected, output.dtype, output.device), i, j, forward=False))


def _slow_forward(case: _Case) -> None:
    if not case.outputs:
        _no_differentiable_outputs(case)
        return
    numerical = {p: case.numerical(p) for p in case.positions}
    forward = [forward_jacobians(case.func, case.inputs, case.positions, p, case.func_out) for p in case.positions]
    for i, (output, out_position) in enumerate(zip(case.outputs, case.out_positions)):
        for j, position in enumerate(case.positions):
            analytical, expected = forward[j][out_position], numerical[position][out_position]
            assert analytical is not None and expected is not None
            if not case.close(analytical, expected, case.atol):
                raise GradcheckError(_mismatch(like(analytical, output.dtype, output.device),
                                               like(expected, output.dtype, output.device), i, j, forward=True))


# ---- fast mode: v^T J u for random unit vectors u (per input) and v (per output) ----

def _unit_vector(like_tensor: Tensor, generator: Generator) -> np.ndarray:
    """A random direction with ``like_tensor``'s number of elements, of norm 1, in its dtype."""
    drawn = to_numpy(rand(like_tensor.numel(), generator=generator)).astype(like_tensor.dtype.numpy)
    return drawn / np.linalg.norm(drawn)


def _fast_failure(case: _Case, analytical: np.ndarray, numerical: np.ndarray, i: int, j: int,
                  forward: bool) -> GradcheckError:
    """The mismatch of the reduced quantities, followed by both whole Jacobians (slow mode)."""
    output, position = case.outputs[i], case.positions[j]
    # backward's quantities come in the input's dtype, forward AD's in the output's (as PyTorch's Jacobians)
    analytical_like = output if forward else case.diff_inputs[j]
    slow_numerical = case.numerical(position)[case.out_positions[i]]
    if forward:
        slow_analytical = forward_jacobians(case.func, case.inputs, case.positions, position, case.func_out)[
            case.out_positions[i]]
    else:
        rows = backward_rows(output, case.others(i), case.diff_inputs)
        slow_analytical = stack_rows(rows, case.diff_inputs)[0][j]
    assert slow_numerical is not None and slow_analytical is not None
    max_difference = float(np.abs(slow_numerical - slow_analytical).max()) if slow_numerical.size else 0.0
    message = _mismatch(like(analytical, analytical_like.dtype, analytical_like.device),
                        like(numerical, output.dtype, output.device), i, j, forward)
    message += ("\nThe quantities above are the Jacobians reduced along random directions (fast mode). "
                "Recomputed in full (slow mode):\n\n"
                f"Numerical:\n {like(slow_numerical, output.dtype, output.device)}\n"
                f"Analytical:\n{like(slow_analytical, analytical_like.dtype, analytical_like.device)}\n\n"
                f"The max per-element difference (slow mode) is: {max_difference}.\n")
    if case.close(slow_analytical, slow_numerical, case.atol):
        message += ("\nFast gradcheck failed but element-wise differences are small: the check would have passed "
                    "with fast_mode=False.")
    return GradcheckError(message)


def _fast_backward(case: _Case) -> None:
    generator = Generator()
    directions = [_unit_vector(x, generator) for x in case.diff_inputs]
    cotangents = [_unit_vector(o, generator) for o in case.outputs]
    jvps = [numerical_jvp(case.func, case.inputs, p, u, case.eps) for p, u in zip(case.positions, directions)]
    if not case.outputs:
        for per_output in jvps:
            _no_differentiable_outputs_along(per_output, case.nondet_tol)
        return
    for i, (output, v) in enumerate(zip(case.outputs, cotangents)):
        others = case.others(i)
        first = [[g] for g in vector_jacobian_product(output, others, case.diff_inputs, v)]
        second = [[g] for g in vector_jacobian_product(output, others, case.diff_inputs, v)]
        first_stack, sizes_ok, types_ok = stack_rows(first, case.diff_inputs)
        case.check_backward(first_stack, stack_rows(second, case.diff_inputs)[0], sizes_ok, types_ok)
        for j, (v_j, u) in enumerate(zip(first_stack, directions)):
            analytical = np.asarray(v_j[:, 0] @ u)
            jvp = jvps[j][case.out_positions[i]]
            assert jvp is not None
            numerical = np.asarray(v @ jvp)
            atol = case.atol * float(u.sum()) * float(v.sum())
            if not case.close(analytical, numerical, atol):
                raise _fast_failure(case, analytical, numerical, i, j, forward=False)


def _fast_forward(case: _Case) -> None:
    generator = Generator()
    directions = [_unit_vector(x, generator) for x in case.diff_inputs]
    for j, (position, u) in enumerate(zip(case.positions, directions)):
        numerical = numerical_jvp(case.func, case.inputs, position, u, case.eps)
        if not case.outputs:
            _no_differentiable_outputs_along(numerical, case.nondet_tol)
            continue
        analytical = forward_jvp(case.func, case.inputs, case.positions, position, u)
        for i, out_position in enumerate(case.out_positions):
            a, n = analytical[out_position], numerical[out_position]
            assert a is not None and n is not None
            if not case.close(a, n, case.atol * float(u.sum())):
                raise _fast_failure(case, a, n, i, j, forward=True)


def _check_inputs(inputs: tuple) -> None:
    """At least one input requires grad; each such one is float64 (else a warning) and has no
    dimension of stride 0 (one element nudged would be many)."""
    checked = False
    for index, inp in enumerate(inputs):
        if not requires_grad(inp):
            continue
        if inp.dtype != float64:
            warnings.warn(f"Input #{index} requires gradient and is not a double precision floating point or "
                          "complex. This check will likely fail if all the inputs are not of double precision "
                          "floating point or complex. ", stacklevel=4)
        if not all(stride > 0 or size <= 1 for stride, size in zip(inp.stride(), inp.shape)):
            raise RuntimeError(f"The {index}th input has a dimension with stride 0. gradcheck only supports inputs "
                               "that are non-overlapping to be able to compute the numerical gradients correctly. "
                               "You should call .contiguous on the input before passing it to gradcheck.")
        checked = True
    if not checked:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but none of them have "
                         "requires_grad=True.")


def _run(func: Callable[..., Any], inputs: Any, eps: float, atol: float, rtol: float, nondet_tol: float,
         check_undefined_grad: bool, check_grad_dtypes: bool, check_forward_ad: bool, check_backward_ad: bool,
         fast_mode: bool) -> bool:
    """The checks in PyTorch's order: the Jacobians (backward, then forward AD), then what else
    is asked of a backward; a failure raises :class:`GradcheckError`."""
    tupled = as_tuple(inputs)
    _check_inputs(tupled)
    case = _Case(func, tupled, eps, atol, rtol, nondet_tol, check_grad_dtypes)
    if check_backward_ad:
        (_fast_backward if fast_mode else _slow_backward)(case)
    if check_forward_ad:
        (_fast_forward if fast_mode else _slow_forward)(case)
        if check_undefined_grad and case.outputs:
            generator = Generator()
            directions = [_unit_vector(x, generator) for x in case.diff_inputs]
            failure = forward_handles_undefined_tangents(func, tupled, case.positions, directions)
            if failure is not None:
                raise GradcheckError(failure)
    if not check_backward_ad or not case.outputs:
        return True
    failure = backward_multiplies_grad_output(case.outputs, case.diff_inputs)
    if failure is None and check_undefined_grad:
        failure = backward_handles_undefined_grads(func, tupled, case.diff_inputs)
    if failure is not None:
        raise GradcheckError(failure)
    return True


def gradcheck(func: Callable[..., Any], inputs: Any, *, eps: float = 1e-6, atol: float = 1e-5, rtol: float = 1e-3,
              raise_exception: bool = True, nondet_tol: float = 0.0, check_undefined_grad: bool = True,
              check_grad_dtypes: bool = False, check_batched_grad: bool = False,
              check_batched_forward_grad: bool = False, check_forward_ad: bool = False,
              check_backward_ad: bool = True, fast_mode: bool = False, masked: Optional[bool] = None) -> bool:
    """Check ``func``'s derivatives with respect to the ``inputs`` that require grad against
    central differences with step ``eps``: True when every pair agrees within
    ``atol + rtol * |numerical|``; otherwise :class:`GradcheckError`, or False with
    ``raise_exception=False``. Meant for float64 inputs (others get a warning)."""
    if not (check_forward_ad or check_backward_ad):
        raise AssertionError("Expected at least one of check_forward_ad or check_backward_ad to be True")
    if check_batched_grad and not check_backward_ad:
        raise AssertionError("Setting check_batched_grad=True requires check_backward_ad to be True")
    if check_batched_forward_grad and not check_forward_ad:
        raise AssertionError("Setting check_batched_forward_grad=True requires check_forward_ad to be True")
    try:
        return _run(func, inputs, eps, atol, rtol, nondet_tol, check_undefined_grad, check_grad_dtypes,
                    check_forward_ad, check_backward_ad, fast_mode)
    except GradcheckError:
        if raise_exception:
            raise
        return False


def _random_grad_output(output: Tensor, noncontiguous: bool) -> Tensor:
    """Uniform in [-1, 1) from the default generator, of ``output``'s shape (float64 when
    ``output`` is not floating point), requiring grad; every other element of a twice-as-wide
    one when ``noncontiguous``."""
    dtype = output.dtype if output.is_floating_point() else float64
    shape = tuple(output.shape)
    if noncontiguous and output.numel() > 1:
        wide = empty(*shape[:-1], 2 * shape[-1], dtype=dtype, device=output.device).uniform_(-1, 1)
        return wide[..., ::2].requires_grad_()
    return empty(*shape, dtype=dtype, device=output.device).uniform_(-1, 1).requires_grad_()


def gradgradcheck(func: Callable[..., Any], inputs: Any, grad_outputs: Any = None, *, eps: float = 1e-6,
                  atol: float = 1e-5, rtol: float = 1e-3, gen_non_contig_grad_outputs: bool = False,
                  raise_exception: bool = True, nondet_tol: float = 0.0, check_undefined_grad: bool = True,
                  check_grad_dtypes: bool = False, check_batched_grad: bool = False, check_fwd_over_rev: bool = False,
                  check_rev_over_rev: bool = True, fast_mode: bool = False, masked: bool = False) -> bool:
    """Check ``func``'s second derivatives: :func:`gradcheck` of the map from ``(inputs,
    grad_outputs)`` to the gradients of ``func``'s outputs (taken with ``create_graph=True``)
    with respect to the inputs that require grad. ``grad_outputs`` default to random values in
    [-1, 1) that require grad (minitorch's default generator)."""
    if not (check_fwd_over_rev or check_rev_over_rev):
        raise AssertionError("Expected at least one of check_fwd_over_rev or check_rev_over_rev to be True")
    if check_undefined_grad and not check_rev_over_rev:
        raise AssertionError("Setting check_undefined_grad=True requires check_rev_over_rev to be True")
    if check_batched_grad and not check_rev_over_rev:
        raise AssertionError("Setting check_batched_grad=True requires check_rev_over_rev to be True")
    tupled_inputs = as_tuple(inputs)
    if grad_outputs is None:
        outputs = [o for o in as_tuple(func(*tupled_inputs)) if requires_grad(o)]
        tupled_grads = tuple(_random_grad_output(o, gen_non_contig_grad_outputs) for o in outputs)
    else:
        tupled_grads = as_tuple(grad_outputs)
    split = len(tupled_inputs)
    input_positions = {p for p, x in enumerate(tupled_inputs) if requires_grad(x)}
    grad_positions = {p for p, g in enumerate(tupled_grads) if requires_grad(g)}

    def first_derivatives(*args: Any) -> tuple:
        # forward AD passes detached inputs: requires_grad is given back to the ones that had it
        call_inputs = tuple(x.requires_grad_() if p in input_positions else x for p, x in enumerate(args[:split]))
        outputs = [o for o in as_tuple(func(*call_inputs)) if requires_grad(o)]
        seeds = [g.requires_grad_() if p in grad_positions else g for p, g in enumerate(args[split:])]
        diff = [x for p, x in enumerate(call_inputs) if p in input_positions]
        grads = autograd_grad(outputs, diff, seeds, create_graph=True, allow_unused=True)
        return tuple(g for g in grads if g is not None)

    return gradcheck(first_derivatives, tupled_inputs + tupled_grads, eps=eps, atol=atol, rtol=rtol,
                     raise_exception=raise_exception, nondet_tol=nondet_tol, check_undefined_grad=check_undefined_grad,
                     check_grad_dtypes=check_grad_dtypes, check_batched_grad=check_batched_grad, fast_mode=fast_mode,
                     check_forward_ad=check_fwd_over_rev, check_backward_ad=check_rev_over_rev, masked=masked)
