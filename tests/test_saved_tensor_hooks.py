"""``minitorch.autograd.graph``: saved-tensor hooks, ``save_on_cpu``, multi-grad hooks, ``Node``,
gradient edges and ``increment_version``, each scenario run on minitorch and on PyTorch (the
oracle) and compared: which tensors ``pack_hook`` sees and in what order, how often
``unpack_hook`` runs, the gradients, the errors and their messages. Includes the patterns of
PyTorch's tutorial "Hooks for autograd saved tensors" (packing to NumPy, to disk).
"""

from __future__ import annotations

import contextlib
import gc
import os
import threading
import uuid
import weakref
from types import ModuleType
from typing import Any, Callable

import numpy as np
import pytest

import minitorch
from minitorch.autograd import saved_hooks

Log = list


def _shape(t: Any) -> tuple[int, ...]:
    return tuple(t.shape)


def _grad_fn_name(t: Any) -> Any:
    return None if t.grad_fn is None else t.grad_fn.name()


def _logging_hooks(lib: ModuleType, log: Log) -> tuple[Callable, Callable]:
    def pack(t: Any) -> Any:
        log.append(("pack", _shape(t), t.requires_grad, _grad_fn_name(t), lib.is_grad_enabled()))
        return t

    def unpack(t: Any) -> Any:
        log.append(("unpack", _shape(t), lib.is_grad_enabled()))
        return t

    return pack, unpack


def _both(torch_ref: ModuleType, scenario: Callable[[ModuleType], Any]) -> tuple[Any, Any]:
    return scenario(minitorch), scenario(torch_ref)


def _values(t: Any) -> Any:
    return None if t is None else np.asarray(t.detach().tolist())


def _assert_same_grads(ours: Any, theirs: Any) -> None:
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        if a is None or b is None:
            assert a is None and b is None
        else:
            np.testing.assert_allclose(_values(a), _values(b), rtol=1e-5, atol=1e-6)


# ---- which tensors are packed, and when -------------------------------------------------------

OPS: dict[str, Callable[[ModuleType, Any, Any], Any]] = {
    "add": lambda lib, x, w: x + w,
    "mul": lambda lib, x, w: x * w,
    "mul_one_input_needs_grad": lambda lib, x, w: x * w.detach(),
    "exp": lambda lib, x, w: x.exp(),
    "sin": lambda lib, x, w: x.sin(),
    "pow_number": lambda lib, x, w: x.pow(2),
    "square": lambda lib, x, w: x ** 2,
    "clamp": lambda lib, x, w: x.clamp(0, 1),
    "div": lambda lib, x, w: x / (w.detach() + 5),
    "sum": lambda lib, x, w: x.sum(),
    "mean": lambda lib, x, w: x.mean(),
    "relu": lambda lib, x, w: lib.relu(x),
    "sigmoid_mul": lambda lib, x, w: lib.sigmoid(x) * x,
    "tanh": lambda lib, x, w: lib.tanh(x),
    "softmax": lambda lib, x, w: lib.softmax(x, 1),
    "log_softmax": lambda lib, x, w: lib.nn.functional.log_softmax(x, 1),
    "mm": lambda lib, x, w: x @ w.T,
    "view_exp": lambda lib, x, w: x.view(12).exp(),
    "mse_loss": lambda lib, x, w: lib.nn.functional.mse_loss(x, w.detach()),
    # a Python number operand is PyTorch's wrapped number, never packed; a 0-d tensor is
    "mul_number": lambda lib, x, w: x * 2,
    "rmul_number": lambda lib, x, w: 3.5 * x,
    "div_number": lambda lib, x, w: x / 4,
    "mul_0d_tensor": lambda lib, x, w: x * lib.tensor(2.0, dtype=x.dtype),
    "scale_and_shift": lambda lib, x, w: (x * 2 + 1) * w,
}


