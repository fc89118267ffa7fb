"""Which results are views, PyTorch as the oracle.

An op's result is a view only where PyTorch's is (``view``, ``t``, slicing, ``chunk``...). A
reduction, a product with a vector, a copying ``reshape`` or a masked read makes a temporary
and reshapes it; the result must not be a view of that hidden temporary, or an in-place op on
it records as a view's rewrite (``AsStridedBackward0``) instead of as on any result.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any, Callable

import numpy as np
import pytest

import minitorch

Expression = Callable[[ModuleType, Any], Any]

#: not views in PyTorch (each made a temporary and reshaped it in minitorch at some point)
RESULTS: dict[str, Expression] = {
    "sum": lambda lib, x: x.sum(),
    "sum_dim": lambda lib, x: x.sum(1),
    "sum_dims": lambda lib, x: x.sum((0, 1)),
    "sum_keepdim": lambda lib, x: x.sum(1, keepdim=True),
    "sum_of_0d": lambda lib, x: x[0, 0].sum(),
    "mean_of_0d": lambda lib, x: x[1, 2].mean(),
    "mean": lambda lib, x: x.mean(),
    "mean_dim": lambda lib, x: x.mean(0),
    "var": lambda lib, x: x.var(),
    "std_dim": lambda lib, x: x.std(1),
    "max": lambda lib, x: x.max(),
    "max_dim_values": lambda lib, x: x.max(1)[0],
    "max_dim_indices": lambda lib, x: x.max(1)[1],
    "min_dim_values": lambda lib, x: x.min(0).values,
    "amax_dim": lambda lib, x: x.amax(1),
    "amin_dims": lambda lib, x: x.amin((0, 1)),
    "argmax": lambda lib, x: x.argmax(),
    "argmax_dim": lambda lib, x: x.argmax(1),
    "argmin_keepdim": lambda lib, x: x.argmin(keepdim=True),
    "prod": lambda lib, x: x.prod(),
    "prod_dim": lambda lib, x: x.prod(1),
    "logsumexp": lambda lib, x: x.logsumexp(1),
    "norm": lambda lib, x: x.norm(),
    "bool_sum": lambda lib, x: (x > 0.5).sum(),
    "count_nonzero": lambda lib, x: x.count_nonzero(),
    "median": lambda lib, x: x.median(),
    "median_dim": lambda lib, x: x.median(1).values,
    "median_dim_indices": lambda lib, x: x.median(1).indices,
    "copying_reshape": lambda lib, x: x.t().reshape(-1),
    "masked_read": lambda lib, x: x[x > 0.5],
    "index_read": lambda lib, x: x[lib.tensor([0, 2])],
    "index_read_columns": lambda lib, x: x[:, [0, 2]],
    "dot": lambda lib, x: x[0].dot(x[1]),
    "mv": lambda lib, x: x.mv(x[0]),
    "vector_matmul": lambda lib, x: x[:, 0] @ x,
    "trace": lambda lib, x: x[:, :4].trace(),
    "repeat": lambda lib, x: x.repeat(2, 1),
    "einsum_sum": lambda lib, x: lib.einsum("ij->j", x),
    "clone": lambda lib, x: x.clone(),
    "detach": lambda lib, x: x.detach(),
    "detach_of_a_view": lambda lib, x: x[1:].detach(),
    "data_of_a_view": lambda lib, x: x[1].data,
    "contiguous_of_t": lambda lib, x: x.t().contiguous(),
    "softmax": lambda lib, x: x.softmax(1),
    "cross_entropy": lambda lib, x: lib.nn.functional.cross_entropy(x, lib.tensor([0, 1, 2, 3])),
    "mse_loss": lambda lib, x: lib.nn.functional.mse_loss(x, x * 2),
    "quantile": lambda lib, x: x.quantile(0.3),
    "quantile_dim": lambda lib, x: x.quantile(0.3, 1, keepdim=True),
    "nanquantile_dim": lambda lib, x: x.nanquantile(0.5, 0),
    "kthvalue_values": lambda lib, x: x.kthvalue(2, 1).values,
    "kthvalue_indices": lambda lib, x: x.kthvalue(2, 1).indices,
    "kthvalue_indices_keepdim": lambda lib, x: x.kthvalue(2, 1, keepdim=True).indices,
    "nanmedian": lambda lib, x: x.nanmedian(),
    "nanmedian_dim": lambda lib, x: x.nanmedian(1).values,
    "nanmedian_dim_indices": lambda lib, x: x.nanmedian(1).indices,
    "affine_grid": lambda lib, x: lib.nn.functional.affine_grid(x[:2, :3].reshape(1, 2, 3), (1, 1, 3, 4), align_corners=False),
    "grid_sample": lambda lib, x: lib.nn.functional.grid_sample(x[None, None], lib.zeros(1, 2, 3, 2), align_corners=False),
}

#: views in PyTorch, and in minitorch
VIEWS: dict[str, Expression] = {
    "view": lambda lib, x: x.view(-1),
    "viewing_reshape": lambda lib, x: x.reshape(5, 4),
    "flatten": lambda lib, x: x.flatten(),
    "t": lambda lib, x: x.t(),
    "select": lambda lib, x: x[0],
    "slice": lambda lib, x: x[:, 1:3],
    "unsqueeze": lambda lib, x: x.unsqueeze(0),
    "expand": lambda lib, x: x.expand(2, 4, 5),
    "chunk": lambda lib, x: x.chunk(2, 1)[0],
    "unbind": lambda lib, x: x.unbind(0)[1],
    "narrow": lambda lib, x: x.narrow(1, 0, 2),
    "diagonal": lambda lib, x: x.diagonal(),
    "view_of_a_sum": lambda lib, x: x.sum(1).view(2, 2),
}

VALUES = np.random.default_rng(0).random((4, 5)).astype(np.float32)


def _is_view(lib: ModuleType, expression: Expression) -> tuple[bool, tuple[int, ...]]:
    out = expression(lib, lib.tensor(VALUES, requires_grad=True))
    return out._is_view(), tuple(out.shape)


@pytest.mark.parametrize("name", sorted(RESULTS))
def test_an_ops_result_is_no_view_of_a_temporary(name: str, torch_ref: ModuleType) -> None:
    assert _is_view(torch_ref, RESULTS[name]) == _is_view(minitorch, RESULTS[name]) == (False, _is_view(torch_ref, RESULTS[name])[1])


@pytest.mark.parametrize("name", sorted(VIEWS))
def test_a_view_op_still_returns_a_view(name: str, torch_ref: ModuleType) -> None:
    assert _is_view(torch_ref, VIEWS[name]) == _is_view(minitorch, VIEWS[name]) == (True, _is_view(torch_ref, VIEWS[name])[1])


#: an in-place op on a result: the node it records and the gradient that reaches the input
IN_PLACE: dict[str, str] = {
    "add_on_a_sum": "s = x.sum(1); s.add_(1)",
    "mul_on_a_copying_reshape": "s = x.t().reshape(-1); s.mul_(2)",
    "mul_on_max_values": "s = x.max(1)[0]; s.mul_(2)",
    "sub_on_mv": "s = x.mv(x[0]); s.sub_(1)",
    "setitem_on_a_product": "s = x * 2; s[0] = 0",
    "setitem_on_a_repeat": "s = x.repeat(2, 1); s[0] = 0",
    "setitem_on_a_sum": "s = x.sum(1); s[0] = 0",
    "setitem_column": "s = x * 2; s[:, 1] = 3",
    "setitem_by_index_tensor": "s = x * 2; s[lib.tensor([0, 2])] = 0",
    "setitem_by_mask": "s = x * 2; s[s > 1] = 0",
    "setitem_by_index_lists": "s = x * 2; s[[0, 1], [1, 2]] = 0",
    "setitem_on_a_view": "s = (x * 2)[1:]; s[0] = 0",
    "mul_on_a_view": "b = x * 1; s = b[1]; s.mul_(2)",
}


def _node_name(node: Any) -> Any:
    return None if node is None else node.name().rsplit("::", 1)[-1]


def _run_in_place(lib: ModuleType, code: str) -> tuple[Any, Any, np.ndarray]:
    x = lib.tensor(VALUES, requires_grad=True)
    scope = {"lib": lib, "x": x}
    exec(code, scope)  # noqa: S102 - the fixed snippets above
    s = scope["s"]
    names = (_node_name(s.grad_fn), _node_name(s._base.grad_fn) if s._is_view() else None)
    (s * s).sum().backward()
    return names, s._is_view(), x.grad.detach().numpy()


@pytest.mark.parametrize("name", sorted(IN_PLACE))
def test_an_in_place_op_on_a_result_records_as_pytorchs(name: str, torch_ref: ModuleType) -> None:
    expected_names, expected_view, expected_grad = _run_in_place(torch_ref, IN_PLACE[name])
    names, is_view, grad = _run_in_place(minitorch, IN_PLACE[name])
    assert (names, is_view) == (expected_names, expected_view)
    np.testing.assert_allclose(grad, expected_grad, rtol=1e-5, atol=1e-5)


def test_a_temporary_saved_for_backward_still_sees_an_in_place_change() -> None:
    """A Function that saves a tensor it made and returns a view of it: the result stands alone,
    but shares the temporary's version counter, so writing into it spoils the saved values."""

    class ExpFlat(minitorch.autograd.Function):
        @staticmethod
        def forward(ctx: Any, a: Any) -> Any:
            out = a.exp()
            ctx.save_for_backward(out)
            return out.view(-1)

        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:
            (out,) = ctx.saved_tensors
            return grad.view(out.shape) * out

    x = minitorch.tensor(VALUES, requires_grad=True)
    clean = ExpFlat.apply(x)
    assert not clean._is_view()
    clean.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.exp(VALUES), rtol=1e-6)

    spoiled = ExpFlat.apply(x)
    spoiled.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        spoiled.sum().backward()


