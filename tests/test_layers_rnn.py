"""Recurrent layers (``RNN``, ``LSTM``, ``GRU``, their cells) and ``nn.utils.rnn`` against PyTorch.

Both frameworks get the same weights (through ``state_dict``) and inputs in float64; outputs,
final states and the gradients of inputs, initial states and every parameter must agree.
The time-loop Functions are also checked against central differences, a packed batch
against each of its sequences run alone, and the errors against PyTorch's wording.
"""

from __future__ import annotations

import math
import warnings
from typing import Any, Callable, Optional

import numpy as np
import pytest
from gradcheck import gradcheck
from hypothesis import given, settings
from hypothesis import strategies as st
from layer_helpers import assert_close, assert_same_error, ours, raised, theirs, values

import minitorch
import minitorch.nn as nn
from minitorch.nn.modules._rnn_scan import GRUScan, LSTMScan, RNNScan
from minitorch.nn.utils import rnn as rnn_utils

INPUT, HIDDEN, STEPS, BATCH = 3, 4, 4, 3
F64 = minitorch.float64

LAYER_CASES = {
    "rnn_tanh": ("RNN", {}),
    "rnn_relu_2_layers": ("RNN", {"nonlinearity": "relu", "num_layers": 2}),
    "rnn_bidirectional_batch_first": ("RNN", {"bidirectional": True, "batch_first": True}),
    "rnn_no_bias": ("RNN", {"bias": False}),
    "gru": ("GRU", {}),
    "gru_2_layers_bidirectional": ("GRU", {"num_layers": 2, "bidirectional": True}),
    "gru_batch_first_no_bias": ("GRU", {"batch_first": True, "bias": False}),
    "lstm": ("LSTM", {}),
    "lstm_2_layers_bidirectional": ("LSTM", {"num_layers": 2, "bidirectional": True}),
    "lstm_batch_first_no_bias": ("LSTM", {"batch_first": True, "bias": False}),
    "lstm_proj": ("LSTM", {"proj_size": 2}),
    "lstm_proj_2_layers_bidirectional_batch_first": (
        "LSTM", {"proj_size": 2, "num_layers": 2, "bidirectional": True, "batch_first": True},
    ),
}


def pair(torch: Any, kind: str, *args: Any, **kwargs: Any) -> tuple[Any, Any]:
    """A minitorch module and a PyTorch one of ``kind``, with PyTorch's (float64) weights in both."""
    torch.manual_seed(0)
    ref = getattr(torch.nn, kind)(*args, **kwargs).double()
    mine = getattr(nn, kind)(*args, **kwargs).double()
    mine.load_state_dict({k: minitorch.tensor(v.detach().numpy()) for k, v in ref.state_dict().items()})
    return mine, ref


def state_shapes(ref: Any, batch: Optional[int]) -> list[tuple[int, ...]]:
    """Shapes of the initial state(s) of PyTorch's layer ``ref`` (``batch=None``: unbatched)."""
    directions = 2 if ref.bidirectional else 1
    lead = (ref.num_layers * directions,)
    batch_dim = () if batch is None else (batch,)
    real = ref.proj_size if getattr(ref, "proj_size", 0) else ref.hidden_size
    shapes = [lead + batch_dim + (real,)]
    if type(ref).__name__ == "LSTM":
        shapes.append(lead + batch_dim + (ref.hidden_size,))
    return shapes


def as_state(tensors: list[Any], lstm: bool) -> Any:
    if not tensors:
        return None
    return tuple(tensors) if lstm else tensors[0]


def flat(result: Any) -> list[Any]:
    """The tensors of a layer's result ``(output, state)``, a packed output as its data."""
    out, state = result if isinstance(result, tuple) and len(result) == 2 and not hasattr(result, "batch_sizes") else (result, ())
    out = out.data if hasattr(out, "batch_sizes") else out
    state = list(state) if isinstance(state, tuple) else [state]
    return [out, *state]


def backward_both(torch: Any, mine: list[Any], ref: list[Any], seed: int = 0) -> None:
    """Backpropagate the same random weighting of every output tensor in both frameworks."""
    rng = np.random.default_rng(seed)
    weights = [rng.standard_normal(tuple(t.shape)) for t in ref]
    sum(((m * ours(w)).sum() for m, w in zip(mine, weights)), ours(np.zeros(()))).backward()
    sum(((t * torch.tensor(w)).sum() for t, w in zip(ref, weights)), torch.tensor(0.0, dtype=torch.float64)).backward()


def assert_same_results(mine_result: Any, ref_result: Any) -> None:
    for k, (m, t) in enumerate(zip(flat(mine_result), flat(ref_result))):
        assert_close(m, t, what="output" if k == 0 else f"state {k - 1}")


def assert_same_param_grads(mine: Any, ref: Any) -> None:
    ref_params = dict(ref.named_parameters())
    for name, param in mine.named_parameters():
        assert param.grad is not None, f"{name} got no gradient"
        assert_close(param.grad, ref_params[name].grad, what=f"gradient of {name}")


def check_layer(torch: Any, mine: Any, ref: Any, x: np.ndarray, states: list[np.ndarray]) -> None:
    """Outputs, states and gradients (input, initial states, parameters) of one call agree."""
    lstm = type(ref).__name__ == "LSTM"
    leaves = [ours(x, True)] + [ours(s, True) for s in states]
    ref_leaves = [theirs(torch, x, True)] + [theirs(torch, s, True) for s in states]
    result = mine(leaves[0], as_state(leaves[1:], lstm))
    expected = ref(ref_leaves[0], as_state(ref_leaves[1:], lstm))
    assert_same_results(result, expected)
    backward_both(torch, flat(result), flat(expected))
    for k, (m, t) in enumerate(zip(leaves, ref_leaves)):
        assert_close(m.grad, t.grad, what="gradient of the input" if k == 0 else f"gradient of initial state {k - 1}")
    assert_same_param_grads(mine, ref)


