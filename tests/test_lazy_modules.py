"""Lazy modules and their placeholders against PyTorch: ``UninitializedParameter`` /
``UninitializedBuffer`` (what they allow and refuse, ``materialize``), and ``LazyLinear``,
``LazyConv1d/2d``, ``LazyBatchNorm1d/2d`` (sizes inferred on the first call, the class they
become, repr, initialisation bounds, outputs with PyTorch's weights, state dicts both ways,
an optimizer built before the first call, errors)."""

from __future__ import annotations

import copy
import math
import pickle
import re
from typing import Any, Callable

import numpy as np
import pytest
from layer_helpers import assert_close, values

import minitorch
import minitorch.nn as nn
from minitorch.nn.modules.lazy import LazyModuleMixin
from minitorch.nn.parameter import UninitializedBuffer, UninitializedParameter, is_lazy

F64 = minitorch.float64
#: the operation PyTorch names in "Attempted to use an uninitialized parameter in <op>."
_OPERATION = re.compile(r"uninitialized parameter in .*?\. This error")


def _same_message(ours: str, theirs: str) -> str:
    """PyTorch's message with minitorch's names, and the operation's spelling left out of both."""
    theirs = theirs.replace("`torch.", "`minitorch.").replace("torch functions", "minitorch functions")
    theirs = theirs.replace("torch.Size", "minitorch.Size")
    return _OPERATION.sub("<op>", ours) == _OPERATION.sub("<op>", theirs)


def _error(fn: Callable[[], Any]) -> BaseException:
    with pytest.raises(Exception) as info:
        fn()
    return info.value


def _to_ours(state: dict) -> dict:
    return {k: minitorch.tensor(v.detach().numpy()) for k, v in state.items()}


def _to_theirs(torch: Any, state: dict) -> dict:
    return {k: torch.tensor(np.asarray(v.detach().numpy())) for k, v in state.items()}


# ---- placeholders ----


def test_placeholder_defaults_and_repr(torch_ref: Any) -> None:
    for ours, theirs in ((UninitializedParameter(), torch_ref.nn.UninitializedParameter()),
                         (UninitializedBuffer(), torch_ref.nn.UninitializedBuffer())):
        assert repr(ours) == repr(theirs) and str(ours) == str(theirs)
        assert list(ours.size()) == list(theirs.size()) == [0]
        assert ours.requires_grad == theirs.requires_grad
        assert ours.dtype is minitorch.float32 and ours.device.type == "cpu"
        assert is_lazy(ours) and not is_lazy(minitorch.zeros(1))
    assert isinstance(UninitializedParameter(), nn.Parameter)
    assert isinstance(UninitializedBuffer(), nn.Buffer) and UninitializedBuffer(persistent=False).persistent is False
    assert nn.UninitializedParameter is UninitializedParameter and nn.parameter.UninitializedBuffer is UninitializedBuffer
    made = UninitializedParameter(requires_grad=False, dtype=F64)
    assert made.dtype is F64 and made.requires_grad is False


def test_shape_refused_with_pytorchs_message(torch_ref: Any) -> None:
    for ours, theirs in ((UninitializedParameter(), torch_ref.nn.UninitializedParameter()),
                         (UninitializedBuffer(), torch_ref.nn.UninitializedBuffer())):
        mine, ref = _error(lambda: ours.shape), _error(lambda: theirs.shape)
        assert type(mine) is type(ref) is RuntimeError
        assert str(mine) == str(ref)


USES = {
    "add": lambda p, m: p + 1,
    "radd": lambda p, m: m.zeros(2) + p,
    "mul": lambda p, m: p * 2,
    "neg": lambda p, m: -p,
    "matmul": lambda p, m: m.matmul(m.zeros(2), p),
    "sum": lambda p, m: p.sum(),
    "dim": lambda p, m: p.dim(),
    "numel": lambda p, m: p.numel(),
    "view": lambda p, m: p.view(2),
    "detach": lambda p, m: p.detach(),
    "clone": lambda p, m: p.clone(),
    "getitem": lambda p, m: p[0],
    "len": lambda p, m: len(p),
    "bool": lambda p, m: bool(p),
    "eq": lambda p, m: p == p,
    "item": lambda p, m: p.item(),
    "tolist": lambda p, m: p.tolist(),
    "requires_grad_": lambda p, m: p.requires_grad_(False),
    "fill_": lambda p, m: p.fill_(1),
    "linear": lambda p, m: m.nn.functional.linear(m.zeros(2, 3), p),
}


