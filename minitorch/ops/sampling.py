r"""Random sampling with PyTorch's signatures: ``bernoulli``, ``multinomial``, ``normal`` and the
in-place fills ``uniform_``, ``normal_``, ``exponential_``, ``random_``, ``bernoulli_``,
``cauchy_``, ``log_normal_``, ``geometric_``.

Every draw comes from one :class:`~minitorch.generator.Generator`: the ``generator=`` given, or
the default generator of the tensor's device kind (seeded by ``minitorch.manual_seed``). Draws
are made on the host from the Mersenne Twister stream PyTorch's CPU generator runs, turned into
numbers as PyTorch's CPU kernels turn them (:mod:`minitorch.draws`), in the order of the
result's memory, so a seed gives PyTorch's values, on every backend.

Sampling is not differentiable: a result drawn from tensors that require grad requires grad
too (as in PyTorch), and the gradient it sends back to them is zero.

How the samplers work:

* Bernoulli: :math:`x_i = [u_i < p_i]` with :math:`u_i \sim U[0, 1)`.
* Multinomial with replacement: inverse-CDF, the first category :math:`i` whose normalised
  cumulative weight :math:`\sum_{j \le i} p_j / \sum_j p_j` reaches :math:`u`.
* Multinomial without replacement (and any single draw): draw :math:`e_i \sim \mathrm{Exp}(1)`
  and keep the ``k`` largest :math:`p_i / e_i`. The largest is category :math:`i` with
  probability :math:`p_i / \sum_j p_j`, and by memorylessness the rest follow as draws from
  what is left, which is sampling one at a time without putting back.
* Normal: :math:`\mu + \sigma z` with :math:`z \sim \mathcal{N}(0, 1)` (Box-Muller).
"""

from __future__ import annotations

import math
import warnings
from typing import Any, Optional, Union

import numpy as np

from .. import draws, dtypes
from ..autograd.function import Context, Function
from ..creation import _finish, _generator, _new_shape
from ..device import DeviceLike
from ..dispatch import resolve_device
from ..generator import Generator
from ..mersenne import MersenneStream
from ..out_argument import write_out
from ..tensor import Tensor, add_tensor_methods
from ..tensor_data import shape_broadcast

Number = Union[int, float]

#: the C++ names PyTorch's range errors give each dtype
_CPP_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half", "int64": "long", "int32": "int",
              "int16": "short", "int8": "signed char", "uint8": "unsigned char", "bool": "bool",
              "bfloat16": "c10::BFloat16"}
INT64_MIN, INT64_MAX = int(np.iinfo(np.int64).min), int(np.iinfo(np.int64).max)
#: integers a float dtype holds exactly: :math:`[-2^d, 2^d]` with ``d`` its significand digits
_FLOAT_DIGITS = {"float16": 11, "float32": 24, "float64": 53, "bfloat16": 8}


def _cpp(value: float) -> str:
    """A number as PyTorch's messages print it (C++ stream formatting: ``-1``, ``0.5``, ``nan``)."""
    return f"{value:g}"


def _source(generator: Optional[Generator], device: Any) -> MersenneStream:
    """The stream to draw from: ``generator``'s, else the default one of ``device``'s kind."""
    return _generator(device, generator).stream()


def _memory_order(t: Tensor) -> list[int]:
    """``t``'s dimensions in the order of its memory (by falling stride; size-1 dimensions last)."""
    return sorted(range(t.dim()), key=lambda d: -t.stride(d) if t.shape[d] != 1 else 0)


def _in_memory_order(t: Tensor, values: np.ndarray) -> np.ndarray:
    """``values`` (drawn in the order of ``t``'s memory, flat) arranged in ``t``'s shape."""
    order = _memory_order(t)
    return values.reshape([t.shape[d] for d in order]).transpose(np.argsort(order))


def _host_values(t: Tensor) -> np.ndarray:
    """``t``'s values on the host in its own dtype."""
    return np.asarray(t.detach().cpu().numpy())


