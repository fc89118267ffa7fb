"""Regression tests: every op that indexes memory refuses what would make a kernel read or
write outside its tensor, with PyTorch's error, on every backend (issue 15).

Each test names the bug it pins down. The fuzz test (``test_indexing_fuzz.py``) covers the
same ground at random; these are the cases that once gave garbage, crashed or were accepted.
Not graded: they check the reference implementation across several tasks.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from layer_helpers import assert_same_error, ours, raised, theirs

import minitorch
from minitorch.dispatch import gather_op
from minitorch.ops.indexing import Gather
from minitorch.ops.windows import windows
from minitorch.nn import functional as F

ROOT = Path(minitorch.__file__).resolve().parent.parent


def _run_python(code: str, *flags: str) -> subprocess.CompletedProcess:
    """``code`` in a fresh interpreter importing this checkout's minitorch (a crash stays there)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    return subprocess.run([sys.executable, *flags, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          env=env, timeout=300)


# ---- scatter_add: an index larger than src (issue 15's garbage and segfault) ----


@pytest.mark.parametrize("where", ["simple", "cpu", "cuda"])
def test_scatter_add_refuses_an_index_larger_than_src(where: str, torch_ref, request: pytest.FixtureRequest) -> None:
    """Was: the kernels read src[0, 1], src[0, 2] past a 1x1 src and returned 3.1e-41."""
    device = "cuda" if where == "cuda" else "cpu"
    if where == "cuda":
        request.getfixturevalue("small_cuda")
    index = [[0, 1, 2]]
    with minitorch.backends.use("cpu" if where == "cuda" else where):
        assert_same_error(
            lambda: F.scatter_add(minitorch.zeros(3, 4, device=device), 0, minitorch.tensor(index, device=device),
                                  minitorch.ones(1, 1, device=device)),
            lambda: torch_ref.scatter_add(torch_ref.zeros(3, 4), 0, torch_ref.tensor(index), torch_ref.ones(1, 1)),
        )


def test_scatter_add_with_ten_million_columns_raises_instead_of_crashing() -> None:
    """Was: a segmentation fault, reading 10**7 elements past a 1x1 src."""
    done = _run_python("""
        import minitorch
        from minitorch.nn import functional as F
        n = 10 ** 7
        try:
            F.scatter_add(minitorch.zeros(3, n), 0, minitorch.zeros(1, n, dtype=minitorch.int64), minitorch.ones(1, 1))
        except RuntimeError as error:
            print("raised:", error)
    """)
    assert done.returncode == 0, f"the process died ({done.returncode}): {done.stderr[-2000:]}"
    assert f"raised: Expected index [1, {10 ** 7}] to be no larger than self [3, {10 ** 7}]" in done.stdout


def test_scatter_add_messages_match_torch(backend: str, torch_ref) -> None:
    self_ = np.zeros((3, 4))
    cases = [
        (np.array([[0, 1, 2, 0, 1]]), np.ones((1, 5)), 0),  # wider than self
        (np.array([[5]]), np.ones((1, 1)), 0),  # value out of range
        (np.array([[-1]]), np.ones((1, 1)), 0),  # negative
        (np.array([0, 1]), np.ones(2), 0),  # rank differs from self's
        (np.array([[0, 1]]), np.ones(2), 0),  # src has fewer dimensions than the index
        (np.array([[0, 1]]), np.ones((1, 2, 1)), 0),  # src has more
        (np.array([[0.0]]), np.ones((1, 1)), 0),  # float index
    ]
    for index, source, dim in cases:
        index_ours = minitorch.tensor(index) if index.dtype.kind == "f" else ours(index)
        assert_same_error(
            lambda: F.scatter_add(ours(self_), dim, index_ours, ours(source)),
            lambda: torch_ref.scatter_add(theirs(torch_ref, self_), dim, torch_ref.tensor(index), theirs(torch_ref, source)),
        )
    assert_same_error(
        lambda: F.scatter_add(ours(self_), 0, ours(np.array([[0]])), minitorch.ones(1, 1)),
        lambda: torch_ref.scatter_add(theirs(torch_ref, self_), 0, torch_ref.tensor([[0]]), torch_ref.ones(1, 1)),
    )