@pytest.mark.parametrize("op", sorted(OPS))
def test_pack_and_unpack_calls_match_pytorch(torch_ref: ModuleType, op: str) -> None:
    """pack at the op (grad mode off), unpack in backward: same tensors, order, counts, gradients."""

    def scenario(lib: ModuleType) -> Any:
        values = np.random.default_rng(0).standard_normal((2, 4, 3))
        x = lib.tensor(values[0], requires_grad=True)
        w = lib.tensor(values[1], requires_grad=True)
        log: Log = []
        with lib.autograd.graph.saved_tensors_hooks(*_logging_hooks(lib, log)):
            y = OPS[op](lib, x, w)
        log.append("backward")
        y.sum().backward()
        return log, (x.grad, w.grad)

    (ours, our_grads), (theirs, their_grads) = _both(torch_ref, scenario)
    assert ours == theirs
    _assert_same_grads(our_grads, their_grads)


def test_a_linear_layer_packs_as_pytorch(torch_ref: ModuleType) -> None:
    def scenario(lib: ModuleType) -> Any:
        lib.manual_seed(0)
        layer = lib.nn.Linear(3, 5)
        with lib.no_grad():
            layer.weight.copy_(lib.tensor(np.linspace(-1, 1, 15).reshape(5, 3), dtype=lib.float32))
        x = lib.tensor(np.linspace(-2, 2, 12).reshape(4, 3), dtype=lib.float32, requires_grad=True)
        log: Log = []
        with lib.autograd.graph.saved_tensors_hooks(*_logging_hooks(lib, log)):
            y = lib.relu(layer(x))
        y.sum().backward()
        return sorted(map(str, log)), (x.grad, layer.weight.grad, layer.bias.grad)

    (ours, our_grads), (theirs, their_grads) = _both(torch_ref, scenario)
    assert ours == theirs
    _assert_same_grads(our_grads, their_grads)


def test_nothing_is_packed_when_the_op_is_not_recorded(torch_ref: ModuleType) -> None:
    def scenario(lib: ModuleType) -> Any:
        x = lib.ones(3, requires_grad=True)
        log: Log = []
        with lib.autograd.graph.saved_tensors_hooks(*_logging_hooks(lib, log)):
            x.detach() * x.detach()
            with lib.no_grad():
                (x * x).exp()
            Square.of(lib).apply(x.detach())
            with lib.no_grad():
                Square.of(lib).apply(x)
        return log

    ours, theirs = _both(torch_ref, scenario)
    assert ours == theirs == []


class Square:
    """A custom Function (for either library) that saves its input, an intermediate, None and
    its output, and reads ``ctx.saved_tensors`` twice in backward."""

    made: dict[str, type] = {}
    #: per backward: (x requires grad, x is a leaf, out has a grad_fn, that grad_fn's name)
    seen: list = []

    @classmethod
    def of(cls, lib: ModuleType) -> Any:
        if lib.__name__ not in cls.made:

            class SquareFn(lib.autograd.Function):
                @staticmethod
                def forward(ctx: Any, x: Any) -> Any:
                    twice = x * 2
                    out = x * x
                    ctx.save_for_backward(x, twice, None, out)
                    return out

                @staticmethod
                def backward(ctx: Any, grad: Any) -> Any:
                    x, twice, nothing, out = ctx.saved_tensors
                    again = ctx.saved_tensors
                    assert nothing is None and again[2] is None
                    Square.seen.append((x.requires_grad, x.grad_fn is None, out.grad_fn is not None,
                                        out.grad_fn.name() if out.grad_fn is not None else None))
                    return grad * twice

            cls.made[lib.__name__] = SquareFn
        return cls.made[lib.__name__]