# ---- layers: values and gradients against PyTorch ----


@pytest.mark.parametrize("with_state", [False, True], ids=["zero_state", "given_state"])
@pytest.mark.parametrize("case", sorted(LAYER_CASES))
def test_layer_matches_torch(torch_ref: Any, case: str, with_state: bool) -> None:
    kind, kwargs = LAYER_CASES[case]
    mine, ref = pair(torch_ref, kind, INPUT, HIDDEN, **kwargs)
    rng = np.random.default_rng(1)
    shape = (BATCH, STEPS, INPUT) if kwargs.get("batch_first") else (STEPS, BATCH, INPUT)
    states = [rng.standard_normal(s) for s in state_shapes(ref, BATCH)] if with_state else []
    check_layer(torch_ref, mine, ref, rng.standard_normal(shape), states)


@pytest.mark.parametrize("kind", ["RNN", "GRU", "LSTM"])
def test_layer_matches_torch_on_every_backend(backend: str, torch_ref: Any, kind: str) -> None:
    """The time loop uses only tensor ops: the pure-Python backend computes the same."""
    mine, ref = pair(torch_ref, kind, 2, 3, bidirectional=True)
    rng = np.random.default_rng(2)
    check_layer(torch_ref, mine, ref, rng.standard_normal((3, 2, 2)), [rng.standard_normal(s) for s in state_shapes(ref, 2)])


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("with_state", [False, True], ids=["zero_state", "given_state"])
@pytest.mark.parametrize("kind", ["RNN", "GRU", "LSTM"])
def test_unbatched_input_matches_torch(torch_ref: Any, kind: str, with_state: bool, batch_first: bool) -> None:
    kwargs = {"proj_size": 2} if kind == "LSTM" else {}
    mine, ref = pair(torch_ref, kind, INPUT, HIDDEN, num_layers=2, batch_first=batch_first, **kwargs)
    rng = np.random.default_rng(3)
    states = [rng.standard_normal(s) for s in state_shapes(ref, None)] if with_state else []
    check_layer(torch_ref, mine, ref, rng.standard_normal((STEPS, INPUT)), states)


@pytest.mark.parametrize("kind", ["RNN", "GRU", "LSTM"])
def test_empty_batch_gives_torchs_shapes(torch_ref: Any, kind: str) -> None:
    mine, ref = pair(torch_ref, kind, INPUT, HIDDEN, bidirectional=True)
    x = minitorch.zeros(STEPS, 0, INPUT, dtype=F64, requires_grad=True)
    result, expected = mine(x), ref(torch_ref.zeros(STEPS, 0, INPUT, dtype=torch_ref.float64))
    assert [tuple(t.shape) for t in flat(result)] == [tuple(t.shape) for t in flat(expected)]
    sum((t.sum() for t in flat(result)), minitorch.zeros((), dtype=F64)).backward()
    assert x.grad.shape == x.shape


def test_relu_rnn_differs_from_tanh_and_matches_torch(torch_ref: Any) -> None:
    """Inputs large enough that ReLU and tanh disagree: the nonlinearity really is applied."""
    mine, ref = pair(torch_ref, "RNN", INPUT, HIDDEN, nonlinearity="relu")
    x = np.random.default_rng(4).standard_normal((STEPS, BATCH, INPUT)) * 3
    out, _ = mine(ours(x))
    assert_close(out, ref(theirs(torch_ref, x))[0])
    assert (values(out) > 1).any() and (values(out) == 0).any()


def test_cells_keep_no_state_between_calls(torch_ref: Any) -> None:
    """A layer called twice on the same input gives the same output (no hidden state is kept)."""
    mine, _ = pair(torch_ref, "LSTM", INPUT, HIDDEN)
    x = ours(np.random.default_rng(5).standard_normal((STEPS, BATCH, INPUT)))
    assert_close(mine(x)[0], mine(x)[0], atol=0, rtol=0)


# ---- packed sequences through the layers ----


PACKED_CASES = {
    "rnn_tanh": ("RNN", {}),
    "rnn_relu_bidirectional": ("RNN", {"nonlinearity": "relu", "bidirectional": True}),
    "gru_2_layers_bidirectional": ("GRU", {"num_layers": 2, "bidirectional": True}),
    "lstm": ("LSTM", {}),
    "lstm_proj_2_layers_bidirectional": ("LSTM", {"proj_size": 2, "num_layers": 2, "bidirectional": True}),
}


@pytest.mark.parametrize("with_state", [False, True], ids=["zero_state", "given_state"])
@pytest.mark.parametrize("case", sorted(PACKED_CASES))
def test_packed_input_with_unsorted_lengths_matches_torch(torch_ref: Any, case: str, with_state: bool) -> None:
    kind, kwargs = PACKED_CASES[case]
    mine, ref = pair(torch_ref, kind, INPUT, HIDDEN, **kwargs)
    rng = np.random.default_rng(6)
    lengths = [2, 4, 1, 3]
    seqs = [rng.standard_normal((n, INPUT)) for n in lengths]
    states = [rng.standard_normal(s) for s in state_shapes(ref, len(lengths))] if with_state else []
    leaves = [ours(s, True) for s in seqs] + [ours(s, True) for s in states]
    ref_leaves = [theirs(torch_ref, s, True) for s in seqs] + [theirs(torch_ref, s, True) for s in states]
    lstm = kind == "LSTM"
    packed = rnn_utils.pack_sequence(leaves[: len(seqs)], enforce_sorted=False)
    ref_packed = torch_ref.nn.utils.rnn.pack_sequence(ref_leaves[: len(seqs)], enforce_sorted=False)
    out, state = mine(packed, as_state(leaves[len(seqs):], lstm))
    expected, expected_state = ref(ref_packed, as_state(ref_leaves[len(seqs):], lstm))
    assert isinstance(out, rnn_utils.PackedSequence)
    for field in ("batch_sizes", "sorted_indices", "unsorted_indices"):
        assert getattr(out, field).tolist() == getattr(expected, field).tolist(), field
    assert_same_results((out, state), (expected, expected_state))
    padded, out_lengths = rnn_utils.pad_packed_sequence(out, batch_first=True)
    ref_padded, _ = torch_ref.nn.utils.rnn.pad_packed_sequence(expected, batch_first=True)
    assert out_lengths.tolist() == lengths
    assert_close(padded, ref_padded, what="padded output")
    state_list = list(state) if lstm else [state]
    ref_state_list = list(expected_state) if lstm else [expected_state]
    backward_both(torch_ref, [padded, *state_list], [ref_padded, *ref_state_list])
    for k, (m, t) in enumerate(zip(leaves, ref_leaves)):
        assert_close(m.grad, t.grad, what=f"gradient of leaf {k}")
    assert_same_param_grads(mine, ref)


