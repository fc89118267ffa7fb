r"""Autograd functions: an op's forward and backward side by side, and the graph they build.

Every differentiable tensor operation is a :class:`Function` subclass::

    class Mul(Function):
        @staticmethod
        def forward(ctx, a, b):            # computes on tensors, graph recording off
            ctx.save_for_backward(a, b)
            return raw.zip("mul", a, b)

        @staticmethod
        def backward(ctx, grad):           # chain rule: d(ab)/da = b, d(ab)/db = a
            a, b = ctx.saved_tensors
            return grad * b, grad * a

``Mul.apply(a, b)`` runs ``forward`` and, when an input requires grad, gives the result a
``grad_fn``: a :class:`Node` that remembers the ``ctx`` and the nodes of the inputs. The
nodes form the graph that :mod:`minitorch.autograd.engine` walks backward.
"""

from __future__ import annotations

import functools
import re
import sys
import threading
import warnings
import weakref
from collections import OrderedDict
from typing import TYPE_CHECKING, Any, Callable, Optional

from .. import dispatch
from ..dispatch import map_op, tensor_class, zip_op
from . import anomaly_mode, dual_state, saved_hooks
from .anomaly_mode import anomaly
from .grad_mode import is_grad_enabled, no_grad, per_thread
from .saved_hooks import PackedSaved
from .saved_hooks import usage as saved_hooks_usage

if TYPE_CHECKING:
    from ..tensor import Tensor

FREED_GRAPH_MESSAGE = (
    "Trying to backward through the graph a second time (or directly access saved tensors after "
    "they have already been freed). Saved intermediate values of the graph are freed when you call "
    ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
    "graph a second time or if you need to access saved tensors after calling backward."
)


def _modified_message(value: "Tensor", version: int, producer: Optional[str]) -> str:
    """PyTorch's error for a saved tensor changed in place after it was saved; ``producer`` is
    the node whose output it is (its current ``grad_fn`` unless it was saved as an op's output)."""
    producer = producer or (value.grad_fn.name() if value.grad_fn is not None else None)
    which = f", which is output 0 of {re.sub(r'Backward[0-9]*$', '', producer)}," if producer else ""
    if anomaly.enabled:  # the warning of the node that failed came just before
        hint = ("the backtrace further above shows the operation that failed to compute its gradient. "
                "The variable in question was changed in there or anywhere later. Good luck!")
    else:
        hint = ("enable anomaly detection to find the operation that failed to compute its gradient, "
                "with torch.autograd.set_detect_anomaly(True, check_nan=False).")
    return (
        "one of the variables needed for gradient computation has been modified by an inplace operation: "
        f"[torch.{value.type_name()} {list(value.shape)}]{which} is at version {value._version}; "
        f"expected version {version} instead. Hint: {hint}"
    )


class SavedOutput:
    """An op's own output as its ``ctx`` keeps it: the output's values, version counter and
    place, and a weak reference to the op's node.

    Kept as the tensor itself, the output would hold its node and the node the output
    (``out.grad_fn -> node -> ctx -> out``): a cycle only the garbage collector frees, so an
    output dropped without a backward (inference with grad enabled) kept its memory until the
    next collection. PyTorch's saved variables do the same. :attr:`Context.saved_tensors`
    rebuilds the tensor with the node as its ``grad_fn``, so a double backward still runs
    through it.
    """

    __slots__ = ("data", "device", "version_counter", "base", "output_nr", "node")

    def __init__(self, output: "Tensor", node: "Node") -> None:
        self.data, self.device, self.base = output._data, output._device, output._base
        self.version_counter, self.output_nr = output._version_counter, output._output_nr
        self.node = weakref.ref(node)

    def holds(self, tensor: "Tensor") -> bool:
        """Whether this is ``tensor``'s own saved state (the same data)."""
        return self.data is tensor._data

    def unpack(self) -> "Tensor":
        tensor = tensor_class()._make(self.data, self.device)
        tensor._version_counter, tensor._base = self.version_counter, self.base
        node = self.node()
        if node is not None:  # alive while backward runs through it
            tensor.grad_fn, tensor._requires_grad, tensor._output_nr = node, True, self.output_nr
        return tensor


def _is_saved_as(value: Any, tensor: "Tensor") -> bool:
    """Whether the saved ``value`` is ``tensor``: the tensor itself or its :class:`SavedOutput`."""
    return value is tensor or (type(value) is SavedOutput and value.holds(tensor))


