"""The ``meta`` device against PyTorch's: tensors with shapes and no values.

Checked: reprs, shapes and strides of op results on meta tensors, moving modules there and
back (``to('meta')``, ``to_empty``, ``with device('meta')``), the errors for reading values,
that nothing is allocated, and the ensembling idiom that keeps a meta copy of a model as the
skeleton for ``functional_call``.
"""

from __future__ import annotations

import copy
from types import ModuleType
from typing import Any, Callable

import numpy as np
import pytest

import minitorch


def _both(torch_ref: ModuleType, build: Callable[[ModuleType], Any]) -> tuple[Any, Any]:
    return build(minitorch), build(torch_ref)


def _torch_text(text: str) -> str:
    return text.replace("minitorch.", "torch.")


REPRS: dict[str, Callable[[ModuleType], Any]] = {
    "matrix": lambda lib: lib.empty(3, 2, device="meta"),
    "scalar": lambda lib: lib.zeros((), device="meta"),
    "empty": lambda lib: lib.ones(0, device="meta"),
    "int64": lambda lib: lib.empty(2, dtype=lib.int64, device="meta"),
    "result": lambda lib: lib.empty(2, device="meta", requires_grad=True) * 2,
    "parameter": lambda lib: lib.nn.Linear(2, 3).to("meta").weight,
}


@pytest.mark.parametrize("name", sorted(REPRS))
def test_repr_as_pytorch(name: str, torch_ref: ModuleType) -> None:
    ours, theirs = _both(torch_ref, REPRS[name])
    assert _torch_text(repr(ours)) == repr(theirs)


OPS: dict[str, Callable[[ModuleType], Any]] = {
    "matmul": lambda lib: lib.empty(3, 4, device="meta") @ lib.empty(4, 5, device="meta"),
    "broadcast_add": lambda lib: lib.empty(3, 1, device="meta") + lib.empty(4, device="meta"),
    "sum_dim": lambda lib: lib.zeros(2, 3, device="meta").sum(1),
    "mean_keepdim": lambda lib: lib.zeros(2, 3, device="meta").mean(0, keepdim=True),
    "view": lambda lib: lib.ones(4, device="meta").view(2, 2),
    "transpose": lambda lib: lib.empty(2, 3, device="meta").t(),
    "slice": lambda lib: lib.empty(5, 3, device="meta")[1::2],
    "cat": lambda lib: lib.cat([lib.empty(2, 3, device="meta")] * 3, 1),
    "stack": lambda lib: lib.stack([lib.empty(2, 3, device="meta")] * 2),
    "randn": lambda lib: lib.randn(5, 2, device="meta"),
    "conv2d": lambda lib: lib.nn.functional.conv2d(lib.empty(1, 3, 8, 8, device="meta"),
                                                    lib.empty(4, 3, 3, 3, device="meta"), padding=1),
    "relu_linear": lambda lib: lib.nn.functional.relu(lib.nn.Linear(4, 8, device="meta")(lib.empty(3, 4, device="meta"))),
    "softmax": lambda lib: lib.empty(2, 5, device="meta").softmax(-1),
    "to_float64": lambda lib: lib.empty(2, device="meta").to(lib.float64),
    "argmax": lambda lib: lib.empty(2, 5, device="meta").argmax(1),
}


@pytest.mark.parametrize("name", sorted(OPS))
def test_op_results_stay_meta_with_pytorchs_shape(name: str, torch_ref: ModuleType) -> None:
    ours, theirs = _both(torch_ref, OPS[name])
    assert ours.device.type == theirs.device.type == "meta"
    assert tuple(ours.shape) == tuple(theirs.shape)
    # strides of dimensions of size 1 never address anything; the convolution's generic path leaves one of them
    assert [s for s, n in zip(ours.stride(), ours.shape) if n > 1] == [s for s, n in zip(theirs.stride(), theirs.shape) if n > 1]
    assert str(ours.dtype).rsplit(".")[-1] == str(theirs.dtype).rsplit(".")[-1]


READS: dict[str, tuple[Callable[[Any], Any], type]] = {
    "cpu": (lambda t: t.cpu(), NotImplementedError),
    "tolist": (lambda t: t.tolist(), NotImplementedError),
    "item": (lambda t: t[0].item(), RuntimeError),
    "numpy": (lambda t: t.numpy(), TypeError),
}


