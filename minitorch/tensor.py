"""``Tensor``: the user-facing n-dimensional array with autograd.

A tensor is a :class:`~minitorch.tensor_data.TensorData` view on a device, plus the
autograd fields (``requires_grad``, ``grad``, ``grad_fn``). Every operation below is a
thin method that promotes dtypes, checks arguments and calls one autograd ``Function``
from :mod:`minitorch.ops`; the math lives there.
"""

from __future__ import annotations

import functools
import inspect
import math
import re
import threading
from collections import OrderedDict, namedtuple
from numbers import Number
from typing import Any, Callable, Iterator, NamedTuple, Optional, Sequence, Union

import numpy as np

from . import dtypes, memory_formats, return_types
from .autograd import dual_state, engine, transform_levels
from .autograd.function import CUSTOM_FUNCTION_VIEW, AccumulateGrad, Node
from .autograd.grad_mode import is_grad_enabled, no_grad
from .device import CPU, as_device, device
from .keywords import accepts_numpy_names
from .dispatch import empty, map_op, mul_add_op, register_tensor_type, zip_op
from .ops import (elementwise, elementwise_extra_functions, expanded_writes, indexing, inplace, linalg, reductions, reflected,
                  rounded_division, scaled_sum, vector_products, views)
from .ops.dtype_refusals import (SHIFT_KERNELS, matmul_kernel, refuse_bool, refuse_bool_clamp, refuse_bool_product,
                                 refuse_clamp_cast, refuse_non_float_variance, refuse_number)
from .ops.layout import LaidOutCopy
from .ops.reductions_extra import ExtraReductions, StdRoot, Variance
from .ops.transfer import ToDevice
from .shapes import infer_size, normalize_dim, shape_from_args
from .size import Size
from .tensor_data import TensorData, shape_broadcast, strides_from_shape, view_strides
from .tensor_repr import tensor_repr
from . import autocast_state

Scalar = Union[int, float, bool]
Operand = Union["Tensor", int, float, bool]
ShapeArg = Union[int, Sequence[int]]

#: makes a leaf's ``AccumulateGrad`` node (see ``Tensor._grad_node``)
_LEAF_NODE_LOCK = threading.Lock()
#: the permutation of a matrix's transpose (``t()``)
SWAPPED = (1, 0)
INTERNAL_OVERLAP_ERROR = (
    "unsupported operation: more than one element of the written-to tensor refers to a single memory location. "
    "Please clone() the tensor before performing the operation."
)

#: ``max``/``min`` with ``dim`` return this pair, as ``torch.return_types.max``
ValuesIndices = namedtuple("ValuesIndices", ["values", "indices"])