@pytest.mark.parametrize("kind", ["GRU", "LSTM"])
def test_packed_batch_equals_each_sequence_alone(torch_ref: Any, kind: str) -> None:
    """Independent of PyTorch: a sequence's output and final state do not depend on its batch mates."""
    mine, _ = pair(torch_ref, kind, INPUT, HIDDEN, bidirectional=True, num_layers=2)
    rng = np.random.default_rng(7)
    seqs = [ours(rng.standard_normal((n, INPUT))) for n in (3, 1, 4)]
    out, state = mine(rnn_utils.pack_sequence(seqs, enforce_sorted=False))
    padded, _ = rnn_utils.pad_packed_sequence(out)
    states = state if isinstance(state, tuple) else (state,)
    for b, seq in enumerate(seqs):
        alone, alone_state = mine(seq.unsqueeze(1))
        alone_states = alone_state if isinstance(alone_state, tuple) else (alone_state,)
        assert_close(padded[: seq.shape[0], b], alone[:, 0], what=f"output of sequence {b}")
        for s, a in zip(states, alone_states):
            assert_close(s[:, b], a[:, 0], what=f"final state of sequence {b}")


# ---- cells ----


CELL_CASES = {
    "rnn_cell_tanh": ("RNNCell", {}),
    "rnn_cell_relu_no_bias": ("RNNCell", {"nonlinearity": "relu", "bias": False}),
    "lstm_cell": ("LSTMCell", {}),
    "lstm_cell_no_bias": ("LSTMCell", {"bias": False}),
    "gru_cell": ("GRUCell", {}),
    "gru_cell_no_bias": ("GRUCell", {"bias": False}),
}


@pytest.mark.parametrize("batched", [True, False], ids=["batched", "unbatched"])
@pytest.mark.parametrize("with_state", [False, True], ids=["zero_state", "given_state"])
@pytest.mark.parametrize("case", sorted(CELL_CASES))
def test_cell_matches_torch(torch_ref: Any, case: str, with_state: bool, batched: bool) -> None:
    kind, kwargs = CELL_CASES[case]
    mine, ref = pair(torch_ref, kind, INPUT, HIDDEN, **kwargs)
    rng = np.random.default_rng(8)
    lead = (BATCH,) if batched else ()
    x = rng.standard_normal(lead + (INPUT,))
    states = [rng.standard_normal(lead + (HIDDEN,)) for _ in range(2 if kind == "LSTMCell" else 1)] if with_state else []
    leaves = [ours(x, True)] + [ours(s, True) for s in states]
    ref_leaves = [theirs(torch_ref, x, True)] + [theirs(torch_ref, s, True) for s in states]
    lstm = kind == "LSTMCell"
    result = mine(leaves[0], as_state(leaves[1:], lstm))
    expected = ref(ref_leaves[0], as_state(ref_leaves[1:], lstm))
    results = list(result) if lstm else [result]
    expected_list = list(expected) if lstm else [expected]
    for m, t in zip(results, expected_list):
        assert_close(m, t)
    backward_both(torch_ref, results, expected_list)
    for k, (m, t) in enumerate(zip(leaves, ref_leaves)):
        assert_close(m.grad, t.grad, what=f"gradient of leaf {k}")
    assert_same_param_grads(mine, ref)


def test_lstm_cell_loop_equals_lstm_layer(torch_ref: Any) -> None:
    """An LSTMCell stepped by hand over a sequence gives the LSTM layer's outputs (same weights)."""
    layer, _ = pair(torch_ref, "LSTM", INPUT, HIDDEN)
    cell = nn.LSTMCell(INPUT, HIDDEN).double()
    cell.load_state_dict({name[: -len("_l0")]: value for name, value in layer.state_dict().items()})
    x = ours(np.random.default_rng(9).standard_normal((STEPS, BATCH, INPUT)))
    out, (h_n, c_n) = layer(x)
    state = None
    for t in range(STEPS):
        state = cell(x[t], state)
        assert_close(state[0], out[t], what=f"step {t}")
    assert_close(state[0], h_n[0])
    assert_close(state[1], c_n[0])


# ---- central differences ----


def test_lstm_scan_gradcheck_with_projection_mask_and_reverse() -> None:
    rng = np.random.default_rng(10)
    steps, batch, size, proj = 3, 2, 2, 1
    mask = minitorch.tensor(np.array([[1, 1], [1, 0], [0, 0]], dtype=np.float64)[:, :, None])
    leaves = [ours(rng.standard_normal(s), True) for s in
              ((steps, batch, 4 * size), (4 * size, proj), (proj, size), (batch, proj), (batch, size))]
    for reverse in (False, True):
        gradcheck(lambda xw, w_hh, w_hr, h0, c0: LSTMScan.apply(xw, w_hh, w_hr, h0, c0, mask, reverse=reverse), *leaves)