def test_a_custom_function_packs_after_forward_in_save_order(torch_ref: ModuleType) -> None:
    """Inputs and outputs are given to pack_hook as themselves; None is skipped; each read of
    ``ctx.saved_tensors`` unpacks again; the unpacked output keeps the node as its grad_fn."""

    def scenario(lib: ModuleType) -> Any:
        Square.seen.clear()
        x = lib.tensor([1.0, -2.0, 3.0], requires_grad=True)
        given: list = []
        log: Log = []
        pack, unpack = _logging_hooks(lib, log)
        with lib.autograd.graph.saved_tensors_hooks(lambda t: given.append(t) or pack(t), unpack):
            y = Square.of(lib).apply(x)
        identities = [given[0] is x, given[2] is y]
        log.append("backward")
        y.sum().backward()
        return log, identities, list(Square.seen), x.grad

    (ours, our_ids, our_seen, our_grad), (theirs, their_ids, their_seen, their_grad) = _both(torch_ref, scenario)
    assert ours == theirs
    assert our_ids == their_ids == [True, True]
    assert [s[:3] for s in our_seen] == [s[:3] for s in their_seen] == [(True, True, True)]
    assert our_seen[0][3] == "SquareFnBackward"
    _assert_same_grads([our_grad], [their_grad])


def test_hooks_during_a_double_backward_pack_what_backward_records(torch_ref: ModuleType) -> None:
    def scenario(lib: ModuleType) -> Any:
        x = lib.tensor([0.5, 1.0], requires_grad=True)
        y = x.exp()
        log: Log = []
        with lib.autograd.graph.saved_tensors_hooks(*_logging_hooks(lib, log)):
            (grad,) = lib.autograd.grad(y.sum(), x, create_graph=True)
        return log, grad

    (ours, our_grad), (theirs, their_grad) = _both(torch_ref, scenario)
    assert ours == theirs
    _assert_same_grads([our_grad], [their_grad])


@pytest.mark.parametrize("case", ["cube", "exp"])
def test_double_backward_through_numpy_copies(torch_ref: ModuleType, case: str) -> None:
    """Unpacked tensors are wired into the graph as the saved ones were: a leaf's gradient
    accumulator, an output's node."""

    def scenario(lib: ModuleType) -> Any:
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(lambda t: t.detach().numpy().copy(), lib.from_numpy):
            y = (x * x * x).sum() if case == "cube" else x.exp().sum()
            (first,) = lib.autograd.grad(y, x, create_graph=True)
            (second,) = lib.autograd.grad(first.sum(), x)
        return first, second

    _assert_same_grads(*_both(torch_ref, scenario))


# ---- nesting, threads, disabling --------------------------------------------------------------


def test_the_innermost_hooks_win_and_the_outer_ones_come_back(torch_ref: ModuleType) -> None:
    def scenario(lib: ModuleType) -> Any:
        x = lib.ones(2, requires_grad=True)
        log: Log = []
        outer = lib.autograd.graph.saved_tensors_hooks(lambda t: log.append("outer") or t, lambda t: t)
        with outer:
            with lib.autograd.graph.saved_tensors_hooks(lambda t: log.append("inner") or t, lambda t: t):
                x * x
            x * x
            with outer:  # one hooks object entered twice
                x * x
        x * x
        return log

    ours, theirs = _both(torch_ref, scenario)
    assert ours == theirs == ["inner", "inner", "outer", "outer", "outer", "outer"]


def test_hooks_belong_to_the_thread_that_set_them(torch_ref: ModuleType) -> None:
    def scenario(lib: ModuleType) -> Any:
        x = lib.ones(2, requires_grad=True)
        log: Log = []

        def worker() -> None:
            x * x  # no hooks here: the main thread's are its own
            with lib.autograd.graph.saved_tensors_hooks(lambda t: log.append("worker") or t, lambda t: t):
                x * x

        with lib.autograd.graph.saved_tensors_hooks(lambda t: log.append("main") or t, lambda t: t):
            thread = threading.Thread(target=worker)
            thread.start()
            thread.join()
            x.exp()
        return log

    ours, theirs = _both(torch_ref, scenario)
    assert ours == theirs == ["worker", "worker", "main"]
    assert saved_hooks.usage.threads == 0  # every thread's hooks were popped