class Tensor(elementwise.UnaryMath, ExtraReductions):
    """An n-dimensional array on a device that can record how it was computed."""

    #: the package that exports it, as PyTorch names its public classes (``<class 'minitorch.Tensor'>``)
    __module__ = "minitorch"

    _data: TensorData
    _device: device
    _requires_grad: bool
    _version_counter: list[int]
    # Fields that start empty are class-level defaults, set on the tensor once they hold
    # something: every op's result is made by ``_make``, and each field set there costs time.
    grad: Optional["Tensor"] = None
    grad_fn: Optional[Node] = None
    _base: Optional["Tensor"] = None
    _accumulate_node: Optional[AccumulateGrad] = None
    _leaf_hooks: "Optional[OrderedDict[int, Callable]]" = None  # made by the first register_hook
    #: a 0-d tensor made from a Python number an op was given (``x * 2``): PyTorch's wrapped number,
    #: which a saved-tensor hook never sees
    _wrapped_number = False
    #: a view made by an op of several views (``split``, ``unbind``) with grad mode on, or a view of one;
    #: CUSTOM_FUNCTION_VIEW for a view a custom Function returned (PyTorch refuses to change either in place)
    _multi_output_view: Union[bool, str] = False
    #: ``(level, tangent)`` while forward-mode AD gives this tensor a tangent (:mod:`.autograd.dual_state`)
    _dual: Optional[tuple[Any, "Tensor"]] = None
    #: the innermost function transform open when this tensor was made, 0 for none
    #: (:mod:`.autograd.transform_levels`: writes into a tensor a transform captured are refused)
    _transform_level = 0

    # ---- construction ----

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        """``Tensor(data)`` as PyTorch's legacy constructor: a float32 copy of ``data``
        (or ``Tensor(2, 3)``: uninitialised of that shape)."""
        from .creation import tensor

        if args and all(isinstance(a, (int, np.integer)) and not isinstance(a, bool) for a in args):
            made = empty(shape_from_args(args), dtypes.get_default_dtype(), as_device(kwargs.get("device")))
        else:
            made = tensor(args[0] if args else [], dtype=dtypes.get_default_dtype(), device=kwargs.get("device"))
        self._init_fields(made._data, made._device, False)

    def _init_fields(self, data: TensorData, on: device, requires_grad: bool) -> None:
        self._data = data
        self._device = on
        self._requires_grad = requires_grad
        self._version_counter = [0]
        if transform_levels.innermost:
            self._transform_level = transform_levels.innermost

    @classmethod
    def _make(cls, data: TensorData, on: device = CPU, requires_grad: bool = False) -> "Tensor":
        """Wrap existing ``TensorData`` (no copy)."""
        t = Tensor.__new__(Tensor)
        t._data = data  # _init_fields written out: every op's result is made here
        t._device = on
        t._requires_grad = requires_grad
        t._version_counter = [0]
        if transform_levels.innermost:  # made inside a function transform (see _init_fields)
            t._transform_level = transform_levels.innermost
        return t

    @classmethod
    def _from_numpy_array(cls, array: np.ndarray, on: device = CPU) -> "Tensor":
        """Share a NumPy array's memory when it is laid out in whole elements; copy otherwise."""
        itemsize = array.itemsize
        if array.size and (any(s % itemsize for s in array.strides) or any(s < 0 for s in array.strides)):
            array = array.copy(order="C")
        if array.size == 0 or array.ndim == 0:
            return cls._make(TensorData(np.array(array).reshape(-1), array.shape), on)
        strides = [s // itemsize for s in array.strides]
        # storage: a 1-D view from the first element to the last one the strides reach
        span = 1 + sum((n - 1) * s for n, s in zip(array.shape, strides))
        base = np.lib.stride_tricks.as_strided(array, shape=(span,), strides=(itemsize,))
        return cls._make(TensorData(base, array.shape, strides), on)

    def _view_of(self, data: TensorData) -> "Tensor":
        """A tensor sharing this one's storage and version counter (no autograd)."""
        view = Tensor._make(data, self._device)
        view._version_counter = self._version_counter
        view._base = self._base if self._base is not None else self
        if self._multi_output_view:
            view._multi_output_view = self._multi_output_view
        return view

    # ---- properties ----

    @property
    def shape(self) -> Size:
        return Size(self._data.shape)

    @accepts_numpy_names
    def size(self, dim: Optional[int] = None) -> Union[Size, int]:
        """The shape, or the size of dimension ``dim`` (a 0-d tensor has none to give)."""
        if dim is None:
            return self.shape
        if self.dim() == 0:
            raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
        return self._data.shape[normalize_dim(dim, self.dim())]

    def dim(self) -> int:
        return self._data.dims

    @property
    def ndim(self) -> int:
        return self._data.dims

    def numel(self) -> int:
        return self._data.size

    nelement = numel

    def stride(self, dim: Optional[int] = None) -> Union[tuple[int, ...], int]:
        if dim is None:
            return self._data.strides
        return self._data.strides[normalize_dim(dim, self.dim())]

    def storage_offset(self) -> int:
        return self._data.offset

    def element_size(self) -> int:
        return self.dtype.itemsize

    @property
    def dtype(self) -> dtypes.dtype:
        return self._data.dtype

    @property
    def device(self) -> device:
        return self._device

    @property
    def is_cuda(self) -> bool:
        return self._device.type == "cuda"

    @property
    def is_meta(self) -> bool:
        """Whether this tensor is on the ``meta`` device (a shape and a dtype, no values)."""
        return self._device.type == "meta"

    #: a plain tensor; quantized ones are :class:`minitorch.quantized.QuantizedTensor`
    is_quantized = False

    def is_floating_point(self) -> bool:
        return self.dtype.is_floating_point

    def is_contiguous(self, *, memory_format: memory_formats.memory_format = memory_formats.contiguous_format) -> bool:
        """Whether the elements fill the storage without gaps in ``memory_format``'s order
        (row-major by default, where an empty tensor always is; a channels-last format only for
        its own rank)."""
        data = self._data
        if memory_format is memory_formats.contiguous_format:
            return data.is_contiguous() or not data.size
        memory_formats.check_memory_format(memory_format, "is_contiguous")
        if memory_format is memory_formats.preserve_format:  # PyTorch answers for row-major order
            return data.is_contiguous() or not data.size
        return memory_formats.is_contiguous_as(data.shape, data.strides, memory_format)

    @property
    def _version(self) -> int:
        return self._version_counter[0]

    def _bump_version(self) -> None:
        self._version_counter[0] += 1

    def type_name(self) -> str:
        """PyTorch's legacy type name used in error messages, e.g. ``FloatTensor``."""
        return f"{'cuda.' if self.is_cuda else ''}{dtypes.scalar_type_name(self.dtype)}Tensor"

    # ---- autograd fields ----

    @property
    def requires_grad(self) -> bool:
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        if self.grad_fn is not None and not value:
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables. If you want to use a computed "
                "variable in a subgraph that doesn't require differentiation use var_no_grad = var.detach()."
            )
        if value and not self.dtype.is_floating_point:
            raise RuntimeError(f"only Tensors of floating point and complex dtype can require gradients (got {self.dtype})")
        self._requires_grad = bool(value)

    def requires_grad_(self, requires_grad: bool = True) -> "Tensor":
        if requires_grad and not self.dtype.is_floating_point:
            raise RuntimeError(f"only Tensors of floating point dtype can require gradients (got {self.dtype})")
        self.requires_grad = requires_grad
        return self

    @property
    def is_leaf(self) -> bool:
        """True for tensors not produced by a recorded op (their gradient goes to ``.grad``)."""
        return self.grad_fn is None

    #: which output of its ``grad_fn`` this tensor is (not 0 only for ops with several outputs)
    _output_nr = 0

    def _set_grad_fn(self, node: Node) -> None:
        self.grad_fn = node
        self._requires_grad = True
        if self._output_nr:
            self._output_nr = 0

    def _check_single_output(self, what: str) -> None:
        if self.grad_fn is not None and self.grad_fn.num_outputs != 1:
            raise NotImplementedError(f"{what} on one output of an op with several outputs ({self.grad_fn.name()}) "
                                      "is not supported")

    @property
    def output_nr(self) -> int:
        """The position of this tensor among the outputs of the op that made it."""
        return self._output_nr

    def _grad_node(self) -> Node:
        """The node the gradient of this tensor flows into: its ``grad_fn`` or, for a leaf, its accumulator."""
        if self.grad_fn is not None:
            return self.grad_fn
        if self._accumulate_node is None:
            # once per leaf, under a lock: threads sharing the leaf must all get the same node
            with _LEAF_NODE_LOCK:
                if self._accumulate_node is None:
                    node = AccumulateGrad(self)
                    node.tensor_pre_hooks = self._leaf_hooks
                    self._accumulate_node = node
        return self._accumulate_node

    def register_hook(self, hook: Callable[["Tensor"], Optional["Tensor"]]) -> Any:
        """Call ``hook(grad)`` when this tensor's gradient is computed; a returned tensor replaces it."""
        from .utils.hooks import RemovableHandle

        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self.grad_fn is not None:
            self._check_single_output("register_hook")
            hooks = self.grad_fn.tensor_hooks()
        else:
            if self._leaf_hooks is None:
                self._leaf_hooks = OrderedDict()
                if self._accumulate_node is not None:
                    self._accumulate_node.tensor_pre_hooks = self._leaf_hooks
            hooks = self._leaf_hooks
        handle = RemovableHandle(hooks)
        hooks[handle.id] = hook
        return handle

    def register_post_accumulate_grad_hook(self, hook: Callable[["Tensor"], None]) -> Any:
        """Call ``hook(tensor)`` each time backward has added into this leaf's ``.grad`` (after all its
        gradients of that backward are summed): what DistributedDataParallel starts its all-reduce from."""
        from .utils.hooks import RemovableHandle

        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self.grad_fn is not None:
            raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
        node = self._grad_node()
        assert isinstance(node, AccumulateGrad)
        if node.post_accumulate_hooks is None:
            node.post_accumulate_hooks = OrderedDict()
        handle = RemovableHandle(node.post_accumulate_hooks)
        node.post_accumulate_hooks[handle.id] = hook
        return handle

    def retain_grad(self) -> None:
        """Keep ``.grad`` for this non-leaf tensor after backward."""
        if not self.requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if self.grad_fn is None:
            return
        self._check_single_output("retain_grad")
        target = self

        def store(grad: Tensor) -> None:
            target.grad = grad.detach().clone() if target.grad is None else target.grad + grad.detach()

        self.grad_fn.retains_grad_hook = store

    @property
    def retains_grad(self) -> bool:
        return self.grad_fn is not None and self.grad_fn.retains_grad_hook is not None

    def backward(self, gradient: Optional["Tensor"] = None, retain_graph: Optional[bool] = None,
                 create_graph: bool = False, inputs: Optional[Sequence["Tensor"]] = None) -> None:
        """Accumulate the gradient of this tensor with respect to every leaf into their ``.grad``."""
        if not self.requires_grad:
            raise RuntimeError("element 0 of tensors does not require grad and does not have a grad_fn")
        if gradient is None:
            if self.numel() != 1:
                raise RuntimeError(
                    f"grad can be implicitly created only for scalar outputs (this tensor has shape {list(self.shape)})"
                )
            gradient = _scalar_tensor(1, self.dtype, self._device)
            if self._data.shape != ():
                gradient = gradient.view(self._data.shape)
        elif not isinstance(gradient, Tensor):
            raise TypeError(f"gradient must be a Tensor or None, got {type(gradient).__name__}")
        elif gradient.shape != self.shape:
            raise RuntimeError(
                f"Mismatch in shape: grad_output[0] has a shape of {gradient.shape} and output[0] has a shape of {self.shape}."
            )
        retain = create_graph if retain_graph is None else retain_graph
        if inputs is not None:
            grads = engine.run_backward([self], [gradient], retain, create_graph, capture=list(inputs))
            assert grads is not None
            for t, g in zip(inputs, grads):
                if g is not None:
                    t._grad_node_accumulate(g)
            return
        engine.run_backward([self], [gradient], retain, create_graph)

    def _grad_node_accumulate(self, grad: "Tensor") -> None:
        if self.grad_fn is None:
            node = self._grad_node()
            assert isinstance(node, AccumulateGrad)
            node.accumulate(grad)
        else:
            self.grad = grad if self.grad is None else self.grad + grad

    def detach(self) -> "Tensor":
        """The same storage and version counter, cut from the graph; no view, as PyTorch's (an
        in-place op on ``w[0].detach()`` is no write into a view of the leaf ``w``)."""
        out = self._view_of(self._data)
        out._base = None
        if transform_levels.innermost:  # inside a function transform, an alias of a captured tensor is captured
            transform_levels.inherit(out, self)
        return out

    def detach_(self) -> "Tensor":
        if self._base is not None and self.grad_fn is not None:
            raise RuntimeError("Can't detach views in-place. Use detach() instead.")
        self.grad_fn = None
        self._requires_grad = False
        return self

    @property
    def data(self) -> "Tensor":
        """A detached tensor sharing storage but not the version counter: unlike ``detach()``,
        writes through it go unseen by the checks on saved tensors, as PyTorch's (assigning to
        ``.data`` swaps the storage)."""
        out = self.detach()
        out._version_counter = [0]
        return out

    @data.setter
    def data(self, value: "Tensor") -> None:
        if not isinstance(value, Tensor):
            raise TypeError(f"data must be a Tensor, got {type(value).__name__}")
        self._data = value._data
        self._device = value._device

    # ---- conversion ----

    def item(self) -> Scalar:
        """The single value as a Python number."""
        if self.numel() != 1:
            raise RuntimeError(f"a Tensor with {self.numel()} elements cannot be converted to Scalar")
        if self.is_meta:
            raise RuntimeError("Tensor.item() cannot be called on meta tensors")
        return self._host_numpy().reshape(-1)[0].item()

    def tolist(self) -> Any:
        return self._host_numpy().tolist()

    def numpy(self, *, force: bool = False) -> np.ndarray:
        """A NumPy array sharing this tensor's memory (CPU tensors)."""
        if self.requires_grad and not force:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.")
        if self._device.type != "cpu" and not force:
            raise TypeError(
                f"can't convert {self.device} device type tensor to numpy. Use Tensor.cpu() to copy the tensor to host memory first."
            )
        return self._host_numpy()

    def _host_numpy(self) -> np.ndarray:
        """The values as a NumPy array on the host (a view for CPU tensors)."""
        if self._device.type != "cpu":
            from .dispatch import transfer

            return transfer(self, CPU)._data.numpy_view()
        return self._data.numpy_view()

    def __array__(self, dtype: Any = None, copy: Optional[bool] = None) -> np.ndarray:
        array = self.detach()._host_numpy()
        return array.astype(dtype) if dtype is not None else array

    def to(self, *args: Any, **kwargs: Any) -> "Tensor":
        """``to(dtype)``, ``to(device)``, ``to(device, dtype)``, ``to(other)``, each optionally followed
        by ``non_blocking`` and ``copy``; ``copy=True`` forces a copy; ``memory_format=`` lays the
        result out in that format (see :meth:`_to_memory_format`)."""
        target_device, target_dtype = self._device, self.dtype
        copy = kwargs.pop("copy", False)
        kwargs.pop("non_blocking", None)
        layout = kwargs.pop("memory_format", None)
        flags = [arg for arg in args if isinstance(arg, bool)]  # positional non_blocking, then copy
        if len(flags) > 1:
            copy = copy or flags[1]
        for arg in list(args) + [kwargs.pop("device", None), kwargs.pop("dtype", None)]:
            if arg is None or isinstance(arg, bool):
                continue
            if isinstance(arg, Tensor):
                target_device, target_dtype = arg.device, arg.dtype
            elif isinstance(arg, (str, device)):
                target_device = as_device(arg)
            else:
                target_dtype = dtypes.as_dtype(arg)
        if kwargs:
            raise TypeError(f"to() got unexpected keyword arguments {sorted(kwargs)}")
        if layout is not None:
            return self._to_memory_format(memory_formats.check_memory_format(layout, "to"), target_device,
                                          target_dtype, copy)
        out = self
        if target_dtype is not self.dtype:
            out = elementwise.Cast.apply(out, target_dtype)
        if target_device != self._device:
            out = _move_to_device(out, target_device)
        if copy and out is self:
            out = self.clone()
        return out

    def _to_memory_format(self, layout: memory_formats.memory_format, target_device: device,
                          target_dtype: dtypes.dtype, copy: bool) -> "Tensor":
        """``to(..., memory_format=layout)``, as PyTorch's: this tensor itself when nothing else
        changes and ``layout`` is ``preserve_format`` or the format its strides suggest, else one
        copy (on ``target_device``, of ``target_dtype``) laid out in ``layout``."""
        data = self._data
        if not copy and target_dtype is self.dtype and target_device == self._device and (
                layout is memory_formats.preserve_format
                or memory_formats.suggest_memory_format(data.shape, data.strides) is layout):
            return self
        strides = memory_formats.copy_strides(data.shape, data.strides, layout)
        source = self if target_device == self._device else _move_to_device(self, target_device)
        return LaidOutCopy.apply(source, strides, target_dtype, "ToCopyBackward0")

    def cpu(self) -> "Tensor":
        return self.to("cpu")

    def cuda(self, device_index: Optional[int] = None) -> "Tensor":
        return self.to(device("cuda", device_index) if device_index is not None else "cuda")

    def float(self) -> "Tensor":
        return self.to(dtypes.float32)

    def double(self) -> "Tensor":
        return self.to(dtypes.float64)

    def half(self) -> "Tensor":
        return self.to(dtypes.float16)

    def bfloat16(self) -> "Tensor":
        return self.to(dtypes.bfloat16)

    def long(self) -> "Tensor":
        return self.to(dtypes.int64)

    def int(self) -> "Tensor":
        return self.to(dtypes.int32)

    def bool(self) -> "Tensor":
        return self.to(dtypes.bool_)

    def byte(self) -> "Tensor":
        return self.to(dtypes.uint8)

    def char(self) -> "Tensor":
        return self.to(dtypes.int8)

    def short(self) -> "Tensor":
        return self.to(dtypes.int16)

    def type_as(self, other: "Tensor") -> "Tensor":
        return self.to(other.dtype)

    def clone(self, *, memory_format: Optional[memory_formats.memory_format] = None) -> "Tensor":
        """A copy that stays in the graph: row-major unless ``memory_format`` asks for another
        layout (``preserve_format``: PyTorch's rule, :func:`~minitorch.memory_formats.copy_strides`)."""
        if memory_format is None or memory_format is memory_formats.contiguous_format:
            return elementwise.Clone.apply(self)
        return self._laid_out_copy(memory_formats.check_memory_format(memory_format, "clone"))

    def contiguous(self, *, memory_format: memory_formats.memory_format = memory_formats.contiguous_format) -> "Tensor":
        """This tensor if already contiguous in ``memory_format`` (row-major by default), else a
        copy laid out in it."""
        if memory_format is memory_formats.contiguous_format:
            return self if self.is_contiguous() else self.clone()
        memory_formats.check_memory_format(memory_format, "contiguous")
        if self.is_contiguous(memory_format=memory_format):
            return self
        if memory_format is memory_formats.preserve_format:
            raise RuntimeError("preserve memory format is unsupported by the contiguous operator")
        return self._laid_out_copy(memory_format)

    def _laid_out_copy(self, layout: memory_formats.memory_format) -> "Tensor":
        """A copy in the graph (``CloneBackward0``) laid out in ``layout``; PyTorch's error for a
        channels-last format of another rank."""
        data = self._data
        strides = memory_formats.copy_strides(data.shape, data.strides, layout)
        return LaidOutCopy.apply(self, strides, data.dtype, "CloneBackward0")

    # ---- views ----

    def view(self, *shape: Any) -> "Tensor":
        """The same storage in a new shape (one entry may be -1); no copy, or an error."""
        if len(shape) == 1 and isinstance(shape[0], dtypes.dtype):
            raise NotImplementedError("view(dtype) is not supported; use .to(dtype)")
        return views.View.apply(self, self._infer_shape(shape_from_args(shape)))

    def reshape(self, *shape: Any) -> "Tensor":
        """A view when the strides allow it, otherwise a copy in the new shape."""
        new_shape = self._infer_shape(shape_from_args(shape))
        if view_strides(self._data.shape, self._data.strides, new_shape) is None:
            return self.clone().view(new_shape)._standalone()
        return views.View.apply(self, new_shape)

    def _is_view(self) -> bool:
        """True when this tensor is a view of another (its ``_base``)."""
        return self._base is not None

    def _standalone(self) -> "Tensor":
        """This view of a temporary that an op made for its result, as a tensor of its own.

        PyTorch's op results are never views of hidden temporaries: ``x.t().reshape(-1)`` copies
        and is no view, so an in-place op on it records as on any result. The version counter
        stays shared, so a temporary that ``backward`` saved still sees in-place changes.
        """
        self._base = None
        return self

    def view_as(self, other: "Tensor") -> "Tensor":
        return self.view(other.shape)

    def reshape_as(self, other: "Tensor") -> "Tensor":
        return self.reshape(other.shape)

    def _infer_shape(self, shape: tuple[int, ...]) -> tuple[int, ...]:
        """Fill in one -1 and check the element count."""
        return infer_size(shape, self.numel())

    def permute(self, *dims: Any) -> "Tensor":
        order = tuple(normalize_dim(d, self.dim()) for d in shape_from_args(dims))
        if sorted(order) != list(range(self.dim())):
            raise RuntimeError(
                f"permute(): dims {list(shape_from_args(dims))} are not a permutation of the {self.dim()} "
                f"dimensions of a tensor of shape {list(self.shape)}"
            )
        return views.Permute.apply(self, order)

    def transpose(self, dim0: int, dim1: int) -> "Tensor":
        dims = self._data.dims
        d0, d1 = normalize_dim(dim0, dims), normalize_dim(dim1, dims)  # a 0-d tensor takes 0 and -1
        if dims == 0:
            return self
        order = list(range(dims))
        order[d0], order[d1] = order[d1], order[d0]
        # a valid order: permute's checks are not needed
        return _named(views.Permute.apply(self, tuple(order)), "TransposeBackward0")

    swapaxes = transpose

    def t(self) -> "Tensor":
        dims = self._data.dims
        if dims > 2:
            raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {dims}D")
        return self if dims < 2 else _named(views.Permute.apply(self, SWAPPED), "TBackward0")

    @property
    def T(self) -> "Tensor":  # noqa: N802 - PyTorch's name
        """All dimensions reversed."""
        return self.permute(*reversed(range(self.dim())))

    @property
    def mT(self) -> "Tensor":  # noqa: N802
        """The last two dimensions swapped (a batch of matrices transposed)."""
        if self.dim() < 2:
            raise RuntimeError(f"tensor.mT is only supported on matrices or batches of matrices. Got {self.dim()}-D tensor.")
        return self.transpose(-2, -1)

    @accepts_numpy_names
    def unsqueeze(self, dim: int) -> "Tensor":
        d = normalize_dim(dim, self.dim() + 1)
        return _named(self.view(self.shape[:d] + (1,) + self.shape[d:]), "UnsqueezeBackward0")

    @accepts_numpy_names
    def squeeze(self, dim: Optional[Union[int, Sequence[int]]] = None) -> "Tensor":
        if dim is None:
            dims = {d for d, s in enumerate(self.shape) if s == 1}
        else:
            dims = {normalize_dim(d, self.dim()) for d in ((dim,) if isinstance(dim, int) else dim)}
            dims = {d for d in dims if self.dim() and self.shape[d] == 1}
        # PyTorch's overloads: squeeze(), squeeze(int), squeeze(dims)
        name = "SqueezeBackward0" if dim is None else "SqueezeBackward1" if isinstance(dim, int) else "SqueezeBackward2"
        return _named(self.view(tuple(s for d, s in enumerate(self.shape) if d not in dims)), name)

    def expand(self, *sizes: Any) -> "Tensor":
        """Broadcast to a larger shape without copying (-1 keeps a size)."""
        target = shape_from_args(sizes)
        if len(target) < self.dim():
            raise RuntimeError(
                f"expand: the number of sizes provided ({len(target)}) must be greater or equal to the number "
                f"of dimensions in the tensor ({self.dim()})"
            )
        extra = len(target) - self.dim()
        resolved = tuple(self.shape[d - extra] if s == -1 and d >= extra else s for d, s in enumerate(target))
        if resolved == self.shape:
            return self
        return views.Expand.apply(self, resolved)

    def expand_as(self, other: "Tensor") -> "Tensor":
        return self.expand(other.shape)

    def broadcast_to(self, shape: Sequence[int]) -> "Tensor":
        return self.expand(tuple(shape))

    def flatten(self, start_dim: int = 0, end_dim: int = -1) -> "Tensor":
        start, end = normalize_dim(start_dim, self.dim()), normalize_dim(end_dim, self.dim())  # 0-d: 0 and -1
        if self.dim() == 0:
            return self.reshape(1)
        if start > end:
            raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
        merged = math.prod(self._data.shape[start : end + 1])
        return self.reshape(self.shape[:start] + (merged,) + self.shape[end + 1 :])

    @accepts_numpy_names
    def unflatten(self, dim: int, sizes: Sequence[int]) -> "Tensor":
        d = normalize_dim(dim, self.dim())
        sizes = shape_from_args((sizes,))
        try:
            sizes = infer_size(sizes, self.shape[d])
        except RuntimeError as error:
            if "is invalid for input of size" not in str(error):
                raise
            raise RuntimeError(
                f"unflatten: Provided sizes {list(sizes)} don't multiply up to the size of dim {d} ({self.shape[d]}) in the input tensor"
            ) from None
        return self.view(self.shape[:d] + sizes + self.shape[d + 1 :])

    @accepts_numpy_names
    def narrow(self, dim: int, start: int, length: int) -> "Tensor":
        d = normalize_dim(dim, self.dim())
        if start < 0:
            start += self.shape[d]
        if not (0 <= start and start + length <= self.shape[d] and length >= 0):
            raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({self.shape[d]}).")
        return views.Slice.apply(self, (slice(None),) * d + (slice(start, start + length),))

    def __getitem__(self, key: Any) -> "Tensor":
        advanced = _advanced_indexing()
        if advanced.needs_advanced(key):
            return advanced.getitem(self, key)
        return views.Slice.apply(self, key)

    def __setitem__(self, key: Any, value: Operand) -> None:
        if dual_state.open_level is not None:  # forward AD carries no tangent through a write
            dual_state.refuse_inplace(self, (value,))
        if transform_levels.innermost:  # a function transform refuses writes into what it captured
            transform_levels.refuse_captured_write(self)
        if isinstance(value, Tensor) and value.dim() and value.shape[0] == 1:
            # as PyTorch: leading size-1 dimensions of the value are dropped before it broadcasts
            ones = next((d for d, n in enumerate(value.shape) if n != 1), value.dim())
            value = value.reshape(value.shape[ones:])
        advanced = _advanced_indexing()
        records = is_grad_enabled() and (self.requires_grad or (isinstance(value, Tensor) and value.requires_grad))
        shared = self._shares_elements()
        if shared and advanced.needs_advanced(key):
            return self._put_into_shared(key, value)  # each selected element written, as PyTorch's index_put_
        if advanced.needs_advanced(key) or (records and not self.is_leaf and not shared):
            # written out of place (a differentiable where), then stored: see ops/advanced_indexing.py
            self._check_inplace_allowed()
            if records:  # named as PyTorch names the node of an index assignment
                name = "IndexPutBackward0" if advanced.needs_advanced(key) else "CopySlices"
                self._rebase_history(_named(advanced.setitem_result(self, key, value), name))
            else:
                self._write(advanced.setitem_result(self.detach(), key, value))
                self._bump_version()
            return
        target = self.detach()[key]
        target._check_inplace_allowed(value)
        if isinstance(value, Tensor):  # a copy (a scalar is a fill, allowed into a broadcast view)
            target._refuse_internal_overlap()
        if self.requires_grad and is_grad_enabled() and self.is_leaf:
            raise RuntimeError("a view of a leaf Variable that requires grad is being used in an in-place operation.")
        if is_grad_enabled() and (self.requires_grad or (isinstance(value, Tensor) and value.requires_grad)):
            self._record_setitem(key, value)
            if shared:  # written through the view ``self[key]``: this view reads its base's new history
                self._refresh_view_history()
            return
        target._write(value)
        self._bump_version()

    def _put_into_shared(self, key: Any, value: Operand) -> None:
        """``self[key] = value`` into a tensor whose elements share memory (a broadcast dimension):
        PyTorch's route, ``index_put_`` (its warning, every selected element written in turn, recorded
        by autograd too) into the basic view of the key's ints and slices; a key holding anything
        else is refused, as an in-place write into such a tensor."""
        parts = expanded_writes.index_put_parts(self, key)
        if parts is None:
            self._refuse_internal_overlap()
            return
        basic, indices = parts
        target = self if all(item == slice(None) for item in basic) else self[basic]
        values = value if isinstance(value, Tensor) else _scalar_tensor(value, self.dtype, self.device)
        target.index_put_(indices, values.to(self.dtype))
        if target is not self:
            self._refresh_view_history()

    def _refresh_view_history(self) -> None:
        """After a write through another view of this view's base, this view's history reads the
        base's new one, as PyTorch regenerates a view's ``grad_fn`` once its base has changed."""
        base = self._base
        if base is not None and base.grad_fn is not None:
            strided = inplace.AsStrided.apply(base, self._data.shape, self._data.strides, self._data.offset)
            self.grad_fn, self._output_nr, self._requires_grad = strided.grad_fn, 0, True

    def _record_setitem(self, key: Any, value: Operand) -> None:
        """``self[key] = value`` recorded by autograd: an in-place copy into the view ``self[key]``."""
        view = self[key]
        if isinstance(value, Tensor) and value._data.storage is view._data.storage and (
            value._data.shape, value._data.strides, value._data.offset
        ) == (view._data.shape, view._data.strides, view._data.offset):
            return  # ``t[key] op= x`` writes the view back into itself: the in-place op is already recorded
        if isinstance(value, Tensor):
            view.copy_(value)
        else:
            view.fill_(value)

    def __len__(self) -> int:
        if self.dim() == 0:
            raise TypeError("len() of a 0-d tensor")
        return self.shape[0]

    def __iter__(self) -> Iterator["Tensor"]:
        if self.dim() == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    # ---- operator helpers ----

    def _promoted(self, other: Operand, op: str) -> tuple["Tensor", "Tensor"]:
        """Both operands as tensors of the promoted dtype on this tensor's device."""
        if op == "sub":
            _refuse_bool_subtraction(self, other)
        result = result_dtype(self, other)
        if op == "div" and not result.is_floating_point:
            result = dtypes.get_default_dtype()
        a = self if self.dtype is result else self.to(result)
        if isinstance(other, Tensor):
            b = other if other.dtype is result else other.to(result)
        else:
            b = _scalar_tensor(other, result, self.device)
        return a, b

    def _binary(self, function: type, other: Operand, op: str, reverse: bool = False) -> "Tensor":
        dtype = self._data.dtype
        if isinstance(other, Tensor) and other._data.dtype is dtype and (
                (op != "div" and op != "sub") or dtype.is_floating_point):
            a, b = self, other  # the common case: no promotion (integer division and subtraction: below)
        elif type(other) in (float, int) and dtype.is_floating_point:
            # a number takes a float tensor's dtype; PyTorch multiplies and divides a 16-bit float by
            # a number in float32 (its ``opmath`` type), where it adds the number rounded to 16 bits
            scalar_dtype = dtypes.float32 if op in _OPMATH_SCALAR_OPS and dtype in dtypes.LOW_PRECISION_FLOATS else dtype
            a, b = self, _scalar_tensor(other, scalar_dtype, self._device)
        elif not isinstance(other, (Tensor, Number, np.generic)):
            return NotImplemented
        else:
            a, b = self._promoted(other, op)
        return function.apply(b, a) if reverse else function.apply(a, b)

    def _compare(self, op: str, other: Operand) -> "Tensor":
        if not isinstance(other, (Tensor, Number, np.generic)):
            return NotImplemented
        a, b = self.detach()._promoted(other.detach() if isinstance(other, Tensor) else other, op)
        return zip_op(op, a, b, out_dtype=dtypes.bool_)

    # ---- arithmetic ----

    def __add__(self, other: Operand) -> "Tensor":
        return self._binary(elementwise.Add, other, "add")

    def __radd__(self, other: Operand) -> "Tensor":
        return self._binary(elementwise.Add, other, "add")  # the tensor first, as PyTorch records it

    def __sub__(self, other: Operand) -> "Tensor":
        return self._binary(elementwise.Sub, other, "sub")

    def __rsub__(self, other: Operand) -> "Tensor":
        if isinstance(other, Tensor):  # (Python calls the left tensor's ``__sub__`` first)
            return self._binary(elementwise.Sub, other, "sub", reverse=True)
        return self._binary(reflected.Rsub, other, "sub")

    def __mul__(self, other: Operand) -> "Tensor":
        return self._binary(elementwise.Mul, other, "mul")

    def __rmul__(self, other: Operand) -> "Tensor":
        return self._binary(elementwise.Mul, other, "mul")  # the tensor first, as PyTorch records it

    def __truediv__(self, other: Operand) -> "Tensor":
        return self._binary(elementwise.Div, other, "div")

    def __rtruediv__(self, other: Operand) -> "Tensor":
        if isinstance(other, Tensor) or not isinstance(other, (Number, np.generic)):
            return self._binary(elementwise.Div, other, "div", reverse=True)
        return self.reciprocal() * other  # PyTorch's reflected division, to the bit

    def __pow__(self, other: Operand) -> "Tensor":
        if isinstance(other, Tensor) and self._data.dtype is dtypes.bool_ and other._data.dtype is dtypes.bool_:
            refuse_bool("pow", dtypes.bool_)  # PyTorch's kernel for a bool base and bool exponent
        if (not self._data.dtype.is_floating_point and isinstance(other, (int, np.integer))
                and not isinstance(other, bool) and other < 0):
            raise RuntimeError("Integers to negative integer powers are not allowed.")
        return self._binary(elementwise.Pow, other, "pow")

    def __rpow__(self, other: Operand) -> "Tensor":
        if isinstance(other, (bool, np.bool_)) and self._data.dtype is dtypes.bool_:
            refuse_bool("pow", dtypes.bool_)  # PyTorch's kernel for a bool base
        function = elementwise.Pow if isinstance(other, Tensor) else reflected.PowOfNumber
        return self._binary(function, other, "pow", reverse=True)

    def _modulo(self, other: Operand, op: str, reverse: bool = False) -> "Tensor":
        """``fmod``/``remainder`` (``%``) of the promoted operands; integers refuse a zero divisor."""
        if not isinstance(other, (Tensor, Number, np.generic)):
            return NotImplemented
        a, b = self._promoted(other, op)
        if reverse:
            a, b = b, a
        if a.dtype is dtypes.bool_:
            raise NotImplementedError(f'"{op}_cpu" not implemented for \'Bool\'')
        _refuse_integer_zero_divisor(a, b)
        if isinstance(other, Tensor):
            return elementwise.Modulo.apply(a, b, op, False)
        function = elementwise.NumberModulo if reverse else elementwise.ModuloByNumber
        return function.apply(a, b, op, True)

    def __mod__(self, other: Operand) -> "Tensor":
        return self._modulo(other, "remainder")

    def __rmod__(self, other: Operand) -> "Tensor":
        return self._modulo(other, "remainder", reverse=True)

    def remainder(self, other: Operand) -> "Tensor":
        return self._modulo(other, "remainder")

    def fmod(self, other: Operand) -> "Tensor":
        return self._modulo(other, "fmod")

    def _float_binary(self, function: type, other: Operand, op: str) -> "Tensor":
        """A binary float op: the promoted operands, integers cast to the default float dtype."""
        a, b = self._promoted(other, op)
        if not a.dtype.is_floating_point:
            a, b = a.to(dtypes.get_default_dtype()), b.to(dtypes.get_default_dtype())
        return function.apply(a, b)

    def atan2(self, other: "Tensor") -> "Tensor":
        refuse_number("atan2", other, "other", 1)
        return self._float_binary(elementwise.Atan2, other, "atan2")

    arctan2 = atan2

    def hypot(self, other: "Tensor") -> "Tensor":
        if not isinstance(other, Tensor):
            raise TypeError(f"hypot(): argument 'other' (position 1) must be Tensor, not {type(other).__name__}")
        promoted = result_dtype(self, other)  # PyTorch promotes first: int with float is float
        if not promoted.is_floating_point:
            raise NotImplementedError(f'"hypot_cpu" not implemented for \'{dtypes.scalar_type_name(promoted)}\'')
        return self._float_binary(elementwise.Hypot, other, "hypot")

    def __neg__(self) -> "Tensor":
        if self.dtype is dtypes.bool_:
            raise RuntimeError(
                "Negation, the `-` operator, on a bool tensor is not supported. "
                "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead."
            )
        return elementwise.Neg.apply(self)

    def __pos__(self) -> "Tensor":
        if self.dtype is dtypes.bool_:
            raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
        return self

    def __abs__(self) -> "Tensor":
        return self.abs()

    def __matmul__(self, other: "Tensor") -> "Tensor":
        if not isinstance(other, Tensor):
            return NotImplemented
        return matmul(self, other)

    def __rmatmul__(self, other: "Tensor") -> "Tensor":
        if not isinstance(other, Tensor):
            return NotImplemented
        return matmul(other, self)

    def add(self, other: Operand, *, alpha: Scalar = 1) -> "Tensor":
        if _plain_alpha(alpha):
            return self + other
        return self._scaled_sum(scaled_sum.AddScaled, other, alpha, "add")

    def sub(self, other: Operand, *, alpha: Scalar = 1) -> "Tensor":
        if _plain_alpha(alpha):
            return self - other
        return self._scaled_sum(scaled_sum.SubScaled, other, alpha, "sub")

    def _scaled_sum(self, function: type, other: Operand, alpha: Any, op: str) -> "Tensor":
        """``function`` (``self + alpha * other`` and its kin) of the promoted operands, one node."""
        if isinstance(alpha, Tensor):
            alpha = alpha.item()
        a, b = self._promoted(other, op)
        scaled_sum.check_alpha(alpha, a.dtype)
        if a.dtype is dtypes.bool_:  # a bool alpha scales a bool as a logical and
            return a + b * bool(alpha)
        return function.apply(a, b, alpha)

    def mul(self, other: Operand) -> "Tensor":
        return self * other

    def div(self, other: Operand, *, rounding_mode: Optional[str] = None) -> "Tensor":
        """True division, or rounded towards zero (``'trunc'``) or down (``'floor'``); rounded
        division of integers stays integer, as in PyTorch."""
        if rounding_mode is None:
            return self / other
        _check_rounding_mode(rounding_mode)
        return self._rounded_div(other, rounding_mode)

    def _rounded_div(self, other: Operand, mode: str, op: str = "div", reverse: bool = False) -> "Tensor":
        """``self / other`` (``other / self`` when ``reverse``) rounded by ``mode``, in the promoted
        dtype: ``div`` with a rounding mode, or ``floor_divide`` (no derivative)."""
        if not isinstance(other, (Tensor, Number, np.generic)):
            return NotImplemented
        a, b = self._promoted(other, "floor_divide")  # (``div`` would promote integers to float)
        if reverse:
            a, b = b, a
        if a.dtype is dtypes.bool_:
            raise NotImplementedError(f'"div_{mode}_cpu" not implemented for \'Bool\'')
        _refuse_integer_zero_divisor(a, b)
        function = rounded_division.FloorDivide if op == "floor_divide" else rounded_division.RoundedDiv
        return function.apply(a, b, mode, op)

    divide = div

    def true_divide(self, other: Operand) -> "Tensor":
        return self / other

    def pow(self, exponent: Operand) -> "Tensor":
        return self**exponent

    def neg(self) -> "Tensor":
        return -self

    def square(self) -> "Tensor":
        return self**2  # PyTorch's square is pow(x, 2): its node is PowBackward0

    def maximum(self, other: "Tensor") -> "Tensor":
        refuse_number("maximum", other, "other", 1)
        return self._binary(elementwise.Maximum, other, "maximum")

    def minimum(self, other: "Tensor") -> "Tensor":
        refuse_number("minimum", other, "other", 1)
        return self._binary(elementwise.Minimum, other, "minimum")

    def clamp(self, min: Optional[Scalar] = None, max: Optional[Scalar] = None) -> "Tensor":  # noqa: A002 - PyTorch's names
        if min is None and max is None:
            raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
        bounds = [b for b in (min, max) if b is not None]
        if _mixes_numbers_and_0d_tensors(bounds):  # PyTorch reads a 0-d tensor as a Number there
            min, max = (b.item() if isinstance(b, Tensor) else b for b in (min, max))
            bounds = [b for b in (min, max) if b is not None]
        if not any(isinstance(b, Tensor) for b in bounds):  # number bounds: one op, PyTorch's gradient
            result = result_dtype(self, *bounds)
            refuse_bool_clamp(result, min, max, tensor_bounds=False)
            source = self if self.dtype is result else self.to(result)
            low, high = (None if b is None else _scalar_tensor(b, result, self.device) for b in (min, max))
            return elementwise.Clamp.apply(source, low, high)
        if not all(isinstance(b, Tensor) for b in bounds):  # PyTorch has no overload mixing the two
            given = {k: v for k, v in (("min", min), ("max", max)) if v is not None}
            raise elementwise_extra_functions.invalid_combination(
                "clamp", (), given, ("Tensor min = None, Tensor max = None", "Number min = None, Number max = None"), method=True)
        result = result_dtype(self, *bounds)
        refuse_bool_clamp(result, min, max, tensor_bounds=True)
        source, low, high = (None if t is None else t if t.dtype is result else t.to(result) for t in (self, min, max))
        return elementwise_extra_functions.ClampTensor.apply(source, low, high)

    clip = clamp

    # exp, log, sqrt, rsqrt, reciprocal, sigmoid, tanh, relu, abs, ...: inherited from ops.elementwise.UnaryMath

    def sign(self) -> "Tensor":
        return elementwise_extra_functions.Sign.apply(self)

    # ---- comparisons and logic (no gradient) ----

    def __lt__(self, other: Operand) -> "Tensor":
        return self._compare("lt", other)

    def __le__(self, other: Operand) -> "Tensor":
        return self._compare("le", other)

    def __gt__(self, other: Operand) -> "Tensor":
        return self._compare("gt", other)

    def __ge__(self, other: Operand) -> "Tensor":
        return self._compare("ge", other)

    def __eq__(self, other: object) -> "Tensor":  # type: ignore[override]
        return self._compare("eq", other)  # type: ignore[arg-type]

    def __ne__(self, other: object) -> "Tensor":  # type: ignore[override]
        return self._compare("ne", other)  # type: ignore[arg-type]

    __hash__ = object.__hash__

    lt, le, gt, ge, eq, ne = __lt__, __le__, __gt__, __ge__, __eq__, __ne__

    # ---- bitwise (integers and bools) and logical (any dtype, bool result) ops ----

    def __invert__(self) -> "Tensor":
        if self.dtype.is_floating_point:
            raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type tensors")
        if self.dtype is dtypes.bool_:
            return map_op("logical_not", self.detach())
        return map_op("bitwise_not", self.detach())

    bitwise_not = __invert__

    def logical_not(self) -> "Tensor":
        return map_op("logical_not", self.detach(), out_dtype=dtypes.bool_)

    def _bitwise(self, op: str, other: Operand, kernel_name: str, reverse: bool = False) -> "Tensor":
        """``&``, ``|``, ``^``, ``<<``, ``>>`` of the promoted operands (no gradient: integers only)."""
        if not isinstance(other, (Tensor, Number, np.generic)):
            return NotImplemented
        a, b = self._promoted(other, op)
        if reverse:
            a, b = b, a
        if a.dtype.is_floating_point or (a.dtype is dtypes.bool_ and kernel_name in SHIFT_KERNELS):
            raise NotImplementedError(f'"{kernel_name}_cpu" not implemented for \'{dtypes.scalar_type_name(a.dtype)}\'')
        return zip_op(op, a.detach(), b.detach())

    def __and__(self, other: Operand) -> "Tensor":
        return self._bitwise("bitwise_and", other, "bitwise_and")

    def __rand__(self, other: Operand) -> "Tensor":
        return self._bitwise("bitwise_and", other, "bitwise_and", reverse=True)

    def __or__(self, other: Operand) -> "Tensor":
        return self._bitwise("bitwise_or", other, "bitwise_or")

    def __ror__(self, other: Operand) -> "Tensor":
        return self._bitwise("bitwise_or", other, "bitwise_or", reverse=True)

    def __xor__(self, other: Operand) -> "Tensor":
        return self._bitwise("bitwise_xor", other, "bitwise_xor")

    def __rxor__(self, other: Operand) -> "Tensor":
        return self._bitwise("bitwise_xor", other, "bitwise_xor", reverse=True)

    def __lshift__(self, other: Operand) -> "Tensor":
        return self._bitwise("left_shift", other, "lshift")

    def __rlshift__(self, other: Operand) -> "Tensor":
        return self._bitwise("left_shift", other, "lshift", reverse=True)

    def __rshift__(self, other: Operand) -> "Tensor":
        return self._bitwise("right_shift", other, "rshift")

    def __rrshift__(self, other: Operand) -> "Tensor":
        return self._bitwise("right_shift", other, "rshift", reverse=True)

    bitwise_and, bitwise_or, bitwise_xor = __and__, __or__, __xor__
    bitwise_left_shift, bitwise_right_shift = __lshift__, __rshift__

    def logical_and(self, other: Operand) -> "Tensor":
        return zip_op("mul", self.bool().detach(), _as_bool(other, self.device), out_dtype=dtypes.bool_)

    def logical_or(self, other: Operand) -> "Tensor":
        return zip_op("maximum", self.bool().detach(), _as_bool(other, self.device), out_dtype=dtypes.bool_)

    def __bool__(self) -> bool:
        if self.numel() != 1:
            raise RuntimeError(f"Boolean value of Tensor with {self.numel()} values is ambiguous")
        return bool(self.item())

    def __float__(self) -> float:
        return float(self.item())

    def __int__(self) -> int:
        return int(self.item())

    def __index__(self) -> int:
        if self.dtype.is_floating_point or self.numel() != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def equal(self, other: "Tensor") -> bool:
        """True when shapes and all values are equal."""
        return self.shape == other.shape and bool((self == other).all())

    def allclose(self, other: "Tensor", rtol: float = 1e-5, atol: float = 1e-8, equal_nan: bool = False) -> bool:
        refuse_number("allclose", other, "other", 1)
        if self.dtype is not other.dtype:  # PyTorch compares in one dtype and promotes none
            raise RuntimeError(f"{dtypes.scalar_type_name(self.dtype)} did not match {dtypes.scalar_type_name(other.dtype)}")
        return bool(np.allclose(self.detach()._host_numpy(), other.detach()._host_numpy(), rtol=rtol, atol=atol, equal_nan=equal_nan))

    # ---- reductions ----

    def _dims(self, dim: Optional[Union[int, Sequence[int]]]) -> tuple[int, ...]:
        """``dim`` as sorted non-negative dims; all of them for None or an empty list, as
        PyTorch's reductions read ``x.sum(())``."""
        dims = () if dim is None else (dim,) if isinstance(dim, int) else tuple(dim)
        if not dims:
            return tuple(range(self.dim()))
        normalized = tuple(sorted({normalize_dim(d, self.dim()) for d in dims}))
        if len(normalized) != len(dims):
            raise RuntimeError(f"dim {list(dims)} appears multiple times in the list of dims")
        return normalized if self.dim() else ()

    @accepts_numpy_names
    def sum(self, dim: Optional[Union[int, Sequence[int]]] = None, keepdim: bool = False, *, dtype: Any = None) -> "Tensor":
        source = self
        if dtype is not None:
            source = self.to(dtypes.as_dtype(dtype))
        elif not self.dtype.is_floating_point:
            source = self.to(dtypes.int64)  # integer and bool sums are int64, as in PyTorch
        return _named(reductions.Sum.apply(source, source._dims(dim), keepdim), "SumBackward0" if dim is None else "SumBackward1")

    @accepts_numpy_names
    def mean(self, dim: Optional[Union[int, Sequence[int]]] = None, keepdim: bool = False, *, dtype: Any = None) -> "Tensor":
        target = dtypes.as_dtype(dtype) if dtype is not None else self.dtype
        if not target.is_floating_point:
            raise RuntimeError(
                "mean(): could not infer output dtype. Input dtype must be either a floating point or "
                f"complex dtype. Got: {dtypes.scalar_type_name(self.dtype)}"
            )
        dims = self._dims(dim)
        count = math.prod(self._data.shape[d] for d in dims)
        source = self if self.dtype is target else self.to(target)
        return reductions.Mean.apply(source, dims, keepdim, count, dim is None)

    @accepts_numpy_names
    def var(self, dim: Optional[Union[int, Sequence[int]]] = None, unbiased: Optional[bool] = None,
            keepdim: bool = False, *, correction: Optional[int] = None) -> "Tensor":
        r""":math:`\frac{1}{N - c}\sum_i (x_i - \bar x)^2` with correction :math:`c` (1 by default)."""
        return _named(self._rounded(self._variance(dim, unbiased, keepdim, correction)), "VarBackward0")

    @accepts_numpy_names
    def std(self, dim: Optional[Union[int, Sequence[int]]] = None, unbiased: Optional[bool] = None,
            keepdim: bool = False, *, correction: Optional[int] = None) -> "Tensor":
        root = StdRoot.apply(self._variance(dim, unbiased, keepdim, correction, "std"))
        return _named(self._rounded(root), "StdBackward0")

    def _variance(self, dim: Optional[Union[int, Sequence[int]]], unbiased: Optional[bool], keepdim: bool,
                  correction: Optional[int], name: str = "var") -> "Tensor":
        """The variance, in float32 for a float16 or bfloat16 tensor (PyTorch's accumulator for them);
        ``name``: the op PyTorch's warning names when the correction leaves no degrees of freedom."""
        refuse_non_float_variance(self.dtype)
        if correction is None:
            correction = 0 if unbiased is False else 1
        source = self.float() if self._data.dtype in dtypes.LOW_PRECISION_FLOATS else self
        return Variance.apply(source, source._dims(dim), keepdim, correction, dim, name)

    def _rounded(self, result: "Tensor") -> "Tensor":
        """``result`` of a reduction of this tensor, rounded once to this tensor's 16-bit float dtype
        where it was computed in float32."""
        return result.to(self._data.dtype) if self._data.dtype in dtypes.LOW_PRECISION_FLOATS else result

    def _extreme(self, op: str, dim: Optional[int], keepdim: bool) -> Union["Tensor", ValuesIndices]:
        if dim is None:
            if self.numel() == 0:
                raise RuntimeError(f"{op}(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with the 'dim' argument.")
            return reductions.MaxAll.apply(self, op)
        d = normalize_dim(dim, self.dim())
        if self.dim() and self.shape[d] == 0:
            raise IndexError(f"{op}(): Expected reduction dim {d} to have non-zero size.")
        values, indices = reductions.MaxAlongDim.apply(self, d, keepdim, op)
        return (return_types.max if op == "max" else return_types.min)(values, indices)

    @accepts_numpy_names
    def max(self, dim: Optional[Union[int, "Tensor"]] = None, keepdim: bool = False) -> Any:
        """Largest value; with ``dim``, ``(values, indices)`` along it; with a tensor, ``maximum``."""
        if isinstance(dim, Tensor):
            return self.maximum(dim)
        return self._extreme("max", dim, keepdim)

    @accepts_numpy_names
    def min(self, dim: Optional[Union[int, "Tensor"]] = None, keepdim: bool = False) -> Any:
        if isinstance(dim, Tensor):
            return self.minimum(dim)
        return self._extreme("min", dim, keepdim)

    @accepts_numpy_names
    def amax(self, dim: Optional[Union[int, Sequence[int]]] = None, keepdim: bool = False) -> "Tensor":
        """Largest value over ``dim`` (all dims by default); ties share the gradient evenly."""
        return self._amax("max", dim, keepdim)

    @accepts_numpy_names
    def amin(self, dim: Optional[Union[int, Sequence[int]]] = None, keepdim: bool = False) -> "Tensor":
        """Smallest value over ``dim`` (all dims by default); ties share the gradient evenly."""
        return self._amax("min", dim, keepdim)

    def _amax(self, op: str, dim: Optional[Union[int, Sequence[int]]], keepdim: bool) -> "Tensor":
        dims = self._dims(dim)
        if not dims:  # a 0-d tensor: its one value, by the same op (so a nan's gradient is nan, as in PyTorch)
            return reductions.Amax.apply(self.reshape(1), (0,), False, op)
        if (dim is None or _no_dims(dim)) and self.numel() == 0:  # amax(x) means dim=(): every dim
            raise RuntimeError(
                f"a{op}(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim with the 'dim' argument."
            )
        for d in dims:
            if self.shape[d] == 0:
                raise IndexError(f"a{op}(): Expected reduction dim {d} to have non-zero size.")
        return reductions.Amax.apply(self, dims, keepdim, op)

    def _arg_extreme(self, op: str, dim: Optional[int], keepdim: bool) -> "Tensor":
        from .dispatch import arg_reduce_op

        source = self.detach()
        if self.dtype is dtypes.bool_:
            raise RuntimeError(f"{op}(): does not support bool input")
        if dim is None:
            flat = source.reshape(-1)
            if flat.numel() == 0:
                raise IndexError(f"{op}(): Expected reduction dim to be specified for input.numel() == 0.")
            out = arg_reduce_op(op, flat, 0)
            return out.view((1,) * self.dim() if keepdim else ())._standalone()
        d = normalize_dim(dim, self.dim())
        if self.dim() and self.shape[d] == 0:
            raise IndexError(f"{op}(): Expected reduction dim {d} to have non-zero size.")
        if not self.dim():
            return arg_reduce_op(op, source.view(1), 0).view(())._standalone()
        out = arg_reduce_op(op, source, d)
        return out if keepdim else out.squeeze(d)._standalone()

    @accepts_numpy_names
    def argmax(self, dim: Optional[int] = None, keepdim: bool = False) -> "Tensor":
        return self._arg_extreme("argmax", dim, keepdim)

    @accepts_numpy_names
    def argmin(self, dim: Optional[int] = None, keepdim: bool = False) -> "Tensor":
        return self._arg_extreme("argmin", dim, keepdim)

    @accepts_numpy_names
    def all(self, dim: Optional[Union[int, Sequence[int]]] = None, keepdim: bool = False) -> "Tensor":
        """True where every element over ``dim`` (one or several; all by default) is nonzero."""
        flags = self.detach().bool()
        if _no_dims(dim):  # PyTorch reduces nothing here (unlike ``sum(())``)
            return _like_uint8(self, flags.clone())
        dims = self._dims(dim)
        return _like_uint8(self, flags.sum(dims, keepdim) == math.prod(flags._data.shape[d] for d in dims))

    @accepts_numpy_names
    def any(self, dim: Optional[Union[int, Sequence[int]]] = None, keepdim: bool = False) -> "Tensor":
        """True where some element over ``dim`` (one or several; all by default) is nonzero."""
        flags = self.detach().bool()
        return _like_uint8(self, flags.clone() if _no_dims(dim) else flags.sum(self._dims(dim), keepdim) > 0)

    def matmul(self, other: "Tensor") -> "Tensor":
        return matmul(self, other)

    def where(self, condition: "Tensor", other: Operand) -> "Tensor":
        """``self`` where ``condition`` holds, else ``other``."""
        return where(condition, self, other)

    # ---- in-place (under no_grad, or on tensors outside the graph) ----

    def _check_inplace_allowed(self, *others: Any) -> None:
        """PyTorch's errors for writing, with grad mode on, into a leaf that requires grad or a view of one:
        the leaf's gradient would be computed from values that are gone."""
        if dual_state.open_level is not None:  # forward AD carries no tangent through a write
            dual_state.refuse_inplace(self, others)
        if transform_levels.innermost:  # a function transform refuses writes into what it captured
            transform_levels.refuse_captured_write(self)
        if not is_grad_enabled():
            return
        base = self._base
        if base is not None and self._multi_output_view:
            self._refuse_multi_output_view(others)
        if self._requires_grad and self.grad_fn is None:
            raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
        if base is not None and base._requires_grad and base.grad_fn is None:
            raise RuntimeError("a view of a leaf Variable that requires grad is being used in an in-place operation.")

    def _shares_elements(self) -> bool:
        """Whether some elements of this tensor are one memory location (a broadcast dimension:
        stride 0 and more than one element)."""
        strides = self._data.strides
        # (the membership test first: every in-place op asks, and most tensors have no stride 0)
        return 0 in strides and any(stride == 0 and size > 1 for size, stride in zip(self._data.shape, strides))

    def _refuse_internal_overlap(self) -> None:
        """PyTorch's error for writing into a tensor whose elements share memory, where each write
        would clobber the others."""
        if self._shares_elements():
            raise RuntimeError(INTERNAL_OVERLAP_ERROR)

    def _refuse_multi_output_view(self, others: tuple) -> None:
        """PyTorch's error for writing, with grad mode on, into a view made by an op of several
        views (``split``, ``unbind``) when the write would be recorded: their one node's backward
        cannot account for a piece that changed."""
        tail = ("This view is the output of a function that returns multiple views. Such functions do not allow "
                "the output views to be modified inplace. You should replace the inplace operation by an "
                "out-of-place one.")
        if self._multi_output_view == CUSTOM_FUNCTION_VIEW:
            tail = ("This view was created inside a custom Function (or because an input was returned as-is) and the "
                    "autograd logic to handle view+inplace would override the custom backward associated with the "
                    "custom Function, leading to incorrect gradients. This behavior is forbidden. You can fix this by "
                    "cloning the output of the custom Function.")
        if self._requires_grad and self.grad_fn is not None:
            made_by = re.sub(r"Backward\d*$", "", self.grad_fn.name())
            raise RuntimeError(f"Output {self._output_nr} of {made_by} is a view and is being modified inplace. {tail}")
        if any(isinstance(other, Tensor) and other._requires_grad for other in others):
            raise RuntimeError(f"A view was created in no_grad mode and is being modified inplace with grad mode enabled. {tail}")

    def _inplace(self, op: str, other: Operand, alpha: Scalar = 1) -> "Tensor":
        """``self = self <op> other`` in this tensor's storage, keeping its dtype (``add``/``sub``:
        ``other`` scaled by ``alpha``)."""
        self._check_inplace_allowed(other)
        self._refuse_internal_overlap()
        if op == "sub":
            _refuse_bool_subtraction(self, other)
        same_dtype = isinstance(other, Tensor) and other._data.dtype is self._data.dtype
        result = self._data.dtype if same_dtype else result_dtype(self, other)
        if op == "div" and not result.is_floating_point:
            result = dtypes.get_default_dtype()
        if result.category > self.dtype.category:
            raise RuntimeError(
                f"result type {dtypes.scalar_type_name(result)} can't be cast to the desired output type {dtypes.scalar_type_name(self.dtype)}"
            )
        if isinstance(other, Tensor) and other._data.shape != self._data.shape:
            self._check_fits(other.shape)
        if not _plain_alpha(alpha):
            scaled_sum.check_alpha(alpha.item() if isinstance(alpha, Tensor) else alpha, result)
        records = is_grad_enabled() and (self.requires_grad or (isinstance(other, Tensor) and other.requires_grad))
        if records:
            # the op reads a copy of the old values: the storage of self is about to be overwritten
            if not _plain_alpha(alpha):  # one AddBackward0/SubBackward0 node, as PyTorch's
                return self._rebase_history(getattr(self._snapshot(), op)(other, alpha=alpha))
            compute = {"add": Tensor.__add__, "sub": Tensor.__sub__, "mul": Tensor.__mul__, "div": Tensor.__truediv__}[op]
            return self._rebase_history(compute(self._snapshot(), other))
        if not _plain_alpha(alpha) and not result.is_floating_point:
            other = other * (alpha.item() if isinstance(alpha, Tensor) else alpha)  # no graph is recorded here
        # the raw op: dispatch records no graph, so no detached views are needed
        operand = other if isinstance(other, Tensor) else _scalar_tensor(other, self.dtype, self.device)
        if isinstance(other, Tensor) and other.dtype is not result:
            operand = operand.detach().to(result)
        if _shares_memory(self, operand):
            operand = operand.detach().clone()
        source = self if self.dtype is result else self.detach().to(result)
        if not _plain_alpha(alpha) and result.is_floating_point:  # one fused multiply-add, as PyTorch's
            alpha_value = alpha.item() if isinstance(alpha, Tensor) else alpha
            operand = operand if operand.dtype is result else operand.to(result)
            scale = _scalar_tensor(-alpha_value if op == "sub" else alpha_value, result, self._device)
            if source is self:
                mul_add_op(operand, scale, self, out=self)
            else:  # computed in the promoted dtype, stored in this tensor's
                map_op("copy", mul_add_op(operand, scale, source), out=self)
        else:
            zip_op(op, source, operand, out=self)
        self._bump_version()
        return self

    def _snapshot(self) -> "Tensor":
        """The current values in storage of their own, with this tensor's place in the graph:
        what an in-place op computes from, since the op then overwrites this tensor's storage."""
        copy = map_op("copy", self.detach())
        copy.grad_fn = self.grad_fn
        copy._output_nr = self._output_nr
        copy._requires_grad = self._requires_grad
        return copy

    def _rebase_history(self, result: "Tensor") -> "Tensor":
        """Record an in-place op: this tensor's values and grad_fn become ``result``'s.

        On a view, the base's history is rebased too (PyTorch's ``CopySlices``): the base's new
        node sends the gradient of the written region to ``result`` and the rest to the old base."""
        if result.shape != self.shape:
            raise RuntimeError(f"output with shape {list(self.shape)} doesn't match the broadcast shape {list(result.shape)}")
        if result.dtype is not self.dtype:
            result = result.to(self.dtype)
        base = self._base
        if base is not None and (base._requires_grad or result._requires_grad):
            inplace.rebase_view(base, self, result)
        else:
            map_op("copy", result.detach(), out=self.detach())
            self._bump_version()
            self.grad_fn = result.grad_fn
            self._output_nr = result._output_nr
            self._requires_grad = result._requires_grad
        node = result.grad_fn
        if node is not None and node.ctx is not None:  # an op that saved its output now reads this tensor
            node.ctx.replace_saved_output(result, self, node.name())
        return self

    def add_(self, other: Operand, *, alpha: Scalar = 1) -> "Tensor":
        return self._inplace("add", other, alpha)

    def sub_(self, other: Operand, *, alpha: Scalar = 1) -> "Tensor":
        return self._inplace("sub", other, alpha)

    def mul_(self, other: Operand) -> "Tensor":
        return self._inplace("mul", other)

    def div_(self, other: Operand, *, rounding_mode: Optional[str] = None) -> "Tensor":
        if rounding_mode is None:
            return self._inplace("div", other)
        return self._inplace_apply(lambda old: old.div(other, rounding_mode=rounding_mode), other)

    divide_ = div_

    def true_divide_(self, other: Operand) -> "Tensor":
        return self._inplace("div", other)

    def _check_fits(self, shape: Sequence[int]) -> None:
        """Raise unless an operand of ``shape`` broadcasts to exactly this tensor's shape."""
        broadcast = shape_broadcast(self.shape, tuple(shape))
        if broadcast != self.shape:
            raise RuntimeError(f"output with shape {list(self.shape)} doesn't match the broadcast shape {list(broadcast)}")

    def _write(self, value: Operand) -> None:
        """Overwrite every element with ``value`` (broadcast, cast to this dtype)."""
        if isinstance(value, Tensor):
            self._check_fits(value.shape)
            source = value.detach()
            if source.device != self.device:
                source = source.to(self.device)
            if _shares_memory(self, source):
                source = source.clone()
            map_op("copy", source, out=self.detach())
        else:
            self._raw_fill(value)

    def _raw_fill(self, value: Scalar) -> None:
        map_op("copy", _scalar_tensor(value, self.dtype, self.device), out=self.detach())

    def fill_(self, value: Operand) -> "Tensor":
        self._check_inplace_allowed(value)
        if isinstance(value, Tensor):  # a scalar fill may write overlapping elements, a tensor fill may not
            self._refuse_internal_overlap()
        if isinstance(value, Tensor) and value.dim() != 0:
            raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor with {value.dim()} dimensions.")
        if is_grad_enabled() and (self._requires_grad or (isinstance(value, Tensor) and value._requires_grad)):
            # recorded: the old values' gradient is 0 (they are gone), a tensor value's is the sum
            new = value.to(self.device) if isinstance(value, Tensor) else _scalar_tensor(value, self.dtype, self.device)
            return self._rebase_history(elementwise.Overwrite.apply(self, new))
        self._write(value)
        self._bump_version()
        return self

    def zero_(self) -> "Tensor":
        return self.fill_(0)

    def copy_(self, src: "Tensor", non_blocking: bool = False) -> "Tensor":
        """Copy ``src`` (broadcast, converted to this dtype and device) into this tensor."""
        self._check_inplace_allowed(src)
        if not isinstance(src, Tensor):
            raise TypeError(f"copy_(): argument 'src' must be Tensor, not {type(src).__name__}")
        self._refuse_internal_overlap()
        self._check_fits(src.shape)
        if is_grad_enabled() and (src._requires_grad or self._requires_grad):
            # recorded: the old values' gradient is 0 (they are gone), src's is the incoming one
            return self._rebase_history(elementwise.Overwrite.apply(self, src.to(self.device)))
        self._write(src)
        self._bump_version()
        return self

    # ---- in-place: operators and method forms, PyTorch's rules (issue 17) ----
    # Each computes out of place from the old values, then writes into this tensor's storage
    # (keeping its dtype and shape) and bumps the version counter; with grad mode on and a
    # tensor requiring grad involved, the op is recorded (``_rebase_history``).

    def _inplace_apply(self, compute: Callable[["Tensor"], "Tensor"], *others: Any, overlap_ok: bool = False,
                       write: Optional[Callable[["Tensor"], bool]] = None) -> "Tensor":
        """``self = compute(self)`` in this tensor's storage; ``others`` are the op's other operands.
        ``overlap_ok``: the op is one PyTorch lets write into a broadcast tensor (a masked fill).
        ``write``: computes the op straight into the tensor it is given, when no graph is recorded
        and it can (it returns whether it did), with no result to copy in."""
        self._check_inplace_allowed(*others)
        if not overlap_ok:
            self._refuse_internal_overlap()
        records = is_grad_enabled() and (
            self._requires_grad or any(isinstance(o, Tensor) and o._requires_grad for o in others)
        )
        if records:
            result = compute(self._snapshot())
        else:
            kernel = _in_place_kernels().get(compute) if self.dtype.is_floating_point else None
            if kernel is not None:  # one elementwise kernel, run in this tensor's memory
                map_op(kernel, self, out=self)
                self._bump_version()
                return self
            if write is not None and write(self):
                self._bump_version()
                return self
            with no_grad():
                result = compute(self.detach())
        if result.dtype.category > self.dtype.category:
            raise RuntimeError(
                f"result type {dtypes.scalar_type_name(result.dtype)} can't be cast to the desired output type {dtypes.scalar_type_name(self.dtype)}"
            )
        if result.shape != self.shape:
            raise RuntimeError(f"output with shape {list(self.shape)} doesn't match the broadcast shape {list(result.shape)}")
        if records:
            return self._rebase_history(result)
        with no_grad():
            map_op("copy", result.to(self.dtype), out=self.detach())
        self._bump_version()
        return self

    def __iadd__(self, other: Operand) -> "Tensor":
        return self.add_(other)

    def __isub__(self, other: Operand) -> "Tensor":
        return self.sub_(other)

    def __imul__(self, other: Operand) -> "Tensor":
        return self.mul_(other)

    def __itruediv__(self, other: Operand) -> "Tensor":
        return self.div_(other)

    def __ipow__(self, exponent: Operand) -> "Tensor":
        return self.pow_(exponent)

    # PyTorch has no __imatmul__: ``a @= b`` rebinds ``a`` to ``a @ b`` there too.

    def __iand__(self, other: Operand) -> "Tensor":
        return self._inplace_apply(lambda old: old & other)

    def __ior__(self, other: Operand) -> "Tensor":
        return self._inplace_apply(lambda old: old | other)

    def __ixor__(self, other: Operand) -> "Tensor":
        return self._inplace_apply(lambda old: old ^ other)

    def __ilshift__(self, other: Operand) -> "Tensor":
        return self._inplace_apply(lambda old: old << other)

    def __irshift__(self, other: Operand) -> "Tensor":
        return self._inplace_apply(lambda old: old >> other)

    bitwise_and_, bitwise_or_, bitwise_xor_ = __iand__, __ior__, __ixor__
    bitwise_left_shift_, bitwise_right_shift_ = __ilshift__, __irshift__

    def bitwise_not_(self) -> "Tensor":
        return self._inplace_apply(Tensor.__invert__)

    multiply_, subtract_, divide_, true_divide_ = mul_, sub_, div_, div_

    def pow_(self, exponent: Operand) -> "Tensor":
        return self._inplace_apply(lambda old: old**exponent, exponent)

    def neg_(self) -> "Tensor":
        return self._inplace_apply(Tensor.__neg__)

    negative_ = neg_

    def abs_(self) -> "Tensor":
        return self._inplace_apply(Tensor.abs)

    def exp_(self) -> "Tensor":
        return self._inplace_apply(Tensor.exp)

    def log_(self) -> "Tensor":
        return self._inplace_apply(Tensor.log)

    def sqrt_(self) -> "Tensor":
        return self._inplace_apply(Tensor.sqrt)

    def rsqrt_(self) -> "Tensor":
        return self._inplace_apply(Tensor.rsqrt)

    def square_(self) -> "Tensor":
        return self._inplace_apply(Tensor.square)

    def reciprocal_(self) -> "Tensor":
        return self._inplace_apply(Tensor.reciprocal)

    def sign_(self) -> "Tensor":
        return self._inplace_apply(Tensor.sign)

    def sigmoid_(self) -> "Tensor":
        return self._inplace_apply(Tensor.sigmoid)

    def tanh_(self) -> "Tensor":
        return self._inplace_apply(Tensor.tanh)

    def relu_(self) -> "Tensor":
        return self._inplace_apply(Tensor.relu)

    def clamp_(self, min: Optional[Operand] = None, max: Optional[Operand] = None) -> "Tensor":  # noqa: A002 - PyTorch's names
        bounds = [b for b in (min, max) if b is not None]
        if bounds and not any(isinstance(b, Tensor) for b in bounds):
            refuse_clamp_cast(result_dtype(self, *bounds), self.dtype)
        return self._inplace_apply(lambda old: old.clamp(min, max), min, max)

    clip_ = clamp_

    def clamp_min_(self, min: Operand) -> "Tensor":  # noqa: A002
        return self.clamp_(min=min)

    def clamp_max_(self, max: Operand) -> "Tensor":  # noqa: A002
        return self.clamp_(max=max)

    def masked_fill_(self, mask: "Tensor", value: Operand) -> "Tensor":
        """Write ``value`` where ``mask`` (a bool tensor broadcast to this shape) is true."""
        if not isinstance(mask, Tensor) or mask.dtype is not dtypes.bool_:
            raise RuntimeError(f"masked_fill_ only supports boolean masks, but got mask with dtype {getattr(mask, 'dtype', type(mask).__name__)}")
        if isinstance(value, Tensor) and value.dim() != 0:
            raise RuntimeError(
                f"masked_fill_ only supports a 0-dimensional value tensor, but got tensor with {value.dim()} dimension(s)."
            )
        self._check_fits(mask.shape)
        fill = value.to(self.dtype) if isinstance(value, Tensor) else _scalar_tensor(value, self.dtype, self.device)
        # PyTorch's node: MaskedFillBackward1 for a value tensor (which gets a gradient), 0 for a number
        name = "MaskedFillBackward1" if isinstance(value, Tensor) else "MaskedFillBackward0"
        if self._shares_elements():  # PyTorch writes each element the mask reaches, with a warning
            expanded_writes.warn_expanded_write("masked_fill_", "tensor[mask] = scalar")
            if is_grad_enabled() and (self._requires_grad or fill._requires_grad):
                return expanded_writes.put_where_shared_recorded(self, (mask.expand(*self.shape),), fill, False, name)
            return expanded_writes.fill_where_shared(self, mask, value)
        return self._inplace_apply(lambda old: _named(where(mask, fill, old), name), value, overlap_ok=True)

    # ---- everyday API of PyTorch code (issue 17) ----

    def type(self, dtype: Any = None, non_blocking: bool = False) -> Union[str, "Tensor"]:
        """With no argument the legacy type name (``'torch.FloatTensor'``); else this tensor
        converted to ``dtype``, given as a dtype or a legacy name like ``'torch.LongTensor'``."""
        if dtype is None:
            return f"torch.{self.type_name()}"
        dtype = getattr(dtype, "legacy_dtype", dtype)  # a legacy type: x.type(torch.LongTensor)
        if isinstance(dtype, str):
            names = {f"torch.{dtypes.scalar_type_name(d)}Tensor": d for d in dtypes.ALL_DTYPES}
            if dtype not in names:
                raise ValueError(f"invalid type: '{dtype}'")
            dtype = names[dtype]
        return self.to(dtypes.as_dtype(dtype))

    def mm(self, mat2: "Tensor") -> "Tensor":
        if self.dim() != 2 or mat2.dim() != 2:
            raise RuntimeError(f"mm expects 2-D tensors, got {self.dim()}-D and {mat2.dim()}-D")
        return matmul(self, mat2)

    multiply = mul

    def dot(self, other: "Tensor") -> "Tensor":
        """The inner product of two 1-D tensors of the same length and dtype (a 0-d tensor)."""
        if self.dim() != 1 or other.dim() != 1:
            raise RuntimeError(f"1D tensors expected, but got {self.dim()}D and {other.dim()}D tensors")
        if self.dtype is not other.dtype:
            raise RuntimeError("dot : expected both vectors to have same dtype, but found "
                               f"{dtypes.scalar_type_name(self.dtype)} and {dtypes.scalar_type_name(other.dtype)}")
        if self.shape[0] != other.shape[0]:
            raise RuntimeError(
                f"inconsistent tensor size, expected tensor [{self.shape[0]}] and src [{other.shape[0]}] to have the "
                f"same number of elements, but got {self.shape[0]} and {other.shape[0]} elements respectively")
        return matmul(self, other)

    def mv(self, vec: "Tensor") -> "Tensor":
        """Matrix (n x m) times vector (m): a vector of n."""
        if self.dim() != 2 or vec.dim() != 1:
            raise RuntimeError(f"vector + matrix @ vector expected, got 1, {self.dim()}, {vec.dim()}")
        if self.shape[1] != vec.shape[0]:
            raise RuntimeError(f"size mismatch, got input ({self.shape[0]}), mat ({self.shape[0]}x{self.shape[1]}), "
                               f"vec ({vec.shape[0]})")
        return matmul(self, vec)

    # ---- indexing methods (minitorch/ops/indexing.py) ----
    #
    # The shape and selection methods (chunk, split, unbind, flip, roll, movedim, moveaxis, repeat,
    # tile, repeat_interleave, tril, triu, outer, masked_fill, masked_select, take_along_dim,
    # nonzero, argwhere, unique) are composites built on Tensor and creation, a layer above this
    # module: ops/shape_ops.py defines them and attaches them here with ``add_tensor_methods``.

    @accepts_numpy_names
    def gather(self, dim: int, index: "Tensor") -> "Tensor":
        return indexing.gather(self, dim, index)

    @accepts_numpy_names
    def index_select(self, dim: int, index: "Tensor") -> "Tensor":
        return indexing.index_select(self, dim, index)

    @accepts_numpy_names
    def index_add(self, dim: int, index: "Tensor", source: "Tensor", *, alpha: Any = 1) -> "Tensor":
        return indexing.index_add(self, dim, index, source, alpha=alpha)

    @accepts_numpy_names
    def scatter_add(self, dim: int, index: "Tensor", src: "Tensor") -> "Tensor":
        return indexing.scatter_add(self, dim, index, src)

    # ---- printing ----

    def __repr__(self) -> str:
        return tensor_repr(self)

    def __format__(self, spec: str) -> str:
        """As PyTorch: a 0-d tensor formats as its number (``f"{loss}"`` prints ``0.25``, and
        ``f"{loss:.3f}"`` works); any other tensor only with an empty spec, as its ``str``."""
        if self.dim() == 0 and type(self) is Tensor:
            return format(self.item(), spec)
        if spec:
            raise TypeError("unsupported format string passed to Tensor.__format__")
        return str(self)

    # ---- factories that follow this tensor's dtype and device ----

    def new_empty(self, *size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> "Tensor":
        from .creation import empty as make_empty

        return make_empty(*size, dtype=dtype or self.dtype, device=device or self.device, requires_grad=requires_grad)

    def new_zeros(self, *size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> "Tensor":
        from .creation import full

        return full(shape_from_args(size), 0, dtype=dtype or self.dtype, device=device or self.device, requires_grad=requires_grad)

    def new_ones(self, *size: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> "Tensor":
        from .creation import ones

        return ones(*size, dtype=dtype or self.dtype, device=device or self.device, requires_grad=requires_grad)

    def new_full(self, size: Sequence[int], fill_value: Scalar, *, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> "Tensor":
        from .creation import full

        return full(size, fill_value, dtype=dtype or self.dtype, device=device or self.device, requires_grad=requires_grad)

    def new_tensor(self, data: Any, *, dtype: Any = None, device: Any = None, requires_grad: bool = False) -> "Tensor":
        from .creation import tensor

        return tensor(data, dtype=dtype or self.dtype, device=device or self.device, requires_grad=requires_grad)


register_tensor_type(Tensor)


# ---- module-level helpers used by the methods above ----


#: ``rounding_mode`` of ``div``: no rounding, towards zero, or towards minus infinity
ROUNDING_MODES = (None, "trunc", "floor")


def _check_rounding_mode(rounding_mode: Optional[str]) -> None:
    if rounding_mode not in ROUNDING_MODES:
        raise RuntimeError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '{rounding_mode}'")


def _no_dims(dim: Any) -> bool:
    """Whether ``dim`` is an empty list of dims (not None: that is all of them)."""
    return isinstance(dim, (tuple, list)) and not dim


def _named(out: Tensor, name: str) -> Tensor:
    """Give ``out``'s ``grad_fn`` PyTorch's name for the call that made it (one Function can
    serve several PyTorch ops: ``Permute`` is ``t``, ``transpose`` and ``permute``)."""
    node = out.grad_fn
    if node is not None and node.ctx is not None:
        node.rename(name)
    return out


def _plain_alpha(alpha: Any) -> bool:
    """Whether ``alpha`` leaves the second term as it is (the number 1, not a bool or a tensor)."""
    return type(alpha) in (int, float) and alpha == 1


def _refuse_bool_subtraction(a: Tensor, b: Any) -> None:
    """PyTorch's errors for ``-`` with a bool operand (a Python bool counts as one)."""
    a_bool = a._data.dtype is dtypes.bool_
    b_bool = isinstance(b, (bool, np.bool_)) or (isinstance(b, Tensor) and b._data.dtype is dtypes.bool_)
    if a_bool and b_bool:
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not supported. "
                           "Use the `^` or `logical_xor()` operator instead.")
    if a_bool or b_bool:
        raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. "
                           "If you are trying to invert a mask, use the `~` or `logical_not()` operator instead.")


#: the ops whose number operand a 16-bit float tensor meets in float32 (PyTorch's CPU kernels of ``mul``
#: and ``div`` read it as their ``opmath`` type; ``add`` and ``sub`` round it to the tensor's dtype)
_OPMATH_SCALAR_OPS = ("mul", "div")


def _like_uint8(source: Tensor, flags: Tensor) -> Tensor:
    """``all``/``any``'s result: bool, or uint8 for a uint8 input (PyTorch keeps that legacy dtype)."""
    return flags.to(dtypes.uint8) if source.dtype is dtypes.uint8 else flags


def _mixes_numbers_and_0d_tensors(bounds: list[Any]) -> bool:
    """Whether clamp's bounds mix numbers and tensors, every tensor 0-d and needing no gradient
    (PyTorch's Number overload takes those)."""
    tensors = [b for b in bounds if isinstance(b, Tensor)]
    return 0 < len(tensors) < len(bounds) and all(t.dim() == 0 and not t.requires_grad for t in tensors)


def _scalar_tensor(value: Any, dtype: dtypes.dtype, on: device) -> Tensor:
    """A 0-d tensor holding ``value`` converted to ``dtype``."""
    if type(value) in (float, int) and dtype.is_floating_point and on.type == "cpu":  # ``x * 2``: the common case
        storage = np.empty(1, dtype.numpy)
        storage[0] = value  # NumPy's conversion, as ``astype`` below makes it
        t = Tensor._make(TensorData.contiguous(storage, (), 1))
        t._wrapped_number = True
        return t
    array = np.array(value).astype(dtype.numpy) if not isinstance(value, np.ndarray) else value.astype(dtype.numpy)
    t = Tensor._make(TensorData(array.reshape(1), ()))
    t = t if on.type == "cpu" else _move_to_device(t, on)
    t._wrapped_number = True
    return t


def _as_bool(value: Operand, on: device) -> Tensor:
    if isinstance(value, Tensor):
        return value.detach().bool()
    return _scalar_tensor(bool(value), dtypes.bool_, on)


def _refuse_integer_zero_divisor(a: "Tensor", b: "Tensor") -> None:
    """PyTorch's ``ZeroDivisionError`` (a RuntimeError) for an integer division with a zero divisor
    among the elements it computes (an empty operand computes none)."""
    if not a.dtype.is_floating_point and a.numel() and b.numel() and bool((b == 0).any()):
        raise RuntimeError("ZeroDivisionError")


def result_dtype(*operands: Operand) -> dtypes.dtype:
    """PyTorch's promoted dtype of tensors and Python numbers."""
    dimensioned = [o.dtype for o in operands if isinstance(o, Tensor) and o.dim() > 0]
    zero_dim = [o.dtype for o in operands if isinstance(o, Tensor) and o.dim() == 0]
    scalars = [o for o in operands if not isinstance(o, Tensor)]
    return dtypes.result_type(dimensioned, zero_dim, scalars)


def _shares_memory(a: Tensor, b: Tensor) -> bool:
    return a._data.storage is b._data.storage or (
        a.device.type == "cpu" and b.device.type == "cpu" and np.may_share_memory(a._data.storage, b._data.storage)
    )


def _move_to_device(t: Tensor, target: device) -> Tensor:
    """``t``'s values on another device, in the graph: the gradient moves back to ``t``'s device."""
    return ToDevice.apply(t, target)


def _refuse_vector_mismatch(a: Tensor, b: Tensor) -> None:
    """PyTorch's errors for a 1-D matmul operand whose length does not fit (the ops it becomes:
    dot, mv (of the folded rows, for a batch), or a one-row mm)."""
    n, m = a.shape[-1], b.shape[0] if b.dim() == 1 else b.shape[-2]
    if a.dim() == 1 and b.dim() == 1:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{n}] and src [{m}] to have the same number "
                           f"of elements, but got {n} and {m} elements respectively")
    if b.dim() == 1:
        rows = math.prod(a.shape[:-1])
        raise RuntimeError(f"size mismatch, got input ({rows}), mat ({rows}x{n}), vec ({m})")
    if a.dim() == 1 and b.dim() == 2:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied (1x{n} and {m}x{b.shape[1]})")