def test_gru_scan_gradcheck_with_mask() -> None:
    rng = np.random.default_rng(11)
    steps, batch, size = 3, 2, 2
    mask = minitorch.tensor(np.array([[1, 1], [1, 1], [1, 0]], dtype=np.float64)[:, :, None])
    leaves = [ours(rng.standard_normal(s), True) for s in
              ((steps, batch, 3 * size), (3 * size, size), (3 * size,), (batch, size))]
    for reverse in (False, True):
        gradcheck(lambda xw, w_hh, b_hh, h0: GRUScan.apply(xw, w_hh, b_hh, h0, mask, reverse=reverse), *leaves)


def test_rnn_scan_gradcheck() -> None:
    rng = np.random.default_rng(12)
    steps, batch, size = 3, 2, 3
    leaves = [ours(rng.standard_normal(s), True) for s in ((steps, batch, size), (size, size), (batch, size))]
    for reverse in (False, True):
        gradcheck(lambda xw, w_hh, h0: RNNScan.apply(xw, w_hh, h0, None, reverse=reverse, nonlinearity="tanh"), *leaves)


def test_packed_bidirectional_lstm_gradcheck() -> None:
    """Through pack_sequence, a packed projected bidirectional LSTM and pad_packed_sequence."""
    minitorch.manual_seed(1)
    layer = nn.LSTM(2, 2, proj_size=1, bidirectional=True).double()
    rng = np.random.default_rng(13)
    a, b = ours(rng.standard_normal((1, 2)), True), ours(rng.standard_normal((3, 2)), True)
    h0, c0 = ours(rng.standard_normal((2, 2, 1)), True), ours(rng.standard_normal((2, 2, 2)), True)

    def run(a: minitorch.Tensor, b: minitorch.Tensor, h0: minitorch.Tensor, c0: minitorch.Tensor) -> minitorch.Tensor:
        out, (h_n, c_n) = layer(rnn_utils.pack_sequence([a, b], enforce_sorted=False), (h0, c0))
        padded, _ = rnn_utils.pad_packed_sequence(out, padding_value=0.5)
        return minitorch.cat([padded.reshape(-1), h_n.reshape(-1), c_n.reshape(-1)])

    gradcheck(run, a, b, h0, c0)


# ---- parameters: names, shapes, initialisation, state_dict both ways ----


@pytest.mark.parametrize("case", sorted(LAYER_CASES))
def test_state_dict_keys_and_shapes_equal_torch(torch_ref: Any, case: str) -> None:
    kind, kwargs = LAYER_CASES[case]
    mine = getattr(nn, kind)(INPUT, HIDDEN, **kwargs)
    ref = getattr(torch_ref.nn, kind)(INPUT, HIDDEN, **kwargs)
    assert list(mine.state_dict()) == list(ref.state_dict())
    for (name, p), (_, t) in zip(mine.state_dict().items(), ref.state_dict().items()):
        assert tuple(p.shape) == tuple(t.shape), name


@pytest.mark.parametrize("kind", ["RNNCell", "LSTMCell", "GRUCell"])
def test_cell_state_dict_keys_equal_torch(torch_ref: Any, kind: str) -> None:
    for bias in (True, False):
        mine, ref = getattr(nn, kind)(INPUT, HIDDEN, bias=bias), getattr(torch_ref.nn, kind)(INPUT, HIDDEN, bias=bias)
        assert [(k, tuple(v.shape)) for k, v in mine.state_dict().items()] == [
            (k, tuple(v.shape)) for k, v in ref.state_dict().items()
        ]


def test_minitorch_state_dict_loads_into_torch(torch_ref: Any) -> None:
    """The other direction: minitorch's own initial weights, loaded into PyTorch (strict), give its outputs."""
    minitorch.manual_seed(3)
    mine = nn.LSTM(INPUT, HIDDEN, num_layers=2, bidirectional=True, proj_size=2).double()
    ref = torch_ref.nn.LSTM(INPUT, HIDDEN, num_layers=2, bidirectional=True, proj_size=2).double()
    ref.load_state_dict({k: torch_ref.tensor(values(v)) for k, v in mine.state_dict().items()}, strict=True)
    x = np.random.default_rng(14).standard_normal((STEPS, BATCH, INPUT))
    assert_same_results(mine(ours(x)), ref(theirs(torch_ref, x)))


@pytest.mark.parametrize("kind", ["RNN", "GRU", "LSTM", "RNNCell", "LSTMCell", "GRUCell"])
def test_initialisation_is_uniform_within_one_over_sqrt_hidden(kind: str) -> None:
    hidden = 16
    bound = 1 / math.sqrt(hidden)
    kwargs = {"proj_size": 4} if kind == "LSTM" else {}
    module = getattr(nn, kind)(8, hidden, **kwargs)
    everything = np.concatenate([values(p).reshape(-1) for p in module.parameters()])
    assert np.all(np.abs(everything) <= bound)
    # hundreds of uniform draws: they reach close to both ends and centre on zero
    assert everything.max() > 0.9 * bound and everything.min() < -0.9 * bound
    assert abs(everything.mean()) < 0.1 * bound
    for p in module.parameters():  # not one value repeated
        assert len(np.unique(values(p))) == p.numel()


def test_all_weights_and_repr_match_torch(torch_ref: Any) -> None:
    for kind, kwargs in [("LSTM", {"num_layers": 2, "bias": False, "batch_first": True, "dropout": 0.5,
                                   "bidirectional": True, "proj_size": 2}),
                         ("GRU", {"bidirectional": True}), ("RNN", {"nonlinearity": "relu"})]:
        mine, ref = getattr(nn, kind)(INPUT, HIDDEN, **kwargs), getattr(torch_ref.nn, kind)(INPUT, HIDDEN, **kwargs)
        assert repr(mine) == repr(ref)
        assert [[tuple(p.shape) for p in group] for group in mine.all_weights] == [
            [tuple(p.shape) for p in group] for group in ref.all_weights
        ]
    for kind, kwargs in [("RNNCell", {"bias": False, "nonlinearity": "relu"}), ("LSTMCell", {}), ("GRUCell", {})]:
        assert repr(getattr(nn, kind)(INPUT, HIDDEN, **kwargs)) == repr(getattr(torch_ref.nn, kind)(INPUT, HIDDEN, **kwargs))