def _not_implemented(kernel: str, dtype: dtypes.dtype) -> NotImplementedError:
    return NotImplementedError(f'"{kernel}" not implemented for \'{dtypes.scalar_type_name(dtype)}\'')


class Sampled(Function):
    """Draws that depend on tensor parameters (a mean, a probability): the result requires grad
    when a parameter does, and each parameter's gradient is zero, as PyTorch defines it."""

    @staticmethod
    def forward(ctx: Context, *params: Tensor, values: Tensor, name: str) -> Tensor:
        ctx.grad_fn_name = name
        ctx.shapes = [(p.shape, p.dtype, p.device) for p in params]
        return values

    @staticmethod
    def backward(ctx: Context, grad: Tensor) -> tuple[Optional[Tensor], ...]:
        from ..creation import zeros

        return tuple(zeros(shape, dtype=dtype, device=device) if needed else None
                     for (shape, dtype, device), needed in zip(ctx.shapes, ctx.needs_input_grad))


def _with_params(values: Tensor, name: str, *params: Any) -> Tensor:
    """``values``, recorded as drawn from the tensor ``params`` (so it requires grad if they do)."""
    tensors = [p for p in params if isinstance(p, Tensor)]
    if not any(p.requires_grad for p in tensors):
        return values
    return Sampled.apply(*tensors, values=values, name=name)


def _into(result: Tensor, out: Optional[Tensor], name: str) -> Tensor:
    """``result``, or written into ``out`` by PyTorch's rules (:func:`~minitorch.out_argument.write_out`)."""
    return write_out(result, out, name, factory=True)


# ---- bernoulli ----

def _check_probabilities(p: np.ndarray) -> None:
    if not np.all((p >= 0) & (p <= 1)):  # NaN fails both comparisons
        bad = p[~((p >= 0) & (p <= 1))].flat[0]
        raise RuntimeError(f"Expected p_in >= 0 && p_in <= 1 to be true, but got false. (p holds {_cpp(float(bad))})")


def _check_p_number(p: float) -> None:
    if not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={_cpp(p)}")


def _bernoulli_draws(t: Tensor, p: Union[float, np.ndarray], stream: MersenneStream) -> np.ndarray:
    """0/1 draws for each element of ``t``, flat in the order of its memory (``p`` in ``t``'s shape)."""
    if isinstance(p, np.ndarray):
        p = p.transpose(_memory_order(t))
    return draws.bernoulli(stream, t.numel(), p)


