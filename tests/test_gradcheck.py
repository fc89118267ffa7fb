"""``minitorch.autograd.gradcheck`` / ``gradgradcheck`` against PyTorch's, run on the same
functions and the same input values: both pass on correct derivatives, both fail, with the same
message, on a wrong backward, a wrong ``jvp`` or a wrong double backward."""

from __future__ import annotations

import importlib
import warnings
from types import ModuleType
from typing import Any, Callable

import numpy as np
import pytest

import minitorch
from minitorch.autograd.gradcheck import GradcheckError

RNG = np.random.default_rng(0)
X = RNG.standard_normal((3, 4))
W = RNG.standard_normal((4, 2))
V = np.array([0.5, -1.25, 2.0])
IMAGE = RNG.standard_normal((1, 2, 4, 4))
KERNEL = RNG.standard_normal((2, 2, 2, 2))

Builder = Callable[[ModuleType], tuple[Callable[..., Any], tuple]]


def _leaf(lib: ModuleType, values: np.ndarray, requires_grad: bool = True, dtype: Any = None) -> Any:
    return lib.tensor(values, dtype=dtype or lib.float64, requires_grad=requires_grad)


def _run(lib: ModuleType, build: Builder, check: str = "gradcheck", **options: Any) -> Any:
    """``lib``'s gradcheck (or gradgradcheck) on ``build(lib)``: its result, or the error it raised."""
    func, inputs = build(lib)
    try:
        return getattr(lib.autograd, check)(func, inputs, **options)
    except Exception as error:  # noqa: BLE001 - the error itself is the result compared
        return error


def _message(error: BaseException) -> str:
    """An error's message with minitorch's dtype names spelled as PyTorch's."""
    return str(error).replace("minitorch.", "torch.")


def _both_fail(torch_ref: ModuleType, build: Builder, check: str = "gradcheck", **options: Any) -> tuple[str, str]:
    ours, theirs = _run(minitorch, build, check, **options), _run(torch_ref, build, check, **options)
    assert isinstance(theirs, importlib.import_module("torch.autograd.gradcheck").GradcheckError), theirs
    assert isinstance(ours, GradcheckError), ours
    assert isinstance(ours, RuntimeError)
    return _message(ours), _message(theirs)


# ---- functions, written once for both libraries ----

def _elementwise(lib: ModuleType) -> tuple[Callable[..., Any], tuple]:
    return (lambda x, v: (x.sin() * v.exp().unsqueeze(1) + x * x), (_leaf(lib, X[:, :3]), _leaf(lib, V)))


def _matmul(lib: ModuleType) -> tuple[Callable[..., Any], tuple]:
    return (lambda x, w: (x @ w).tanh(), (_leaf(lib, X), _leaf(lib, W)))


def _conv(lib: ModuleType) -> tuple[Callable[..., Any], tuple]:
    return (lambda image, kernel: lib.nn.functional.conv2d(image, kernel, padding=1, stride=2),
            (_leaf(lib, IMAGE), _leaf(lib, KERNEL)))


def _linear_function(lib: ModuleType) -> type:
    """The custom Function of PyTorch's "Extending PyTorch" note, as written there."""

    class LinearFunction(lib.autograd.Function):
        @staticmethod
        def forward(ctx: Any, input: Any, weight: Any, bias: Any = None) -> Any:  # noqa: A002 - the note's names
            ctx.save_for_backward(input, weight, bias)
            output = input.mm(weight.t())
            if bias is not None:
                output += bias.unsqueeze(0).expand_as(output)
            return output

        @staticmethod
        def backward(ctx: Any, grad_output: Any) -> Any:
            input, weight, bias = ctx.saved_tensors  # noqa: A001
            grad_input = grad_weight = grad_bias = None
            if ctx.needs_input_grad[0]:
                grad_input = grad_output.mm(weight)
            if ctx.needs_input_grad[1]:
                grad_weight = grad_output.t().mm(input)
            if bias is not None and ctx.needs_input_grad[2]:
                grad_bias = grad_output.sum(0)
            return grad_input, grad_weight, grad_bias

    return LinearFunction


def _tutorial(lib: ModuleType) -> tuple[Callable[..., Any], tuple]:
    return (_linear_function(lib).apply, (_leaf(lib, X), _leaf(lib, W.T.copy()), _leaf(lib, V[:2])))