@pytest.mark.parametrize("use", sorted(USES))
@pytest.mark.parametrize("kind", ["UninitializedParameter", "UninitializedBuffer"])
def test_use_before_materialize_refused_as_pytorch(torch_ref: Any, use: str, kind: str) -> None:
    ours = getattr(nn.parameter, kind)()
    theirs = getattr(torch_ref.nn.parameter, kind)()
    mine = _error(lambda: USES[use](ours, minitorch))
    ref = _error(lambda: USES[use](theirs, torch_ref))
    assert type(mine) is type(ref) is ValueError, (mine, ref)
    assert _same_message(str(mine), str(ref)), (str(mine), str(ref))
    assert f"minitorch.nn.parameter.{kind}" in str(mine)


@pytest.mark.parametrize("kind", ["UninitializedParameter", "UninitializedBuffer"])
def test_materialize(torch_ref: Any, kind: str) -> None:
    ours, theirs = getattr(nn.parameter, kind)(), getattr(torch_ref.nn.parameter, kind)()
    ours.materialize((2, 3))
    theirs.materialize((2, 3))
    assert type(ours).__name__ == type(theirs).__name__  # Parameter, or Tensor for a buffer
    assert type(ours) is (nn.Parameter if kind == "UninitializedParameter" else minitorch.Tensor)
    assert tuple(ours.shape) == tuple(theirs.shape) == (2, 3)
    assert ours.requires_grad == theirs.requires_grad and ours.dtype is minitorch.float32
    assert ours.sum().dim() == 0  # an ordinary tensor now
    other = getattr(nn.parameter, kind)()
    other.materialize(4, dtype=F64)
    assert tuple(other.shape) == (4,) and other.dtype is F64
    listed = getattr(nn.parameter, kind)(dtype=F64)
    listed.materialize([1, 2])
    assert tuple(listed.shape) == (1, 2) and listed.dtype is F64


def test_buffer_stays_a_buffer_after_materialize() -> None:
    buffer = UninitializedBuffer(persistent=False)
    buffer.materialize(3)
    assert isinstance(buffer, nn.Buffer) and buffer.persistent is False


def test_conversions_keep_a_placeholder(torch_ref: Any) -> None:
    """A conversion gives a placeholder of the new dtype (PyTorch returns a placeholder or an empty
    tensor depending on the method; ``Module.to`` keeps placeholders in both, see below)."""
    ours = UninitializedParameter()
    for convert, dtype in (("double", F64), ("float", minitorch.float32), ("half", minitorch.float16)):
        converted = getattr(ours, convert)()
        assert is_lazy(converted) and converted.dtype is dtype and converted.requires_grad
        assert str(getattr(torch_ref.nn.UninitializedParameter(), convert)().dtype) == str(dtype).replace("mini", "")
    converted = ours.to(F64)
    assert is_lazy(converted) and converted.dtype is F64 and ours.dtype is minitorch.float32
    assert is_lazy(ours.cpu()) and ours.data.numel() == 0 and not is_lazy(ours.data)


def test_deepcopy_and_copy_into_a_leaf(torch_ref: Any) -> None:
    original = UninitializedParameter(dtype=F64)
    copied = copy.deepcopy(original)
    assert copied is not original and is_lazy(copied) and copied.dtype is F64 and copied.requires_grad
    mine = _error(lambda: UninitializedParameter().copy_(minitorch.zeros(0)))
    ref = _error(lambda: torch_ref.nn.UninitializedParameter().copy_(torch_ref.zeros(0)))
    assert type(mine) is type(ref) and str(mine) == str(ref)


# ---- LazyModuleMixin ----


