"""Task 5.10: one LSTM step (``lstm_step`` in ``nn/modules/_rnn_scan.py``), which ``nn.LSTMCell``
and ``nn.LSTM`` run at every time step.

Oracles: the LSTM equations written out in NumPy (values and the saved gate slopes), PyTorch
in float64 with the same weights (outputs, states and every gradient) and central differences
(through the step alone and through the time loop with its hand-written backward, which
reads what the step saves).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from gradcheck import gradcheck
from layer_helpers import assert_close, ours
from test_layers_rnn import check_layer, pair, state_shapes

from minitorch.nn.modules import _rnn_scan
from minitorch.nn.modules._rnn_scan import LSTMScan, _lstm_gate_scales, lstm_step

task = pytest.mark.task("5.10")
INPUT, HIDDEN, STEPS, BATCH = 3, 4, 4, 2


@pytest.fixture(autouse=True)
def _the_students_step(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every step through ``lstm_step``: the cpu backend's fused LSTM kernels would run
    ``nn.LSTM`` without it, and these tests grade it."""
    monkeypatch.setattr(_rnn_scan, "use_fused_lstm", False)


def sigmoid(x: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-x))


def numpy_step(xw_t: np.ndarray, h: np.ndarray, c: np.ndarray, w_hh: np.ndarray) -> dict[str, np.ndarray]:
    """The LSTM equations, gate by gate, in PyTorch's order i, f, g, o."""
    a_i, a_f, a_g, a_o = np.split(xw_t + h @ w_hh.T, 4, axis=1)
    i, f, g, o = sigmoid(a_i), sigmoid(a_f), np.tanh(a_g), sigmoid(a_o)
    c_new = f * c + i * g
    slopes = np.concatenate([i * (1 - i), f * (1 - f), 1 - g * g, o * (1 - o)], axis=1)
    return {"i": i, "f": f, "g": g, "o": o, "c_new": c_new, "out": o * np.tanh(c_new), "slopes": slopes}


def step_inputs(seed: int, proj: int = HIDDEN) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s) for s in ((BATCH, 4 * HIDDEN), (BATCH, proj), (BATCH, HIDDEN), (4 * HIDDEN, proj))]


def run_step(xw_t: Any, h: Any, c: Any, w_hh: Any) -> tuple[Any, Any, tuple[Any, ...]]:
    scale, slope_scale = _lstm_gate_scales(HIDDEN, xw_t)
    return lstm_step(xw_t, h, c, w_hh.t(), scale, slope_scale)


@task
@pytest.mark.parametrize("proj", [HIDDEN, 2], ids=["no_projection", "projected_h"])
def test_step_matches_the_equations(backend: str, proj: int) -> None:
    """``c'``, ``out`` and every saved value equal the equations, on every backend."""
    arrays = step_inputs(1, proj)
    c_new, out, saved = run_step(*[ours(a) for a in arrays])
    expected = numpy_step(*arrays)
    assert_close(c_new, expected["c_new"], what="c'")
    assert_close(out, expected["out"], what="out = o * tanh(c')")
    assert len(saved) == 8, "the step saves (i, f, g, o, tanh c', c, out, slopes)"
    names = ["i", "f", "g", "o"]
    for name, value in zip(names, saved[:4]):
        assert_close(value, expected[name], what=f"gate {name}")
    assert_close(saved[4], np.tanh(expected["c_new"]), what="tanh c'")
    assert_close(saved[5], arrays[2], what="the previous cell state c")
    assert_close(saved[6], expected["out"], what="out")
    assert_close(saved[7], expected["slopes"], what="slopes: d(gate)/d(pre-activation)")


@task
def test_step_gradients_match_central_differences() -> None:
    """Autograd straight through the step's tensor ops (no hand-written backward involved)."""
    leaves = [ours(a, True) for a in step_inputs(2)]
    gradcheck(lambda *args: run_step(*args)[0], *leaves)
    gradcheck(lambda *args: run_step(*args)[1], *leaves)


@task
@pytest.mark.parametrize("reverse", [False, True], ids=["forward", "reverse"])
def test_time_loop_gradients_match_central_differences(reverse: bool) -> None:
    """The time loop's hand-written backward reads the step's saved tuple: wrong slopes show here."""
    rng = np.random.default_rng(3)
    shapes = ((3, BATCH, 4 * HIDDEN), (4 * HIDDEN, HIDDEN), (BATCH, HIDDEN), (BATCH, HIDDEN))
    leaves = [ours(rng.standard_normal(s), True) for s in shapes]
    gradcheck(lambda xw, w_hh, h0, c0: LSTMScan.apply(xw, w_hh, None, h0, c0, None, reverse=reverse), *leaves)


@task
@pytest.mark.parametrize("batched", [True, False], ids=["batched", "unbatched"])
@pytest.mark.parametrize("bias", [True, False], ids=["bias", "no_bias"])
def test_lstm_cell_matches_torch(torch_ref: Any, bias: bool, batched: bool) -> None:
    """``nn.LSTMCell`` on the step: ``(h', c')`` and the gradients of x, h, c and every weight."""
    mine, ref = pair(torch_ref, "LSTMCell", INPUT, HIDDEN, bias=bias)
    rng = np.random.default_rng(4)
    lead = (BATCH,) if batched else ()
    x, h, c = (rng.standard_normal(lead + (n,)) for n in (INPUT, HIDDEN, HIDDEN))
    leaves = [ours(a, True) for a in (x, h, c)]
    ref_leaves = [torch_ref.tensor(a, requires_grad=True) for a in (x, h, c)]
    result = mine(leaves[0], (leaves[1], leaves[2]))
    expected = ref(ref_leaves[0], (ref_leaves[1], ref_leaves[2]))
    weights = [rng.standard_normal(tuple(e.shape)) for e in expected]
    sum((m * ours(w)).sum() for m, w in zip(result, weights)).backward()
    sum((e * torch_ref.tensor(w)).sum() for e, w in zip(expected, weights)).backward()
    for name, m, e in zip(("h'", "c'"), result, expected):
        assert_close(m, e, what=name)
    for name, m, e in zip(("x", "h", "c"), leaves, ref_leaves):
        assert_close(m.grad, e.grad, what=f"gradient of {name}")
    ref_params = dict(ref.named_parameters())
    for name, param in mine.named_parameters():
        assert_close(param.grad, ref_params[name].grad, what=f"gradient of {name}")


LAYER_CASES = {
    "one_layer": {},
    "two_layers_bidirectional_batch_first": {"num_layers": 2, "bidirectional": True, "batch_first": True},
    "projection": {"proj_size": 2},
}


@task
@pytest.mark.parametrize("case", sorted(LAYER_CASES))
def test_lstm_layer_matches_torch(torch_ref: Any, case: str) -> None:
    """``nn.LSTM`` runs the step at every time step: outputs, final states and all gradients."""
    kwargs = LAYER_CASES[case]
    mine, ref = pair(torch_ref, "LSTM", INPUT, HIDDEN, **kwargs)
    rng = np.random.default_rng(5)
    shape = (BATCH, STEPS, INPUT) if kwargs.get("batch_first") else (STEPS, BATCH, INPUT)
    states = [rng.standard_normal(s) for s in state_shapes(ref, BATCH)]
    check_layer(torch_ref, mine, ref, rng.standard_normal(shape), states)
