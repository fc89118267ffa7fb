"""Before a milestone runs: do the course steps it needs work in this copy of minitorch?

Running a step's graded tests (``minitorch course status``) takes up to a minute per step;
a milestone needs only to know, in about a second, whether the functions it will call are
there. So each step has a *smoke check*: a few calls of that step's functions on tiny
inputs, their results compared with values worked out by hand. In a student release an
unfinished task's stub raises ``NotImplementedError("Task X.Y: <title> (see <README>)")``;
:func:`first_missing` turns that (or a wrong value) into one sentence naming the task to do.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Callable, Iterable, Optional

import minitorch
from minitorch import backends, nn, operators, tensor_data
from minitorch.autodiff import central_difference
from minitorch.scalar import Scalar

#: how a stub's message starts: ``Task 2.3: Forward of ... (see assignments/02-tensor/README.md)``
STUB_MESSAGE = re.compile(r"^Task (?P<task>\d+\.\d+): (?P<rest>.*)$", re.DOTALL)
#: the README a stub's message points to, at its end
GUIDE_SUFFIX = re.compile(r"\s*\(see (?P<guide>[^()]+)\)$")
#: tolerance of the hand-derived values (float32 kernels, float64 Python)
TOLERANCE = 1e-4
#: the steps whose checks run on the pure-Python backend (they come before the Numba kernels)
SIMPLE_BACKEND = "simple"
CPU_BACKEND = "cpu"
#: the first step with fast kernels: without it the milestones that allow it use ``simple``
KERNELS_STEP = 3


class CheckFailed(AssertionError):
    """A step's function ran but returned something other than the hand-derived value."""


def _close(name: str, got: float, expected: float) -> None:
    if not math.isclose(float(got), expected, rel_tol=TOLERANCE, abs_tol=TOLERANCE):
        raise CheckFailed(f"{name} gave {got!r}, expected {expected!r}")


def check_operators() -> None:
    """Step 0: scalar operators, their derivatives and the list helpers."""
    _close("operators.mul(2, 3)", operators.mul(2.0, 3.0), 6.0)
    _close("operators.sigmoid(0)", operators.sigmoid(0.0), 0.5)
    _close("operators.relu(-1)", operators.relu(-1.0), 0.0)
    _close("operators.log_back(2, 1)", operators.log_back(2.0, 1.0), 0.5)
    _close("operators.sum_list([1, 2, 3])", operators.sum_list([1.0, 2.0, 3.0]), 6.0)


def check_scalar_autodiff() -> None:
    r"""Step 1: :math:`f(x) = x \cdot x + \log x` has :math:`f'(2) = 4.5`."""
    _close("central_difference(x * x, 3)", central_difference(lambda x: x * x, 3.0), 6.0)
    x = Scalar(2.0)
    y = x * x + x.log()
    y.backward()
    _close("d(x*x + log x)/dx at 2", x.derivative, 4.5)


def _tensor_gradients() -> None:
    r""":math:`\sum_{ij} (a_{ij} b_j + \sigma(a_{ij}))` and a matmul, with their gradients."""
    a = minitorch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    b = minitorch.tensor([10.0, 20.0], requires_grad=True)
    total = (a * b + a.sigmoid()).sum() + (a @ b).sum()
    total.backward()
    sigmoid_one = 1.0 / (1.0 + math.exp(-1.0))
    _close("forward of (a * b + a.sigmoid()).sum() + (a @ b).sum()", total.item(),
           2 * (10 + 40 + 30 + 80) + sum(1.0 / (1.0 + math.exp(-v)) for v in (1.0, 2.0, 3.0, 4.0)))
    _close("a.grad[0, 0]", a.grad[0, 0].item(), 10.0 + 10.0 + sigmoid_one * (1 - sigmoid_one))
    _close("b.grad[1] (broadcast over rows)", b.grad[1].item(), 2 * (2.0 + 4.0))
    _close("argmax", minitorch.tensor([[1.0, 5.0, 2.0]]).argmax(dim=1).item(), 1.0)
    _close("permute", a.permute(1, 0)[0, 1].item(), 3.0)


def _strides_and_broadcasting() -> None:
    """Tasks 2.1 and 2.2 directly, so that the first task named is the first one not done."""
    _close("index_to_position((1, 2), strides (3, 1))", tensor_data.index_to_position((1, 2), (3, 1)), 5.0)
    strides = tuple(tensor_data.strides_from_shape((2, 3, 4)))
    if strides != (12, 4, 1):
        raise CheckFailed(f"strides_from_shape((2, 3, 4)) gave {strides}, expected (12, 4, 1)")
    shape = tuple(tensor_data.shape_broadcast((2, 1), (3,)))
    if shape != (2, 3):
        raise CheckFailed(f"shape_broadcast((2, 1), (3,)) gave {shape}, expected (2, 3)")


def check_tensors() -> None:
    """Step 2: strided tensors, broadcasting, the ops' forward and backward (pure-Python backend)."""
    _strides_and_broadcasting()
    with backends.use(SIMPLE_BACKEND):
        _tensor_gradients()


def check_kernels() -> None:
    """Step 3 (the CPU part): the same computation on the Numba kernels."""
    with backends.use(CPU_BACKEND):
        _tensor_gradients()