def test_mixin_errors_as_pytorch(torch_ref: Any) -> None:
    def make(framework: Any, with_placeholder: bool) -> Any:
        class Custom(framework.nn.modules.lazy.LazyModuleMixin, framework.nn.Module):
            def __init__(self) -> None:
                super().__init__()
                if with_placeholder:
                    self.w = framework.nn.UninitializedParameter()

            if with_placeholder:
                def initialize_parameters(self, x: Any) -> None:
                    pass  # forgets to materialise

        return Custom()

    for with_placeholder, kind in ((False, NotImplementedError), (True, RuntimeError)):
        mine = _error(lambda: make(minitorch, with_placeholder)(minitorch.zeros(1)))
        ref = _error(lambda: make(torch_ref, with_placeholder)(torch_ref.zeros(1)))
        assert type(mine) is type(ref) is kind and str(mine) == str(ref)
    assert LazyModuleMixin.cls_to_become is None


# ---- LazyLinear ----


def test_lazy_linear_infers_and_becomes_linear(torch_ref: Any) -> None:
    ours, theirs = nn.LazyLinear(3), torch_ref.nn.LazyLinear(3)
    assert repr(ours) == repr(theirs)
    assert ours.in_features == 0 and ours.has_uninitialized_params() and ours.cls_to_become is nn.Linear
    assert list(ours.state_dict()) == list(theirs.state_dict()) == ["weight", "bias"]
    assert all(is_lazy(v) for v in ours.state_dict().values())
    out = ours(minitorch.randn(4, 2, 5))
    theirs(torch_ref.randn(4, 2, 5))
    assert type(ours) is nn.Linear and repr(ours) == repr(theirs) == "Linear(in_features=5, out_features=3, bias=True)"
    assert tuple(out.shape) == (4, 2, 3) and tuple(ours.weight.shape) == (3, 5) and tuple(ours.bias.shape) == (3,)
    assert type(ours.weight) is nn.Parameter and not ours._forward_pre_hooks and not ours._load_state_dict_pre_hooks
    assert not hasattr(ours, "_initialize_hook")


def test_lazy_linear_without_bias_and_in_sequential(torch_ref: Any) -> None:
    ours, theirs = nn.LazyLinear(3, bias=False), torch_ref.nn.LazyLinear(3, bias=False)
    assert repr(ours) == repr(theirs) and ours.bias is None and list(ours.state_dict()) == ["weight"]
    net = nn.Sequential(nn.LazyLinear(4), nn.ReLU(), nn.LazyLinear(2))
    ref = torch_ref.nn.Sequential(torch_ref.nn.LazyLinear(4), torch_ref.nn.ReLU(), torch_ref.nn.LazyLinear(2))
    assert repr(net) == repr(ref)
    net(minitorch.randn(3, 6))
    ref(torch_ref.randn(3, 6))
    assert repr(net) == repr(ref)


def test_lazy_linear_init_bounds() -> None:
    in_features = 400
    layer = nn.LazyLinear(50)
    layer(minitorch.zeros(2, in_features))
    bound = 1 / math.sqrt(in_features)
    for param in (layer.weight, layer.bias):
        drawn = values(param)
        assert np.abs(drawn).max() <= bound
        assert np.abs(drawn).max() > 0.9 * bound  # spread over the whole interval


def test_lazy_linear_values_with_pytorchs_weights(torch_ref: Any) -> None:
    """PyTorch's materialised state dict loaded into an unmaterialised minitorch LazyLinear."""
    theirs = torch_ref.nn.LazyLinear(3, dtype=torch_ref.float64)
    x = np.random.default_rng(0).standard_normal((4, 5))
    expected = theirs(torch_ref.tensor(x))
    ours = nn.LazyLinear(3, dtype=F64)
    ours.load_state_dict(_to_ours(theirs.state_dict()))
    assert type(ours) is nn.LazyLinear and tuple(ours.weight.shape) == (3, 5) and ours.in_features == 0
    xs = minitorch.tensor(x, dtype=F64, requires_grad=True)
    out = ours(xs)
    assert type(ours) is nn.Linear and ours.in_features == 5
    np.testing.assert_allclose(values(out), values(expected), rtol=1e-12, atol=0)
    out.sum().backward()
    expected.sum().backward()
    assert_close(ours.weight.grad, theirs.weight.grad, atol=0, rtol=1e-12, what="weight grad")
    assert_close(ours.bias.grad, theirs.bias.grad, atol=0, rtol=1e-12, what="bias grad")


