"""PyTorch's custom ``autograd.Function`` protocol ("Extending torch.autograd"), compared with
PyTorch itself: the separate ``setup_context`` style, ``ctx.mark_non_differentiable``,
``ctx.mark_dirty``, an input returned as it is, ``once_differentiable``, the checks on what
backward returns, ``vjp``, custom Functions under function transforms and forward AD."""

from __future__ import annotations

import warnings
from types import ModuleType
from typing import Any, Callable

import numpy as np
import pytest

import minitorch
from minitorch.autograd import custom_function
from minitorch.ops import elementwise


@pytest.fixture
def libs(torch_ref: ModuleType) -> tuple[ModuleType, ModuleType]:
    return minitorch, torch_ref


def outcome(run: Callable[[], Any]) -> Any:
    """``("ok", value)`` or the error's type name and message, comparable across libraries."""
    try:
        return "ok", run()
    except Exception as error:  # noqa: BLE001 - the error itself is what is compared
        return type(error).__name__, str(error)


def values(t: Any) -> Any:
    """A tensor's values as a NumPy array (an array stays as it is)."""
    if t is None or isinstance(t, np.ndarray):
        return t
    return np.asarray(t.detach().tolist())


def same_values(a: Any, b: Any) -> None:
    if a is None or b is None:
        assert a is None and b is None
        return
    np.testing.assert_allclose(values(a), values(b), rtol=1e-12, atol=1e-12)


# ---- the separate setup_context style -------------------------------------------------------------

def linear_functions(lib: ModuleType, seen: list) -> tuple[type, type]:
    """PyTorch's LinearFunction written both ways; ``seen`` collects what forward/setup_context got."""

    def backward(ctx: Any, grad: Any) -> tuple:
        x, w, b = ctx.saved_tensors
        gx = grad.mm(w) if ctx.needs_input_grad[0] else None
        gw = grad.t().mm(x) if ctx.needs_input_grad[1] else None
        gb = grad.sum(0) if b is not None and ctx.needs_input_grad[2] else None
        return gx, gw, gb

    class Linear(lib.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any, w: Any, b: Any = None) -> Any:
            seen.append(("combined", isinstance(ctx, lib.autograd.function.FunctionCtx), lib.is_grad_enabled()))
            ctx.save_for_backward(x, w, b)
            out = x.mm(w.t())
            return out if b is None else out + b

    class LinearSplit(lib.autograd.Function):
        @staticmethod
        def forward(x: Any, w: Any, b: Any = None) -> Any:
            out = x.mm(w.t())
            return out if b is None else out + b

        @staticmethod
        def setup_context(ctx: Any, inputs: tuple, output: Any) -> None:
            seen.append(("separate", isinstance(ctx, lib.autograd.function.FunctionCtx), len(inputs),
                         inputs[2] is None, lib.is_grad_enabled(), output.requires_grad, ctx.needs_input_grad))
            ctx.save_for_backward(*inputs)

    Linear.backward = staticmethod(backward)
    LinearSplit.backward = staticmethod(backward)
    return Linear, LinearSplit


def linear_inputs(lib: ModuleType) -> tuple[Any, Any, Any]:
    x = lib.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -0.75]], dtype=lib.float64, requires_grad=True)
    w = lib.tensor([[0.1, 0.2, 0.3], [-0.4, 0.5, -0.6]], dtype=lib.float64, requires_grad=True)
    b = lib.tensor([0.05, -0.15], dtype=lib.float64, requires_grad=True)
    return x, w, b


@pytest.mark.parametrize("style", [0, 1])
def test_both_styles_give_pytorchs_values_gradients_and_node_names(libs: tuple, style: int) -> None:
    results = []
    for lib in libs:
        seen: list = []
        function = linear_functions(lib, seen)[style]
        x, w, b = linear_inputs(lib)
        y = function.apply(x, w, b)
        (y * y).sum().backward()
        results.append((y, type(y.grad_fn).__name__, y.grad_fn.name(), y.requires_grad, y.is_leaf,
                        x.grad, w.grad, b.grad, seen))
    ours, theirs = results
    for position in (0, 5, 6, 7):  # the output and the gradients
        same_values(ours[position], theirs[position])
    assert ours[1:5] == theirs[1:5]
    assert ours[1] == ("Linear", "LinearSplit")[style] + "Backward"
    assert ours[8] == theirs[8] and ours[8]  # what forward / setup_context saw