def test_disable_saved_tensors_hooks(torch_ref: ModuleType) -> None:
    """Setting hooks while disabled, or disabling while hooks are set, raises the message; a
    nested block restores the outer message; afterwards hooks work again."""

    def scenario(lib: ModuleType) -> Any:
        graph = lib.autograd.graph
        x = lib.ones(2, requires_grad=True)
        errors = []
        with graph.disable_saved_tensors_hooks("first message"):
            with graph.disable_saved_tensors_hooks("second message"):
                with pytest.raises(RuntimeError) as second:
                    with graph.saved_tensors_hooks(lambda t: t, lambda t: t):
                        pass
            with pytest.raises(RuntimeError) as first:
                with graph.save_on_cpu():
                    pass
            x * x  # no hooks set: ops save as usual
        errors += [str(second.value), str(first.value)]
        packs: list = []
        with graph.saved_tensors_hooks(lambda t: packs.append(1) or t, lambda t: t):
            with pytest.raises(RuntimeError) as entering:
                with graph.disable_saved_tensors_hooks("no hooks now"):
                    pass
            errors.append(str(entering.value))
            y = x * x  # the hooks set before still apply
        y.sum().backward()
        return errors, len(packs), x.grad

    (ours, our_packs, our_grad), (theirs, their_packs, their_grad) = _both(torch_ref, scenario)
    assert ours == theirs == ["second message", "first message", "no hooks now"]
    assert our_packs == their_packs == 2
    _assert_same_grads([our_grad], [their_grad])


# ---- errors ------------------------------------------------------------------------------------


def _error_of(action: Callable[[], Any]) -> tuple[str, str]:
    with pytest.raises(Exception) as caught:
        action()
    return type(caught.value).__name__, str(caught.value)


def test_errors_of_the_hooks_match_pytorch(torch_ref: ModuleType) -> None:
    def scenario(lib: ModuleType) -> Any:
        graph = lib.autograd.graph
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        found = []

        def in_place_pack() -> None:
            with graph.saved_tensors_hooks(lambda t: t.mul_(1), lambda t: t):
                x * x

        found.append(_error_of(in_place_pack))

        def pack_raises() -> None:
            with graph.saved_tensors_hooks(lambda t: 1 / 0, lambda t: t):
                x * x

        found.append(_error_of(pack_raises))
        for unpack in (lambda t: 3, lambda t: None, lambda t: 1 / 0):
            with graph.saved_tensors_hooks(lambda t: t, unpack):
                y = x * x
            found.append(_error_of(lambda: y.sum().backward()))
        with graph.saved_tensors_hooks(lambda t: t.detach(), lambda t: t):
            y = x.exp()
        y.sum().backward()
        found.append(_error_of(lambda: y.sum().backward()))  # the packed tensors were freed
        return found

    ours, theirs = _both(torch_ref, scenario)
    assert ours == theirs
    assert ours[2] == ("TypeError",
                       "Output of saved tensor unpack_hook expected to be a Tensor but got result of type int")


def test_unpack_of_another_shape_is_an_error_and_another_dtype_is_cast_back(torch_ref: ModuleType) -> None:
    """PyTorch checks neither: a shape that does not broadcast fails later in backward (so it
    raises there too), one that does gives silently wrong gradients; minitorch raises at once,
    naming both shapes. A float64 unpack of a float32 tensor gives float32 gradients in both."""
    x = minitorch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    w = minitorch.tensor([4.0, 5.0, 6.0], requires_grad=True)
    for wrong in (lambda t: minitorch.zeros(5), lambda t: t[:1]):
        with minitorch.autograd.graph.saved_tensors_hooks(lambda t: t, wrong):
            y = x * w
        with pytest.raises(RuntimeError, match=r"unpack_hook returned a tensor of shape \[\d\] on cpu for a tensor "
                                               r"of shape \[3\] on cpu saved for backward"):
            y.sum().backward()
    tx = torch_ref.tensor([1.0, 2.0, 3.0], requires_grad=True)
    with torch_ref.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: torch_ref.zeros(5)):
        ty = tx * torch_ref.tensor([4.0, 5.0, 6.0], requires_grad=True)
    with pytest.raises(RuntimeError):
        ty.sum().backward()

    def cast(lib: ModuleType) -> Any:
        x = lib.tensor([0.5, 1.5], requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t.double()):
            y = x.exp() * x
        y.sum().backward()
        return x.grad

    ours, theirs = _both(torch_ref, cast)
    assert str(ours.dtype) == "minitorch.float32" and theirs.dtype == torch_ref.float32
    _assert_same_grads([ours], [theirs])