def test_lazy_linear_loaded_then_called_with_another_size(torch_ref: Any) -> None:
    ours, theirs = nn.LazyLinear(3), torch_ref.nn.LazyLinear(3)
    ours.load_state_dict(nn.Linear(5, 3).state_dict())
    theirs.load_state_dict(torch_ref.nn.Linear(5, 3).state_dict())
    mine, ref = _error(lambda: ours(minitorch.zeros(2, 4))), _error(lambda: theirs(torch_ref.zeros(2, 4)))
    assert type(mine) is type(ref) is AssertionError and str(mine) == str(ref)


def test_lazy_linear_state_dict_round_trips(torch_ref: Any) -> None:
    x = np.random.default_rng(1).standard_normal((2, 6))
    ours = nn.LazyLinear(4, dtype=F64)
    out = ours(minitorch.tensor(x, dtype=F64))
    # ours (materialised) -> a fresh minitorch LazyLinear
    again = nn.LazyLinear(4, dtype=F64)
    assert str(again.load_state_dict(ours.state_dict())) == "<All keys matched successfully>"
    assert_close(again(minitorch.tensor(x, dtype=F64)), out, atol=0, rtol=0)
    # ours (materialised) -> PyTorch's LazyLinear
    theirs = torch_ref.nn.LazyLinear(4, dtype=torch_ref.float64)
    theirs.load_state_dict(_to_theirs(torch_ref, ours.state_dict()))
    np.testing.assert_allclose(values(theirs(torch_ref.tensor(x))), values(out), rtol=1e-12, atol=0)
    # unmaterialised -> unmaterialised: still lazy, nothing to copy
    lazy = nn.LazyLinear(4)
    assert str(lazy.load_state_dict(nn.LazyLinear(4).state_dict())) == "<All keys matched successfully>"
    assert lazy.has_uninitialized_params() and type(lazy) is nn.LazyLinear


def test_unmaterialised_state_dict_into_a_materialised_module(torch_ref: Any) -> None:
    mine = _error(lambda: nn.Linear(5, 3).load_state_dict(nn.LazyLinear(3).state_dict()))
    ref = _error(lambda: torch_ref.nn.Linear(5, 3).load_state_dict(torch_ref.nn.LazyLinear(3).state_dict()))
    assert type(mine) is type(ref) is RuntimeError and str(mine) == str(ref)


def test_optimizer_built_before_the_first_call() -> None:
    """As in PyTorch: the optimizer holds the placeholders, which become the parameters in place."""
    layer = nn.LazyLinear(2, dtype=F64)
    held = list(layer.parameters())
    sgd = minitorch.optim.SGD(layer.parameters(), lr=0.5)
    minitorch.optim.Adam(layer.parameters())  # constructing another kind works too
    loss = layer(minitorch.randn(3, 4, dtype=F64)).pow(2).sum()
    assert [id(p) for p in layer.parameters()] == [id(p) for p in held]
    before = [values(p) for p in held]
    loss.backward()
    sgd.step()
    for param, old in zip(held, before):
        np.testing.assert_allclose(values(param), old - 0.5 * values(param.grad), rtol=1e-12, atol=0)


def test_module_conversions_before_the_first_call(torch_ref: Any) -> None:
    ours, theirs = nn.LazyLinear(3).double(), torch_ref.nn.LazyLinear(3).double()
    assert is_lazy(ours.weight) and ours.weight.dtype is F64 and theirs.weight.dtype is torch_ref.float64
    ours(minitorch.zeros(2, 4, dtype=F64))
    assert ours.weight.dtype is F64 and type(ours.weight) is nn.Parameter
    moved = nn.LazyBatchNorm1d().to(F64)
    assert is_lazy(moved.running_mean) and moved.running_mean.dtype is F64 and moved.weight.dtype is F64