def _square(lib: ModuleType, backward_factor: float = 2.0, jvp_factor: float = 2.0) -> type:
    """x * x, with a backward and a jvp that multiply by ``factor * x`` (right for factor 2)."""

    class Square(lib.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            ctx.save_for_backward(x)
            ctx.save_for_forward(x)
            return x * x

        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:
            (x,) = ctx.saved_tensors
            return grad * x * backward_factor

        @staticmethod
        def jvp(ctx: Any, tangent: Any) -> Any:
            (x,) = ctx.saved_tensors
            return tangent * x * jvp_factor

    return Square


def _wrong_backward(lib: ModuleType) -> tuple[Callable[..., Any], tuple]:
    return (_square(lib, backward_factor=1.0).apply, (_leaf(lib, V[:2]),))


def _wrong_jvp(lib: ModuleType) -> tuple[Callable[..., Any], tuple]:
    square = _square(lib, jvp_factor=3.0)
    return (lambda x: square.apply(x), (_leaf(lib, V[:2]),))


def _wrong_jvp_bound(lib: ModuleType) -> tuple[Callable[..., Any], tuple]:
    return (_square(lib, jvp_factor=3.0).apply, (_leaf(lib, V[:2]),))


def _cube(lib: ModuleType) -> tuple[Callable[..., Any], tuple]:
    """x ** 3 whose backward is right but is itself differentiated wrongly (its own backward
    forgets the factor 2 of d(3 x^2)/dx = 6 x)."""

    class CubeGrad(lib.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any, grad: Any) -> Any:
            ctx.save_for_backward(x, grad)
            return grad * 3 * x * x

        @staticmethod
        def backward(ctx: Any, outer: Any) -> Any:
            x, grad = ctx.saved_tensors
            return outer * grad * 3 * x, outer * 3 * x * x

    class Cube(lib.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            ctx.save_for_backward(x)
            return x * x * x

        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:
            (x,) = ctx.saved_tensors
            return CubeGrad.apply(x, grad)

    return (Cube.apply, (_leaf(lib, V),))


@pytest.mark.parametrize("build", [_elementwise, _matmul, _conv, _tutorial], ids=lambda b: b.__name__.strip("_"))
def test_both_pass_on_correct_derivatives(torch_ref: ModuleType, build: Builder) -> None:
    assert _run(torch_ref, build) is True
    assert _run(minitorch, build, eps=1e-6, atol=1e-4) is True
    assert _run(minitorch, build, fast_mode=True) is True


@pytest.mark.parametrize("build", [_elementwise, _matmul], ids=lambda b: b.__name__.strip("_"))
def test_forward_ad_and_fast_mode_pass_on_correct_ops(torch_ref: ModuleType, build: Builder) -> None:
    for options in ({"check_forward_ad": True}, {"check_forward_ad": True, "fast_mode": True}):
        assert _run(torch_ref, build, **options) is True
        assert _run(minitorch, build, **options) is True


def test_a_wrong_backward_fails_with_pytorchs_message(torch_ref: ModuleType) -> None:
    ours, theirs = _both_fail(torch_ref, _wrong_backward)
    assert ours.splitlines()[0] == "Jacobian mismatch for output 0 with respect to input 0,"
    assert ours == theirs  # same layout and, on the same values, the same Jacobians printed
    assert _run(minitorch, _wrong_backward, raise_exception=False) is False
    assert _run(torch_ref, _wrong_backward, raise_exception=False) is False


def test_fast_mode_fails_on_a_wrong_backward_and_shows_the_whole_jacobians(torch_ref: ModuleType) -> None:
    ours, theirs = _both_fail(torch_ref, _wrong_backward, fast_mode=True)
    first = "Jacobian mismatch for output 0 with respect to input 0,"
    assert ours.splitlines()[0] == theirs.splitlines()[0] == first
    assert ours.splitlines()[1].startswith("numerical:") and ours.splitlines()[2].startswith("analytical:")
    slow = _message(_run(minitorch, _wrong_backward))
    # the whole Jacobians follow, the same as slow mode prints and as PyTorch's fast mode prints
    for jacobian in (slow.split("numerical:")[1].split("\nanalytical:")[0], slow.split("analytical:")[1].strip()):
        assert jacobian in ours and jacobian in theirs
    assert "The max per-element difference (slow mode) is: " in ours


def test_a_wrong_jvp_fails_only_the_forward_ad_check(torch_ref: ModuleType) -> None:
    assert _run(minitorch, _wrong_jvp) is True and _run(torch_ref, _wrong_jvp) is True
    ours, theirs = _both_fail(torch_ref, _wrong_jvp, check_forward_ad=True)
    assert ours.splitlines()[0] == "Jacobian computed with forward mode mismatch for output 0 with respect to input 0,"
    assert ours == theirs
    ours, theirs = _both_fail(torch_ref, _wrong_jvp, check_forward_ad=True, check_backward_ad=False, fast_mode=True)
    assert ours.splitlines()[0] == theirs.splitlines()[0]


def test_a_wrong_jvp_of_a_bound_apply(torch_ref: ModuleType) -> None:
    ours, theirs = _both_fail(torch_ref, _wrong_jvp_bound, check_forward_ad=True)
    assert ours == theirs


def test_a_wrong_double_backward_fails_gradgradcheck_only(torch_ref: ModuleType) -> None:
    assert _run(minitorch, _cube) is True and _run(torch_ref, _cube) is True
    ours, theirs = _both_fail(torch_ref, _cube, "gradgradcheck")
    assert ours.splitlines()[0] == theirs.splitlines()[0] == "Jacobian mismatch for output 0 with respect to input 0,"
    for lib in (minitorch, torch_ref):
        func, inputs = _cube(lib)
        grad_outputs = (_leaf(lib, np.array([1.0, -0.5, 0.25])),)
        assert lib.autograd.gradgradcheck(func, inputs, grad_outputs, raise_exception=False) is False


@pytest.mark.parametrize("build", [_matmul, lambda lib: (lambda x: x.tanh(), (_leaf(lib, X),))],
                         ids=["matmul", "tanh"])
def test_gradgradcheck_passes_on_correct_second_derivatives(torch_ref: ModuleType, build: Builder) -> None:
    assert _run(torch_ref, build, "gradgradcheck") is True
    assert _run(minitorch, build, "gradgradcheck") is True
    assert _run(minitorch, build, "gradgradcheck", gen_non_contig_grad_outputs=True, fast_mode=True) is True


def test_the_float32_warning(torch_ref: ModuleType) -> None:
    messages = []
    for lib in (minitorch, torch_ref):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lib.autograd.gradcheck(lambda x: x * 2, (_leaf(lib, V, dtype=lib.float32),), raise_exception=False)
        messages.append([str(w.message) for w in caught if issubclass(w.category, UserWarning)])
    assert messages[0] == messages[1] == [
        "Input #0 requires gradient and is not a double precision floating point or complex. This check will likely "
        "fail if all the inputs are not of double precision floating point or complex. "]


def test_only_tensors_requiring_grad_are_differentiated(torch_ref: ModuleType) -> None:
    def build(lib: ModuleType) -> tuple[Callable[..., Any], tuple]:
        square = _square(lib, backward_factor=1.0)
        return (lambda c, scale, x: square.apply(x) * scale + c, (_leaf(lib, V, requires_grad=False), 2.0,
                                                                  _leaf(lib, V)))

    ours, theirs = _both_fail(torch_ref, build)
    assert ours == theirs  # "input 0" is the first input that requires grad, x
    for lib in (minitorch, torch_ref):
        with pytest.raises(ValueError, match="gradcheck expects at least one input tensor to require gradient"):
            lib.autograd.gradcheck(lambda x: x * 2, (_leaf(lib, V, requires_grad=False),))


def test_non_differentiable_outputs_are_skipped(torch_ref: ModuleType) -> None:
    cases = [lambda x: (x.sin(), x.argmax()), lambda x: (x.sin(), x.detach() * 2), lambda x: (x > 0).double()]
    for func in cases:
        for lib in (minitorch, torch_ref):
            assert lib.autograd.gradcheck(func, (_leaf(lib, V),)) is True
    ours, theirs = _both_fail(torch_ref, lambda lib: (lambda x: x.detach() * 2, (_leaf(lib, V),)))
    assert ours == theirs == "Numerical gradient for function expected to be zero"


def test_views_and_non_contiguous_inputs_are_nudged_in_place_and_put_back(torch_ref: ModuleType) -> None:
    for lib in (minitorch, torch_ref):
        base = _leaf(lib, X)
        transposed = base.t()  # a non-contiguous view requiring grad
        assert lib.autograd.gradcheck(lambda t, w: t.t() @ w, (transposed, _leaf(lib, W)))
        np.testing.assert_array_equal(base.detach().numpy(), X)
    for lib in (minitorch, torch_ref):
        expanded = lib.tensor([[1.0]], dtype=lib.float64).expand(2, 3).requires_grad_()
        with pytest.raises(RuntimeError, match="The 0th input has a dimension with stride 0"):
            lib.autograd.gradcheck(lambda x: x * 2, (expanded,))


def test_several_outputs_of_one_op(torch_ref: ModuleType) -> None:
    for lib in (minitorch, torch_ref):
        assert lib.autograd.gradcheck(lambda x: (x * x).chunk(2, dim=1), (_leaf(lib, X),)) is True
        assert lib.autograd.gradcheck(lambda x: lib.max(x, dim=1), (_leaf(lib, X),)) is True


def test_a_backward_that_needs_every_output_gradient(torch_ref: ModuleType) -> None:
    """A custom Function's backward gets zeros for an output no gradient reached (PyTorch's
    materialized gradients), so a backward that uses every gradient passes check_undefined_grad."""
    for lib in (minitorch, torch_ref):

        class Two(lib.autograd.Function):
            @staticmethod
            def forward(ctx: Any, x: Any) -> Any:
                ctx.save_for_backward(x)
                return x * 2, x * x

            @staticmethod
            def backward(ctx: Any, grad_double: Any, grad_square: Any) -> Any:
                (x,) = ctx.saved_tensors
                return grad_double * 2 + grad_square * 2 * x

        x = _leaf(lib, V)
        Two.apply(x)[0].sum().backward()
        assert x.grad.tolist() == [2.0] * len(x.grad.tolist())
        assert lib.autograd.gradcheck(Two.apply, (x,)) is True


def _noisy(lib: ModuleType) -> tuple[Callable[..., Any], tuple]:
    class Noisy(lib.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            return x * 2

        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:
            return grad * 2 + lib.rand(grad.shape, dtype=grad.dtype) * 1e-9

    return (Noisy.apply, (_leaf(lib, V),))


def test_a_nondeterministic_backward(torch_ref: ModuleType) -> None:
    ours, theirs = _both_fail(torch_ref, _noisy)
    first = ("Backward is not reentrant, i.e., running backward with same input and grad_output multiple times "
             "gives different values, although analytical gradient matches numerical gradient.The tolerance for "
             "nondeterminism was 0.0.")
    assert ours.startswith(first) and theirs.startswith(first)
    # the noise also survives a zero grad_output: with nondet_tol, that is what fails next
    ours, theirs = _both_fail(torch_ref, _noisy, nondet_tol=1e-6)
    assert ours == theirs == "backward not multiplied by grad_output"


def test_the_names_resolve_as_in_pytorch(torch_ref: ModuleType) -> None:
    import minitorch.autograd.gradcheck as module_or_function  # noqa: PLC0415 - the import under test

    for lib, name in ((minitorch, "minitorch"), (torch_ref, "torch")):
        assert callable(lib.autograd.gradcheck) and callable(lib.autograd.gradgradcheck)
        assert not hasattr(lib.autograd.gradcheck, "GradcheckError")  # the function, not the module
        module = importlib.import_module(f"{name}.autograd.gradcheck")  # the module, by name
        assert issubclass(module.GradcheckError, RuntimeError) and module.gradcheck is lib.autograd.gradcheck
    assert module_or_function is minitorch.autograd.gradcheck


def test_flags_that_cannot_go_together(torch_ref: ModuleType) -> None:
    for lib in (minitorch, torch_ref):
        with pytest.raises(AssertionError, match="Expected at least one of check_forward_ad or check_backward_ad"):
            lib.autograd.gradcheck(lambda x: x, (_leaf(lib, V),), check_backward_ad=False)
        with pytest.raises(AssertionError, match="check_batched_grad=True requires check_backward_ad"):
            lib.autograd.gradcheck(lambda x: x, (_leaf(lib, V),), check_batched_grad=True, check_backward_ad=False,
                                   check_forward_ad=True)