# ---- in-place changes and version counters -------------------------------------------------------


@pytest.mark.parametrize("hooked", [False, True])
@pytest.mark.parametrize("which", ["input", "output", "leaf"])
def test_in_place_changes_after_saving(torch_ref: ModuleType, which: str, hooked: bool) -> None:
    """Without hooks an in-place change of a saved tensor is PyTorch's error; a tensor that went
    through hooks is not checked (PyTorch: versions cannot be tracked through the hooks), and
    backward reads the packed copy, so the gradient is the one of the values at saving time."""

    def scenario(lib: ModuleType) -> Any:
        x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
        z = x * 1
        leaf = lib.tensor([4.0, 5.0, 6.0])
        hooks = (lib.autograd.graph.saved_tensors_hooks(lambda t: t.detach().clone(), lambda t: t) if hooked
                 else contextlib.nullcontext())
        with hooks:
            y = z * z if which == "input" else z.exp() if which == "output" else z * leaf
        with lib.no_grad():
            (y if which == "output" else leaf if which == "leaf" else z).add_(1)
        try:
            y.sum().backward()
        except RuntimeError as error:
            return str(error)
        return x.grad.tolist()

    ours, theirs = _both(torch_ref, scenario)
    assert ours == pytest.approx(theirs) if hooked else ours == theirs
    assert isinstance(ours, list) == hooked


def test_in_place_op_under_hooks(torch_ref: ModuleType) -> None:
    def scenario(lib: ModuleType) -> Any:
        x = lib.tensor([0.1, 0.2, 0.3], requires_grad=True)
        z = x * 1
        log: Log = []
        with lib.autograd.graph.saved_tensors_hooks(lambda t: log.append(_shape(t)) or t.detach().clone(), lambda t: t):
            z.exp_()
        z.sum().backward()
        return log, x.grad

    (ours, our_grad), (theirs, their_grad) = _both(torch_ref, scenario)
    assert ours == theirs
    _assert_same_grads([our_grad], [their_grad])


def test_increment_version(torch_ref: ModuleType) -> None:
    def scenario(lib: ModuleType) -> Any:
        graph = lib.autograd.graph
        t = lib.zeros(2)
        versions = [t._version]
        graph.increment_version(t)
        versions.append(t._version)
        graph.increment_version([t, t])
        versions.append(t._version)
        error = _error_of(lambda: graph.increment_version(3))
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        w = lib.tensor([3.0, 4.0])
        y = x * w
        graph.increment_version(w)  # as a kernel writing w's memory behind autograd's back
        return versions, error, _error_of(lambda: y.sum().backward())

    ours, theirs = _both(torch_ref, scenario)
    assert ours == theirs
    assert ours[0] == [0, 1, 3]


# ---- the tutorial's patterns ------------------------------------------------------------------


def test_tutorial_pack_to_numpy(torch_ref: ModuleType) -> None:
    def scenario(lib: ModuleType) -> Any:
        lib.manual_seed(0)
        model = lib.nn.Sequential(lib.nn.Linear(4, 8), lib.nn.ReLU(), lib.nn.Linear(8, 1))
        with lib.no_grad():
            for i, p in enumerate(model.parameters()):
                p.copy_(lib.tensor(np.cos(np.arange(p.numel()) + i).reshape(tuple(p.shape)), dtype=lib.float32))
        x = lib.tensor(np.linspace(-1, 1, 12).reshape(3, 4), dtype=lib.float32)
        packed: list = []

        def pack(t: Any) -> Any:
            packed.append(type(t.detach().numpy()).__name__)
            return t.detach().numpy().copy()

        with lib.autograd.graph.saved_tensors_hooks(pack, lambda a: lib.from_numpy(a)):
            loss = model(x).pow(2).mean()
        loss.backward()
        return packed, [p.grad for p in model.parameters()]

    (ours, our_grads), (theirs, their_grads) = _both(torch_ref, scenario)
    assert ours == theirs
    _assert_same_grads(our_grads, their_grads)