def test_copies_of_a_lazy_module_materialise_on_their_own(torch_ref: Any) -> None:
    """A deep copy (or pickled copy) keeps its own hook: calling it leaves the original lazy, as in PyTorch."""
    for duplicate in (copy.deepcopy, lambda m: pickle.loads(pickle.dumps(m))):
        original = nn.LazyLinear(3)
        copied = duplicate(original)
        copied(minitorch.zeros(2, 4))
        assert type(copied) is nn.Linear and copied.in_features == 4
        assert type(original) is nn.LazyLinear and original.has_uninitialized_params()
        original(minitorch.zeros(2, 5))
        assert type(original) is nn.Linear and original.in_features == 5
    theirs = torch_ref.nn.LazyLinear(3)
    copy.deepcopy(theirs)(torch_ref.zeros(2, 4))
    assert type(theirs) is torch_ref.nn.LazyLinear


# ---- LazyConv1d / LazyConv2d ----

CONVS: dict[str, tuple[Callable[[Any], Any], tuple[int, ...]]] = {
    "conv1d": (lambda m: m.LazyConv1d(4, 3, stride=2, padding=1), (2, 3, 9)),
    "conv1d_unbatched": (lambda m: m.LazyConv1d(4, 3), (3, 7)),
    "conv2d": (lambda m: m.LazyConv2d(6, (3, 2), stride=(2, 1), padding=1, dilation=(1, 2), groups=2), (2, 4, 7, 7)),
    "conv2d_nobias_reflect": (lambda m: m.LazyConv2d(3, 3, padding=1, bias=False, padding_mode="reflect"), (1, 2, 5, 5)),
    "conv2d_same": (lambda m: m.LazyConv2d(2, 3, padding="same"), (1, 3, 5, 6)),
}