# ---- dropout between layers ----


@pytest.mark.parametrize("kind", ["RNN", "GRU", "LSTM"])
def test_dropout_one_zeroes_the_input_of_every_layer_but_the_first(torch_ref: Any, kind: str) -> None:
    """With p = 1 dropout is deterministic: in training, layers 2 and 3 see zeros (PyTorch's result too)."""
    mine, ref = pair(torch_ref, kind, INPUT, HIDDEN, num_layers=3, dropout=1.0)
    x = np.random.default_rng(15).standard_normal((STEPS, BATCH, INPUT))
    assert mine.training and ref.training
    result, expected = mine(ours(x)), ref(theirs(torch_ref, x))
    assert_same_results(result, expected)
    mine.eval()
    ref.eval()
    assert_same_results(mine(ours(x)), ref(theirs(torch_ref, x)))
    assert not np.allclose(values(mine(ours(x))[0]), values(result[0]))


def test_dropout_is_random_in_training_and_off_in_eval(torch_ref: Any) -> None:
    mine, _ = pair(torch_ref, "GRU", INPUT, HIDDEN, num_layers=2, dropout=0.5)
    x = ours(np.random.default_rng(16).standard_normal((STEPS, BATCH, INPUT)))
    first, second = values(mine(x)[0]), values(mine(x)[0])
    assert not np.allclose(first, second)
    mine.eval()
    assert np.array_equal(values(mine(x)[0]), values(mine(x)[0]))


def test_dropout_with_one_layer_warns_as_torch(torch_ref: Any) -> None:
    with pytest.warns(UserWarning) as ours_warned:
        nn.LSTM(INPUT, HIDDEN, dropout=0.3)
    with warnings.catch_warnings(record=True) as theirs_warned:
        warnings.simplefilter("always")
        torch_ref.nn.LSTM(INPUT, HIDDEN, dropout=0.3)
    assert str(ours_warned[0].message) == str(theirs_warned[0].message)


# ---- errors, in PyTorch's words ----


CONSTRUCTOR_ERRORS: dict[str, Callable[[Any], Any]] = {
    "unknown_nonlinearity": lambda nn_: nn_.RNN(4, 5, nonlinearity="sigmoid"),
    "proj_size_too_big": lambda nn_: nn_.LSTM(4, 5, proj_size=5),
    "proj_size_negative": lambda nn_: nn_.LSTM(4, 5, proj_size=-1),
    "proj_size_on_gru": lambda nn_: nn_.GRU(4, 5, proj_size=2),
    "proj_size_on_rnn": lambda nn_: nn_.RNN(4, 5, proj_size=2),
    "hidden_size_zero": lambda nn_: nn_.GRU(4, 0),
    "input_size_zero": lambda nn_: nn_.GRU(0, 4),
    "hidden_size_float": lambda nn_: nn_.LSTM(4, 5.0),
    "num_layers_zero": lambda nn_: nn_.RNN(4, 5, num_layers=0),
    "dropout_above_one": lambda nn_: nn_.RNN(4, 5, dropout=1.5),
    "dropout_bool": lambda nn_: nn_.RNN(4, 5, dropout=True),
    "bias_not_bool": lambda nn_: nn_.GRU(4, 5, bias=1),
    "batch_first_not_bool": lambda nn_: nn_.GRU(4, 5, batch_first=None),
}


@pytest.mark.parametrize("case", sorted(CONSTRUCTOR_ERRORS))
def test_constructor_errors_match_torch(torch_ref: Any, case: str) -> None:
    assert_same_error(lambda: CONSTRUCTOR_ERRORS[case](nn), lambda: CONSTRUCTOR_ERRORS[case](torch_ref.nn))


def _zeros(lib: Any, *shape: int) -> Any:
    return lib.zeros(*shape, dtype=lib.float64)


FORWARD_ERRORS: dict[str, tuple[str, dict[str, Any], Callable[[Any, Any], Any]]] = {
    "input_size": ("LSTM", {}, lambda lib, m: m(_zeros(lib, 3, 2, 6))),
    "input_4d": ("LSTM", {}, lambda lib, m: m(_zeros(lib, 3, 2, 2, 4))),
    "input_4d_rnn": ("RNN", {}, lambda lib, m: m(_zeros(lib, 3, 2, 2, 4))),
    "input_4d_gru": ("GRU", {}, lambda lib, m: m(_zeros(lib, 3, 2, 2, 4))),
    "hidden_batch": ("LSTM", {"num_layers": 2}, lambda lib, m: m(_zeros(lib, 3, 2, 4), (_zeros(lib, 2, 3, 5), _zeros(lib, 2, 2, 5)))),
    "cell_size": ("LSTM", {"num_layers": 2}, lambda lib, m: m(_zeros(lib, 3, 2, 4), (_zeros(lib, 2, 2, 5), _zeros(lib, 2, 2, 6)))),
    "hidden_layers": ("LSTM", {"num_layers": 2}, lambda lib, m: m(_zeros(lib, 3, 2, 4), (_zeros(lib, 1, 2, 5), _zeros(lib, 2, 2, 5)))),
    "proj_hidden": ("LSTM", {"proj_size": 2}, lambda lib, m: m(_zeros(lib, 3, 2, 4), (_zeros(lib, 1, 2, 5), _zeros(lib, 1, 2, 5)))),
    "lstm_unbatched_3d_state": ("LSTM", {}, lambda lib, m: m(_zeros(lib, 3, 4), (_zeros(lib, 1, 2, 5), _zeros(lib, 1, 2, 5)))),
    "lstm_batched_2d_state": ("LSTM", {}, lambda lib, m: m(_zeros(lib, 3, 2, 4), (_zeros(lib, 1, 5), _zeros(lib, 1, 5)))),
    "lstm_one_state": ("LSTM", {}, lambda lib, m: m(_zeros(lib, 3, 2, 4), (_zeros(lib, 1, 2, 5),))),
    "rnn_hidden_batch": ("RNN", {}, lambda lib, m: m(_zeros(lib, 3, 2, 4), _zeros(lib, 1, 3, 5))),
    "rnn_batched_2d_state": ("RNN", {}, lambda lib, m: m(_zeros(lib, 3, 2, 4), _zeros(lib, 3, 5))),
    "gru_unbatched_3d_state": ("GRU", {}, lambda lib, m: m(_zeros(lib, 3, 4), _zeros(lib, 1, 2, 5))),
    "gru_batch_first_hidden": ("GRU", {"batch_first": True}, lambda lib, m: m(_zeros(lib, 3, 2, 4), _zeros(lib, 1, 2, 5))),
    "empty_sequence": ("GRU", {}, lambda lib, m: m(_zeros(lib, 0, 2, 4))),
    "packed_3d_data": ("GRU", {}, lambda lib, m: m(lib.nn.utils.rnn.PackedSequence(_zeros(lib, 3, 3, 4), lib.tensor([2, 1])))),
    "packed_hidden_batch": ("GRU", {}, lambda lib, m: m(lib.nn.utils.rnn.pack_sequence([_zeros(lib, 2, 4), _zeros(lib, 1, 4)]),
                                                        _zeros(lib, 1, 3, 5))),
}