def test_tutorial_save_to_disk_and_delete_after_backward(torch_ref: ModuleType, tmp_path: Any) -> None:
    """The tutorial's SelfDeletingTempFile: tensors at least as large as a threshold go to disk;
    once backward freed the graph, the files are gone."""
    threshold = 4

    def scenario(lib: ModuleType) -> Any:
        folder = tmp_path / lib.__name__
        folder.mkdir()

        class SelfDeletingTempFile:
            def __init__(self) -> None:
                self.name = os.path.join(folder, str(uuid.uuid4()))

            def __del__(self) -> None:
                os.remove(self.name)

        def pack(tensor: Any) -> Any:
            if tensor.numel() < threshold:
                return tensor
            temp_file = SelfDeletingTempFile()
            lib.save(tensor, temp_file.name)
            return temp_file

        def unpack(packed: Any) -> Any:
            return packed if isinstance(packed, lib.Tensor) else lib.load(packed.name)

        class SaveToDisk(lib.autograd.graph.saved_tensors_hooks):
            def __init__(self) -> None:
                super().__init__(pack, unpack)

        x = lib.tensor(np.linspace(0.1, 1.2, 12).reshape(3, 4), requires_grad=True)
        b = lib.tensor([0.5, 1.5, 2.5], requires_grad=True)
        with SaveToDisk():
            y = (x.exp() * x).sum(1) * b
        files = len(os.listdir(folder))
        y.sum().backward()
        gc.collect()
        return files, len(os.listdir(folder)), x.grad, b.grad

    ours, theirs = _both(torch_ref, scenario)
    assert ours[:2] == theirs[:2]
    assert ours[0] > 0 and ours[1] == 0
    _assert_same_grads(ours[2:], theirs[2:])


def test_packed_objects_are_freed_with_the_graph(torch_ref: ModuleType) -> None:
    class Box:
        def __init__(self, t: Any) -> None:
            self.t = t.detach().clone()

    def scenario(lib: ModuleType) -> Any:
        boxes: list = []

        def pack(t: Any) -> Any:
            box = Box(t)
            boxes.append(weakref.ref(box))
            return box

        x = lib.tensor([1.0, 2.0], requires_grad=True)
        with lib.autograd.graph.saved_tensors_hooks(pack, lambda box: box.t):
            y = (x * x).exp()
        alive_before = sum(r() is not None for r in boxes)
        y.sum().backward()
        gc.collect()
        return alive_before, sum(r() is not None for r in boxes)

    ours, theirs = _both(torch_ref, scenario)
    assert ours == theirs == (3, 0)


def test_save_on_cpu_on_the_cpu(torch_ref: ModuleType) -> None:
    """save_on_cpu is a saved_tensors_hooks; a CPU tensor is kept as it is, or copied when
    ``pin_memory`` asks for it (then a later in-place change does not reach backward)."""

    def scenario(lib: ModuleType) -> Any:
        graph = lib.autograd.graph
        results = [issubclass(graph.save_on_cpu, graph.saved_tensors_hooks)]
        for pin in (False, True):
            x = lib.tensor([1.0, 2.0, 3.0], requires_grad=True)
            w = lib.tensor([0.5, -1.0, 2.0])
            with graph.save_on_cpu(pin_memory=pin):
                y = x * w
            with lib.no_grad():
                w.mul_(10)
            y.sum().backward()
            results.append(x.grad.tolist())
        return results

    ours, theirs = _both(torch_ref, scenario)
    assert ours == theirs == [True, [5.0, -10.0, 20.0], [0.5, -1.0, 2.0]]