class Context:
    """What ``forward`` leaves for ``backward``: saved tensors and any other attributes."""

    # nothing saved yet (class-level defaults: one is made for every op, so its __init__ stays small)
    _saved: tuple[Any, ...] = ()
    _saved_versions: tuple[Optional[int], ...] = ()
    _freed = False
    #: the name the op's ``grad_fn`` prints when it depends on the call (``SumBackward1`` with ``dim``)
    grad_fn_name: Optional[str] = None
    #: (tensor, node name) when an in-place op replaced its saved output by the tensor it wrote
    _inplace_output: tuple[Any, Optional[str]] = (None, None)

    def __init__(self, needs_input_grad: tuple[bool, ...] = ()) -> None:
        self.needs_input_grad = needs_input_grad

    def save_for_backward(self, *values: Any) -> None:
        """Keep tensors (or None) for backward; later in-place changes to them are detected."""
        self._saved = values
        versions = []  # a loop: quicker than a comprehension for the two or three values an op saves
        for value in values:
            versions.append(None if value is None else getattr(value, "_version", None))
        self._saved_versions = tuple(versions)

    @property
    def saved_tensors(self) -> tuple[Any, ...]:
        saved = self._saved  # read before the flag: release() sets the flag first
        if self._freed:
            raise RuntimeError(FREED_GRAPH_MESSAGE)
        values = tuple([v.unpack() if type(v) is SavedOutput or type(v) is PackedSaved else v for v in saved])
        for value, version in zip(values, self._saved_versions):
            if version is not None and value._version != version:
                written = self._inplace_output[0]
                producer = self._inplace_output[1] if written is not None and _is_saved_as(value, written) else None
                raise RuntimeError(_modified_message(value, version, producer))
        return values

    def keep_outputs_weakly(self, outputs: tuple, node: "Node") -> None:
        """Replace each of ``outputs`` (the op's results, ``node`` their ``grad_fn``) that was
        saved by its :class:`SavedOutput`: no reference cycle through the node.

        The op was recorded, so this is where saving ends: with saved-tensor hooks set in this
        thread (:mod:`~minitorch.autograd.saved_hooks`), every saved tensor is packed instead,
        and no longer checked for in-place changes (as PyTorch).
        """
        saved = self._saved
        if saved_hooks_usage.threads:  # the one test an op that saved pays without hooks
            hooks = saved_hooks.current()
            if hooks is not None:
                self._saved = saved_hooks.pack_saved(saved, hooks, outputs, node)
                self._saved_versions = (None,) * len(saved)
                return
        for output in outputs:
            if any(v is output for v in saved):
                saved = tuple([SavedOutput(output, node) if v is output else v for v in saved])
        self._saved = saved

    def replace_saved_output(self, output: Any, written: Any, node_name: str) -> None:
        """An in-place op wrote its result ``output`` into ``written``: what backward reads is
        now ``written`` at its current version (a later in-place change to it is an error)."""
        if not any(_is_saved_as(v, output) for v in self._saved):
            return
        self._saved_versions = tuple([written._version if _is_saved_as(v, output) else version
                                      for v, version in zip(self._saved, self._saved_versions)])
        self._saved = tuple([written if _is_saved_as(v, output) else v for v in self._saved])
        self._inplace_output = (written, node_name)

    # the name the course's scalar Context uses
    saved_values = saved_tensors

    #: what :meth:`save_for_forward` kept: the tensors and their versions (None: nothing saved)
    _saved_for_forward: Optional[tuple[tuple[Any, ...], tuple[Optional[int], ...]]] = None
    #: whether a custom Function's backward gets zeros for an output no gradient reached (else None)
    materialize_grads = True

    def set_materialize_grads(self, value: bool) -> None:
        """PyTorch's switch: with False, ``backward`` gets None for an output that got no
        gradient, instead of zeros of its shape (a custom Function with several outputs)."""
        self.materialize_grads = bool(value)

    def save_for_forward(self, *values: Any) -> None:
        """Keep tensors (or None) for a custom Function's ``jvp``, which reads them as
        :attr:`saved_tensors` (forward-mode AD, :mod:`minitorch.autograd.forward_ad`)."""
        for value in values:
            if not (value is None or isinstance(value, tensor_class())):
                raise AssertionError("save_for_forward expects all arguments to be tensors; you should save "
                                     "non-tensors as attributes on ctx.")
        self._saved_for_forward = (values, tuple(None if v is None else v._version for v in values))

    #: what a custom Function's forward (or setup_context) gave :meth:`mark_dirty` and
    #: :meth:`mark_non_differentiable` (PyTorch's attribute names); minitorch's own ops mark nothing
    dirty_tensors: tuple[Any, ...] = ()
    non_differentiable: tuple[Any, ...] = ()

    def mark_dirty(self, *tensors: Any) -> None:
        """Say that forward changed these inputs in place and returns them: each output is then
        the input itself, its version bumped and its history rebased onto this op (PyTorch's
        in-place protocol). A later call replaces the tensors an earlier one gave."""
        self.dirty_tensors = tensors

    def mark_non_differentiable(self, *outputs: Any) -> None:
        """Say that these outputs have no gradient (a sort's indices): they do not require grad,
        and backward gets zeros of their shape for them (None with ``set_materialize_grads(False)``).
        A later call replaces the outputs an earlier one gave."""
        self.non_differentiable = outputs

    def release(self) -> None:
        """Drop the saved tensors (after a backward without ``retain_graph``).

        The flag goes first: another thread's backward through a shared part of the graph
        then gets the freed-graph error, never an empty tuple.
        """
        if self._saved:
            self._freed = True
            self._saved = ()