def matmul(a: Tensor, b: Tensor) -> Tensor:
    """Matrix product with PyTorch's rules for 1-D operands and broadcast batch dimensions."""
    MatMul = linalg.MatMul  # noqa: N806 - the Function's name
    if autocast_state.ever_enabled:
        a, b = autocast_state.lower_precision(a, b)
    a_shape, b_shape = a._data.shape, b._data.shape
    if (len(a_shape) == 2 and len(b_shape) == 2 and a_shape[1] == b_shape[0] and a._data.dtype is b._data.dtype
            and a._data.dtype is not dtypes.bool_):
        return _named(MatMul.apply(a, b), "MmBackward0")  # two matrices that fit: nothing to check or reshape
    if a.dim() == 0 or b.dim() == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are {a.dim()}D and {b.dim()}D")
    if a.dtype is not b.dtype:
        if a.dim() == 1 and b.dim() == 1:
            raise RuntimeError("dot : expected both vectors to have same dtype, but found "
                               f"{dtypes.scalar_type_name(a.dtype)} and {dtypes.scalar_type_name(b.dtype)}")
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {dtypes.scalar_type_name(a.dtype).lower()} != {dtypes.scalar_type_name(b.dtype).lower()}")
    a2 = a.unsqueeze(0) if a.dim() == 1 else a
    b2 = b.unsqueeze(-1) if b.dim() == 1 else b
    if a2.shape[-1] != b2.shape[-2]:
        _refuse_vector_mismatch(a, b)
        if a.dim() <= 2 and b.dim() <= 2:
            raise RuntimeError(
                f"mat1 and mat2 shapes cannot be multiplied ({a2.shape[0]}x{a2.shape[1]} and {b2.shape[0]}x{b2.shape[1]})"
                if a.dim() == 2 and b.dim() == 2 else
                f"size mismatch, got input ({list(a.shape)}), other ({list(b.shape)})"
            )
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: [{', '.join(map(str, b2.shape[:-2]))}, {a2.shape[-1]}] "
            f"but got: [{', '.join(map(str, b2.shape[:-1]))}]. (matmul of shapes {list(a.shape)} and {list(b.shape)})"
        )
    try:
        shape_broadcast(a2.shape[:-2], b2.shape[:-2])
    except Exception as error:
        raise RuntimeError(f"matmul: batch dimensions of {list(a.shape)} and {list(b.shape)} don't broadcast") from error
    refuse_bool_product(matmul_kernel(a.dim(), b.dim()), a.dtype, a_shape, b_shape)
    if b.dim() == 1 and a.dim() <= 2:  # PyTorch's dot and mv: one node each
        return vector_products.Dot.apply(a, b) if a.dim() == 1 else vector_products.Mv.apply(a, b)
    if a.dim() == 1 and b.dim() == 2:  # PyTorch's a.unsqueeze(0).mm(b).squeeze_(0)
        return _named(_named(MatMul.apply(a2, b2), "MmBackward0").squeeze(0), "SqueezeBackward4")._standalone()
    if b.dim() == 1:  # a batch of matrices times a vector: one mv of the rows folded together
        folded = vector_products.Mv.apply(a.reshape(math.prod(a.shape[:-1]), a.shape[-1]), b)  # no -1: size 0 is fine
        return _named(folded.reshape(a.shape[:-1]), "UnsafeViewBackward0")._standalone()
    if a.dim() == 1:  # a vector times a batch of matrices: one mv of their columns folded together
        rows = math.prod(b.shape[:-2]) * b.shape[-1]  # not -1: a size-0 batch must stay well defined
        columns = _named(b.transpose(-1, -2).contiguous().view(rows, b.shape[-2]), "UnsafeViewBackward0")
        folded = vector_products.Mv.apply(columns, a)
        return _named(folded.view(b.shape[:-2] + (b.shape[-1],)), "UnsafeViewBackward0")._standalone()
    return _named(MatMul.apply(a2, b2), _batched_matmul_node(a, b))


