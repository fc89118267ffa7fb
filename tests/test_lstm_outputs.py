"""What an LSTM layer's time loop returns, against PyTorch in float64: the output of every step and
the final states, each differentiated alone or together, fused kernels and composed path alike.

``LSTMScan`` returns the hidden states of every step (saved for backward, as PyTorch's LSTM saves
its output) and the final cell state as a tensor of its own; the final hidden state is the
output's last step. So the gradient of each reaches the weights by its own route: through the
output per step, or only at the end of the cell chain.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import minitorch
from minitorch.nn.modules import _rnn_scan

INPUT, HIDDEN, STEPS, BATCH = 4, 5, 6, 3

#: which outputs the loss reads: (output, h_n, c_n)
LOSSES = {"output": (1, 0, 0), "h_n": (0, 1, 0), "c_n": (0, 0, 1), "all": (1, 1, 1)}
LAYOUTS = {"one_layer": {}, "two_layers_bidirectional": {"num_layers": 2, "bidirectional": True},
           "projection": {"proj_size": 2}}


def _loss(lib: Any, out: Any, h_n: Any, c_n: Any, weights: tuple[int, int, int]) -> Any:
    """A weighted sum of the outputs that reads only those with a nonzero weight (``sin`` and
    squares: a gradient that differs per element)."""
    terms = [part for part, weight in ((out.sin().sum(), weights[0]), ((h_n * h_n).sum(), weights[1]),
                                       ((c_n * 3 * c_n).sum(), weights[2])) if weight]
    return lib.stack(terms).sum()


def _run(lib: Any, layer: Any, data: np.ndarray, weights: tuple[int, int, int]) -> list[np.ndarray]:
    x = lib.tensor(data, requires_grad=True)
    out, (h_n, c_n) = layer(x)
    _loss(lib, out, h_n, c_n, weights).backward()
    return [x.grad.numpy()] + [p.grad.numpy() for p in layer.parameters()]


def _layers(torch_ref: Any, **options: Any) -> tuple[Any, Any]:
    """A PyTorch LSTM and a minitorch LSTM with the same float64 weights."""
    torch_ref.manual_seed(0)
    ref = torch_ref.nn.LSTM(INPUT, HIDDEN, **options).double()
    mine = minitorch.nn.LSTM(INPUT, HIDDEN, **options).double()
    mine.load_state_dict({k: minitorch.tensor(v.detach().numpy()) for k, v in ref.state_dict().items()})
    return ref, mine


@pytest.mark.parametrize("fused", [True, False], ids=["fused", "composed"])
@pytest.mark.parametrize("options", LAYOUTS.values(), ids=LAYOUTS.keys())
@pytest.mark.parametrize("loss", LOSSES.values(), ids=LOSSES.keys())
def test_the_gradient_of_each_output_matches_torch(torch_ref: Any, monkeypatch: pytest.MonkeyPatch, fused: bool,
                                                   options: dict[str, Any], loss: tuple[int, int, int]) -> None:
    monkeypatch.setattr(_rnn_scan, "use_fused_lstm", fused)
    ref, mine = _layers(torch_ref, **options)
    data = np.random.default_rng(1).standard_normal((STEPS, BATCH, INPUT))
    for got, expected in zip(_run(minitorch, mine, data, loss), _run(torch_ref, ref, data, loss), strict=True):
        np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("loss", LOSSES.values(), ids=LOSSES.keys())
def test_an_lstm_cell_matches_torch_through_either_state(torch_ref: Any, loss: tuple[int, int, int]) -> None:
    torch_ref.manual_seed(0)
    ref = torch_ref.nn.LSTMCell(INPUT, HIDDEN).double()
    mine = minitorch.nn.LSTMCell(INPUT, HIDDEN).double()
    mine.load_state_dict({k: minitorch.tensor(v.detach().numpy()) for k, v in ref.state_dict().items()})
    data = np.random.default_rng(2).standard_normal((STEPS, BATCH, INPUT))

    def unrolled(lib: Any, cell: Any) -> list[np.ndarray]:
        x = lib.tensor(data, requires_grad=True)
        h, c = cell(x[0])
        outputs = [h]
        for t in range(1, STEPS):
            h, c = cell(x[t], (h, c))
            outputs.append(h)
        _loss(lib, lib.stack(outputs), h, c, loss).backward()
        return [x.grad.numpy()] + [p.grad.numpy() for p in cell.parameters()]

    for got, expected in zip(unrolled(minitorch, mine), unrolled(torch_ref, ref), strict=True):
        np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-12)


KINDS = {"RNN": None, "LSTM": "use_fused_lstm", "GRU": "use_fused_gru"}


@pytest.mark.parametrize("fused", [True, False], ids=["fused", "composed"])
@pytest.mark.parametrize("kind", KINDS)
def test_the_outputs_may_be_changed_in_place_as_in_torch(torch_ref: Any, monkeypatch: pytest.MonkeyPatch, kind: str,
                                                         fused: bool) -> None:
    """Each output is a tensor of its own, not the states backward reads: changing one in place
    after the forward leaves the gradients PyTorch computes (its float64 layers allow it)."""
    if KINDS[kind] is not None:
        monkeypatch.setattr(_rnn_scan, KINDS[kind], fused)
    torch_ref.manual_seed(0)
    ref = getattr(torch_ref.nn, kind)(INPUT, HIDDEN).double()
    mine = getattr(minitorch.nn, kind)(INPUT, HIDDEN).double()
    mine.load_state_dict({k: minitorch.tensor(v.detach().numpy()) for k, v in ref.state_dict().items()})
    data = np.random.default_rng(3).standard_normal((STEPS, BATCH, INPUT))

    def changed(lib: Any, layer: Any, which: int) -> list[np.ndarray]:
        out, final = layer(lib.tensor(data))
        outputs = (out, *final) if kind == "LSTM" else (out, final)
        outputs[which].mul_(2)
        lib.stack([(o * o).sum() for o in outputs]).sum().backward()
        return [o.detach().numpy() for o in outputs] + [p.grad.numpy() for p in layer.parameters()]

    for which in range(3 if kind == "LSTM" else 2):
        mine.zero_grad()
        ref.zero_grad()
        for got, expected in zip(changed(minitorch, mine, which), changed(torch_ref, ref, which), strict=True):
            np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-12)