def test_separate_style_binds_arguments_to_forwards_signature(libs: tuple) -> None:
    results = []
    for lib in libs:
        seen: list = []
        split = linear_functions(lib, seen)[1]
        x, w, b = linear_inputs(lib)
        calls = (lambda: split.apply(x, w), lambda: split.apply(x, w, b=b), lambda: split.apply(x, b=b, w=w))
        shapes = [tuple(call().shape) for call in calls]
        with lib.no_grad():
            under_no_grad = split.apply(x, w, b).requires_grad
        plain = split.apply(x.detach(), w.detach()).requires_grad
        missing = outcome(lambda: split.apply(x))
        results.append((shapes, under_no_grad, plain, missing, seen))
    assert results[0] == results[1]
    assert results[0][3] == ("TypeError", "missing a required argument: 'w'")
    # setup_context runs under no_grad and for calls that record nothing, with defaults filled in
    assert [entry[2:4] for entry in results[0][4]] == [(3, True), (3, False), (3, False), (3, False), (3, True)]


def test_the_style_is_chosen_once_per_class_and_minitorchs_ops_keep_the_quick_apply(libs: tuple) -> None:
    mt = libs[0]
    combined, split = linear_functions(mt, [])
    base_apply = mt.autograd.Function.__dict__["apply"]
    assert "apply" not in elementwise.Add.__dict__ and elementwise.Add.apply.__func__ is base_apply.__func__
    assert split.__dict__["apply"].__func__ is custom_function._apply_binding
    assert combined.__dict__["apply"].__func__ is custom_function._apply

    class Subclass(split):  # a subclass inherits the separate style, as PyTorch's check finds it
        pass

    x, w, b = linear_inputs(mt)
    assert Subclass.__dict__["apply"].__func__ is custom_function._apply_binding
    assert type(Subclass.apply(x, w).grad_fn).__name__ == "SubclassBackward"


def test_an_apply_of_the_users_own_is_kept(libs: tuple) -> None:
    results = []
    for lib in libs:
        calls: list = []
        split = linear_functions(lib, [])[1]

        class Logged(split):
            @classmethod
            def apply(cls, *args: Any) -> Any:
                calls.append(len(args))
                return super().apply(*args)

        class Derived(Logged):
            pass

        x, w, b = linear_inputs(lib)
        names = [type(function.apply(x, w, b).grad_fn).__name__ for function in (Logged, Derived)]
        results.append((names, calls))
    assert results[0] == results[1] == (["LoggedBackward", "DerivedBackward"], [3, 3])


def test_forward_without_ctx_needs_setup_context(libs: tuple) -> None:
    results = []
    for lib in libs:
        class NoSetup(lib.autograd.Function):
            @staticmethod
            def forward(x: Any) -> Any:
                return x * 2

        class NotImplemented_(lib.autograd.Function):
            pass

        class NoBackward(lib.autograd.Function):
            @staticmethod
            def forward(ctx: Any, x: Any) -> Any:
                return x * 2

        x = lib.ones(2, requires_grad=True)
        results.append((outcome(lambda: NoSetup.apply(x))[0], outcome(lambda: NotImplemented_.apply(x)),
                        outcome(lambda: NoBackward.apply(x).sum().backward())))
    assert results[0] == results[1]
    assert results[0][0] == "TypeError"


# ---- mark_non_differentiable ----------------------------------------------------------------

