"""embedding_bag / EmbeddingBag and Embedding's max_norm against PyTorch in float64: outputs and
gradients of the table and per-sample weights for every mode, with offsets, 2-D bags, empty bags,
include_last_offset and padding_idx; the in-place renormalisation of looked-up rows; errors."""

from __future__ import annotations

from typing import Any, Optional

import numpy as np
import pytest
from layer_helpers import assert_close, ours, theirs

import minitorch
import minitorch.nn.functional as F

EXACT = {"atol": 1e-13, "rtol": 1e-12}
MODES = ["sum", "mean", "max"]
INDICES = np.array([1, 2, 4, 5, 4, 3, 2, 9, 1, 1])
TABLE_SHAPE = (10, 3)


def table(seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(TABLE_SHAPE)


def compare_bags(torch_ref: Any, indices: np.ndarray, offsets: Optional[np.ndarray], mode: str,
                 per_sample: Optional[np.ndarray] = None, **options: Any) -> None:
    """Same output, and same gradients of the table (and per-sample weights) under a random weighting."""
    weight, weight_t = ours(table(), grad=True), theirs(torch_ref, table(), grad=True)
    psw = None if per_sample is None else ours(per_sample, grad=True)
    psw_t = None if per_sample is None else theirs(torch_ref, per_sample, grad=True)
    out = F.embedding_bag(ours(indices), weight, None if offsets is None else ours(offsets), mode=mode,
                          per_sample_weights=psw, **options)
    expected = torch_ref.nn.functional.embedding_bag(
        theirs(torch_ref, indices), weight_t, None if offsets is None else theirs(torch_ref, offsets), mode=mode,
        per_sample_weights=psw_t, **options)
    assert_close(out, expected, **EXACT)
    if not expected.numel():
        return
    grad = np.random.default_rng(1).standard_normal(tuple(expected.shape))
    (out * ours(grad)).sum().backward()
    (expected * torch_ref.tensor(grad)).sum().backward()
    assert_close(weight.grad, weight_t.grad, what="table gradient", **EXACT)
    if psw is not None:
        assert_close(psw.grad, psw_t.grad, what="per_sample_weights gradient", **EXACT)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("offsets", [[0, 4], [0, 3, 3, 7], [0], [0, 10]], ids=["two", "empty_bag", "one", "last_empty"])
def test_offsets_match_torch(torch_ref: Any, mode: str, offsets: list) -> None:
    compare_bags(torch_ref, INDICES, np.array(offsets), mode)


@pytest.mark.parametrize("mode", MODES)
def test_2d_bags_match_torch(torch_ref: Any, mode: str) -> None:
    compare_bags(torch_ref, INDICES.reshape(5, 2), None, mode)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("padding_idx", [1, -6])
def test_padding_idx_left_out_of_bags(torch_ref: Any, mode: str, padding_idx: int) -> None:
    # the last bag holds only padding: zeros, and no gradient reaches the padding row
    compare_bags(torch_ref, INDICES, np.array([0, 3, 8]), mode, padding_idx=padding_idx)


@pytest.mark.parametrize("mode", MODES)
def test_include_last_offset(torch_ref: Any, mode: str) -> None:
    """The last offset is the input's length, as documented. (With a shorter one torch's float64 and
    float32 kernels disagree; here the last bag ends at the last offset, as in torch's float32.)"""
    compare_bags(torch_ref, INDICES, np.array([0, 2, 2, 10]), mode, include_last_offset=True)


@pytest.mark.parametrize("offsets", [np.array([0, 4]), None])
def test_per_sample_weights(torch_ref: Any, offsets: Optional[np.ndarray]) -> None:
    indices = INDICES if offsets is not None else INDICES.reshape(2, 5)
    per_sample = np.random.default_rng(2).standard_normal(indices.shape)
    compare_bags(torch_ref, indices, offsets, "sum", per_sample, padding_idx=4)


def test_mean_by_hand() -> None:
    w = table()
    out = F.embedding_bag(ours(np.array([0, 2, 2, 7])), ours(w), ours(np.array([0, 1])))
    np.testing.assert_allclose(out.numpy(), [w[0], (2 * w[2] + w[7]) / 3], rtol=1e-15)


def test_no_bags() -> None:
    """No offsets (or only the closing one): a (0, dim) result, as torch's (whose float64 kernel
    crashes on this input, so it is not called here)."""
    for offsets, last in ((np.array([], dtype=np.int64), False), (np.array([0]), True)):
        out = F.embedding_bag(ours(INDICES), ours(table()), ours(offsets), include_last_offset=last)
        assert tuple(out.shape) == (0, 3) and out.dtype is minitorch.float64


def test_module_matches_torch(torch_ref: Any) -> None:
    mine = minitorch.nn.EmbeddingBag(10, 3, mode="max", padding_idx=1, max_norm=2.0, norm_type=3.0)
    ref = torch_ref.nn.EmbeddingBag(10, 3, mode="max", padding_idx=1, max_norm=2.0, norm_type=3.0)
    assert repr(mine) == repr(ref)
    assert np.all(mine.weight.detach().numpy()[1] == 0)  # padding row starts at zero
    bag = minitorch.nn.EmbeddingBag.from_pretrained(ours(table()), mode="sum")
    bag_t = torch_ref.nn.EmbeddingBag.from_pretrained(theirs(torch_ref, table()), mode="sum")
    assert not bag.weight.requires_grad
    assert_close(bag(ours(INDICES), ours(np.array([0, 5]))), bag_t(theirs(torch_ref, INDICES),
                                                                    theirs(torch_ref, np.array([0, 5]))), **EXACT)
    assert [name for name, _ in mine.named_parameters()] == ["weight"]


# ---- max_norm: rows renormalised in place ----

@pytest.mark.parametrize("norm_type", [2.0, 1.0, 3.0])
def test_embedding_max_norm_renormalises_rows_in_place(torch_ref: Any, norm_type: float) -> None:
    w = table() * 2
    weight, weight_t = ours(w, grad=True), theirs(torch_ref, w, grad=True)
    indices = np.array([[1, 4, 4], [7, 0, 1]])
    out = F.embedding(ours(indices), weight, max_norm=1.5, norm_type=norm_type)
    expected = torch_ref.nn.functional.embedding(theirs(torch_ref, indices), weight_t, max_norm=1.5,
                                                 norm_type=norm_type)
    assert_close(out, expected, **EXACT)
    assert_close(weight, weight_t, what="renormalised table", **EXACT)  # rows 0, 1, 4, 7 shrunk; others kept
    untouched = [2, 3, 5, 6, 8, 9]
    np.testing.assert_array_equal(weight.detach().numpy()[untouched], w[untouched])
    norms = np.linalg.norm(weight.detach().numpy()[[0, 1, 4, 7]], ord=norm_type, axis=1)
    assert np.all(norms <= 1.5)
    grad = np.random.default_rng(1).standard_normal(tuple(expected.shape))
    (out * ours(grad)).sum().backward()
    (expected * torch_ref.tensor(grad)).sum().backward()
    assert_close(weight.grad, weight_t.grad, what="table gradient", **EXACT)


def test_embedding_module_max_norm(torch_ref: Any) -> None:
    mine = minitorch.nn.Embedding.from_pretrained(ours(table() * 3), freeze=False, max_norm=1.0)
    ref = torch_ref.nn.Embedding.from_pretrained(theirs(torch_ref, table() * 3), freeze=False, max_norm=1.0)
    indices = np.array([3, 3, 8])
    assert_close(mine(ours(indices)), ref(theirs(torch_ref, indices)), **EXACT)
    assert_close(mine.weight, ref.weight, what="renormalised table", **EXACT)
    assert mine.weight.is_leaf and mine.weight.grad_fn is None


def test_embedding_bag_max_norm(torch_ref: Any) -> None:
    compare_bags(torch_ref, INDICES, np.array([0, 4]), "mean", max_norm=0.8)


# ---- errors ----

def _call(lib: Any, indices: Any, weight: Any, offsets: Any, **options: Any) -> Any:
    def convert(value: Any) -> Any:
        if value is None or not isinstance(value, np.ndarray):
            return value
        return ours(value) if lib is minitorch else theirs(lib, value)
    functional = F if lib is minitorch else lib.nn.functional
    options = {key: convert(value) for key, value in options.items()}
    return lambda: functional.embedding_bag(convert(indices), convert(weight), convert(offsets), **options)


ERRORS = {
    "mode": (INDICES, table(), np.array([0, 4]), {"mode": "median"}),
    "no_offsets": (INDICES, table(), None, {}),
    "2d_with_offsets": (INDICES.reshape(2, 5), table(), np.array([0, 4]), {}),
    "offsets_2d": (INDICES, table(), np.array([[0, 4]]), {}),
    "per_sample_shape": (INDICES, table(), np.array([0, 4]), {"mode": "sum", "per_sample_weights": np.ones(7)}),
    "first_offset": (INDICES, table(), np.array([1, 4]), {}),
    "last_offset": (INDICES, table(), np.array([0, 11]), {}),
    "float_indices": (INDICES.astype(np.float64), table(), np.array([0, 4]), {}),
    "weight_1d": (INDICES, table()[0], np.array([0, 4]), {}),
    "padding_idx": (INDICES, table(), np.array([0, 4]), {"padding_idx": 10}),
    "input_3d": (INDICES[:8].reshape(2, 2, 2), table(), None, {}),
}


def message(error: BaseException) -> str:
    """An error's text with torch's names read as minitorch's, and torch's trailing tensor dump cut."""
    text = str(error).split("\n[ torch.")[0]
    return text.replace("torch.", "minitorch.")


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_errors_as_torch(torch_ref: Any, case: str) -> None:
    indices, weight, offsets, options = ERRORS[case]
    with pytest.raises(Exception) as ours_error:
        _call(minitorch, indices, weight, offsets, **options)()
    with pytest.raises(Exception) as torch_error:
        _call(torch_ref, indices, weight, offsets, **options)()
    assert type(ours_error.value).__name__ == type(torch_error.value).__name__
    assert str(ours_error.value) == message(torch_error.value)


def test_per_sample_weights_only_for_sum(torch_ref: Any) -> None:
    options = {"per_sample_weights": np.ones(10)}
    with pytest.raises(NotImplementedError) as ours_error:
        _call(minitorch, INDICES, table(), np.array([0, 4]), **options)()
    with pytest.raises(NotImplementedError) as torch_error:
        _call(torch_ref, INDICES, table(), np.array([0, 4]), **options)()
    assert str(ours_error.value) == str(torch_error.value)


def test_errors_where_torch_is_unclear() -> None:
    """Out-of-range indices and decreasing offsets: torch's float64 messages name no position or
    range; ours are worded as its float32 kernel's."""
    with pytest.raises(RuntimeError, match=r"Index 2 of input takes value 14 which is not in the valid range \[0, 10\)"):
        F.embedding_bag(ours(INDICES + 10 * (INDICES > 3)), ours(table()), ours(np.array([0, 4])))
    with pytest.raises(RuntimeError, match=r"Index 0 of input takes value -1 which is not in the valid range"):
        F.embedding_bag(ours(INDICES - 2), ours(table()), ours(np.array([0, 4])))
    with pytest.raises(RuntimeError, match=r"offsets must be non-decreasing, but got \[0, 5, 3\]"):
        F.embedding_bag(ours(INDICES), ours(table()), ours(np.array([0, 5, 3])))
    with pytest.raises(AssertionError, match="padding_idx must be within num_embeddings"):
        minitorch.nn.EmbeddingBag(10, 3, padding_idx=11)
