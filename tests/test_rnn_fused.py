"""The cpu backend's fused LSTM and GRU time loops (``backends/cpu_rnn.py`` through ``rnn_dispatch``).

Oracles: the composed path (``lstm_step`` and the GRU's primitives per step), which must give
the very same float64 numbers, the same arithmetic in another order of calls; PyTorch in
float32; central differences through ``LSTMScan`` and ``GRUScan`` with the fused kernels on.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest
from gradcheck import gradcheck

import minitorch
from minitorch import rnn_dispatch
from minitorch.nn.modules import _rnn_scan
from minitorch.nn.modules._rnn_scan import GRUScan, LSTMScan

INPUT, HIDDEN, STEPS, BATCH = 5, 7, 6, 3


SWITCHES = {"LSTM": "use_fused_lstm", "GRU": "use_fused_gru"}


def run_layer(kind: str, fused: bool, dtype: Any, batch: int = BATCH, with_state: bool = False,
              **options: Any) -> list[np.ndarray]:
    """Outputs, final states and every gradient of one ``nn.LSTM`` or ``nn.GRU`` call (seeded weights and data)."""
    switch = SWITCHES[kind]
    previous = getattr(_rnn_scan, switch)
    setattr(_rnn_scan, switch, fused)
    lstm = kind == "LSTM"
    try:
        minitorch.manual_seed(0)
        layer = getattr(minitorch.nn, kind)(INPUT, HIDDEN, **options).to(dtype)
        rng = np.random.default_rng(1)
        shape = (batch, STEPS, INPUT) if options.get("batch_first") else (STEPS, batch, INPUT)
        x = minitorch.tensor(rng.standard_normal(shape), dtype=dtype, requires_grad=True)
        leaves = [x]
        if with_state:
            count = options.get("num_layers", 1) * (2 if options.get("bidirectional") else 1)
            # non-contiguous initial states: the transpose of a (HIDDEN, batch) matrix per layer
            states = [minitorch.tensor(rng.standard_normal((count, HIDDEN, batch)), dtype=dtype).transpose(1, 2)
                      .requires_grad_() for _ in range(2 if lstm else 1)]
            leaves += states
            out, final = layer(x, tuple(states) if lstm else states[0])
        else:
            out, final = layer(x)
        finals = list(final) if lstm else [final]
        (out.sin().sum() + sum(((state * (k + 2)) * state).sum() for k, state in enumerate(finals))).backward()
        return ([out.detach().numpy()] + [state.detach().numpy() for state in finals]
                + [leaf.grad.numpy() for leaf in leaves] + [p.grad.numpy() for p in layer.parameters()])
    finally:
        setattr(_rnn_scan, switch, previous)


LAYOUTS = {
    "one_layer": {},
    "two_layers_bidirectional": {"num_layers": 2, "bidirectional": True},
    "batch_first_no_bias": {"batch_first": True, "bias": False},
}


@pytest.mark.parametrize("kind", SWITCHES)
@pytest.mark.parametrize("options", LAYOUTS.values(), ids=LAYOUTS.keys())
@pytest.mark.parametrize("with_state", [False, True], ids=["zero_state", "given_state"])
def test_float64_equals_the_composed_path_exactly(kind: str, options: dict[str, Any], with_state: bool) -> None:
    fused = run_layer(kind, True, minitorch.float64, with_state=with_state, **options)
    composed = run_layer(kind, False, minitorch.float64, with_state=with_state, **options)
    for got, expected in zip(fused, composed, strict=True):
        np.testing.assert_array_equal(got, expected)


@pytest.mark.parametrize("kind", SWITCHES)
@pytest.mark.parametrize("options", LAYOUTS.values(), ids=LAYOUTS.keys())
def test_float32_agrees_with_the_composed_path(kind: str, options: dict[str, Any]) -> None:
    fused = run_layer(kind, True, minitorch.float32, **options)
    composed = run_layer(kind, False, minitorch.float32, **options)
    for got, expected in zip(fused, composed, strict=True):
        np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("kind", SWITCHES)
def test_float32_matches_torch(torch_ref: Any, kind: str) -> None:
    torch_ref.manual_seed(0)
    ref = getattr(torch_ref.nn, kind)(INPUT, HIDDEN, num_layers=2)
    mine = getattr(minitorch.nn, kind)(INPUT, HIDDEN, num_layers=2)
    mine.load_state_dict({k: minitorch.tensor(v.detach().numpy()) for k, v in ref.state_dict().items()})
    data = np.random.default_rng(2).standard_normal((STEPS, BATCH, INPUT)).astype(np.float32)
    x, tx = minitorch.tensor(data, requires_grad=True), torch_ref.tensor(data, requires_grad=True)
    (out, final), (tout, tfinal) = mine(x), ref(tx)
    last, tlast = (final[1], tfinal[1]) if kind == "LSTM" else (final, tfinal)
    (out.tanh().sum() + last.sum()).backward()
    (tout.tanh().sum() + tlast.sum()).backward()
    for got, expected in ((out, tout), (last, tlast), (x.grad, tx.grad)):
        np.testing.assert_allclose(got.detach().numpy(), expected.detach().numpy(), rtol=1e-5, atol=1e-6)
    for name, parameter in mine.named_parameters():
        expected = dict(ref.named_parameters())[name].grad.numpy()
        np.testing.assert_allclose(parameter.grad.numpy(), expected, rtol=1e-4, atol=1e-5, err_msg=name)


def fused_calls(run: Callable[[], Any], op: str = "lstm_forward_op") -> int:
    """How many times ``run()`` enters the fused forward ``op`` of :mod:`minitorch.rnn_dispatch`."""
    calls = []
    original = getattr(rnn_dispatch, op)

    def counted(*args: Any) -> Any:
        calls.append(1)
        return original(*args)

    setattr(rnn_dispatch, op, counted)
    try:
        run()
    finally:
        setattr(rnn_dispatch, op, original)
    return len(calls)


def float64_leaves(*shapes: tuple[int, ...]) -> list[minitorch.Tensor]:
    rng = np.random.default_rng(3)
    return [minitorch.tensor(rng.standard_normal(shape), dtype=minitorch.float64, requires_grad=True) for shape in shapes]


@pytest.mark.parametrize("reverse", [False, True])
def test_lstm_time_loop_gradients_match_central_differences(reverse: bool) -> None:
    leaves = float64_leaves((STEPS, BATCH, 4 * HIDDEN), (4 * HIDDEN, HIDDEN), (BATCH, HIDDEN), (BATCH, HIDDEN))
    check = lambda: gradcheck(  # noqa: E731
        lambda xw, w_hh, h0, c0: LSTMScan.apply(xw, w_hh, None, h0, c0, None, reverse=reverse), *leaves)
    assert fused_calls(check) > 0, "the fused kernels did not run"


@pytest.mark.parametrize("reverse", [False, True])
def test_gru_time_loop_gradients_match_central_differences(reverse: bool) -> None:
    leaves = float64_leaves((STEPS, BATCH, 3 * HIDDEN), (3 * HIDDEN, HIDDEN), (3 * HIDDEN,), (BATCH, HIDDEN))
    check = lambda: gradcheck(  # noqa: E731
        lambda xw, w_hh, b_hh, h0: GRUScan.apply(xw, w_hh, b_hh, h0, None, reverse=reverse), *leaves)
    assert fused_calls(check, "gru_forward_op") > 0, "the fused kernels did not run"


def test_where_the_fused_kernels_run(monkeypatch: pytest.MonkeyPatch) -> None:
    x = minitorch.randn(STEPS, BATCH, INPUT)
    assert fused_calls(lambda: minitorch.nn.LSTM(INPUT, HIDDEN, num_layers=2, bidirectional=True)(x)) == 4
    # a projection, a packed batch of different lengths, float16, the simple backend, the switch: composed
    assert fused_calls(lambda: minitorch.nn.LSTM(INPUT, HIDDEN, proj_size=2)(x)) == 0
    packed = minitorch.nn.utils.rnn.pack_padded_sequence(x, [STEPS, 4, 2])
    assert fused_calls(lambda: minitorch.nn.LSTM(INPUT, HIDDEN)(packed)) == 0
    with minitorch.backends.use("simple"):
        assert fused_calls(lambda: minitorch.nn.LSTM(INPUT, HIDDEN)(x)) == 0
    with monkeypatch.context() as switched:
        switched.setattr(_rnn_scan, "use_fused_lstm", False)
        assert fused_calls(lambda: minitorch.nn.LSTM(INPUT, HIDDEN)(x)) == 0
    gru = "gru_forward_op"
    assert fused_calls(lambda: minitorch.nn.GRU(INPUT, HIDDEN, num_layers=2, bias=False)(x), gru) == 2
    assert fused_calls(lambda: minitorch.nn.GRUCell(INPUT, HIDDEN)(x[0]), gru) == 1
    assert fused_calls(lambda: minitorch.nn.GRU(INPUT, HIDDEN)(packed), gru) == 0
    assert fused_calls(lambda: minitorch.nn.GRU(INPUT, HIDDEN).half()(x.half()), gru) == 0


@pytest.mark.parametrize("kind", SWITCHES)
def test_an_empty_batch_runs_no_kernel_and_gives_empty_results(kind: str) -> None:
    got = run_layer(kind, True, minitorch.float32, batch=0)
    expected = run_layer(kind, False, minitorch.float32, batch=0)
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
    with pytest.raises(ValueError, match=r"hidden states must be \[6, 3, 7\]"):
        rnn_dispatch.lstm_backward_op(minitorch.randn(STEPS, BATCH, 2 * HIDDEN), None, w_hh, c0, sequence, False)
    with pytest.raises(ValueError, match=r"final cell state must be \[3, 7\] minitorch.float32"):
        rnn_dispatch.lstm_backward_op(None, minitorch.randn(BATCH, HIDDEN).double(), w_hh, c0, sequence, False)
    with pytest.raises(ValueError, match=r"b_hh \[5\]"):
        rnn_dispatch.gru_forward_op(minitorch.randn(STEPS, BATCH, 3 * HIDDEN), minitorch.randn(3 * HIDDEN, HIDDEN),
                                    minitorch.randn(5), h0, False)
    gru = rnn_dispatch.gru_forward_op(minitorch.randn(STEPS, BATCH, 3 * HIDDEN), minitorch.randn(3 * HIDDEN, HIDDEN),
                                      None, h0, False)
    with pytest.raises(ValueError, match=r"gradient must be \[6, 3, 7\]"):
        rnn_dispatch.gru_backward_op(minitorch.randn(STEPS, BATCH, 2 * HIDDEN), w_hh[: 3 * HIDDEN], h0, gru, False)


def test_the_kernels_refuse_a_buffer_that_is_not_contiguous() -> None:
    from minitorch.backends import cpu_rnn

    with pytest.raises(ValueError, match=r"contiguous buffers; got shape \(4, 3\), strides \(1, 4\)"):
        cpu_rnn._array(minitorch.randn(3, 4).t()._data)


@pytest.mark.parametrize("layer", ["RNN", "LSTM", "GRU", "LSTMCell"])
@pytest.mark.parametrize("fused", [True, False], ids=["fused", "composed"])
def test_double_backward_is_refused_rather_than_wrong(layer: str, fused: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """The hand-written backward of the time loop reads its saved activations as constants: a graph
    recorded through it would miss their dependence on the weights (as PyTorch refuses for cuDNN's RNNs)."""
    for switch in SWITCHES.values():
        monkeypatch.setattr(_rnn_scan, switch, fused)
    module = getattr(minitorch.nn, layer)(INPUT, HIDDEN)
    x = minitorch.randn(*((BATCH, INPUT) if layer.endswith("Cell") else (STEPS, BATCH, INPUT)), requires_grad=True)
    out = module(x)
    first = out[0] if isinstance(out, tuple) else out
    with pytest.raises(RuntimeError, match=r"double backward through an? (RNN|LSTM|GRU) is not supported"):
        minitorch.autograd.grad(first.pow(2).sum(), x, create_graph=True)
    (grad_x,) = minitorch.autograd.grad(first.pow(2).sum(), x)  # once is fine
    assert grad_x.shape == x.shape