def test_scatter_add_src_larger_than_the_index_gets_zero_gradient_where_unread(backend: str) -> None:
    """Only ``src``'s part that the index covers is added; the rest has gradient 0 (PyTorch's backward refuses)."""
    src = minitorch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    out = F.scatter_add(minitorch.zeros(2, 3), 1, minitorch.tensor([[2, 0]]), src)
    assert out.tolist() == [[2.0, 0.0, 1.0], [0.0, 0.0, 0.0]]
    out.backward(minitorch.tensor([[10.0, 20.0, 30.0], [40.0, 50.0, 60.0]]))
    assert src.grad.tolist() == [[30.0, 10.0, 0.0], [0.0, 0.0, 0.0]]


# ---- gather and index_select ----


def test_gather_messages_and_zero_dim_tensors_match_torch(backend: str, torch_ref) -> None:
    a = np.arange(12.0).reshape(3, 4)
    for index, dim in [(np.array([[0, 1, 2, 0, 1]]), 0), (np.array([[0, 4]]), 1), (np.array([[-1]]), 1), (np.array([0]), 0)]:
        assert_same_error(lambda: F.gather(ours(a), dim, ours(index)),
                          lambda: torch_ref.gather(torch_ref.tensor(a), dim, torch_ref.tensor(index)))
    # PyTorch reads a 0-d tensor as one of shape (1,), and skips every check for an empty index
    assert F.gather(minitorch.tensor([5.0, 6.0]), 0, minitorch.tensor(1)).tolist() == 6.0
    assert F.gather(minitorch.tensor(5.0), 0, minitorch.tensor([0, 0])).tolist() == [5.0, 5.0]
    assert F.gather(ours(a), 0, minitorch.zeros(0, 9)).shape == (0, 9)
    assert_same_error(lambda: F.gather(minitorch.tensor(5.0), 0, minitorch.tensor(1)),
                      lambda: torch_ref.gather(torch_ref.tensor(5.0), 0, torch_ref.tensor(1)))


def test_index_select_refuses_a_float_index(backend: str, torch_ref) -> None:
    """Was: a float index was silently cast to int64."""
    for values in ([0.0], [True]):
        assert_same_error(lambda: F.index_select(minitorch.zeros(3, 4), 0, minitorch.tensor(values)),
                          lambda: torch_ref.index_select(torch_ref.zeros(3, 4), 0, torch_ref.tensor(values)))


@pytest.mark.parametrize(
    "shape, dim, index",
    [((3, 4), 0, [3]), ((3, 4), 0, [-1]), ((3, 4), 1, [4]), ((3, 4, 5), 2, [5]), ((0, 3), 0, [0]),
     ((3, 0), 0, [5]), ((), 0, [0, 0]), ((), 0, [1]), ((3, 4), 0, [[0]])],
)
def test_index_select_errors_match_torch(backend: str, torch_ref, shape: tuple, dim: int, index: list) -> None:
    assert_same_error(lambda: F.index_select(minitorch.zeros(shape), dim, minitorch.tensor(index)),
                      lambda: torch_ref.index_select(torch_ref.zeros(shape), dim, torch_ref.tensor(index)))


def test_the_dispatch_layer_guards_every_caller_of_the_kernels(backend: str) -> None:
    """An internal caller that skips the public checks still never reaches a kernel with a bad index."""
    a = minitorch.arange(6.0).view(2, 3)
    with pytest.raises(RuntimeError, match="index 3 is out of bounds for dimension 1 with size 3"):
        Gather.apply(a, 1, minitorch.tensor([[0, 3]]))
    with pytest.raises(RuntimeError, match="to be no larger than self"):
        gather_op(a, 0, minitorch.zeros(1, 4, dtype=minitorch.int64))


# ---- embedding ----