def sort_function(lib: ModuleType, materialize: bool, seen: list) -> type:
    class Sort(lib.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            ctx.set_materialize_grads(materialize)
            ordered, indices = x.sort()
            ctx.mark_non_differentiable(indices)
            ctx.save_for_backward(indices)
            return ordered, indices

        @staticmethod
        def backward(ctx: Any, grad: Any, grad_indices: Any) -> Any:
            seen.append(None if grad_indices is None else (grad_indices.tolist(), str(grad_indices.dtype)[-5:]))
            (indices,) = ctx.saved_tensors
            return lib.zeros_like(grad).index_add_(0, indices, grad)

    return Sort


@pytest.mark.parametrize("materialize", [True, False])
def test_sort_indices_are_non_differentiable_and_get_integer_zeros(libs: tuple, materialize: bool) -> None:
    results = []
    for lib in libs:
        seen: list = []
        x = lib.tensor([3.0, 1.0, 2.0], dtype=lib.float64, requires_grad=True)
        ordered, indices = sort_function(lib, materialize, seen).apply(x)
        (ordered * lib.tensor([1.0, 10.0, 100.0], dtype=lib.float64)).sum().backward()
        results.append((ordered.requires_grad, indices.requires_grad, indices.grad_fn is None, indices.is_leaf,
                        x.grad.tolist(), seen))
    assert results[0] == results[1]
    assert results[0][5] == ([([0, 0, 0], "int64")] if materialize else [None])


def test_a_float_output_marked_non_differentiable(libs: tuple) -> None:
    results = []
    for lib in libs:
        seen: list = []

        class Two(lib.autograd.Function):
            @staticmethod
            def forward(ctx: Any, x: Any) -> Any:
                doubled, tripled = x * 2, x * 3
                ctx.mark_non_differentiable(tripled)
                return doubled, tripled

            @staticmethod
            def backward(ctx: Any, grad_doubled: Any, grad_tripled: Any) -> Any:
                seen.append(grad_tripled.tolist())
                return grad_doubled * 2

        x = lib.ones(2, dtype=lib.float64, requires_grad=True)
        doubled, tripled = Two.apply(x)
        error = outcome(lambda: tripled.sum().backward())
        (doubled.sum() + tripled.sum()).backward()
        results.append((doubled.requires_grad, tripled.requires_grad, tripled.is_leaf, error, x.grad.tolist(), seen))
    assert results[0] == results[1]
    assert results[0][3] == ("RuntimeError", "element 0 of tensors does not require grad and does not have a grad_fn")


def test_marking_something_not_a_tensor_is_refused(libs: tuple) -> None:
    results = []
    for lib in libs:
        class MarksNumber(lib.autograd.Function):
            @staticmethod
            def forward(ctx: Any, x: Any) -> Any:
                ctx.mark_non_differentiable(3)
                return x * 2

        class DirtiesNumber(lib.autograd.Function):
            @staticmethod
            def forward(ctx: Any, x: Any) -> Any:
                ctx.mark_dirty(3)
                return x * 2

        x = lib.ones(2, requires_grad=True)
        results.append((outcome(lambda: MarksNumber.apply(x)), outcome(lambda: DirtiesNumber.apply(x))))
    (ours_marks, ours_dirty), (theirs_marks, theirs_dirty) = results
    # PyTorch's messages end where the name of the type would follow; ours goes on to name it
    assert ours_marks[0] == theirs_marks[0] == "RuntimeError" and ours_marks[1].startswith(theirs_marks[1])
    assert ours_dirty[0] == theirs_dirty[0] == "RuntimeError" and ours_dirty[1].startswith(theirs_dirty[1])
    assert ours_marks[1].endswith("int")


# ---- an input returned as it is ------------------------------------------------------------------

def identity(lib: ModuleType, mark: bool = False) -> type:
    class Identity(lib.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            if mark:
                ctx.mark_non_differentiable(x)
            return x

        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:
            return grad * 10

    return Identity


@pytest.mark.parametrize("mark", [False, True])
@pytest.mark.parametrize("kind", ["leaf", "non-leaf", "no grad"])
def test_an_input_returned_as_it_is_comes_back_as_a_view(libs: tuple, mark: bool, kind: str) -> None:
    results = []
    for lib in libs:
        leaf = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=kind != "no grad")
        x = leaf * 1 if kind == "non-leaf" else leaf
        y = identity(lib, mark).apply(x)
        if y.requires_grad:
            (y * y).sum().backward()
        results.append((y is x, y._base is x, y._is_view(), y.requires_grad, y.grad_fn is None, leaf.is_leaf,
                        x._version, values(leaf.grad) is None or values(leaf.grad).tolist()))
    assert results[0] == results[1]


def test_changing_a_returned_view_in_place_is_refused(libs: tuple) -> None:
    results = []
    for lib in libs:
        x = lib.ones(2, requires_grad=True) * 1
        y = identity(lib).apply(x)
        results.append(outcome(lambda: y.add_(1)))
    assert results[0] == results[1]
    assert results[0][1].startswith("Output 0 of Identity is a view and is being modified inplace. This view was "
                                    "created inside a custom Function")


# ---- mark_dirty -----------------------------------------------------------------------------------

def scale_in_place(lib: ModuleType, write: bool = True, save: bool = False) -> type:
    class ScaleInPlace(lib.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            if save:
                ctx.save_for_backward(x)
            if write:
                x.mul_(3)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:
            if save:
                ctx.saved_tensors  # noqa: B018 - reading them checks their versions
            return grad * 3

    return ScaleInPlace


@pytest.mark.parametrize("write", [True, False])
@pytest.mark.parametrize("save", [True, False])
def test_a_dirty_input_is_the_output_with_its_version_bumped(libs: tuple, write: bool, save: bool) -> None:
    results = []
    for lib in libs:
        leaf = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
        x = leaf.clone()
        y = scale_in_place(lib, write, save).apply(x)
        state = (y is x, x._version, type(x.grad_fn).__name__, x.requires_grad, x.is_leaf, values(x).tolist())
        (y * y).sum().backward()
        written_after = outcome(lambda: (scale_in_place(lib, write, save).apply(leaf.clone()).mul_(2).sum()
                                         .backward()))
        results.append((state, leaf.grad.tolist(), written_after))
    assert results[0] == results[1]
    assert results[0][0][:3] == (True, 2 if write else 1, "ScaleInPlaceBackward")
    if save:  # the dirty input is saved as the op's output: a later write is caught, naming the op
        assert "which is output 0 of ScaleInPlace, is at version" in results[0][2][1]


def test_dirty_inputs_that_do_not_require_grad(libs: tuple) -> None:
    results = []
    for lib in libs:
        plain = lib.ones(2, dtype=lib.float64)
        same = scale_in_place(lib).apply(plain) is plain

        class AddInto(lib.autograd.Function):
            @staticmethod
            def forward(ctx: Any, target: Any, source: Any, counter: Any) -> Any:
                target.add_(source)
                counter.add_(1)
                ctx.mark_dirty(target, counter)
                return target, counter

            @staticmethod
            def backward(ctx: Any, grad: Any, grad_counter: Any) -> Any:
                ctx.grad_counter = (grad_counter.tolist(), str(grad_counter.dtype)[-5:])
                return grad, grad * 2, None

        target, counter = lib.zeros(2, dtype=lib.float64), lib.tensor([5, 6])
        source = lib.ones(2, dtype=lib.float64, requires_grad=True)
        out, count = AddInto.apply(target, source, counter)
        node = out.grad_fn
        out.sum().backward()
        ctx = node.ctx if lib is minitorch else node
        results.append((same, plain._version, out is target, count is counter, target._version, counter._version,
                        target.is_leaf, type(node).__name__, count.requires_grad, source.grad.tolist(),
                        ctx.grad_counter))
    assert results[0] == results[1]


def test_dirty_input_errors(libs: tuple) -> None:
    results = []
    for lib in libs:
        class ForgetsToReturn(lib.autograd.Function):
            @staticmethod
            def forward(ctx: Any, x: Any) -> Any:
                ctx.mark_dirty(x)
                return x * 2

        leaf = lib.ones(4, requires_grad=True)
        with lib.no_grad():
            under_no_grad = scale_in_place(lib).apply(leaf)
            no_grad_state = (under_no_grad is leaf, under_no_grad.requires_grad, leaf._version, leaf.grad_fn is None)
        results.append((outcome(lambda: scale_in_place(lib).apply(lib.ones(2, requires_grad=True))),
                        outcome(lambda: scale_in_place(lib).apply(leaf[:2])),
                        outcome(lambda: ForgetsToReturn.apply(lib.ones(2, requires_grad=True) * 1)),
                        outcome(lambda: ForgetsToReturn.apply(lib.ones(2))),
                        no_grad_state))
    assert results[0] == results[1]
    assert results[0][0] == ("RuntimeError",
                             "a leaf Variable that requires grad has been used in an in-place operation.")


def test_marking_a_tensor_that_is_no_input_dirty_warns(libs: tuple) -> None:
    results = []
    for lib in libs:
        class DirtiesItsOwn(lib.autograd.Function):
            @staticmethod
            def forward(ctx: Any, x: Any) -> Any:
                made = x * 2
                made.add_(1)
                ctx.mark_dirty(made)
                return made

            @staticmethod
            def backward(ctx: Any, grad: Any) -> Any:
                return grad * 2

        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = DirtiesItsOwn.apply(lib.ones(2, requires_grad=True))
        messages = [str(w.message) for w in caught if "mark_dirty" in str(w.message)]
        first = messages[0].split(" (Triggered")[0]  # (PyTorch adds where in its C++ source)
        results.append((out.tolist(), out._version, type(out.grad_fn).__name__, len(messages), first))
    assert results[0] == results[1]


def test_a_dirty_view_rebases_its_base(libs: tuple) -> None:
    results = []
    for lib in libs:
        leaf = lib.tensor([1.0, 2.0, 3.0, 4.0], dtype=lib.float64, requires_grad=True)
        base = leaf * 1
        view = base[1:3]
        out = scale_in_place(lib).apply(view)
        state = (out is view, type(view.grad_fn).__name__, type(base.grad_fn).__name__, view._version, base._version)
        (base * lib.tensor([1.0, 10.0, 100.0, 1000.0], dtype=lib.float64)).sum().backward()
        plain_base = lib.ones(4)
        plain_view = plain_base[:2]
        scale_in_place(lib).apply(plain_view)
        results.append((state, leaf.grad.tolist(), values(base).tolist(), plain_base.tolist(), plain_base._version))
    assert results[0] == results[1]
    assert results[0][0][1:3] == ("AsStridedBackward0", "CopySlices")


def test_a_dirty_input_changes_what_an_earlier_op_saved(libs: tuple) -> None:
    results = []
    for lib in libs:
        a = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True).clone()
        squared = a * a
        scale_in_place(lib).apply(a)
        results.append(outcome(lambda: squared.sum().backward()))
    assert results[0] == results[1]
    assert "[torch.DoubleTensor [2]], which is output 0 of ScaleInPlace, is at version 2; expected version 0" in \
        results[0][1]


# ---- once_differentiable --------------------------------------------------------------------------

def cube(lib: ModuleType, seen: list) -> type:
    class Cube(lib.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        @lib.autograd.function.once_differentiable
        def backward(ctx: Any, grad: Any) -> Any:
            seen.append(lib.is_grad_enabled())
            (x,) = ctx.saved_tensors
            return grad * 3 * x ** 2

    return Cube


def test_once_differentiable_works_once_and_refuses_the_second_derivative(libs: tuple) -> None:
    results = []
    for lib in libs:
        seen: list = []
        function = cube(lib, seen)
        x = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
        (plain,) = lib.autograd.grad(function.apply(x).sum(), x, create_graph=True)  # a seed without a graph
        (first,) = lib.autograd.grad((function.apply(x) ** 2).sum(), x, create_graph=True)
        node = first.grad_fn
        second = outcome(lambda: first.sum().backward())
        function.apply(x).sum().backward()
        results.append((plain.tolist(), plain.requires_grad, first.tolist(), type(node).__name__, node.name(),
                        repr(first).split("grad_fn=")[-1], len(node.next_functions), second, x.grad.tolist(), seen,
                        function.backward.__name__))
    assert results[0] == results[1]
    assert results[0][3:5] == ("Error", "torch::autograd::Error")
    assert results[0][7] == ("RuntimeError", "trying to differentiate twice a function that was marked with "
                                             "@once_differentiable")


# ---- what backward returns --------------------------------------------------------------------------

@pytest.mark.parametrize("returned", ["too few", "extra None", "extra tensor", "for a number", "a float",
                                      "incompatible shape", "broadcast shape", "larger shape"])
def test_backwards_results_are_checked_as_pytorch_checks_them(libs: tuple, returned: str) -> None:
    results = []
    for lib in libs:
        class Scale(lib.autograd.Function):
            @staticmethod
            def forward(ctx: Any, x: Any, factor: float) -> Any:
                return x * factor

            @staticmethod
            def backward(ctx: Any, grad: Any) -> Any:
                return {"too few": lambda: grad, "extra None": lambda: (grad * 2, None, None),
                        "extra tensor": lambda: (grad, None, grad), "for a number": lambda: (grad, grad),
                        "a float": lambda: (3.0, None), "incompatible shape": lambda: (lib.ones(3), None),
                        "broadcast shape": lambda: (lib.ones(1, 3), None),
                        "larger shape": lambda: (lib.ones(5, 2, 3), None)}[returned]()

        x = lib.ones(2, 3, requires_grad=True)
        results.append((outcome(lambda: Scale.apply(x, 2.0).sum().backward()), values(x.grad)))
    assert results[0][0] == results[1][0]
    same_values(results[0][1], results[1][1])


@pytest.mark.parametrize("defines", ["vjp", "both"])
def test_vjp_is_backwards_other_name(libs: tuple, defines: str) -> None:
    results = []
    for lib in libs:
        class Double(lib.autograd.Function):
            @staticmethod
            def forward(ctx: Any, x: Any) -> Any:
                return x * 2

            @staticmethod
            def vjp(ctx: Any, grad: Any) -> Any:
                return grad * 2

        if defines == "both":
            Double.backward = staticmethod(lambda ctx, grad: grad * 5)
        x = lib.ones(2, requires_grad=True)
        results.append((outcome(lambda: Double.apply(x).sum().backward()), values(x.grad)))
    assert results[0][0] == results[1][0]
    same_values(results[0][1], results[1][1])


def test_an_instance_of_a_function_warns_and_cannot_be_called(libs: tuple) -> None:
    results = []
    for lib in libs:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            instance = identity(lib)()
        results.append(([(w.category.__name__, str(w.message).split("> ")[-1]) for w in caught],
                        outcome(lambda: instance(lib.ones(1)))))
    assert results[0] == results[1]


# ---- under function transforms -------------------------------------------------------------------

def squares(lib: ModuleType) -> dict[str, type]:
    def backward(ctx: Any, grad: Any) -> Any:
        (x,) = ctx.saved_tensors
        return 2 * x * grad

    class Combined(lib.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            ctx.save_for_backward(x)
            return x ** 2

    class Separate(lib.autograd.Function):
        @staticmethod
        def forward(x: Any) -> Any:
            return x ** 2

        @staticmethod
        def setup_context(ctx: Any, inputs: tuple, output: Any) -> None:
            ctx.save_for_backward(inputs[0])

    class Generated(Separate):
        generate_vmap_rule = True

    class WithRule(Separate):
        @staticmethod
        def vmap(info: Any, in_dims: tuple, x: Any) -> Any:
            return x ** 2, in_dims[0]

    class Both(WithRule):
        generate_vmap_rule = True

    for function in (Combined, Separate):
        function.backward = staticmethod(backward)
    return {"combined": Combined, "separate": Separate, "generated": Generated, "rule": WithRule, "both": Both}


@pytest.mark.parametrize("name", ["combined", "separate", "generated", "rule", "both"])
def test_custom_functions_under_vmap_and_grad(libs: tuple, name: str) -> None:
    results = []
    for lib in libs:
        function = squares(lib)[name]
        x = lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64)
        under_grad = outcome(lambda: values(lib.func.grad(lambda t: function.apply(t).sum())(x)).tolist())
        under_vmap = outcome(lambda: values(lib.vmap(function.apply)(x)).tolist())
        results.append((under_grad, under_vmap))
    assert results[0] == results[1]


# ---- forward AD --------------------------------------------------------------------------------

def test_a_jvp_with_save_for_forward_in_setup_context(libs: tuple) -> None:
    results = []
    for lib in libs:
        forward_ad = lib.autograd.forward_ad

        class Exp(lib.autograd.Function):
            @staticmethod
            def forward(x: Any) -> Any:
                return x.exp()

            @staticmethod
            def setup_context(ctx: Any, inputs: tuple, output: Any) -> None:
                ctx.save_for_backward(output)
                ctx.save_for_forward(output)

            @staticmethod
            def backward(ctx: Any, grad: Any) -> Any:
                (result,) = ctx.saved_tensors
                return grad * result

            @staticmethod
            def jvp(ctx: Any, tangent: Any) -> Any:
                (result,) = ctx.saved_tensors
                return tangent * result

        x = lib.tensor([0.0, 1.0, -0.5], dtype=lib.float64, requires_grad=True)
        with forward_ad.dual_level():
            out = Exp.apply(forward_ad.make_dual(x, lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64)))
            tangent = forward_ad.unpack_dual(out).tangent
        checked = lib.autograd.gradcheck(Exp.apply, (x,), check_forward_ad=True)
        results.append((values(tangent).tolist(), checked))
    assert results[0] == results[1]


def sort_with_jvp(lib: ModuleType, indices_tangent: Any) -> type:
    """A sort whose jvp gives the (non-differentiable) indices ``indices_tangent``."""

    class Sort(lib.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            ordered, indices = x.sort()
            ctx.mark_non_differentiable(indices)
            ctx.indices = indices
            return ordered, indices

        @staticmethod
        def jvp(ctx: Any, tangent: Any) -> Any:
            return tangent[ctx.indices], indices_tangent

    return Sort


def test_a_jvp_may_not_give_a_non_differentiable_output_a_tangent(libs: tuple) -> None:
    results = []
    for lib in libs:
        forward_ad = lib.autograd.forward_ad
        found = []
        for indices_tangent in (None, lib.zeros(3)):
            sort = sort_with_jvp(lib, indices_tangent)
            with forward_ad.dual_level():
                dual = forward_ad.make_dual(lib.tensor([3.0, 1.0, 2.0]), lib.tensor([10.0, 20.0, 30.0]))
                found.append(outcome(lambda: [values(forward_ad.unpack_dual(o).tangent) for o in sort.apply(dual)]))
        results.append([(kind, [None if v is None else v.tolist() for v in value] if kind == "ok" else value)
                        for kind, value in found])
    assert results[0] == results[1]
    assert results[0][0] == ("ok", [[20.0, 30.0, 10.0], None])


def test_gradcheck_passes_on_custom_functions(libs: tuple) -> None:
    mt = libs[0]
    x, w, b = linear_inputs(mt)
    for function in linear_functions(mt, []):
        assert mt.autograd.gradcheck(function.apply, (x, w, b))
    sort = sort_function(mt, True, [])
    assert mt.autograd.gradcheck(lambda t: sort.apply(t)[0], (x.detach()[0].requires_grad_(),))
    assert mt.autograd.gradcheck(cube(mt, []).apply, (x,))