@pytest.mark.parametrize("name", sorted(CONVS))
def test_lazy_conv_against_pytorch(torch_ref: Any, name: str) -> None:
    make, shape = CONVS[name]
    ours, theirs = make(nn), make(torch_ref.nn).double()
    assert repr(ours) == repr(theirs) and list(ours.state_dict()) == list(theirs.state_dict())
    x = np.random.default_rng(2).standard_normal(shape)
    expected = theirs(torch_ref.tensor(x))
    ours.double()
    ours.load_state_dict(_to_ours(theirs.state_dict()))
    out = ours(minitorch.tensor(x, dtype=F64))
    # as in PyTorch, a module materialised by loading keeps in_channels 0 in its repr
    loaded = make(torch_ref.nn).double()
    loaded.load_state_dict(theirs.state_dict())
    loaded(torch_ref.tensor(x))
    assert type(ours).__name__ == type(theirs).__name__ and repr(ours) == repr(loaded)
    inferred = make(nn)
    inferred(minitorch.tensor(x, dtype=minitorch.float32))
    assert repr(inferred) == repr(theirs) and inferred.in_channels == theirs.in_channels
    np.testing.assert_allclose(values(out), values(expected), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", sorted(CONVS))
def test_lazy_conv_init_bounds(name: str) -> None:
    make, shape = CONVS[name]
    conv = make(nn)
    conv(minitorch.randn(*shape))
    assert type(conv) in (nn.Conv1d, nn.Conv2d)
    fan_in = conv.in_channels // conv.groups * math.prod(conv.kernel_size)
    assert tuple(conv.weight.shape) == (conv.out_channels, conv.in_channels // conv.groups, *conv.kernel_size)
    for param in (conv.weight, conv.bias):
        if param is not None:
            assert np.abs(values(param)).max() <= 1 / math.sqrt(fan_in)


def test_lazy_conv_errors_as_pytorch(torch_ref: Any) -> None:
    cases = [
        (lambda m: m.nn.LazyConv2d(4, 3), lambda m: m.zeros(3, 5)),  # neither 3D nor 4D
        (lambda m: m.nn.LazyConv1d(4, 3), lambda m: m.zeros(1, 2, 3, 7)),
        (lambda m: m.nn.LazyConv2d(4, 3, groups=2), lambda m: m.zeros(1, 3, 5, 5)),  # 3 channels, 2 groups
    ]
    for make, data in cases:
        mine = _error(lambda: make(minitorch)(data(minitorch)))
        ref = _error(lambda: make(torch_ref)(data(torch_ref)))
        assert type(mine) is type(ref) and _same_message(str(mine), str(ref)), (str(mine), str(ref))


# ---- LazyBatchNorm1d / LazyBatchNorm2d ----

NORMS: dict[str, tuple[Callable[[Any], Any], tuple[int, ...]]] = {
    "bn1d": (lambda m: m.LazyBatchNorm1d(), (5, 3)),
    "bn1d_3d_nostats": (lambda m: m.LazyBatchNorm1d(track_running_stats=False, momentum=None), (4, 3, 6)),
    "bn2d": (lambda m: m.LazyBatchNorm2d(momentum=0.3), (2, 3, 4, 4)),
    "bn2d_noaffine": (lambda m: m.LazyBatchNorm2d(affine=False), (2, 2, 3, 3)),
    "bn2d_nobias": (lambda m: m.LazyBatchNorm2d(bias=False), (2, 2, 3, 3)),
}


@pytest.mark.parametrize("name", sorted(NORMS))
def test_lazy_batchnorm_against_pytorch(torch_ref: Any, name: str) -> None:
    """No randomness in BatchNorm's initialisation: the first calls agree without copying anything."""
    make, shape = NORMS[name]
    ours, theirs = make(nn).double(), make(torch_ref.nn).double()
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert [is_lazy(v) for v in ours.state_dict().values()] == [
        torch_ref.nn.parameter.is_lazy(v) for v in theirs.state_dict().values()]
    rng = np.random.default_rng(3)
    for _ in range(2):
        x = rng.standard_normal(shape)
        np.testing.assert_allclose(values(ours(minitorch.tensor(x, dtype=F64))), values(theirs(torch_ref.tensor(x))),
                                   rtol=1e-10, atol=1e-12)
    assert type(ours).__name__ == type(theirs).__name__ and repr(ours) == repr(theirs)
    assert type(ours) in (nn.BatchNorm1d, nn.BatchNorm2d) and ours.num_features == shape[1]
    for key, value in theirs.state_dict().items():
        np.testing.assert_allclose(values(ours.state_dict()[key]), values(value), rtol=1e-12, atol=0, err_msg=key)


def test_lazy_batchnorm_loads_pytorchs_running_statistics(torch_ref: Any) -> None:
    theirs = torch_ref.nn.LazyBatchNorm2d().double()
    theirs(torch_ref.tensor(np.random.default_rng(4).standard_normal((2, 3, 4, 4))))
    theirs.eval()
    ours = nn.LazyBatchNorm2d().double()
    ours.load_state_dict(_to_ours(theirs.state_dict()))
    assert not ours.has_uninitialized_params() and int(ours.num_batches_tracked.item()) == 1
    ours.eval()
    x = np.random.default_rng(5).standard_normal((1, 3, 2, 2))
    np.testing.assert_allclose(values(ours(minitorch.tensor(x, dtype=F64))), values(theirs(torch_ref.tensor(x))),
                               rtol=1e-12, atol=1e-14)
    assert type(ours) is nn.BatchNorm2d


def test_lazy_batchnorm_initial_values() -> None:
    norm = nn.LazyBatchNorm1d()
    norm.eval()
    norm(minitorch.randn(4, 5))
    assert type(norm) is nn.BatchNorm1d
    for name, expected in (("weight", 1.0), ("bias", 0.0), ("running_mean", 0.0), ("running_var", 1.0)):
        np.testing.assert_array_equal(values(getattr(norm, name)), np.full(5, expected), err_msg=name)
    assert type(norm.running_mean) is minitorch.Tensor and int(norm.num_batches_tracked.item()) == 0