@pytest.mark.parametrize("padding_idx", [5, 7, -6])
def test_embedding_refuses_a_padding_idx_outside_the_table(padding_idx: int, torch_ref) -> None:
    """Was: ``F.embedding(..., padding_idx=7)`` on 5 rows was accepted."""
    weight = np.ones((5, 2))
    assert_same_error(lambda: F.embedding(minitorch.tensor([1]), ours(weight), padding_idx=padding_idx),
                      lambda: torch_ref.nn.functional.embedding(torch_ref.tensor([1]), torch_ref.tensor(weight), padding_idx=padding_idx))
    assert_same_error(lambda: minitorch.nn.Embedding(5, 2, padding_idx=padding_idx),
                      lambda: torch_ref.nn.Embedding(5, 2, padding_idx=padding_idx))


def test_embedding_padding_idx_check_survives_python_optimize() -> None:
    """The check is a raise, not an ``assert`` that ``python -O`` would drop."""
    done = _run_python("""
        import minitorch
        try:
            minitorch.nn.Embedding(5, 2, padding_idx=7)
        except AssertionError as error:
            print("raised:", error)
    """, "-O")
    assert "raised: Padding_idx must be within num_embeddings" in done.stdout, done.stderr[-2000:]


def test_embedding_negative_padding_idx_counts_from_the_end(backend: str, torch_ref) -> None:
    module = minitorch.nn.Embedding(5, 2, padding_idx=-1)
    assert module.padding_idx == 4 == torch_ref.nn.Embedding(5, 2, padding_idx=-1).padding_idx
    assert module.weight[4].tolist() == [0.0, 0.0]
    weight = minitorch.ones(5, 2, requires_grad=True)
    F.embedding(minitorch.tensor([4, 0, 4]), weight, padding_idx=-1).sum().backward()
    assert weight.grad.tolist() == [[1.0, 1.0], [0.0, 0.0], [0.0, 0.0], [0.0, 0.0], [0.0, 0.0]]


def test_embedding_errors_match_torch(backend: str, torch_ref) -> None:
    for weight_shape, index in [((5,), [1]), ((5, 2, 2), [1]), ((5, 2), [5]), ((5, 2), [-1])]:
        weight = np.ones(weight_shape)
        assert_same_error(lambda: F.embedding(minitorch.tensor(index), ours(weight)),
                          lambda: torch_ref.nn.functional.embedding(torch_ref.tensor(index), torch_ref.tensor(weight)))


# ---- losses: class weights and targets index the classes ----


@pytest.mark.parametrize("loss", ["nll_loss", "cross_entropy"])
def test_class_weights_of_the_wrong_size_are_refused(backend: str, torch_ref, loss: str) -> None:
    """Was: a weight vector shorter than the classes was read past its end."""
    x, target = np.zeros((2, 3)), np.array([2, 2])
    for weight in (np.ones(2), np.ones(4), np.ones((1, 3))):
        assert_same_error(lambda: getattr(F, loss)(ours(x), ours(target), weight=ours(weight)),
                          lambda: getattr(torch_ref.nn.functional, loss)(theirs(torch_ref, x), theirs(torch_ref, target),
                                                                         weight=theirs(torch_ref, weight)))


@pytest.mark.parametrize("loss", ["nll_loss", "cross_entropy"])
def test_all_targets_ignored_gives_nan_loss_and_zero_gradient(backend: str, loss: str) -> None:
    x = minitorch.tensor([[0.5, -0.5], [1.0, 2.0]], dtype=minitorch.float64, requires_grad=True)
    value = getattr(F, loss)(x, minitorch.tensor([-100, -100]))
    value.backward()
    assert np.isnan(value.item())
    assert x.grad.tolist() == [[0.0, 0.0], [0.0, 0.0]]


# ---- windows, convolution and pooling: views whose strides come from the arguments ----


def test_window_views_refuse_steps_dilations_and_sizes_below_one() -> None:
    x = minitorch.arange(6.0)
    for sizes, steps, dilations in [((2,), (-1,), (1,)), ((2,), (0,), (1,)), ((2,), (1,), (-1,)), ((0,), (1,), (1,))]:
        with pytest.raises(RuntimeError, match="must be positive"):
            windows(x, (0,), sizes, steps, dilations)
    with pytest.raises(RuntimeError, match="distinct dimensions"):
        windows(x, (1,), (2,), (1,))