@pytest.mark.parametrize("case", sorted(FORWARD_ERRORS))
def test_forward_errors_match_torch(torch_ref: Any, case: str) -> None:
    kind, kwargs, call = FORWARD_ERRORS[case]
    mine = getattr(nn, kind)(4, 5, **kwargs).double()
    ref = getattr(torch_ref.nn, kind)(4, 5, **kwargs).double()
    assert_same_error(lambda: call(minitorch, mine), lambda: call(torch_ref, ref))


def test_input_dtype_error_matches_torch(torch_ref: Any) -> None:
    mine, ref = nn.GRU(4, 5).double(), torch_ref.nn.GRU(4, 5).double()
    ours_error = raised(lambda: mine(minitorch.zeros(3, 2, 4)))
    theirs_error = raised(lambda: ref(torch_ref.zeros(3, 2, 4)))
    assert type(ours_error) is type(theirs_error) is ValueError
    assert str(ours_error) == str(theirs_error).replace("torch.", "minitorch.")


CELL_ERRORS: dict[str, tuple[str, dict[str, Any], Callable[[Any, Any], Any]]] = {
    "input_size": ("LSTMCell", {}, lambda lib, m: m(_zeros(lib, 2, 6))),
    "input_3d": ("LSTMCell", {}, lambda lib, m: m(_zeros(lib, 2, 2, 4))),
    "hidden_batch": ("LSTMCell", {}, lambda lib, m: m(_zeros(lib, 2, 4), (_zeros(lib, 3, 5), _zeros(lib, 3, 5)))),
    "cell_batch": ("LSTMCell", {}, lambda lib, m: m(_zeros(lib, 2, 4), (_zeros(lib, 2, 5), _zeros(lib, 3, 5)))),
    "cell_size": ("LSTMCell", {}, lambda lib, m: m(_zeros(lib, 2, 4), (_zeros(lib, 2, 5), _zeros(lib, 2, 4)))),
    "three_states": ("LSTMCell", {}, lambda lib, m: m(_zeros(lib, 2, 4), (_zeros(lib, 2, 5),) * 3)),
    "state_3d": ("LSTMCell", {}, lambda lib, m: m(_zeros(lib, 2, 4), (_zeros(lib, 1, 2, 5), _zeros(lib, 2, 5)))),
    "unbatched_input_batched_state": ("LSTMCell", {}, lambda lib, m: m(_zeros(lib, 4), (_zeros(lib, 2, 5), _zeros(lib, 2, 5)))),
    "batched_input_unbatched_state": ("LSTMCell", {}, lambda lib, m: m(_zeros(lib, 2, 4), (_zeros(lib, 5), _zeros(lib, 5)))),
    "gru_input_size": ("GRUCell", {}, lambda lib, m: m(_zeros(lib, 2, 6))),
    "gru_hidden_size": ("GRUCell", {}, lambda lib, m: m(_zeros(lib, 2, 4), _zeros(lib, 2, 6))),
    "gru_hidden_3d": ("GRUCell", {}, lambda lib, m: m(_zeros(lib, 2, 4), _zeros(lib, 1, 2, 5))),
    "rnn_input_3d": ("RNNCell", {}, lambda lib, m: m(_zeros(lib, 2, 4, 1))),
    "rnn_hidden_batch": ("RNNCell", {}, lambda lib, m: m(_zeros(lib, 2, 4), _zeros(lib, 3, 5))),
    "rnn_unknown_nonlinearity": ("RNNCell", {"nonlinearity": "gelu"}, lambda lib, m: m(_zeros(lib, 2, 4))),
}


@pytest.mark.parametrize("case", sorted(CELL_ERRORS))
def test_cell_errors_match_torch(torch_ref: Any, case: str) -> None:
    kind, kwargs, call = CELL_ERRORS[case]
    mine = getattr(nn, kind)(4, 5, **kwargs).double()
    ref = getattr(torch_ref.nn, kind)(4, 5, **kwargs).double()
    assert_same_error(lambda: call(minitorch, mine), lambda: call(torch_ref, ref))


# ---- nn.utils.rnn ----