def _batched_matmul_node(a: Tensor, b: Tensor) -> str:
    """PyTorch's node for a product with batch dims: ``UnsafeViewBackward0``, its matmul's reshape of
    the ``bmm`` (or folded ``mm``) result; but a matrix ``a`` that needs a gradient times a batch is
    computed transposed (``b.mT @ a.mT``, folded) and transposed back, then copied to a contiguous
    result (``CloneBackward0``) unless the transpose already is one (``TransposeBackward0``)."""
    if a.dim() != 2 or not a.requires_grad:
        return "UnsafeViewBackward0"
    rows, columns = a.shape[0], b.shape[-1]
    laid_out = rows == 1 or columns == 1 or a.numel() == 0 or b.numel() == 0
    return "TransposeBackward0" if laid_out else "CloneBackward0"


# ---- the layer above: composite ops that plug into Tensor ----


#: the methods that are one elementwise kernel of the same name on a floating tensor
#: (``Tensor.exp`` is ``map_op("exp")``): with no graph to record, their in-place forms
#: (``x.exp_()``, ``nn.ReLU(inplace=True)`` in eval) run it in the tensor's own memory instead
#: of computing a new tensor and copying it in (``x.relu_()`` on 256 x 784 float32, one thread:
#: 107-147 us before, 23 us)
IN_PLACE_KERNELS = ("neg", "exp", "log", "sqrt", "rsqrt", "reciprocal", "abs", "sign", "sigmoid", "tanh", "relu")