def bernoulli(input: Tensor, p: Optional[float] = None, *, generator: Optional[Generator] = None,  # noqa: A002
              out: Optional[Tensor] = None) -> Tensor:
    r"""0/1 draws of ``input``'s shape and dtype: :math:`x_i \sim \mathrm{Bernoulli}(p_i)` with
    :math:`p_i` = ``input``'s values, or ``p`` for every element when it is given."""
    if not isinstance(input, Tensor):
        raise TypeError(f"bernoulli(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    source = _source(generator, input.device)
    if p is None:
        if not input.dtype.is_floating_point:
            raise _not_implemented("bernoulli_tensor_cpu_p_", input.dtype)
        probabilities = _host_values(input)
        _check_probabilities(probabilities)
        drawn = _in_memory_order(input, _bernoulli_draws(input, probabilities, source))
        result = _with_params(_finish(drawn, input.dtype, input.device, False), "BernoulliBackward0", input)
    else:
        _check_p_number(float(p))
        drawn = _in_memory_order(input, _bernoulli_draws(input, float(p), source))
        result = _finish(drawn, input.dtype, input.device, False)
    return _into(result, out, "bernoulli")


def _bernoulli_method(self: Tensor, p: Optional[float] = None, *, generator: Optional[Generator] = None) -> Tensor:
    return bernoulli(self, p, generator=generator)


def bernoulli_(self: Tensor, p: Union[float, Tensor] = 0.5, *, generator: Optional[Generator] = None) -> Tensor:
    """Fill with 0/1 draws, each 1 with probability ``p`` (a number, or a float tensor broadcast to this shape)."""
    source = _source(generator, self.device)
    if isinstance(p, Tensor):
        if not p.dtype.is_floating_point:
            raise _not_implemented("bernoulli_tensor_cpu_p_", p.dtype)
        probabilities: Union[float, np.ndarray] = _host_values(p.expand(self.shape))
        _check_probabilities(probabilities)
    else:
        probabilities = float(p)
        _check_p_number(probabilities)
    return _fill(self, _bernoulli_draws(self, probabilities, source))


# ---- multinomial ----

def _check_multinomial(input: Tensor, num_samples: Any, replacement: bool) -> None:  # noqa: A002
    if not isinstance(num_samples, (int, np.integer)) or isinstance(num_samples, bool):
        raise TypeError(f"multinomial(): argument 'num_samples' (position 2) must be int, not {type(num_samples).__name__}")
    if input.dim() not in (1, 2):
        raise RuntimeError(f"prob_dist must be 1 or 2 dim (got a {input.dim()}-D tensor)")
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"multinomial only supports floating-point dtypes for input, got: {dtypes.scalar_type_name(input.dtype)}")
    if num_samples <= 0:
        raise RuntimeError(f"cannot sample n_sample <= 0 samples (num_samples={num_samples})")
    if not replacement and num_samples > input.shape[-1]:
        raise RuntimeError(
            f"cannot sample n_sample > prob_dist.size(-1) samples without replacement "
            f"(num_samples={num_samples}, {input.shape[-1]} categories)"
        )


def _check_distribution(weights: np.ndarray, by_keys: bool) -> None:
    """PyTorch checks weights differently on its two paths (NaN counts as < 0 on the inverse-CDF one)."""
    if not by_keys:
        if not np.all(weights >= 0):
            raise RuntimeError("invalid multinomial distribution (encountering probability entry < 0)")
        if not np.all(np.isfinite(weights)):
            raise RuntimeError("invalid multinomial distribution (encountering probability entry = infinity or NaN)")
    elif not np.all(np.isfinite(weights) & (weights >= 0)):
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    if weights.shape[-1] == 0 or np.any(weights.sum(axis=-1) <= 0):
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")


def _largest_keys(weights: np.ndarray, k: int, stream: MersenneStream) -> np.ndarray:
    """The ``k`` largest :math:`p_i / e_i`, :math:`e_i \\sim \\mathrm{Exp}(1)` drawn in the weights'
    dtype, per row, largest first."""
    noise = draws.exponential(stream, weights.size, 1.0).astype(weights.dtype).reshape(weights.shape)
    with np.errstate(divide="ignore", invalid="ignore"):
        keys = weights / noise
    return np.argsort(-keys, axis=-1, kind="stable")[:, :k]