#: the mark (``Tensor._multi_output_view``) of a view that a custom Function returned (an input returned
#: as it is, or a view of one): PyTorch refuses to change it in place, its custom backward would be lost
CUSTOM_FUNCTION_VIEW = "custom Function"

#: PyTorch's name of the class of ``ctx`` (``torch.autograd.function.FunctionCtx``), for type hints
#: and ``isinstance(ctx, FunctionCtx)`` in a custom Function
FunctionCtx = Context


class Node:
    """A ``grad_fn``: how to send the gradient of one output back to the op's inputs.

    ``next_functions`` holds, per forward argument, ``(node, 0)`` of the input that needs a
    gradient (its own ``grad_fn``, or an :class:`AccumulateGrad` for a leaf) or
    ``(None, 0)``. ``input_shapes`` lets the engine sum broadcast gradients back, and
    ``input_dtypes`` (where known) cast each gradient to its input's dtype, as PyTorch's engine.
    """

    #: per edge, the dtype of the input it leads to (None: gradients pass as they come)
    input_dtypes: Optional[tuple[Any, ...]] = None

    def __init__(self, function: type["Function"] | None, ctx: Context | None,
                 next_functions: tuple[tuple[Optional["Node"], int], ...], input_shapes: tuple[Optional[tuple[int, ...]], ...],
                 arg_positions: Optional[tuple[int, ...]] = None) -> None:
        self.function = function
        self.ctx = ctx
        self.next_functions = next_functions
        self.input_shapes = input_shapes
        # which of backward's gradients (one per forward argument) go to next_functions,
        # when not all: PyTorch lists only the differentiable (floating-point tensor) inputs
        self.arg_positions = arg_positions
        # Hooks, each dict made when the first hook is registered (None until then: most
        # nodes never get one). On the gradient arriving at this node: tensor hooks, then
        # retain_grad; on the whole node: PyTorch's Node.register_prehook/register_hook.
        self.tensor_pre_hooks: "Optional[OrderedDict[int, Callable[[Tensor], Optional[Tensor]]]]" = None
        self.retains_grad_hook: Optional[Callable[["Tensor"], None]] = None
        self.pre_hooks: "Optional[OrderedDict[int, Callable]]" = None
        self.post_hooks: "Optional[OrderedDict[int, Callable]]" = None
        if anomaly.enabled:  # the one test anomaly mode adds to an op
            anomaly_mode.record_forward(self)

    #: :attr:`metadata` once made (most nodes never need one)
    _metadata: Optional[dict] = None

    @property
    def metadata(self) -> dict:
        """A dict for anything to keep with the node; anomaly mode keeps the forward's traceback
        there (``"traceback_"``) and the node whose backward made this one (``"parent_"``)."""
        if self._metadata is None:
            self._metadata = {}
        return self._metadata

    def name(self) -> str:
        assert self.function is not None
        chosen = (self.ctx is not None and self.ctx.grad_fn_name) or self.function.grad_fn_name
        return chosen or default_node_name(self.function)

    def rename(self, name: str) -> None:
        """Print as ``name`` from now on (one Function can serve several PyTorch ops)."""
        if self.ctx is not None:
            self.ctx.grad_fn_name = name
        self.__class__ = node_type(name)

    def __repr__(self) -> str:
        return f"<{self.name()} object at {hex(id(self))}>"

    def register_hook(self, hook: Callable) -> Any:
        """``hook(grad_inputs, grad_outputs)`` after this node ran; may return new grad_inputs."""
        from ..utils.hooks import RemovableHandle

        if self.post_hooks is None:
            self.post_hooks = OrderedDict()
        handle = RemovableHandle(self.post_hooks)
        self.post_hooks[handle.id] = hook
        return handle

    def register_prehook(self, hook: Callable) -> Any:
        """``hook(grad_outputs)`` before this node runs; may return new grad_outputs."""
        from ..utils.hooks import RemovableHandle

        if self.pre_hooks is None:
            self.pre_hooks = OrderedDict()
        handle = RemovableHandle(self.pre_hooks)
        self.pre_hooks[handle.id] = hook
        return handle

    def tensor_hooks(self) -> "OrderedDict[int, Callable]":
        """The dict of hooks on the gradient of this node's tensor (made on first use)."""
        if self.tensor_pre_hooks is None:
            self.tensor_pre_hooks = OrderedDict()
        return self.tensor_pre_hooks

    #: how many gradients this node receives: >1 for an op with several outputs (``svd``,
    #: ``eigh``) and the hook nodes of ``minitorch.nn``; an edge ``(node, slot)`` names the output
    num_outputs = 1

    def apply_grads(self, grad_outputs: tuple[Optional["Tensor"], ...]) -> tuple[Optional["Tensor"], ...]:
        """Gradients for each input from the gradients of all outputs (one for ordinary ops)."""
        return self.apply(*grad_outputs)

    def apply(self, *grad: Optional["Tensor"]) -> tuple[Optional["Tensor"], ...]:
        """Gradients for each forward argument (None where not needed) from one gradient per output."""
        assert self.function is not None and self.ctx is not None
        grads = self.function.backward(self.ctx, *grad)
        if not isinstance(grads, tuple):
            grads = (grads,)
        positions = self.arg_positions
        expected = len(self.next_functions) if positions is None else len(self.ctx.needs_input_grad)
        if len(grads) != expected:
            raise RuntimeError(
                f"function {self.function.__name__}.backward returned {len(grads)} gradients, "
                f"expected {expected} (one per forward argument)"
            )
        return grads if positions is None else tuple([grads[i] for i in positions])

    def release(self) -> None:
        if self.ctx is not None:
            self.ctx.release()