def test_save_on_cpu_brings_cuda_tensors_back(small_cuda: None) -> None:
    """Saved CUDA tensors wait on the CPU and return to the GPU for backward (the simulator
    where no GPU is present); gradients equal those computed without hooks on the CPU."""
    values = np.array([[0.5, -1.0], [2.0, 0.25]], dtype=np.float32)
    on_cpu = minitorch.autograd.graph.save_on_cpu()
    devices: list = []

    def pack(t: Any) -> Any:
        packed = on_cpu.pack_hook(t)
        devices.append((t.device.type, packed[1].device.type))
        return packed

    x = minitorch.tensor(values, device="cuda", requires_grad=True)
    with minitorch.autograd.graph.saved_tensors_hooks(pack, on_cpu.unpack_hook):
        y = (x * x).exp()
    y.sum().backward()
    assert devices == [("cuda", "cpu")] * 3
    assert x.grad.device.type == "cuda"
    cpu = minitorch.tensor(values, requires_grad=True)
    (cpu * cpu).exp().sum().backward()
    np.testing.assert_allclose(x.grad.cpu().numpy(), cpu.grad.numpy(), rtol=1e-5)


# ---- register_multi_grad_hook -----------------------------------------------------------------


def test_multi_grad_hook_all_as_pytorch(torch_ref: ModuleType) -> None:
    """PyTorch's docstring example and more: the hook waits for the tensors a pass reaches (and
    needs for ``inputs``), once per pass, None for the others; removed, it is silent."""

    def scenario(lib: ModuleType) -> Any:
        graph = lib.autograd.graph
        a = lib.tensor([[0.1, 0.2, 0.3], [0.4, 0.5, 0.6]], requires_grad=True)
        b = lib.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
        c = a * b
        d = a * b
        calls: list = []
        handle = graph.register_multi_grad_hook(
            (a, b, c, d), lambda grads: calls.append([None if g is None else g.tolist() for g in grads]))
        c.sum().backward(retain_graph=True)
        c.sum().backward(inputs=(a,), retain_graph=True)
        lib.autograd.grad(c.sum(), c, retain_graph=True)
        (c.sum() + 2 * d.sum()).backward(retain_graph=True)
        handle.remove()
        c.sum().backward(retain_graph=True)
        return calls, isinstance(handle, lib.utils.hooks.RemovableHandle)

    ours, theirs = _both(torch_ref, scenario)
    assert ours == theirs
    assert [[g is not None for g in call] for call in ours[0]] == [
        [True, True, True, False], [True, False, True, False], [False, False, True, False], [True, True, True, True]]


def test_multi_grad_hook_any_and_errors(torch_ref: ModuleType) -> None:
    def scenario(lib: ModuleType) -> Any:
        graph = lib.autograd.graph
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        b = lib.tensor([3.0, 4.0], requires_grad=True)
        constant = lib.tensor([5.0, 6.0])
        first: list = []
        handle = graph.register_multi_grad_hook((a, constant, b), lambda g: first.append(g.tolist()), mode="any")
        (a * b).sum().backward()
        (a * 3).sum().backward()
        handle.remove()
        (a * b).sum().backward()
        errors = [_error_of(lambda: graph.register_multi_grad_hook((a,), print, mode="some")),
                  _error_of(lambda: graph.register_multi_grad_hook((a, constant), print))]
        return len(first), first[1], errors

    ours, theirs = _both(torch_ref, scenario)
    assert ours == theirs
    assert ours[2][0] == ("ValueError", "Expects mode to be one of ('all', 'any') but got some")