def test_utils_are_where_torch_has_them() -> None:
    assert nn.utils.rnn is rnn_utils
    for name in ("PackedSequence", "pad_sequence", "pack_padded_sequence", "pad_packed_sequence", "pack_sequence",
                 "unpad_sequence", "unpack_sequence", "invert_permutation"):
        assert callable(getattr(rnn_utils, name)), name
    from minitorch.nn.modules.rnn import GRUCell, LSTM  # PyTorch's module path for both layers and cells

    assert LSTM is nn.LSTM and GRUCell is nn.GRUCell


@pytest.mark.parametrize("padding_side", ["right", "left"])
@pytest.mark.parametrize("batch_first", [False, True])
def test_pad_sequence_matches_torch_with_gradients(torch_ref: Any, batch_first: bool, padding_side: str) -> None:
    rng = np.random.default_rng(17)
    seqs = [rng.standard_normal((n, 2, 3)) for n in (2, 4, 1)]
    leaves, ref_leaves = [ours(s, True) for s in seqs], [theirs(torch_ref, s, True) for s in seqs]
    out = rnn_utils.pad_sequence(leaves, batch_first=batch_first, padding_value=-2.5, padding_side=padding_side)
    expected = torch_ref.nn.utils.rnn.pad_sequence(ref_leaves, batch_first=batch_first, padding_value=-2.5,
                                                   padding_side=padding_side)
    assert_close(out, expected)
    backward_both(torch_ref, [out], [expected])
    for m, t in zip(leaves, ref_leaves):
        assert_close(m.grad, t.grad, what="gradient of a sequence")


def test_pad_sequence_of_vectors_and_of_a_tensor(torch_ref: Any) -> None:
    rng = np.random.default_rng(18)
    seqs = [rng.standard_normal(n) for n in (3, 1)]
    assert_close(rnn_utils.pad_sequence([ours(s) for s in seqs]),
                 torch_ref.nn.utils.rnn.pad_sequence([theirs(torch_ref, s) for s in seqs]))
    block = rng.standard_normal((3, 2))  # a tensor: a sequence of its rows
    assert_close(rnn_utils.pad_sequence(ours(block)), torch_ref.nn.utils.rnn.pad_sequence(theirs(torch_ref, block)))


@pytest.mark.parametrize("enforce_sorted", [True, False])
@pytest.mark.parametrize("batch_first", [False, True])
def test_pack_padded_sequence_matches_torch(torch_ref: Any, batch_first: bool, enforce_sorted: bool) -> None:
    lengths = [4, 3, 3, 1] if enforce_sorted else [3, 1, 4, 2]
    rng = np.random.default_rng(19)
    padded = rng.standard_normal((4, 4, 2) if batch_first else (4, 4, 2))
    leaf, ref_leaf = ours(padded, True), theirs(torch_ref, padded, True)
    packed = rnn_utils.pack_padded_sequence(leaf, lengths, batch_first=batch_first, enforce_sorted=enforce_sorted)
    expected = torch_ref.nn.utils.rnn.pack_padded_sequence(ref_leaf, lengths, batch_first=batch_first,
                                                           enforce_sorted=enforce_sorted)
    assert_close(packed.data, expected.data)
    assert packed.batch_sizes.tolist() == expected.batch_sizes.tolist()
    assert packed.batch_sizes.dtype == minitorch.int64 and packed.batch_sizes.device.type == "cpu"
    for field in ("sorted_indices", "unsorted_indices"):
        mine_field, ref_field = getattr(packed, field), getattr(expected, field)
        assert (mine_field is None) == (ref_field is None)
        if ref_field is not None:
            assert mine_field.tolist() == ref_field.tolist()
    backward_both(torch_ref, [packed.data], [expected.data])
    assert_close(leaf.grad, ref_leaf.grad, what="gradient of the padded input")


@pytest.mark.parametrize("total_length", [None, 6])
@pytest.mark.parametrize("batch_first", [False, True])
def test_pad_packed_sequence_matches_torch(torch_ref: Any, batch_first: bool, total_length: Optional[int]) -> None:
    rng = np.random.default_rng(20)
    seqs = [rng.standard_normal((n, 3)) for n in (2, 5, 1)]
    leaves, ref_leaves = [ours(s, True) for s in seqs], [theirs(torch_ref, s, True) for s in seqs]
    packed = rnn_utils.pack_sequence(leaves, enforce_sorted=False)
    expected_packed = torch_ref.nn.utils.rnn.pack_sequence(ref_leaves, enforce_sorted=False)
    out, lengths = rnn_utils.pad_packed_sequence(packed, batch_first, padding_value=7.0, total_length=total_length)
    expected, expected_lengths = torch_ref.nn.utils.rnn.pad_packed_sequence(
        expected_packed, batch_first, padding_value=7.0, total_length=total_length)
    assert_close(out, expected)
    assert lengths.tolist() == expected_lengths.tolist() and lengths.dtype == minitorch.int64
    backward_both(torch_ref, [out], [expected])
    for m, t in zip(leaves, ref_leaves):
        assert_close(m.grad, t.grad, what="gradient of a sequence")


def test_unpack_and_unpad_return_the_sequences() -> None:
    rng = np.random.default_rng(21)
    seqs = [rng.standard_normal((n, 2)) for n in (3, 1, 2)]
    for got in (rnn_utils.unpack_sequence(rnn_utils.pack_sequence([ours(s) for s in seqs], enforce_sorted=False)),
                rnn_utils.unpad_sequence(rnn_utils.pad_sequence([ours(s) for s in seqs]), [3, 1, 2])):
        assert len(got) == len(seqs)
        for g, s in zip(got, seqs):
            np.testing.assert_array_equal(values(g), s)