#: held while a gradient is added into a leaf's ``.grad``: threads whose backward passes
#: share a leaf (one model trained by several threads) must not lose each other's sums
_ACCUMULATE_LOCK = threading.Lock()


class AccumulateGrad(Node):
    """The node of a leaf tensor: adds the arriving gradient into ``variable.grad``."""

    def __init__(self, variable: "Tensor") -> None:
        super().__init__(None, None, (), ())
        self.variable = variable
        #: ``Tensor.register_post_accumulate_grad_hook``'s hooks, called with the tensor once ``.grad`` is updated
        self.post_accumulate_hooks: "Optional[OrderedDict[int, Callable[[Tensor], None]]]" = None

    def name(self) -> str:
        return "torch::autograd::AccumulateGrad"  # PyTorch's C++ node keeps its namespace in name()

    def __repr__(self) -> str:
        return f"<AccumulateGrad object at {hex(id(self))}>"

    def accumulate(self, grad: "Tensor", owned: bool = False) -> None:
        """Add ``grad`` into ``variable.grad``. ``owned``: nothing but the caller holds ``grad``
        (see :func:`sole_reference`), so an empty ``.grad`` may become ``grad`` itself. A gradient
        of another dtype (a custom backward's) is cast to the tensor's, as PyTorch's engine does."""
        dtype = self.variable._data.dtype
        if grad._data.dtype is not dtype and dtype.is_floating_point:
            grad, owned = grad.to(dtype), True
        with _ACCUMULATE_LOCK:
            self._accumulate(grad, owned)
        if self.post_accumulate_hooks:
            for hook in list(self.post_accumulate_hooks.values()):
                hook(self.variable)

    def _accumulate(self, grad: "Tensor", owned: bool) -> None:
        variable = self.variable
        current = variable.grad
        if current is None:
            # with create_graph the gradient keeps its graph; otherwise a fresh contiguous
            # tensor the user owns, never a (possibly broadcast) view of something else:
            # the gradient itself when it already is one that nobody else holds (as PyTorch
            # steals it), else a copy
            if is_grad_enabled():
                variable.grad = grad
            elif owned and _can_take(grad, variable):
                grad._base = None  # a view taken whole stands alone: its base had no other holder
                variable.grad = grad
            else:
                variable.grad = map_op("copy", grad)
        elif is_grad_enabled():
            variable.grad = current + grad
        elif (current._data.shape == grad._data.shape and current._data.dtype is grad._data.dtype
              and current._device == grad._device and current._data.storage is not grad._data.storage):
            zip_op("add", current, grad, out=current)  # what add_ does, without its checks
            current._bump_version()
        else:
            with no_grad():
                current.add_(grad)