@pytest.mark.parametrize("name", sorted(READS))
def test_reading_values_raises_as_pytorch(name: str, torch_ref: ModuleType) -> None:
    read, error = READS[name]
    for lib in (minitorch, torch_ref):
        with pytest.raises(error, match="meta"):
            read(lib.empty(3, device="meta"))


def test_a_meta_tensor_allocates_nothing() -> None:
    huge = minitorch.empty(10**6, 10**6, device="meta")  # 4 TB if it held values
    assert huge.shape == (10**6, 10**6)
    assert (huge @ huge).shape == (10**6, 10**6)


def test_a_model_moved_to_meta_keeps_its_structure(torch_ref: ModuleType) -> None:
    def build(lib: ModuleType) -> Any:
        model = lib.nn.Sequential(lib.nn.Linear(4, 8), lib.nn.BatchNorm1d(8), lib.nn.Linear(8, 2))
        return model, copy.deepcopy(model).to("meta")

    (ours, ours_meta), (theirs, theirs_meta) = build(minitorch), build(torch_ref)
    for model, meta in ((ours, ours_meta), (theirs, theirs_meta)):
        assert all(p.device.type == "cpu" for p in model.parameters())  # the original is untouched
        assert all(p.is_meta and p.is_leaf and p.requires_grad for p in meta.parameters())
        assert all(type(p).__name__ == "Parameter" for p in meta.parameters())
        assert meta[1].running_mean.is_meta
    assert [(n, tuple(p.shape)) for n, p in ours_meta.named_parameters()] == \
        [(n, tuple(p.shape)) for n, p in theirs_meta.named_parameters()]
    assert ours_meta(minitorch.empty(5, 4, device="meta")).shape == (5, 2)


def test_built_on_meta_then_given_storage(torch_ref: ModuleType) -> None:
    for lib in (minitorch, torch_ref):
        with lib.device("meta"):
            layer = lib.nn.Linear(3, 2)
        assert layer.weight.is_meta and layer.bias.is_meta
        layer.to_empty(device="cpu")
        assert layer.weight.device.type == "cpu" and tuple(layer.weight.shape) == (2, 3)
        with lib.no_grad():
            layer.weight.fill_(0.5)
            layer.bias.zero_()
        np.testing.assert_allclose(layer(lib.ones(1, 3)).detach().numpy(), [[1.5, 1.5]])
        assert lib.nn.Linear(3, 2, device="meta").weight.is_meta


def test_ensembling_through_a_meta_skeleton(torch_ref: ModuleType) -> None:
    """The ensembling idiom: stacked state of real models, run through a meta copy of one."""
    weights = [np.linspace(-1, 1, 6, dtype=np.float32).reshape(2, 3) * (k + 1) for k in range(3)]
    x = np.array([[0.5, -1.0, 2.0], [1.5, 0.25, -0.5]], dtype=np.float32)
    results = []
    for lib in (minitorch, torch_ref):
        models = [lib.nn.Linear(3, 2) for _ in weights]
        with lib.no_grad():
            for model, weight in zip(models, weights):
                model.weight.copy_(lib.tensor(weight))
                model.bias.fill_(0.1)
        params, buffers = lib.func.stack_module_state(models)
        skeleton = copy.deepcopy(models[0]).to("meta")

        def run(p: dict[str, Any], b: dict[str, Any], data: Any) -> Any:
            return lib.func.functional_call(skeleton, (p, b), (data,))

        out = lib.func.vmap(run, in_dims=(0, 0, None))(params, buffers, lib.tensor(x))
        assert out.device.type == "cpu" and skeleton.weight.is_meta
        results.append(out.detach().numpy())
    np.testing.assert_allclose(results[0], results[1], rtol=1e-6)


def test_mixing_meta_and_cpu_raises(torch_ref: ModuleType) -> None:
    for lib in (minitorch, torch_ref):
        with pytest.raises(RuntimeError, match="meta"):
            lib.empty(3, device="meta") + lib.ones(3)


def test_the_meta_device_as_pytorch(torch_ref: ModuleType) -> None:
    ours, theirs = _both(torch_ref, lambda lib: lib.device("meta"))
    assert (str(ours), repr(ours)) == (str(theirs), repr(theirs))
    assert minitorch.empty(2, device="meta").device == minitorch.device("meta")