@settings(max_examples=10, deadline=None)
@given(st.lists(st.integers(1, 4), min_size=1, max_size=4), st.booleans(), st.floats(-3, 3))
def test_pack_then_pad_restores_the_padded_batch(lengths: list[int], batch_first: bool, fill: float) -> None:
    """Any lengths (ties too): unpacking a packed batch gives the input where the sequences run, the fill elsewhere."""
    steps, batch = max(lengths), len(lengths)
    rng = np.random.default_rng(len(lengths))
    padded = rng.standard_normal((batch, steps, 2) if batch_first else (steps, batch, 2))
    packed = rnn_utils.pack_padded_sequence(ours(padded), lengths, batch_first=batch_first, enforce_sorted=False)
    assert packed.data.shape[0] == sum(lengths)
    assert packed.batch_sizes.tolist() == [sum(n > t for n in lengths) for t in range(steps)]
    out, out_lengths = rnn_utils.pad_packed_sequence(packed, batch_first=batch_first, padding_value=fill)
    assert out_lengths.tolist() == lengths
    expected = padded.copy()
    for b, n in enumerate(lengths):
        if batch_first:
            expected[b, n:] = fill
        else:
            expected[n:, b] = fill
    np.testing.assert_array_equal(values(out), expected)


def test_packed_sequence_is_a_namedtuple_with_torchs_fields(torch_ref: Any) -> None:
    packed = rnn_utils.pack_sequence([ours(np.ones((2, 1))), ours(np.zeros((3, 1)))], enforce_sorted=False)
    assert packed._fields == torch_ref.nn.utils.rnn.PackedSequence._fields
    data, batch_sizes, sorted_indices, unsorted_indices = packed
    assert data is packed.data and batch_sizes.tolist() == [2, 2, 1]
    assert sorted_indices.tolist() == [1, 0] and unsorted_indices.tolist() == [1, 0]
    as_float = packed.float()
    assert isinstance(as_float, rnn_utils.PackedSequence) and as_float.data.dtype == minitorch.float32
    assert packed.to(F64) is packed and not packed.is_cuda
    rebuilt = rnn_utils.PackedSequence(data, batch_sizes, sorted_indices)  # unsorted_indices derived
    assert rebuilt.unsorted_indices.tolist() == [1, 0]
    assert repr(packed).startswith("PackedSequence(data=")


UTILS_ERRORS: dict[str, Callable[[Any], Any]] = {
    "pad_empty": lambda lib: lib.nn.utils.rnn.pad_sequence([]),
    "pad_side": lambda lib: lib.nn.utils.rnn.pad_sequence([_zeros(lib, 2, 3)], padding_side="middle"),
    "pad_trailing": lambda lib: lib.nn.utils.rnn.pad_sequence([_zeros(lib, 2, 3), _zeros(lib, 2, 2)]),
    "pack_unsorted": lambda lib: lib.nn.utils.rnn.pack_padded_sequence(_zeros(lib, 3, 3, 2), [3, 1, 2]),
    "pack_zero_length": lambda lib: lib.nn.utils.rnn.pack_padded_sequence(_zeros(lib, 3, 3, 2), [3, 2, 0]),
    "pack_length_count": lambda lib: lib.nn.utils.rnn.pack_padded_sequence(_zeros(lib, 3, 3, 2), [3, 2]),
    "pack_scalar_lengths": lambda lib: lib.nn.utils.rnn.pack_padded_sequence(_zeros(lib, 3, 3, 2), 3),
    "pack_2d_lengths": lambda lib: lib.nn.utils.rnn.pack_padded_sequence(_zeros(lib, 3, 1, 2), lib.tensor([[3]])),
    "pack_2d_length_list": lambda lib: lib.nn.utils.rnn.pack_padded_sequence(_zeros(lib, 3, 1, 2), [[3]]),
    "pack_sequence_empty_one": lambda lib: lib.nn.utils.rnn.pack_sequence([_zeros(lib, 2, 3), _zeros(lib, 0, 3)]),
    "pad_packed_total_length": lambda lib: lib.nn.utils.rnn.pad_packed_sequence(
        lib.nn.utils.rnn.pack_sequence([_zeros(lib, 3, 1)]), total_length=2),
}


@pytest.mark.parametrize("case", sorted(UTILS_ERRORS))
def test_utils_errors_match_torch(torch_ref: Any, case: str) -> None:
    assert_same_error(lambda: UTILS_ERRORS[case](minitorch), lambda: UTILS_ERRORS[case](torch_ref))


def test_pack_refuses_lengths_longer_than_the_padding() -> None:
    """PyTorch reads past the input here (undefined values); minitorch says what is wrong."""
    error = raised(lambda: rnn_utils.pack_padded_sequence(minitorch.zeros(3, 3, 1), [4, 1, 2], enforce_sorted=False))
    assert isinstance(error, RuntimeError) and "length 4" in str(error) and "3 time steps" in str(error)


# ---- another device ----


def test_packed_gru_and_lstm_cell_on_cuda_match_cpu(small_cuda: None) -> None:
    rng = np.random.default_rng(22)
    seqs = [rng.standard_normal((n, 2)) for n in (1, 2)]
    cell_input = rng.standard_normal((2, 2))
    results = []
    for device in ("cpu", "cuda"):
        minitorch.manual_seed(4)
        gru, cell = nn.GRU(2, 2).double(), nn.LSTMCell(2, 2).double()
        gru, cell = gru.to(device), cell.to(device)
        leaves = [minitorch.tensor(s, dtype=F64, device=device, requires_grad=True) for s in seqs]
        out, h_n = gru(rnn_utils.pack_sequence(leaves, enforce_sorted=False))
        h, c = cell(minitorch.tensor(cell_input, dtype=F64, device=device))
        assert out.data.device.type == device and h.device.type == device
        (out.data.sum() + h_n.sum() + h.sum() + c.sum()).backward()
        results.append([out.data.cpu(), h_n.cpu(), h.cpu(), c.cpu(), *(leaf.grad.cpu() for leaf in leaves),
                        gru.weight_hh_l0.grad.cpu()])
    for k, (on_cuda, on_cpu) in enumerate(zip(results[1], results[0])):
        assert_close(on_cuda, on_cpu, atol=1e-12, rtol=1e-10, what=f"result {k}")