@pytest.mark.parametrize(
    "arguments",
    [dict(stride=0), dict(stride=-1), dict(dilation=0), dict(dilation=-1), dict(padding=-1)],
)
@pytest.mark.parametrize("n", [1, 2])
def test_conv_refuses_non_positive_strides_dilations_and_negative_padding(backend: str, torch_ref, n: int, arguments: dict) -> None:
    """Was: ``dilation=-1`` made a window view reaching before the input, and returned its garbage."""
    x, w = np.ones((1, 1) + (5,) * n), np.ones((1, 1) + (2,) * n)
    conv = f"conv{n}d"
    assert_same_error(lambda: getattr(F, conv)(ours(x), ours(w), **arguments),
                      lambda: getattr(torch_ref.nn.functional, conv)(theirs(torch_ref, x), theirs(torch_ref, w), **arguments))


def test_conv_refuses_an_empty_kernel(torch_ref) -> None:
    x, w = np.ones((1, 1, 5, 5)), np.ones((1, 1, 0, 2))
    assert_same_error(lambda: F.conv2d(ours(x), ours(w)),
                      lambda: torch_ref.nn.functional.conv2d(theirs(torch_ref, x), theirs(torch_ref, w)))


@pytest.mark.parametrize("pool", ["max_pool1d", "max_pool2d", "avg_pool1d", "avg_pool2d"])
@pytest.mark.parametrize(
    "kernel, arguments",
    [(0, {}), (-1, {}), (2, dict(stride=0)), (2, dict(stride=-1)), (2, dict(padding=-1)), (0, dict(stride=1))],
)
def test_pooling_refuses_non_positive_sizes_and_negative_padding(backend: str, torch_ref, pool: str, kernel: int, arguments: dict) -> None:
    """Was: a zero stride divided by zero, a negative one gave a window view reaching outside the input."""
    x = np.ones((1, 1) + (6,) * int(pool[-2]))
    assert_same_error(lambda: getattr(F, pool)(ours(x), kernel, **arguments),
                      lambda: getattr(torch_ref.nn.functional, pool)(theirs(torch_ref, x), kernel, **arguments))


@pytest.mark.parametrize("pool", ["max_pool1d", "max_pool2d"])
@pytest.mark.parametrize("dilation", [0, -1])
def test_max_pooling_refuses_non_positive_dilation(backend: str, torch_ref, pool: str, dilation: int) -> None:
    x = np.ones((1, 1) + (6,) * int(pool[-2]))
    assert_same_error(lambda: getattr(F, pool)(ours(x), 2, dilation=dilation),
                      lambda: getattr(torch_ref.nn.functional, pool)(theirs(torch_ref, x), 2, dilation=dilation))


def test_adaptive_pooling_to_zero_or_negative_sizes(backend: str, torch_ref) -> None:
    assert F.adaptive_avg_pool1d(minitorch.ones(1, 1, 5), 0).shape == (1, 1, 0)
    assert F.adaptive_avg_pool2d(minitorch.ones(1, 5, 5), (0, 2)).shape == (1, 0, 2)
    assert_same_error(lambda: F.adaptive_avg_pool2d(minitorch.ones(1, 5, 5), (-1, 2)),
                      lambda: torch_ref.nn.functional.adaptive_avg_pool2d(torch_ref.ones(1, 5, 5), (-1, 2)))


# ---- padding: the non-constant modes gather from computed positions ----


@pytest.mark.parametrize("mode", ["replicate", "reflect"])
@pytest.mark.parametrize("shape", [(1, 1, 0), (1, 0, 3), (0, 3)])
def test_edge_padding_of_an_empty_row_is_refused(backend: str, torch_ref, mode: str, shape: tuple) -> None:
    """Was: replicate padding of an empty row gathered at position -1."""
    assert_same_error(lambda: F.pad(minitorch.zeros(*shape), (1, 1), mode=mode),
                      lambda: torch_ref.nn.functional.pad(torch_ref.zeros(*shape), (1, 1), mode=mode))