def test_multi_grad_hook_under_autograd_grad_of_a_leaf() -> None:
    """PyTorch refuses this case ("A leaf node was passed to _will_engine_execute_node but we
    are currently running autograd.grad()"); minitorch calls the hook with what the pass reached."""
    a = minitorch.tensor([1.0, 2.0], requires_grad=True)
    b = minitorch.tensor([3.0, 4.0], requires_grad=True)
    c = a * b
    calls: list = []
    minitorch.autograd.graph.register_multi_grad_hook((a, b, c), lambda grads: calls.append(grads))
    (grad,) = minitorch.autograd.grad(c.sum(), b)
    assert len(calls) == 1 and calls[0][0] is None
    assert calls[0][1].tolist() == grad.tolist() == [1.0, 2.0] and calls[0][2].tolist() == [1.0, 1.0]


def test_autograd_grad_runs_only_what_leads_to_its_inputs(torch_ref: ModuleType) -> None:
    """The hooks of tensors that do not lead to the requested inputs do not run (PyTorch's
    engine prunes the graph to them)."""

    def scenario(lib: ModuleType) -> Any:
        a = lib.tensor([1.0, 2.0], requires_grad=True)
        b = lib.tensor([3.0, 4.0], requires_grad=True)
        c = a * b
        fired: list = []
        for name, t in (("a", a), ("b", b), ("c", c)):
            t.register_hook(lambda g, name=name: fired.append(name))
        c.sum().backward(inputs=(a,), retain_graph=True)
        lib.autograd.grad(c.sum(), c, retain_graph=True)
        lib.autograd.grad(c.sum(), a)
        return fired, a.grad.tolist(), b.grad

    ours, theirs = _both(torch_ref, scenario)
    assert ours == theirs


# ---- Node, gradient edges ---------------------------------------------------------------------


def test_every_grad_fn_is_a_node(torch_ref: ModuleType) -> None:
    def scenario(lib: ModuleType) -> Any:
        node = lib.autograd.graph.Node
        x = lib.ones(2, requires_grad=True)
        y = x * 2
        custom = Square.of(lib).apply(x)
        accumulator = y.grad_fn.next_functions[0][0]
        return ([isinstance(y.grad_fn, node), issubclass(type(y.grad_fn), node), isinstance(accumulator, node),
                 isinstance(custom.grad_fn, node), isinstance(x, node), isinstance(None, node)],
                _error_of(node)[0])

    ours, theirs = _both(torch_ref, scenario)
    assert ours == theirs == ([True, True, True, True, False, False], "TypeError")


def test_gradient_edges_as_inputs_of_grad(torch_ref: ModuleType) -> None:
    def scenario(lib: ModuleType) -> Any:
        graph = lib.autograd.graph
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = x * 3
        z = (y * y).sum()
        edge = graph.get_gradient_edge(y)
        accumulator = y.grad_fn.next_functions[0][0]
        facts = [edge.node is y.grad_fn, edge.output_nr, graph.get_gradient_edge(x).node is accumulator]
        results = [lib.autograd.grad(z, edge, retain_graph=True),
                   lib.autograd.grad(z, [graph.get_gradient_edge(x), y], retain_graph=True)]
        unused = graph.get_gradient_edge(lib.tensor([1.0], requires_grad=True))
        results.append(lib.autograd.grad(z, [unused], allow_unused=True, retain_graph=True))
        errors = [_error_of(lambda: graph.get_gradient_edge(lib.zeros(2))),
                  _error_of(lambda: lib.autograd.grad(z, [unused], materialize_grads=True, retain_graph=True))]
        return facts, [[None if g is None else g.tolist() for g in r] for r in results], errors

    ours, theirs = _both(torch_ref, scenario)
    assert ours == theirs
    assert ours[1][:2] == [[[6.0, 12.0]], [[18.0, 36.0], [6.0, 12.0]]]


def test_the_module_is_an_attribute_with_pytorchs_names() -> None:
    graph = minitorch.autograd.graph
    for name in ("saved_tensors_hooks", "save_on_cpu", "disable_saved_tensors_hooks", "register_multi_grad_hook",
                 "Node", "GradientEdge", "get_gradient_edge", "increment_version"):
        assert name in graph.__all__ and hasattr(graph, name)
    assert graph.GradientEdge._fields == ("node", "output_nr", "ownership_token")