@functools.cache
def _in_place_kernels() -> dict[Callable[..., Any], str]:
    """:data:`IN_PLACE_KERNELS` by method (the function ``_inplace_apply`` is given)."""
    return {**{getattr(Tensor, name): name for name in IN_PLACE_KERNELS}, Tensor.__neg__: "neg"}


def add_tensor_methods(methods: dict[str, Callable[..., Any]]) -> None:
    """Make each of ``methods`` a method of :class:`Tensor` under its key.

    Composite ops (``ops/shape_ops.py``) are built from Tensor methods and creation functions,
    so they sit above this module and this module never imports them: they call this once, at
    import, to expose their ops as methods. A name Tensor already has is an error, never a
    silent override.
    """
    for name, method in methods.items():
        if hasattr(Tensor, name):
            raise RuntimeError(f"add_tensor_methods: Tensor already has an attribute named {name!r}")
        # as PyTorch's argument parser, methods take NumPy's names too (``x.cumsum(axis=0)``)
        setattr(Tensor, name, accepts_numpy_names(method) if inspect.isfunction(method) else method)


class AdvancedIndexing(NamedTuple):
    """The handlers of ``t[key]`` and ``t[key] = value`` for keys holding index tensors or masks."""

    needs_advanced: Callable[[Any], bool]
    getitem: Callable[[Tensor, Any], Tensor]
    setitem_result: Callable[[Tensor, Any, Any], Tensor]