def references(value: object) -> int:
    """``sys.getrefcount`` of ``value`` seen from a caller that holds it in a local variable."""
    return sys.getrefcount(value)


def _references_of_a_local() -> int:
    value = object()
    return references(value)


def _attribute_references(owner: object, name: str) -> int:
    """``sys.getrefcount`` of the object in ``owner``'s attribute ``name``."""
    return sys.getrefcount(getattr(owner, name))


class _Holder:
    def __init__(self) -> None:
        self.value = object()


#: what :func:`references` reports for a local variable that is the object's only reference,
#: and :func:`_attribute_references` for an object that only that attribute holds (measured
#: once, so the count does not depend on how this Python counts its own calls)
_SOLE_LOCAL = _references_of_a_local()
_SOLE_ATTRIBUTE = _attribute_references(_Holder(), "value")


def sole_reference(value: object) -> bool:
    """Whether the caller's local variable is the only reference to ``value``."""
    return references(value) == _SOLE_LOCAL + 1  # + 1: this function's own argument


def _can_take(grad: "Tensor", variable: "Tensor") -> bool:
    """Whether ``grad``, which only the engine holds, may become ``variable.grad`` as it is:
    a whole, row-major, plain tensor like ``variable`` whose storage nothing else shares.

    The gradient of a linear layer's weight is a transposed view of the transposed product
    (``TBackward0`` after ``AddmmBackward0``), and a summed bias gradient a view of the
    reduction's result: such a view may be taken too (its caller then detaches it from its
    base) when the base is held by the view alone and the view covers all of the storage.
    Anything else (a slice of a larger gradient, a
    tensor a hook kept, a view of the user's tensor) is copied.
    """
    data, like = grad._data, variable._data
    if not (grad.grad_fn is None and not grad._requires_grad and data.offset == 0
            and data.shape == like.shape and data.dtype is like.dtype and grad._device == variable._device
            and len(data.storage) == data.size and data.is_contiguous()):
        return False
    holders = _attribute_references(data, "storage")
    if grad._base is None:
        return holders == _SOLE_ATTRIBUTE
    if _attribute_references(grad, "_base") != _SOLE_ATTRIBUTE:  # counted before a local holds it
        return False
    base = grad._base
    return (base._base is None and base.grad_fn is None and base._data.storage is data.storage
            and base._data is not data and holders == _SOLE_ATTRIBUTE + 1)  # the view's and the base's TensorData


#: the Node subclass of each name a ``grad_fn`` prints (made on first use)
_NODE_TYPES: dict[str, type[Node]] = {}
#: the default name of each Function's nodes (made on first use)
_DEFAULT_NAMES: dict[type, str] = {}


def is_own_function(function: type) -> bool:
    """Whether ``function`` is one of minitorch's ops (not a user's ``autograd.Function``)."""
    return function.__module__.split(".")[0] == __name__.split(".")[0]


def default_node_name(function: type) -> str:
    """``<Function>Backward0`` for minitorch's own ops, ``<Function>Backward`` for a user's
    Function: PyTorch numbers only the nodes of its own ops."""
    name = _DEFAULT_NAMES.get(function)
    if name is None:
        own = is_own_function(function)
        name = _DEFAULT_NAMES.setdefault(function, f"{function.__name__}Backward{'0' if own else ''}")
    return name


def node_type(name: str) -> type[Node]:
    """The Node subclass called ``name``, so that ``type(t.grad_fn).__name__`` is PyTorch's
    ``AddBackward0`` too, not only the node's repr."""
    found = _NODE_TYPES.get(name)
    if found is None:
        found = _NODE_TYPES.setdefault(name, type(name, (Node,), {"__doc__": f"A ``grad_fn`` named {name}."}))
    return found


def _stand_alone_unless_input_view(out: "Tensor", args: tuple, kwargs: dict) -> None:
    """Make ``out``, a forward's result that is a view, stand alone unless it is a view of an input.

    A forward may reshape a tensor it made (a reduction's ``(n, 1)`` result viewed as ``(n,)``);
    PyTorch's op results are never views of such hidden temporaries, so an in-place op on one
    records as on any result (``AddBackward0``, not a view's rewrite of its base). The version
    counter stays shared: a temporary that ``backward`` saved still sees in-place changes.
    """
    base = out._base
    tensor = tensor_class()
    for arg in (*args, *kwargs.values()):  # an input (or the view of one) passed through stays a view
        if isinstance(arg, tensor) and (arg is base or arg._base is base):
            return
    out._base = None