@pytest.mark.parametrize("mode", ["replicate", "reflect", "circular", "constant"])
@pytest.mark.parametrize("pad", [(-1, 2), (2, -1), (-3, 1), (-1, -1), (-2, 3), (3, -2)])
def test_negative_padding_matches_torch(backend: str, torch_ref, mode: str, pad: tuple) -> None:
    """Constant and circular crop first; reflect and replicate read their positions off the whole row."""
    x = np.arange(4.0).reshape(1, 1, 4)
    try:
        expected = torch_ref.nn.functional.pad(theirs(torch_ref, x), pad, mode=mode)
    except RuntimeError:  # circular, when the wrap outgrows the cropped row
        assert isinstance(raised(lambda: F.pad(ours(x), pad, mode=mode)), RuntimeError)
        return
    np.testing.assert_array_equal(F.pad(ours(x), pad, mode=mode).numpy(), expected.numpy())


def test_padding_that_crops_more_than_the_row_is_refused(torch_ref) -> None:
    for pad, mode in [((-4, 2), "constant"), ((-2, -2), "replicate"), ((-3, -1), "reflect")]:
        assert_same_error(lambda: F.pad(minitorch.zeros(1, 1, 3 if mode == "constant" else 4), pad, mode=mode),
                          lambda: torch_ref.nn.functional.pad(torch_ref.zeros(1, 1, 3 if mode == "constant" else 4), pad, mode=mode))


# ---- __getitem__ / __setitem__ ----


def test_tensor_keys_are_ints_only_when_zero_dim_integers(backend: str, torch_ref) -> None:
    """Was: ``x[tensor([1])]`` read as ``x[1]``: a 0-d result where PyTorch gives shape (1,)."""
    x = minitorch.arange(3.0)
    assert x[minitorch.tensor(2)].tolist() == 2.0
    assert x[minitorch.tensor(-1, dtype=minitorch.int32)].tolist() == 2.0
    # a 1-element index tensor is advanced indexing, as in PyTorch
    assert x[minitorch.tensor([1])].tolist() == torch_ref.arange(3.0)[torch_ref.tensor([1])].tolist()
    for key in (True, False):  # a bool (or 0-d bool tensor) is a new dimension, never the index 1 or 0
        for index, reference in ((key, key), (minitorch.tensor(key), torch_ref.tensor(key))):
            assert x[index].tolist() == torch_ref.arange(3.0)[reference].tolist()
    assert_same_error(lambda: x[minitorch.tensor(1.0)], lambda: torch_ref.arange(3.0)[torch_ref.tensor(1.0)])
    assert_same_error(lambda: x[minitorch.tensor(3)], lambda: torch_ref.arange(3.0)[torch_ref.tensor(3)])


def test_setitem_drops_leading_ones_of_the_value_as_torch(backend: str, torch_ref) -> None:
    ours_x, torch_x = minitorch.zeros(3, 2), torch_ref.zeros(3, 2)
    ours_x[0] = minitorch.ones(1, 1, 2)
    torch_x[0] = torch_ref.ones(1, 1, 2)
    assert ours_x.tolist() == torch_x.tolist()
    # only ones are dropped: a (2, 1) value still does not fit one element (PyTorch: RuntimeError too)
    assert isinstance(raised(lambda: minitorch.zeros(3).__setitem__(0, minitorch.ones(2, 1))), RuntimeError)


def test_one_hot_of_an_empty_tensor_needs_a_positive_class_count(torch_ref) -> None:
    assert_same_error(lambda: F.one_hot(minitorch.zeros(4, 0, dtype=minitorch.int64), 0),
                      lambda: torch_ref.nn.functional.one_hot(torch_ref.zeros(4, 0, dtype=torch_ref.int64), 0))
    assert F.one_hot(minitorch.zeros(4, 0, dtype=minitorch.int64), 3).shape == (4, 0, 3)
