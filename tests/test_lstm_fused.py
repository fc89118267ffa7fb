"""The cpu backend's fused LSTM time loop (``backends/cpu_rnn.py`` through ``rnn_dispatch``).

Oracles: the composed path (``lstm_step`` per step, the primitives), which must give the very
same float64 numbers, the same arithmetic in another order of calls; PyTorch in float32;
central differences through ``LSTMScan`` with the fused kernels on.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest
from gradcheck import gradcheck

import minitorch
from minitorch import rnn_dispatch
from minitorch.nn.modules import _rnn_scan
from minitorch.nn.modules._rnn_scan import LSTMScan

INPUT, HIDDEN, STEPS, BATCH = 5, 7, 6, 3


def run_lstm(fused: bool, dtype: Any, batch: int = BATCH, with_state: bool = False, **options: Any) -> list[np.ndarray]:
    """Outputs, final states and every gradient of one ``nn.LSTM`` call (seeded weights and data)."""
    previous, _rnn_scan.use_fused_lstm = _rnn_scan.use_fused_lstm, fused
    try:
        minitorch.manual_seed(0)
        layer = minitorch.nn.LSTM(INPUT, HIDDEN, **options).to(dtype)
        rng = np.random.default_rng(1)
        shape = (batch, STEPS, INPUT) if options.get("batch_first") else (STEPS, batch, INPUT)
        x = minitorch.tensor(rng.standard_normal(shape), dtype=dtype, requires_grad=True)
        leaves = [x]
        if with_state:
            count = options.get("num_layers", 1) * (2 if options.get("bidirectional") else 1)
            # non-contiguous initial states: the transpose of a (HIDDEN, batch) matrix per layer
            h0, c0 = (minitorch.tensor(rng.standard_normal((count, HIDDEN, batch)), dtype=dtype).transpose(1, 2)
                      .requires_grad_() for _ in range(2))
            leaves += [h0, c0]
            out, (h, c) = layer(x, (h0, c0))
        else:
            out, (h, c) = layer(x)
        (out.sin().sum() + (h * 2).sum() + (c * c).sum()).backward()
        return ([out.detach().numpy(), h.detach().numpy(), c.detach().numpy()]
                + [leaf.grad.numpy() for leaf in leaves] + [p.grad.numpy() for p in layer.parameters()])
    finally:
        _rnn_scan.use_fused_lstm = previous


LAYOUTS = {
    "one_layer": {},
    "two_layers_bidirectional": {"num_layers": 2, "bidirectional": True},
    "batch_first_no_bias": {"batch_first": True, "bias": False},
}


@pytest.mark.parametrize("options", LAYOUTS.values(), ids=LAYOUTS.keys())
@pytest.mark.parametrize("with_state", [False, True], ids=["zero_state", "given_state"])
def test_float64_equals_the_composed_path_exactly(options: dict[str, Any], with_state: bool) -> None:
    fused = run_lstm(True, minitorch.float64, with_state=with_state, **options)
    composed = run_lstm(False, minitorch.float64, with_state=with_state, **options)
    for got, expected in zip(fused, composed, strict=True):
        np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("options", LAYOUTS.values(), ids=LAYOUTS.keys())
def test_float32_agrees_with_the_composed_path(options: dict[str, Any]) -> None:
    fused = run_lstm(True, minitorch.float32, **options)
    composed = run_lstm(False, minitorch.float32, **options)
    for got, expected in zip(fused, composed, strict=True):
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)


def test_float32_matches_torch(torch_ref: Any) -> None:
    torch_ref.manual_seed(0)
    ref = torch_ref.nn.LSTM(INPUT, HIDDEN, num_layers=2)
    mine = minitorch.nn.LSTM(INPUT, HIDDEN, num_layers=2)
    mine.load_state_dict({k: minitorch.tensor(v.detach().numpy()) for k, v in ref.state_dict().items()})
    data = np.random.default_rng(2).standard_normal((STEPS, BATCH, INPUT)).astype(np.float32)
    x, tx = minitorch.tensor(data, requires_grad=True), torch_ref.tensor(data, requires_grad=True)
    (out, (h, c)), (tout, (th, tc)) = mine(x), ref(tx)
    (out.tanh().sum() + c.sum()).backward()
    (tout.tanh().sum() + tc.sum()).backward()
    for got, expected in ((out, tout), (h, th), (c, tc), (x.grad, tx.grad)):
        np.testing.assert_allclose(got.detach().numpy(), expected.detach().numpy(), rtol=1e-5, atol=1e-6)
    for name, parameter in mine.named_parameters():
        expected = dict(ref.named_parameters())[name].grad.numpy()
        np.testing.assert_allclose(parameter.grad.numpy(), expected, rtol=1e-4, atol=1e-5, err_msg=name)


@pytest.mark.parametrize("reverse", [False, True])
def test_time_loop_gradients_match_central_differences(reverse: bool) -> None:
    rng = np.random.default_rng(3)
    leaves = [minitorch.tensor(rng.standard_normal(shape), dtype=minitorch.float64, requires_grad=True)
              for shape in ((STEPS, BATCH, 4 * HIDDEN), (4 * HIDDEN, HIDDEN), (BATCH, HIDDEN), (BATCH, HIDDEN))]
    calls = []
    original = rnn_dispatch.lstm_forward_op

    def counted(*args: Any) -> Any:
        calls.append(1)
        return original(*args)

    rnn_dispatch.lstm_forward_op = counted
    try:
        gradcheck(lambda xw, w_hh, h0, c0: LSTMScan.apply(xw, w_hh, None, h0, c0, None, reverse=reverse), *leaves)
    finally:
        rnn_dispatch.lstm_forward_op = original
    assert calls, "the fused kernels did not run"


def fused_calls(run: Callable[[], Any]) -> int:
    calls = []
    original = rnn_dispatch.lstm_forward_op

    def counted(*args: Any) -> Any:
        calls.append(1)
        return original(*args)

    rnn_dispatch.lstm_forward_op = counted
    try:
        run()
    finally:
        rnn_dispatch.lstm_forward_op = original
    return len(calls)


def test_where_the_fused_kernels_run() -> None:
    x = minitorch.randn(STEPS, BATCH, INPUT)
    assert fused_calls(lambda: minitorch.nn.LSTM(INPUT, HIDDEN, num_layers=2, bidirectional=True)(x)) == 4
    # a projection, a packed batch of different lengths, float16, the simple backend, the switch: composed
    assert fused_calls(lambda: minitorch.nn.LSTM(INPUT, HIDDEN, proj_size=2)(x)) == 0
    packed = minitorch.nn.utils.rnn.pack_padded_sequence(x, [STEPS, 4, 2])
    assert fused_calls(lambda: minitorch.nn.LSTM(INPUT, HIDDEN)(packed)) == 0
    with minitorch.backends.use("simple"):
        assert fused_calls(lambda: minitorch.nn.LSTM(INPUT, HIDDEN)(x)) == 0
    previous, _rnn_scan.use_fused_lstm = _rnn_scan.use_fused_lstm, False
    try:
        assert fused_calls(lambda: minitorch.nn.LSTM(INPUT, HIDDEN)(x)) == 0
    finally:
        _rnn_scan.use_fused_lstm = previous


def test_an_empty_batch_runs_no_kernel_and_gives_empty_results() -> None:
    got = run_lstm(True, minitorch.float32, batch=0)
    expected = run_lstm(False, minitorch.float32, batch=0)
    assert [a.shape for a in got] == [b.shape for b in expected]


def test_the_dispatch_refuses_what_the_kernels_cannot_index() -> None:
    xw, w_hh = minitorch.randn(STEPS, BATCH, 4 * HIDDEN), minitorch.randn(4 * HIDDEN, HIDDEN)
    h0 = c0 = minitorch.randn(BATCH, HIDDEN)
    with pytest.raises(ValueError, match=r"w_hh \[28, 6\]"):
        rnn_dispatch.lstm_forward_op(xw, minitorch.randn(4 * HIDDEN, HIDDEN - 1), h0, c0, False)
    with pytest.raises(ValueError, match=r"h0 \[2, 7\] minitorch.float32"):
        rnn_dispatch.lstm_forward_op(xw, w_hh, minitorch.randn(BATCH - 1, HIDDEN), c0, False)
    with pytest.raises(ValueError, match=r"c0 \[3, 7\] minitorch.float64"):
        rnn_dispatch.lstm_forward_op(xw, w_hh, h0, c0.double(), False)
    sequence = rnn_dispatch.lstm_forward_op(xw, w_hh, h0, c0, False)
    with pytest.raises(ValueError, match=r"gradient must be \[6, 3, 14\]"):
        rnn_dispatch.lstm_backward_op(minitorch.randn(STEPS, BATCH, HIDDEN), w_hh, c0, sequence, False)