def check_modules() -> None:
    """Step 4: a Linear in a Sequential, its parameters, state_dict and eval mode."""
    with backends.use(SIMPLE_BACKEND):
        model = nn.Sequential(nn.Linear(2, 1))
        names = [name for name, _ in model.named_parameters()]
        if names != ["0.weight", "0.bias"]:
            raise CheckFailed(f"named_parameters() gave {names}, expected ['0.weight', '0.bias']")
        with minitorch.no_grad():
            model[0].weight.fill_(1.0)
            model[0].bias.fill_(0.5)
        _close("Linear(2, 1) with weights 1, bias 0.5 at (1, 2)", model(minitorch.tensor([[1.0, 2.0]])).item(), 3.5)
        if list(model.state_dict()) != names or model.eval().training:
            raise CheckFailed("state_dict() keys or eval() are wrong")


def check_layers() -> None:
    """Step 5: activations, softmax, convolution, pooling, layer norm, embedding, a loss, attention."""
    functional = nn.functional
    with backends.use(SIMPLE_BACKEND):
        image = minitorch.arange(16.0).reshape(1, 1, 4, 4)
        _close("conv2d with a 2x2 kernel of ones", functional.conv2d(image, minitorch.ones(1, 1, 2, 2))[0, 0, 0, 0].item(),
               0 + 1 + 4 + 5)
        _close("max_pool2d(2)", functional.max_pool2d(image, 2)[0, 0, 1, 1].item(), 15.0)
        _close("relu(-1)", functional.relu(minitorch.tensor([-1.0])).item(), 0.0)
        _close("softmax of equal values", functional.softmax(minitorch.zeros(1, 4), dim=1)[0, 0].item(), 0.25)
        _close("cross_entropy of equal logits", functional.cross_entropy(minitorch.zeros(1, 4), minitorch.tensor([2])).item(),
               math.log(4.0))
        normed = functional.layer_norm(minitorch.tensor([[1.0, 3.0]]), (2,))
        _close("layer_norm([1, 3])", normed[0, 1].item(), 1.0 / math.sqrt(1.0 + 1e-5))
        _close("embedding", functional.embedding(minitorch.tensor([1]), minitorch.eye(3))[0, 1].item(), 1.0)
        query = minitorch.ones(1, 2, 4)
        value = minitorch.tensor([[[1.0, 1.0, 1.0, 1.0], [3.0, 3.0, 3.0, 3.0]]])
        attended = functional.scaled_dot_product_attention(query, query, value, is_causal=True)
        _close("causal attention, second position (mean of the two values)", attended[0, 1, 0].item(), 2.0)


def check_optimizers() -> None:
    r"""Step 6: one SGD step (:math:`w - \eta g`) and one Adam step (:math:`w - \eta` at first)."""
    with backends.use(SIMPLE_BACKEND):
        for name, expected in (("SGD", 1.0 - 0.1 * 2.0), ("Adam", 1.0 - 0.1)):
            weight = nn.Parameter(minitorch.tensor([1.0]))
            optimizer = getattr(minitorch.optim, name)([weight], lr=0.1)
            (weight * 2.0).sum().backward()
            optimizer.step()
            _close(f"{name}(lr=0.1) after one step from 1 with gradient 2", weight.item(), expected)


#: step -> its smoke check
STEP_CHECKS: dict[int, Callable[[], None]] = {
    0: check_operators,
    1: check_scalar_autodiff,
    2: check_tensors,
    KERNELS_STEP: check_kernels,
    4: check_modules,
    5: check_layers,
    6: check_optimizers,
}


@dataclass(frozen=True)
class Missing:
    """A step whose check failed: the task to do (when a stub named it) and what happened."""

    step: int
    task: Optional[str]
    detail: str

    def sentence(self, milestone: str) -> str:
        """One sentence for the student, e.g. 'Do task 2.3 first (...): the perceptron needs it.'"""
        if self.task is not None:
            return f"Do task {self.task} first ({self.detail}): {milestone} needs step {self.step}."
        return (f"Finish step {self.step} first: {milestone} needs it, and its check failed ({self.detail}); "
                f"`make status STEP={self.step}` shows which task.")


def missing_from_error(step: int, error: BaseException) -> Missing:
    """Read the task out of a stub's ``NotImplementedError``, or describe any other failure."""
    message = str(error).strip()
    found = STUB_MESSAGE.match(message) if isinstance(error, NotImplementedError) else None
    if found is not None:
        rest = found["rest"].strip()
        guide = GUIDE_SUFFIX.search(rest)
        detail = f"{rest[:guide.start()]}; see {guide['guide']}" if guide else rest
        return Missing(step, found["task"], detail)
    first_line = (message.splitlines() or [""])[0]
    return Missing(step, None, f"{type(error).__name__}: {first_line}" if first_line else type(error).__name__)


def check_step(step: int) -> Optional[Missing]:
    """Run ``step``'s smoke check; ``None`` if it passes."""
    try:
        STEP_CHECKS[step]()
    except Exception as error:  # noqa: BLE001 - any failure of the student's code is reported, not raised
        return missing_from_error(step, error)
    return None


def first_missing(steps: Iterable[int]) -> Optional[Missing]:
    """The first of ``steps`` (in order) whose check fails, or ``None`` when all pass."""
    for step in sorted(steps):
        missing = check_step(step)
        if missing is not None:
            return missing
    return None