class Function:
    """Base of every differentiable op; subclasses define ``forward`` and ``backward``."""

    #: the name its ``grad_fn`` prints, where PyTorch's differs from ``<class name>Backward0``
    grad_fn_name: Optional[str] = None
    #: arguments that PyTorch takes as a Python number (``w ** 2``, ``clamp(w, 0, 1)``): a 0-d
    #: tensor there that does not require grad gets no entry in ``next_functions``
    number_args: tuple[int, ...] = ()

    @staticmethod
    def forward(ctx: Context, *args: Any, **kwargs: Any) -> "Tensor":
        """The op's result from its arguments, graph recording off. Either ``forward(ctx, *args)``
        filling ``ctx`` itself, or (a class that overrides :meth:`setup_context`) ``forward(*args)``
        without it."""
        raise NotImplementedError("You must implement the forward function for custom autograd.Function.")

    @staticmethod
    def setup_context(ctx: Context, inputs: tuple[Any, ...], output: Any) -> Any:
        """The second half of the separate style: fill ``ctx`` from the forward's arguments
        (defaults filled in) and its result. Overriding it is what chooses that style."""
        raise NotImplementedError("setup_context is not implemented.")

    @staticmethod
    def backward(ctx: Context, grad_output: "Tensor") -> Any:
        """One gradient per forward argument (None where none is needed) from one per output."""
        raise NotImplementedError("You must implement either the backward or vjp method for your custom "
                                  "autograd.Function to use it with backward mode AD.")

    #: PyTorch's other name of :meth:`backward`: a custom Function may define either
    vjp = backward

    #: PyTorch may generate a vmap rule from a custom Function's code when this is True; minitorch's
    #: ``func.vmap`` calls the Function once per slice, which needs no rule, but refuses a Function
    #: that says neither this nor :meth:`vmap`, as PyTorch does
    generate_vmap_rule = False

    @staticmethod
    def vmap(info: Any, in_dims: tuple[Optional[int], ...], *args: Any) -> Any:
        """PyTorch's batching rule of a custom Function. minitorch's ``func.vmap`` runs the
        Function once per slice and never calls it; overriding it only marks the Function as
        allowed under ``vmap``."""
        raise NotImplementedError("To use autograd.Function with vmap, you must either override the vmap "
                                  "staticmethod or set generate_vmap_rule=True.")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        warnings.warn(f"{self.__class__} should not be instantiated. Methods on autograd functions are all static, "
                      "so you should invoke them on the class itself. Instantiating an autograd function will raise "
                      "an error in a future version of PyTorch.", DeprecationWarning, stacklevel=2)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError("Legacy autograd function with non-static forward method is deprecated. Please use "
                           "new-style autograd function with static forward method. (Example: "
                           "https://pytorch.org/docs/stable/autograd.html#torch.autograd.Function)")

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """A user's Function gets, once here, the ``apply`` of PyTorch's custom-Function protocol
        (:mod:`.custom_function`); minitorch's own ops keep the quick one below, untouched."""
        super().__init_subclass__(**kwargs)
        if _adopt_user_function is not None and not is_own_function(cls):
            _adopt_user_function(cls)

    @staticmethod
    def jvp(ctx: Context, *grad_inputs: Any) -> Any:
        """Forward-mode AD's rule of a custom Function: the output's tangent (a tuple for several
        outputs) from one tangent per forward argument (None for a non-tensor). minitorch's own
        ops need none: forward AD derives theirs from ``backward`` (:mod:`.forward_mode`)."""
        raise NotImplementedError("You must implement the jvp function for custom autograd.Function to use it "
                                  "with forward mode AD.")

    @classmethod
    def apply(cls, *args: Any, **kwargs: Any) -> "Tensor":
        """Run ``forward`` and, if any tensor argument requires grad, record a :class:`Node`.

        Runs once per op, so it is written for speed: a plain loop (for an op's two or three
        arguments quicker than a comprehension, which is a function call of its own), and this
        thread's grad mode switched off around ``forward`` by setting the flag (what
        ``no_grad()`` does, without making a context object).
        """
        if _dual_route is not None and not dual_state.per_thread.suspended:  # a forward AD level is open
            return _dual_route(cls, *args, **kwargs)
        tensor = dispatch._TENSOR_CLASS
        needs = []
        for arg in args:
            needs.append(isinstance(arg, tensor) and arg._requires_grad)
        needs_input_grad = tuple(needs)
        mode = per_thread.grad_mode
        previous = mode.enabled
        record = previous and True in needs_input_grad
        ctx = Context(needs_input_grad)
        if previous:
            mode.enabled = False
            try:
                out = cls.forward(ctx, *args, **kwargs) if kwargs else cls.forward(ctx, *args)
            finally:
                mode.enabled = True
        else:  # already off (backward, no_grad): nothing to switch
            out = cls.forward(ctx, *args, **kwargs) if kwargs else cls.forward(ctx, *args)
        if type(out) is tuple:
            first = args[0] if args else None
            for output in out:  # (views of the first input, ``split``'s pieces, stay: no call for them)
                if isinstance(output, tensor) and output._base is not None and output._base is not first \
                        and output._base is not getattr(first, "_base", None):
                    _stand_alone_unless_input_view(output, args, kwargs)
            return cls._record_several(ctx, args, out) if record else out
        base = out._base
        if base is not None and not (args and (args[0] is base or getattr(args[0], "_base", None) is base)):
            _stand_alone_unless_input_view(out, args, kwargs)  # (a view of the first input, the common case, stays)
        if record and out._data.dtype.is_floating_point:  # an integer or bool result never requires grad
            node = cls._node(ctx, args, needs_input_grad)
            out._set_grad_fn(node)
            if ctx._saved:
                ctx.keep_outputs_weakly((out,), node)
        return out

    @classmethod
    def _node(cls, ctx: Context, args: tuple, needs_input_grad: tuple[bool, ...]) -> Node:
        """The node of one call, with edges to the differentiable inputs only (floating-point
        tensors), as PyTorch lists them; each edge names the input's output slot."""
        tensor = dispatch._TENSOR_CLASS
        numbers = cls.number_args
        positions: list[int] = []
        next_functions: list[tuple[Optional[Node], int]] = []
        shapes: list[tuple[int, ...]] = []
        input_dtypes: list[Any] = []
        for i, a in enumerate(args):  # one loop, where four comprehensions were four function calls
            if (isinstance(a, tensor) and a._data.dtype.is_floating_point
                    and not (i in numbers and not needs_input_grad[i] and not a._data.shape)):
                positions.append(i)
                next_functions.append((a._grad_node(), a._output_nr) if needs_input_grad[i] else (None, 0))
                shapes.append(a._data.shape)
                input_dtypes.append(a._data.dtype)
        node = node_type(ctx.grad_fn_name or cls.grad_fn_name or default_node_name(cls))
        made = node(cls, ctx, tuple(next_functions), tuple(shapes), None if len(positions) == len(args) else tuple(positions))
        made.input_dtypes = tuple(input_dtypes)
        return made

    @classmethod
    def _record_several(cls, ctx: Context, args: tuple, outputs: tuple) -> tuple:
        """A forward that returned several tensors (a decomposition's factors): one node whose
        output slot ``i`` is ``outputs[i]``; its backward gets one gradient per output (None
        for an output no gradient reached)."""
        tensor = tensor_class()
        slots = [i for i, o in enumerate(outputs) if isinstance(o, tensor) and o._data.dtype.is_floating_point]
        if slots:
            node = cls._node(ctx, args, ctx.needs_input_grad)
            node.num_outputs = len(outputs)
            for index in slots:
                outputs[index]._set_grad_fn(node)
                outputs[index]._output_nr = index
            ctx.keep_outputs_weakly(tuple([outputs[index] for index in slots]), node)
        return outputs