@pytest.mark.parametrize("code", ["w[0:2].detach().zero_()", "w[1].data.fill_(0)", "w.t().detach().mul_(0)"])
def test_writing_into_a_detached_view_of_a_leaf_is_allowed(code: str, torch_ref: ModuleType) -> None:
    """Initialisation code writes into ``w[i].data``: no view of the leaf, so no error (as PyTorch)."""
    results = []
    for lib in (torch_ref, minitorch):
        w = lib.tensor(VALUES, requires_grad=True)
        version = w._version
        exec(code, {"w": w})  # noqa: S102 - the fixed snippets above
        results.append((w.detach().numpy().tolist(), w._version > version, w.grad_fn is None))
    assert results[0] == results[1]


def test_writes_through_data_go_unseen_by_saved_tensor_checks_writes_through_detach_do_not(torch_ref: ModuleType) -> None:
    """PyTorch's documented difference between ``.data`` and ``.detach()``."""
    outcomes = []
    for lib in (torch_ref, minitorch):
        row = []
        for write in ("data", "detach"):
            x = lib.tensor(VALUES, requires_grad=True)
            y = x.exp()  # saves its output
            target = y.data if write == "data" else y.detach()
            target.mul_(1.0)
            try:
                y.sum().backward()
                row.append("ran")
            except RuntimeError as error:
                row.append("modified" if "modified by an inplace operation" in str(error) else str(error))
        outcomes.append(row)
    assert outcomes[0] == outcomes[1] == ["ran", "modified"]


def test_a_view_passed_in_by_keyword_and_returned_stays_a_view() -> None:
    """A Function that hands back one of its inputs (here given by keyword) must not change it."""

    class PassThrough(minitorch.autograd.Function):
        @staticmethod
        def forward(ctx: Any, a: Any, *, values: Any) -> Any:
            return values

        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:
            return grad.sum() * 0

    base = minitorch.tensor(VALUES)
    window = base[1:3]
    out = PassThrough.apply(minitorch.ones(()), values=window)
    assert out is window and window._is_view() and window._base is base