_ADVANCED_INDEXING: Optional[AdvancedIndexing] = None


def register_advanced_indexing(handlers: AdvancedIndexing) -> None:
    """Install the advanced-indexing handlers (``ops/advanced_indexing.py`` does, at import: it
    builds on Tensor and creation, so this module never imports it)."""
    global _ADVANCED_INDEXING
    _ADVANCED_INDEXING = handlers


def _advanced_indexing() -> AdvancedIndexing:
    if _ADVANCED_INDEXING is None:
        raise RuntimeError("advanced indexing is not registered: import minitorch first")
    return _ADVANCED_INDEXING


def where(condition: Tensor, a: Operand, b: Operand) -> Tensor:
    """Elements of ``a`` where ``condition`` holds, else of ``b`` (broadcast together)."""
    if not isinstance(condition, Tensor) or condition.dtype is not dtypes.bool_:
        raise RuntimeError(f"where expected condition to be a boolean tensor, but got a tensor with dtype {getattr(condition, 'dtype', type(condition).__name__)}")
    like = a if isinstance(a, Tensor) else b if isinstance(b, Tensor) else None
    if like is None:
        result = dtypes.result_type([], [], [a, b])
        a_t, b_t = _scalar_tensor(a, result, condition.device), _scalar_tensor(b, result, condition.device)
    else:
        result = result_dtype(a, b)
        a_t = a.to(result) if isinstance(a, Tensor) else _scalar_tensor(a, result, like.device)
        b_t = b.to(result) if isinstance(b, Tensor) else _scalar_tensor(b, result, like.device)
    return elementwise.Where.apply(condition.detach(), a_t, b_t)