#: what makes a user's Function class follow PyTorch's custom-Function protocol (set by
#: :mod:`.custom_function` when it is imported, before any user's class exists)
_adopt_user_function: Optional[Callable[[type[Function]], None]] = None


def adopt_user_functions(adopt: Callable[[type[Function]], None]) -> None:
    """Have ``adopt(cls)`` called for every Function class defined outside minitorch from now on."""
    global _adopt_user_function
    _adopt_user_function = adopt


#: forward-mode AD's ``apply(cls, *args, **kwargs)`` while a dual level is open, else None: every op
#: (also through an ``apply`` bound before the level opened, ``f = Fn.apply``) is handed to it
_dual_route: Optional[Callable[..., Any]] = None
_APPLY = Function.__dict__["apply"].__func__
#: each class's ``apply`` without forward AD's route or a profiler's timing (what :func:`plain_apply`
#: runs): this one for minitorch's ops, :mod:`.custom_function`'s for a user's Function
Function._apply_alone = staticmethod(_APPLY)  # type: ignore[attr-defined]


def plain_apply(cls: type[Function], *args: Any, **kwargs: Any) -> Any:
    """``Function.apply`` without forward-mode AD: the op alone (in this thread, ops inside it too)."""
    with dual_state.suspended():
        return cls._apply_alone(cls, *args, **kwargs)  # type: ignore[attr-defined]