def multinomial(input: Tensor, num_samples: int, replacement: bool = False, *,  # noqa: A002
                generator: Optional[Generator] = None, out: Optional[Tensor] = None) -> Tensor:
    """``num_samples`` category indices (int64) per row of the weights ``input`` (1-D or 2-D,
    non-negative, any positive sum), with or without replacement."""
    if not isinstance(input, Tensor):
        raise TypeError(f"multinomial(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    _check_multinomial(input, num_samples, replacement)
    weights = _host_values(input).reshape(-1, input.shape[-1])
    # PyTorch draws a single sample by the keys too, with or without replacement
    by_keys = not replacement or num_samples == 1
    if weights.shape[0]:
        _check_distribution(weights, by_keys)
    source = _source(generator, input.device)
    k = int(num_samples)
    if not weights.shape[0]:
        picked = np.zeros((0, k), np.int64)
    elif by_keys:
        picked = _largest_keys(weights, k, source)
    else:
        picked = draws.multinomial_with_replacement(source, weights, k)
    shape = (*input.shape[:-1], k)
    return _into(_finish(picked.reshape(shape).astype(np.int64), dtypes.int64, input.device, False), out, "multinomial")


def _multinomial_method(self: Tensor, num_samples: int, replacement: bool = False, *,
                        generator: Optional[Generator] = None) -> Tensor:
    return multinomial(self, num_samples, replacement, generator=generator)


# ---- normal ----

_NORMAL_OVERLOADS = (
    " * (Tensor mean, Tensor std, *, Generator generator = None, Tensor out = None)\n"
    " * (Tensor mean, float std = 1, *, Generator generator = None, Tensor out = None)\n"
    " * (float mean, Tensor std, *, Generator generator = None, Tensor out = None)\n"
    " * (float mean, float std, tuple of ints size, *, Generator generator = None, Tensor out = None, "
    "dtype dtype = None, device device = None, bool requires_grad = False)"
)


def _overload_error(mean: Any, std: Any, size: Any) -> TypeError:
    got = ", ".join(type(v).__name__ for v in (mean, std) + (() if size is None else (size,)))
    return TypeError(f"normal() received an invalid combination of arguments - got ({got}), but expected one of:\n"
                     f"{_NORMAL_OVERLOADS}")


def _check_std_number(std: float) -> None:
    if not std >= 0:  # NaN too
        raise RuntimeError(f"normal expects std >= 0.0, but found std {_cpp(std)}")


def _check_std_values(std: np.ndarray) -> None:
    if not np.all(std >= 0):
        raise RuntimeError("normal expects all elements of std >= 0.0")


def normal(mean: Union[Tensor, Number] = 0.0, std: Union[Tensor, Number] = 1.0, size: Any = None, *,
           generator: Optional[Generator] = None, out: Optional[Tensor] = None, dtype: Any = None,
           device: DeviceLike = None, requires_grad: bool = False) -> Tensor:
    r"""Samples of :math:`\mathcal{N}(\text{mean}, \text{std}^2)`, PyTorch's four overloads:

    * ``normal(mean: Tensor, std: Tensor)``: elementwise, shapes broadcast, ``mean``'s dtype;
    * ``normal(mean: Tensor, std: float = 1.0)``: ``mean``'s shape and dtype;
    * ``normal(mean: float, std: Tensor)``: ``std``'s shape and dtype;
    * ``normal(mean: float, std: float, size)``: a new tensor of ``size`` (``dtype``, ``device``,
      ``requires_grad`` as any factory).
    """
    mean_is_tensor, std_is_tensor = isinstance(mean, Tensor), isinstance(std, Tensor)
    numbers_ok = all(isinstance(v, (int, float, np.number)) and not isinstance(v, bool)
                     for v, is_tensor in ((mean, mean_is_tensor), (std, std_is_tensor)) if not is_tensor)
    if not numbers_ok or (generator is not None and not isinstance(generator, Generator)):
        raise _overload_error(mean, std, size)
    if not (mean_is_tensor or std_is_tensor):
        if size is None:
            raise _overload_error(mean, std, size)
        _check_std_number(float(std))
        target = dtypes.as_dtype(dtype) if dtype is not None else dtypes.get_default_dtype()
        if not target.is_floating_point:
            raise _not_implemented("normal_kernel_cpu", target)
        on = resolve_device(device)
        shape = _new_shape((size,))
        drawn = draws.normal(_source(generator, on), math.prod(shape), target.numpy, float(mean), float(std))
        return _into(_finish(drawn.reshape(shape), target, on, requires_grad), out, "normal")
    if size is not None or dtype is not None or device is not None or requires_grad:
        raise _overload_error(mean, std, size)
    if mean_is_tensor and std_is_tensor:
        target, shape, on = mean.dtype, shape_broadcast(mean.shape, std.shape), mean.device
        mean_values, std_values = _host_values(mean), _host_values(std)
        _check_std_values(std_values)
        name = "NormalBackward3"
    elif mean_is_tensor:
        target, shape, on = mean.dtype, mean.shape, mean.device
        _check_std_number(float(std))
        mean_values, std_values = _host_values(mean), float(std)
        name = "NormalBackward1"
    else:
        target, shape, on = std.dtype, std.shape, std.device
        std_values, mean_values = _host_values(std), float(mean)
        if target.is_floating_point:
            _check_std_values(std_values)
        name = "NormalBackward2"
    if not target.is_floating_point:
        raise _not_implemented("normal_kernel_cpu", target)
    kind = target.numpy.type
    if mean_is_tensor and not std_is_tensor:
        # PyTorch draws N(0, std) and adds the mean; otherwise N(0, 1), times std, plus the mean
        standard = draws.normal(_source(generator, on), math.prod(shape), target.numpy, 0.0, std_values)
        values = standard.reshape(shape) + mean_values.astype(kind)
    else:
        standard = draws.normal(_source(generator, on), math.prod(shape), target.numpy).reshape(shape)
        scaled = standard * (std_values.astype(kind) if std_is_tensor else kind(std_values))
        values = scaled + (mean_values.astype(kind) if mean_is_tensor else kind(mean_values))
    result = _finish(np.asarray(values, dtype=target.numpy), target, on, False)
    return _into(_with_params(result, name, mean, std), out, "normal")


# ---- in-place fills ----

def _float_only(t: Tensor, kernel: str) -> None:
    if not t.dtype.is_floating_point:
        raise _not_implemented(kernel, t.dtype)


def _fill(self: Tensor, drawn: np.ndarray) -> Tensor:
    """Write host values ``drawn`` (flat, in the order of ``self``'s memory) into ``self``
    (PyTorch's in-place rules: version bump, leaf check)."""
    return self.copy_(_finish(_in_memory_order(self, np.asarray(drawn)), self.dtype, self.device, False))


def _check_uniform_bounds(t: Tensor, low: float, high: float) -> None:
    name = _CPP_NAMES[t.dtype.name]
    largest = float(np.finfo(t.dtype.numpy).max)
    if not -largest <= low <= largest:
        raise RuntimeError(f"from is out of bounds for {name}")
    if not -largest <= high <= largest:
        raise RuntimeError(f"to is out of bounds for {name}")
    if low > high:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found from={_cpp(low)} > to={_cpp(high)}")
    if not math.isfinite(high - low):
        raise RuntimeError(
            f"uniform_ expects to-from <= std::numeric_limits<{dtypes.scalar_type_name(t.dtype)}>::max(), but found "
            f"to={_cpp(high)} and from={_cpp(low)} which result in to-from to exceed the limit"
        )


def uniform_(self: Tensor, from_: float = 0.0, to: float = 1.0, *, generator: Optional[Generator] = None,
             **kwargs: Any) -> Tensor:
    r"""Fill with samples of the uniform distribution on :math:`[\text{from}, \text{to})`."""
    from_ = kwargs.pop("from", from_)  # PyTorch's keyword is ``from``, a Python keyword
    if kwargs:
        raise TypeError(f"uniform_() got unexpected keyword arguments {sorted(kwargs)}")
    _float_only(self, "check_uniform_bounds")
    low, high = float(from_), float(to)
    _check_uniform_bounds(self, low, high)
    drawn = draws.uniform(_source(generator, self.device), self.numel(), self.dtype.numpy, low, high)
    return _fill(self, drawn)


def normal_(self: Tensor, mean: float = 0.0, std: float = 1.0, *, generator: Optional[Generator] = None) -> Tensor:
    r"""Fill with samples of :math:`\mathcal{N}(\text{mean}, \text{std}^2)`."""
    _float_only(self, "normal_kernel_cpu")
    _check_std_number(float(std))
    drawn = draws.normal(_source(generator, self.device), self.numel(), self.dtype.numpy, float(mean), float(std),
                         contiguous=self.is_contiguous())
    return _fill(self, drawn)


def exponential_(self: Tensor, lambd: float = 1.0, *, generator: Optional[Generator] = None) -> Tensor:
    r"""Fill with samples of the exponential distribution of rate :math:`\lambda`: density :math:`\lambda e^{-\lambda x}`."""
    if not self.dtype.is_floating_point:
        raise RuntimeError("Exponential distribution is a continuous probability distribution. dtype must be a "
                           f"floating point but you specified {dtypes.scalar_type_name(self.dtype)}")
    if not lambd > 0:  # NaN too
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={_cpp(float(lambd))}")
    drawn = draws.exponential(_source(generator, self.device), self.numel(), float(lambd))
    return _fill(self, drawn)


def cauchy_(self: Tensor, median: float = 0.0, sigma: float = 1.0, *, generator: Optional[Generator] = None) -> Tensor:
    r"""Fill with samples of the Cauchy distribution: density :math:`\frac{1}{\pi\sigma(1 + ((x - m)/\sigma)^2)}`."""
    _float_only(self, "cauchy_cpu")
    if not sigma > 0:  # NaN too
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={_cpp(float(sigma))}")
    drawn = draws.cauchy(_source(generator, self.device), self.numel(), float(median), float(sigma))
    return _fill(self, drawn)


def log_normal_(self: Tensor, mean: float = 1.0, std: float = 2.0, *, generator: Optional[Generator] = None) -> Tensor:
    r"""Fill with :math:`e^{z}`, :math:`z \sim \mathcal{N}(\text{mean}, \text{std}^2)`."""
    _float_only(self, "log_normal_cpu")
    if not std > 0:  # NaN too
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={_cpp(float(std))}")
    drawn = draws.log_normal(_source(generator, self.device), self.numel(), float(mean), float(std))
    return _fill(self, drawn)


def geometric_(self: Tensor, p: float, *, generator: Optional[Generator] = None) -> Tensor:
    r"""Fill with the number of Bernoulli(:math:`p`) trials up to the first success: :math:`P(k) = (1-p)^{k-1} p`."""
    if self.dtype is dtypes.bool_:
        raise _not_implemented("geometric_cpu", self.dtype)
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={_cpp(float(p))}")
    drawn = draws.geometric(_source(generator, self.device), self.numel(), float(p))
    return _fill(self, drawn)


def _dtype_range(d: dtypes.dtype) -> tuple[int, int]:
    """The integers ``random_`` draws for ``d`` when not told: all of an integer dtype's,
    :math:`[0, 2^{digits}]` for a float dtype."""
    if d.is_floating_point:
        return 0, 2 ** _FLOAT_DIGITS[d.name]
    if d is dtypes.bool_:
        return 0, 1
    info = np.iinfo(d.numpy)
    return 0, int(info.max)


def _random_bounds(self: Tensor, args: tuple, kwargs: dict) -> tuple[int, int]:
    """``[low, high]`` (inclusive) from ``random_()``, ``random_(to)``, ``random_(from, to)``."""
    unknown = set(kwargs) - {"from", "to"}
    if unknown or len(args) > 2 or (args and "from" in kwargs) or (len(args) == 2 and "to" in kwargs):
        raise TypeError(f"random_() takes (), (to) or (from, to), got {len(args)} positional and keywords {sorted(kwargs)}")
    if len(args) == 1 and "to" not in kwargs:
        low, high = 0, args[0]
    else:
        low = args[0] if args else kwargs.get("from", 0)
        high = args[1] if len(args) == 2 else kwargs.get("to")
    for name, value in (("from", low), ("to", high)):
        if value is not None and (not isinstance(value, (int, np.integer)) or isinstance(value, bool)):
            raise TypeError(f"random_(): argument '{name}' must be int, not {type(value).__name__}")
    if high is None:
        return int(low), _dtype_range(self.dtype)[1]
    low, high = int(low), int(high)
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    return low, high - 1


def _check_random_range(self: Tensor, low: int, high: int) -> None:
    d = self.dtype
    if d.is_floating_point:
        digits = _FLOAT_DIGITS[d.name]
        if not -(2**digits) <= high <= 2**digits or not -(2**digits) <= low <= 2**digits:
            warnings.warn(f"random_: the range [{low}, {high}] goes past +-2^{digits}, where {_CPP_NAMES[d.name]} "
                          "no longer holds every integer: some values cannot be drawn", UserWarning, stacklevel=3)
        return
    smallest, largest = (0, 1) if d is dtypes.bool_ else (int(np.iinfo(d.numpy).min), int(np.iinfo(d.numpy).max))
    if not smallest <= low <= largest:
        raise RuntimeError(f"from is out of bounds for {_CPP_NAMES[d.name]}")
    if not smallest <= high <= largest:
        raise RuntimeError(f"to - 1 is out of bounds for {_CPP_NAMES[d.name]}")


def random_(self: Tensor, *args: Any, generator: Optional[Generator] = None, **kwargs: Any) -> Tensor:
    """Fill with integers drawn uniformly: ``random_(from, to)`` from ``[from, to)``, ``random_(to)``
    from ``[0, to)``, ``random_()`` from ``[0, 2^{digits}]`` for floats and every non-negative value
    of an integer dtype; ``to=None`` goes up to that largest value."""
    low, high = _random_bounds(self, args, kwargs)
    _check_random_range(self, low, high)
    unbounded = not args and not kwargs
    stream, count = _source(generator, self.device), self.numel()
    if unbounded:
        drawn = draws.default_integers(stream, count, self.dtype.numpy, is_bool=self.dtype is dtypes.bool_)
    elif low == INT64_MIN and high == INT64_MAX:
        drawn = draws.full_range_int64(stream, count)
    else:
        drawn = draws.integers(stream, count, low, high + 1)
    return _fill(self, drawn)


def _logspace_exponents(start: float, end: float, steps: int) -> np.ndarray:
    """``start + step * i``, from ``end`` backwards for the upper half (both ends exact)."""
    if steps == 1:
        return np.array([start], dtype=np.float64)
    step = (end - start) / (steps - 1)
    i = np.arange(steps, dtype=np.float64)
    half = steps // 2
    return np.where(i < half, start + step * i, end - step * (steps - 1 - i))


def logspace(start: Union[Number, Tensor], end: Union[Number, Tensor], steps: int, base: float = 10.0, *,
             out: Optional[Tensor] = None, dtype: Any = None, device: DeviceLike = None,
             requires_grad: bool = False) -> Tensor:
    r"""``steps`` points :math:`\text{base}^{e_i}`, the exponents :math:`e_i` evenly spaced from
    ``start`` to ``end`` (the default float dtype unless ``dtype`` says otherwise)."""
    if not isinstance(steps, (int, np.integer)) or isinstance(steps, bool):
        raise TypeError(f"logspace(): argument 'steps' must be int, not {type(steps).__name__}")
    if steps < 0:
        raise RuntimeError(f"number of steps must be non-negative (got steps={steps})")
    target = dtypes.as_dtype(dtype) if dtype is not None else dtypes.get_default_dtype()
    if target is dtypes.bool_:
        raise _not_implemented("logspace_cpu", target)
    low, high = (float(v.item()) if isinstance(v, Tensor) else float(v) for v in (start, end))
    values = np.power(float(base), _logspace_exponents(low, high, int(steps))) if steps else np.zeros(0)
    if not target.is_floating_point:
        values = np.trunc(values)
    return _into(_finish(values, target, device, requires_grad), out, "logspace")


add_tensor_methods({
    "bernoulli": _bernoulli_method, "bernoulli_": bernoulli_, "multinomial": _multinomial_method,
    "uniform_": uniform_, "normal_": normal_, "exponential_": exponential_, "random_": random_,
    "cauchy_": cauchy_, "log_normal_": log_normal_, "geometric_": geometric_,
})
