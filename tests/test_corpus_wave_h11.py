"""What four more tutorial-style corpus scripts found, each checked against PyTorch at run time.

* ``F.max_unpool1d/2d/3d`` and ``nn.MaxUnpool1d/2d/3d``: the SegNet-style decoder
  (``segnet_unpool.py``) puts pooled values back at the indices ``max_pool2d`` returned.
* ``F.multilabel_soft_margin_loss``, ``F.multilabel_margin_loss`` and their modules: the
  multi-label tagging script (``multilabel_tagging.py``) scores its logits with them.
* The legacy ``size_average``/``reduce`` warning names the reduction they map to (it always said
  ``'none'``), and ``Tensor.size(dim)`` of a 0-d tensor is PyTorch's IndexError.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any, Callable

import numpy as np
import pytest

import minitorch
from both_libraries import Case, compare

torch = pytest.importorskip("torch")


def _grads(lib: ModuleType, build: Callable[[Any], Any], x: Any) -> tuple[Any, Any]:
    """``build(x)``, and the gradient of a weighted sum of it with respect to ``x``."""
    out = build(x)
    weights = lib.arange(1, out.numel() + 1, dtype=out.dtype).reshape(out.shape)
    (out * weights).sum().backward()
    return out, x.grad


# ---- max unpooling ----------------------------------------------------------------------------

def _pooled2d(lib: ModuleType, shape: tuple[int, ...] = (2, 3, 6, 4), **pool: Any) -> tuple[Any, Any, Any]:
    """A leaf, and its max_pool2d values and indices (sines: no ties)."""
    count = int(np.prod(shape))
    x = lib.tensor(np.sin(1.3 * np.arange(count)).reshape(shape), dtype=lib.float64, requires_grad=True)
    values, indices = lib.nn.functional.max_pool2d(x, pool.pop("kernel_size", 2), return_indices=True, **pool)
    return x, values, indices


def _unpool_grad(lib: ModuleType, pool: dict, unpool: dict) -> tuple[Any, Any]:
    x, values, indices = _pooled2d(lib, **pool)
    leaf = values.detach().requires_grad_()
    return _grads(lib, lambda v: lib.nn.functional.max_unpool2d(v, indices, **unpool), leaf)


UNPOOL_CASES: dict[str, Case] = {
    "2d default size": lambda lib: _unpool_grad(lib, {}, {"kernel_size": 2}),
    "2d output_size (H, W)": lambda lib: _unpool_grad(lib, {}, {"kernel_size": 2, "output_size": (7, 5)}),
    "2d output_size (N, C, H, W)": lambda lib: _unpool_grad(lib, {}, {"kernel_size": 2, "output_size": [2, 3, 7, 5]}),
    "2d stride and padding": lambda lib: _unpool_grad(lib, {"kernel_size": 3, "stride": 2, "padding": 1},
                                                      {"kernel_size": 3, "stride": 2, "padding": 1,
                                                       "output_size": (6, 4)}),
    "2d unbatched": lambda lib: _grads(lib, lambda v: lib.nn.functional.max_unpool2d(
        v, _pooled2d(lib, (3, 4, 4))[2], 2), _pooled2d(lib, (3, 4, 4))[1].detach().requires_grad_()),
    "1d through the module": lambda lib: _grads(lib, lambda v: lib.nn.MaxUnpool1d(2)(
        v, lib.nn.functional.max_pool1d(lib.sin(lib.arange(12.0)).view(1, 2, 6), 2, return_indices=True)[1]),
        lib.nn.functional.max_pool1d(lib.sin(lib.arange(12.0)).view(1, 2, 6), 2).detach().requires_grad_()),
    "3d": lambda lib: _grads(lib, lambda v: lib.nn.functional.max_unpool3d(
        v, lib.nn.functional.max_pool3d(lib.sin(lib.arange(64.0)).view(1, 1, 4, 4, 4), 2, return_indices=True)[1], 2),
        lib.nn.functional.max_pool3d(lib.sin(lib.arange(64.0)).view(1, 1, 4, 4, 4), 2).detach().requires_grad_()),
    "float32 through the module": lambda lib: lib.nn.MaxUnpool2d(2)(
        _pooled2d(lib)[1].float(), _pooled2d(lib)[2]),
    "empty batch": lambda lib: lib.nn.functional.max_unpool2d(
        lib.zeros(0, 1, 2, 2), lib.zeros(0, 1, 2, 2, dtype=lib.long), 2),
    "module reprs": lambda lib: [repr(lib.nn.MaxUnpool2d(2)), repr(lib.nn.MaxUnpool1d(3, 2, 1)),
                                 repr(lib.nn.MaxUnpool3d(2, stride=(1, 2, 3)))],
}

UNPOOL_ERRORS: dict[str, Case] = {
    "float indices": lambda lib: lib.nn.functional.max_unpool2d(_pooled2d(lib)[1], _pooled2d(lib)[2].float(), 2),
    "int32 indices": lambda lib: lib.nn.functional.max_unpool2d(_pooled2d(lib)[1], _pooled2d(lib)[2].int(), 2),
    "indices of another shape": lambda lib: lib.nn.functional.max_unpool2d(
        _pooled2d(lib)[1], _pooled2d(lib)[2][..., :1], 2),
    "2-d input": lambda lib: lib.nn.functional.max_unpool2d(_pooled2d(lib)[1][0, 0], _pooled2d(lib)[2][0, 0], 2),
    "3d of a 3-d input": lambda lib: lib.nn.functional.max_unpool3d(_pooled2d(lib)[1][0], _pooled2d(lib)[2][0], 2),
    "integer input": lambda lib: lib.nn.functional.max_unpool2d(
        _pooled2d(lib)[1].detach().long(), _pooled2d(lib)[2], 2),
    "output_size too large": lambda lib: lib.nn.functional.max_unpool2d(
        _pooled2d(lib)[1], _pooled2d(lib)[2], 2, output_size=[9, 5]),
    "output_size of the wrong length": lambda lib: lib.nn.functional.max_unpool2d(
        _pooled2d(lib)[1], _pooled2d(lib)[2], 2, output_size=[6]),
    "one index past the output": lambda lib: lib.nn.functional.max_unpool2d(
        lib.ones(1, 1, 2, 2), lib.tensor([[[[0, 1], [2, 16]]]]), 2),
    "one negative index": lambda lib: lib.nn.functional.max_unpool1d(
        lib.ones(1, 1, 3), lib.tensor([[[0, -2, 5]]]), 2),
    "one index past a 3-d output": lambda lib: lib.nn.functional.max_unpool3d(
        lib.ones(1, 1, 1, 1, 2), lib.tensor([[[[[0, 8]]]]]), 2),
    "3d zero stride": lambda lib: lib.nn.functional.max_unpool3d(
        lib.ones(1, 1, 1, 1, 2), lib.tensor([[[[[0, 1]]]]]), 2, stride=0),
    "empty channel dimension": lambda lib: lib.nn.functional.max_unpool2d(
        lib.zeros(1, 0, 2, 2), lib.zeros(1, 0, 2, 2, dtype=lib.long), 2),
}


@pytest.mark.parametrize("name", list(UNPOOL_CASES))
def test_max_unpool_as_torch(name: str) -> None:
    compare(UNPOOL_CASES[name])


@pytest.mark.parametrize("name", list(UNPOOL_ERRORS))
def test_max_unpool_errors_as_torch(name: str) -> None:
    compare(UNPOOL_ERRORS[name])


def test_max_unpool_reports_the_last_bad_index_on_one_thread() -> None:
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        compare(lambda lib: lib.nn.functional.max_unpool2d(lib.ones(1, 1, 2, 2), lib.tensor([[[[20, 1], [17, 3]]]]), 2))
    finally:
        torch.set_num_threads(threads)


def test_max_unpool_inverts_max_pool_where_the_maxima_were() -> None:
    x, values, indices = _pooled2d(minitorch)
    restored = minitorch.nn.MaxUnpool2d(2)(values, indices, output_size=x.size())
    kept = restored != 0
    assert minitorch.equal(restored[kept], x.detach()[kept])
    assert int(kept.sum()) == values.numel()


# ---- multi-label losses -----------------------------------------------------------------------

def _scores(lib: ModuleType, rows: int = 3, classes: int = 5, dtype: Any = None) -> Any:
    values = np.sin(0.9 * np.arange(rows * classes) + 0.2).reshape(rows, classes)
    return lib.tensor(values, dtype=dtype or lib.float64, requires_grad=True)


def _tags(lib: ModuleType) -> Any:
    return lib.tensor([[1.0, 0, 1, 0, 0], [0, 1, 1, 1, 0], [0, 0, 0, 0, 1]], dtype=lib.float64)


def _margin_targets(lib: ModuleType) -> Any:
    # a -1 ends each list; a class listed twice counts twice; entries after the -1 are ignored
    return lib.tensor([[3, 0, -1, 1, 1], [1, 1, 4, -1, 2], [-1, 0, 1, 2, 3]])


SOFT_CASES: dict[str, Case] = {
    "mean": lambda lib: _grads(lib, lambda x: lib.nn.functional.multilabel_soft_margin_loss(x, _tags(lib)),
                               _scores(lib)),
    "none with weight": lambda lib: _grads(lib, lambda x: lib.nn.functional.multilabel_soft_margin_loss(
        x, _tags(lib), weight=lib.tensor([1.0, 2, 0.5, 1, 3], dtype=lib.float64), reduction="none"), _scores(lib)),
    "sum through the module": lambda lib: _grads(lib, lambda x: lib.nn.MultiLabelSoftMarginLoss(reduction="sum")(
        x, _tags(lib)), _scores(lib)),
    "one sample": lambda lib: _grads(lib, lambda x: lib.nn.functional.multilabel_soft_margin_loss(
        x, _tags(lib)[0], reduction="none"), _scores(lib)[0].detach().requires_grad_()),
    "legacy size_average": lambda lib: lib.nn.functional.multilabel_soft_margin_loss(
        _scores(lib), _tags(lib), size_average=False),
    "weight is a buffer": lambda lib: [n for n, _ in lib.nn.MultiLabelSoftMarginLoss(weight=lib.ones(5)).named_buffers()],
    "unknown reduction": lambda lib: lib.nn.functional.multilabel_soft_margin_loss(
        _scores(lib), _tags(lib), reduction="batchmean"),
    "0-d input": lambda lib: lib.nn.functional.multilabel_soft_margin_loss(lib.tensor(0.3), lib.tensor(1.0)),
}

MARGIN_CASES: dict[str, Case] = {
    "mean": lambda lib: _grads(lib, lambda x: lib.nn.functional.multilabel_margin_loss(x, _margin_targets(lib)),
                               _scores(lib)),
    "none": lambda lib: _grads(lib, lambda x: lib.nn.MultiLabelMarginLoss(reduction="none")(x, _margin_targets(lib)),
                               _scores(lib)),
    "sum in float32": lambda lib: _grads(lib, lambda x: lib.nn.functional.multilabel_margin_loss(
        x, _margin_targets(lib), reduction="sum"), _scores(lib, dtype=lib.float32)),
    "one sample": lambda lib: _grads(lib, lambda x: lib.nn.functional.multilabel_margin_loss(
        x, _margin_targets(lib)[1], reduction="none"), _scores(lib)[1].detach().requires_grad_()),
    "hinge exactly zero has no gradient": lambda lib: _grads(lib, lambda x: lib.nn.functional.multilabel_margin_loss(
        x, lib.tensor([[0, -1, -1]])), lib.tensor([[0.5, -0.5, 0.25]], dtype=lib.float64, requires_grad=True)),
    "no targets": lambda lib: lib.nn.functional.multilabel_margin_loss(_scores(lib), lib.full((3, 5), -1)),
    "0-d input": lambda lib: lib.nn.functional.multilabel_margin_loss(lib.tensor(0.5), lib.tensor(0)),
    "legacy reduce": lambda lib: lib.nn.functional.multilabel_margin_loss(_scores(lib), _margin_targets(lib),
                                                                          reduce=False),
    "target out of range": lambda lib: lib.nn.functional.multilabel_margin_loss(_scores(lib), _margin_targets(lib) + 5),
    "target below -1 after the end": lambda lib: lib.nn.functional.multilabel_margin_loss(
        _scores(lib), lib.tensor([[0, -1, -3, 0, 0]] * 3)),
    "target of another shape": lambda lib: lib.nn.functional.multilabel_margin_loss(
        _scores(lib), _margin_targets(lib)[:, :3]),
    "1-d target for a batch": lambda lib: lib.nn.functional.multilabel_margin_loss(
        _scores(lib), _margin_targets(lib)[0]),
    "int32 target": lambda lib: lib.nn.functional.multilabel_margin_loss(_scores(lib), _margin_targets(lib).int()),
    "float target": lambda lib: lib.nn.functional.multilabel_margin_loss(_scores(lib), _margin_targets(lib).double()),
    "half input": lambda lib: lib.nn.functional.multilabel_margin_loss(_scores(lib).detach().half(),
                                                                       _margin_targets(lib)),
    "3-d input": lambda lib: lib.nn.functional.multilabel_margin_loss(lib.zeros(2, 3, 4),
                                                                      lib.zeros(2, 3, 4, dtype=lib.long)),
    "no classes": lambda lib: lib.nn.functional.multilabel_margin_loss(lib.zeros(2, 0), lib.zeros(2, 0, dtype=lib.long)),
    "unknown reduction": lambda lib: lib.nn.functional.multilabel_margin_loss(_scores(lib), _margin_targets(lib),
                                                                              reduction="avg"),
}


@pytest.mark.parametrize("name", list(SOFT_CASES))
def test_multilabel_soft_margin_loss_as_torch(name: str) -> None:
    compare(SOFT_CASES[name])


@pytest.mark.parametrize("name", list(MARGIN_CASES))
def test_multilabel_margin_loss_as_torch(name: str) -> None:
    compare(MARGIN_CASES[name])


def _second_derivative(loss: Callable[[ModuleType, Any], Any]) -> Case:
    """The gradient (with its graph) of ``loss`` at x * x, then a backward through that gradient."""
    def case(lib: ModuleType) -> Any:
        x = _scores(lib)
        (grad,) = lib.autograd.grad(loss(lib, x * x), x, create_graph=True)
        (grad * grad).sum().backward()
        return grad, x.grad

    return case


SECOND_DERIVATIVES: dict[str, Case] = {
    # PyTorch has no derivative of these losses' backward ops: the second backward raises
    "multilabel margin": _second_derivative(
        lambda lib, x: lib.nn.functional.multilabel_margin_loss(x, _margin_targets(lib))),
    "multi margin": _second_derivative(
        lambda lib, x: lib.nn.functional.multi_margin_loss(x, lib.tensor([0, 4, 2]))),
    # these are differentiable twice
    "multilabel soft margin": _second_derivative(
        lambda lib, x: lib.nn.functional.multilabel_soft_margin_loss(x, _tags(lib))),
    "max unpool": _second_derivative(lambda lib, x: lib.nn.functional.max_unpool1d(
        x.unsqueeze(0), lib.tensor([[[0, 3, 5, 7, 9]] * 3]), 2).sum()),
}


@pytest.mark.parametrize("name", list(SECOND_DERIVATIVES))
def test_second_derivatives_as_torch(name: str) -> None:
    compare(SECOND_DERIVATIVES[name])


def test_first_derivative_with_create_graph_is_still_the_gradient() -> None:
    def case(lib: ModuleType) -> Any:
        x = _scores(lib)
        (grad,) = lib.autograd.grad(lib.nn.functional.multilabel_margin_loss(x, _margin_targets(lib)), x,
                                    create_graph=True)
        return grad, grad.requires_grad, type(grad.grad_fn).__name__

    compare(case)


# ---- the legacy-reduction warning, Tensor.size of a 0-d tensor --------------------------------

LEGACY_FLAGS = [{"size_average": False}, {"size_average": True}, {"reduce": False}, {"size_average": False, "reduce": True}]


@pytest.mark.parametrize("flags", LEGACY_FLAGS, ids=str)
def test_legacy_reduction_warning_names_the_reduction(flags: dict) -> None:
    def case(lib: ModuleType) -> Any:
        x, y = lib.ones(2, 3), lib.zeros(2, 3)
        return [lib.nn.functional.mse_loss(x, y, **flags), lib.nn.L1Loss(**flags).reduction]

    compare(case)


@pytest.mark.parametrize("dim", [0, -1, 2])
def test_size_of_a_zero_dim_tensor_as_torch(dim: int) -> None:
    compare(lambda lib: lib.tensor(1.5).size(dim))