def route_apply(apply: Optional[Callable[..., Any]]) -> None:
    """Hand every op to ``apply`` (forward-mode AD, while a dual level is open), or to nobody
    again for None: one test of a module global per op when no level is open."""
    global _dual_route
    _dual_route = apply


ONCE_DIFFERENTIABLE_MESSAGE = "trying to differentiate twice a function that was marked with @once_differentiable"


class Error(Node):
    """PyTorch's ``torch::autograd::Error`` node: the ``grad_fn`` of the gradients a
    :func:`once_differentiable` backward returned while a graph of the backward was being made;
    differentiating through it raises."""

    def name(self) -> str:
        return "torch::autograd::Error"  # as PyTorch's C++ node names itself

    def __repr__(self) -> str:
        return f"<Error object at {hex(id(self))}>"


#: PyTorch's name of the node of an op it defines no derivative for (``floor_divide``)
NOT_IMPLEMENTED_NODE = "torch::autograd::NotImplemented"


def _not_implemented_repr(self: Node) -> str:
    return f"<NotImplemented object at {hex(id(self))}>"


#: PyTorch's ``torch::autograd::NotImplemented`` node (its Python class is ``NotImplemented``):
#: the ``grad_fn`` of an op without a derivative, whose backward raises
NotImplementedNode = type("NotImplemented", (Node,), {
    "__doc__": "The ``grad_fn`` of an op PyTorch defines no derivative for; its backward raises.",
    "name": lambda self: NOT_IMPLEMENTED_NODE,
    "__repr__": _not_implemented_repr,
})


class Underivable(Function):
    """Base of an op PyTorch gives no derivative (``floor_divide``): its result still requires grad,
    with a :data:`NotImplementedNode` ``grad_fn``; backward raises ``derivative for aten::<op> is
    not implemented`` (``ctx.op`` names the op)."""

    grad_fn_name = NOT_IMPLEMENTED_NODE

    @classmethod
    def _node(cls, ctx: Context, args: tuple, needs_input_grad: tuple[bool, ...]) -> Node:
        node = super()._node(ctx, args, needs_input_grad)
        node.__class__ = NotImplementedNode
        return node

    @staticmethod
    def backward(ctx: Context, *grads: Any) -> Any:
        raise RuntimeError(f"derivative for aten::{ctx.op} is not implemented")


class DelayedError(Function):
    """Passes its tensors through (new tensors on the same data); its backward raises."""

    @staticmethod
    def forward(ctx: Context, *values: Any) -> tuple:
        tensor = tensor_class()
        return tuple([tensor._make(v._data, v._device) if isinstance(v, tensor) else v for v in values])

    @staticmethod
    def backward(ctx: Context, *grads: Any) -> Any:
        raise RuntimeError(ONCE_DIFFERENTIABLE_MESSAGE)


def once_differentiable(backward: Callable[..., Any]) -> Callable[..., Any]:
    """Decorate a custom Function's ``backward`` that is not itself differentiable (it computes
    outside autograd, on NumPy arrays say): it runs with grad mode off, and where a graph of the
    backward is being made (``create_graph`` with gradients that require grad) its results get an
    :class:`Error` ``grad_fn``, so a second derivative raises instead of coming out silently zero."""

    @functools.wraps(backward)
    def wrapper(ctx: Any, *grads: Any, **kwargs: Any) -> Any:
        with no_grad():
            results = backward(ctx, *grads, **kwargs)
        tensor = tensor_class()
        if not is_grad_enabled() or not any(isinstance(g, tensor) and g._requires_grad for g in grads):
            return results
        several = isinstance(results, tuple)
        values = results if several else (results,)
        guarded = DelayedError.apply(*[v if v is None else v.detach().requires_grad_(True) for v in values])
        for value in guarded:
            if isinstance(value, tensor) and value.grad_fn is not None:
                value.grad_fn.__class__ = Error  # one node for all of them
                break
        return guarded if several else guarded[0]

    return wrapper
