"""``nn.Transformer`` and its layers, and ``MultiheadAttention``'s ``add_bias_kv``/``add_zero_attn``, against PyTorch.

Both frameworks get the same weights (PyTorch's state_dict copied through NumPy) and inputs in
float64, with dropout off (eval mode); outputs and the gradients of the inputs and of every
parameter must agree to 1e-10. Also: state-dict keys and shapes equal to PyTorch's in both load
directions, initialisation, the causal mask, the inference-time zeros PyTorch's nested-tensor
encoder path leaves at padded positions, and the errors and warnings worded as PyTorch's.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np
import pytest
from layer_helpers import assert_close, assert_same_error, ours, theirs, values

import minitorch
import minitorch.nn as nn

D_MODEL, HEADS, FF = 8, 2, 12
SRC, TGT, BATCH = 5, 4, 2
TOL = {"atol": 1e-10, "rtol": 1e-10}
#: mixing a boolean padding mask with a float attention mask works but warns (tested on its own below)
pytestmark = [pytest.mark.filterwarnings("ignore:Support for mismatched"),
              pytest.mark.filterwarnings("ignore:The PyTorch API of nested tensors")]


def load_torch_weights(mine: Any, ref: Any) -> None:
    """Copy PyTorch's parameters and buffers into ``mine`` by state-dict key."""
    mine.load_state_dict({k: minitorch.tensor(v.detach().numpy()) for k, v in ref.state_dict().items()})


def build(torch: Any, name: str, *args: Any, **kwargs: Any) -> tuple[Any, Any]:
    """``nn.<name>`` in both frameworks, float64, eval mode, our weights copied from PyTorch's."""
    torch.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the nested-tensor warning is tested on its own
        ref = getattr(torch.nn, name)(*args, **kwargs).double().eval()
        mine = getattr(nn, name)(*args, **kwargs).double().eval()
    load_torch_weights(mine, ref)
    return mine, ref


def stack(torch: Any, name: str, layer_kwargs: dict, layers: int = 2) -> tuple[Any, Any]:
    """``TransformerEncoder``/``Decoder`` of ``layers`` layers with a final LayerNorm, in both frameworks."""
    layer = name + "Layer"
    torch.manual_seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = getattr(torch.nn, name)(getattr(torch.nn, layer)(D_MODEL, HEADS, FF, **layer_kwargs), layers,
                                      torch.nn.LayerNorm(D_MODEL)).double().eval()
        mine = getattr(nn, name)(getattr(nn, layer)(D_MODEL, HEADS, FF, **layer_kwargs), layers,
                                 nn.LayerNorm(D_MODEL)).double().eval()
    load_torch_weights(mine, ref)
    return mine, ref


def sequence(rng: np.random.Generator, length: int, batch_first: bool, batched: bool = True) -> np.ndarray:
    if not batched:
        return rng.standard_normal((length, D_MODEL))
    return rng.standard_normal((BATCH, length, D_MODEL) if batch_first else (length, BATCH, D_MODEL))


def mask(rng: np.random.Generator, kind: str, rows: int, cols: int) -> np.ndarray:
    """An attention mask ``(rows, cols)``: causal (bool or float -inf) or random (bool, or a float bias)."""
    causal = np.triu(np.ones((rows, cols), dtype=bool), k=1)
    if kind == "bool_causal":
        return causal
    if kind == "float_causal":
        return np.where(causal, -np.inf, 0.0)
    if kind == "bool":
        hidden = rng.random((rows, cols)) < 0.3
        hidden[:, 0] = False  # every query keeps a key
        return hidden
    return rng.standard_normal((rows, cols))


def padding(kind: str, length: int) -> np.ndarray:
    """A key-padding mask ``(BATCH, length)``: the second sequence's last two positions are padding."""
    padded = np.zeros((BATCH, length), dtype=bool)
    padded[1, -2:] = True
    return np.where(padded, -np.inf, 0.0) if kind == "float" else padded


def run_both(torch: Any, mine: Any, ref: Any, arrays: dict[str, np.ndarray], grad: tuple[str, ...], **flags: Any) -> None:
    """Call both modules with the same keyword inputs; outputs, input gradients and parameter gradients agree."""
    our_in = {k: ours(a, k in grad) for k, a in arrays.items()}
    ref_in = {k: theirs(torch, a, k in grad) for k, a in arrays.items()}
    out, expected = mine(**our_in, **flags), ref(**ref_in, **flags)
    assert_close(out, expected, **TOL)
    weights = np.random.default_rng(7).standard_normal(tuple(expected.shape))
    (out * ours(weights)).sum().backward()
    (expected * torch.tensor(weights)).sum().backward()
    for k in grad:
        assert_close(our_in[k].grad, ref_in[k].grad, **TOL, what=f"gradient of {k}")
    ref_params = dict(ref.named_parameters())
    names = [name for name, _ in mine.named_parameters()]
    assert names == list(ref_params)
    for name, p in mine.named_parameters():
        assert p.grad is not None, f"{name} got no gradient"
        assert_close(p.grad, ref_params[name].grad, **TOL, what=f"gradient of {name}")


ENCODER_LAYER_CASES = {
    "post_norm_relu_seq_first": ({}, {}),
    "pre_norm_gelu_batch_first_bool_masks": (
        {"norm_first": True, "activation": "gelu", "batch_first": True},
        {"src_mask": "bool", "src_key_padding_mask": "bool"},
    ),
    "post_norm_float_masks_causal_hint": ({"batch_first": True}, {"src_mask": "float_causal", "is_causal": True}),
    "pre_norm_float_padding_no_bias": ({"norm_first": True, "bias": False}, {"src_key_padding_mask": "float"}),
    "module_activation_unbatched": ({"activation": "GELU"}, {"unbatched": True, "src_mask": "float"}),
    "callable_activation_3d_mask": ({"activation": "silu", "batch_first": True}, {"src_mask": "3d"}),
}


def activation_for(framework_nn: Any, name: str) -> Any:
    """The same activation in either framework: a string, a module (``GELU``) or a functional (``silu``)."""
    if name == "GELU":
        return framework_nn.GELU()
    if name == "silu":
        return framework_nn.functional.silu
    return name


@pytest.mark.parametrize("case", sorted(ENCODER_LAYER_CASES))
def test_encoder_layer_matches_torch(torch_ref, case: str) -> None:
    init_kwargs, call = ENCODER_LAYER_CASES[case]
    activation = init_kwargs.pop("activation", "relu")
    torch_ref.manual_seed(0)
    ref = torch_ref.nn.TransformerEncoderLayer(D_MODEL, HEADS, FF, activation=activation_for(torch_ref.nn, activation),
                                               **init_kwargs).double().eval()
    mine = nn.TransformerEncoderLayer(D_MODEL, HEADS, FF, activation=activation_for(nn, activation),
                                      **init_kwargs).double().eval()
    load_torch_weights(mine, ref)
    assert repr(mine) == repr(ref)
    rng = np.random.default_rng(1)
    batched = not call.get("unbatched")
    arrays = {"src": sequence(rng, SRC, init_kwargs.get("batch_first", False), batched)}
    if call.get("src_mask") == "3d":
        arrays["src_mask"] = rng.standard_normal((BATCH * HEADS, SRC, SRC))
    elif "src_mask" in call:
        arrays["src_mask"] = mask(rng, call["src_mask"], SRC, SRC)
    if "src_key_padding_mask" in call:
        arrays["src_key_padding_mask"] = padding(call["src_key_padding_mask"], SRC)
    flags = {"is_causal": True} if call.get("is_causal") else {}
    run_both(torch_ref, mine, ref, arrays, ("src",), **flags)


DECODER_LAYER_CASES = {
    "post_norm_seq_first_causal": ({}, {"tgt_mask": "float_causal"}),
    "pre_norm_batch_first_all_masks": (
        {"norm_first": True, "batch_first": True},
        {"tgt_mask": "bool_causal", "memory_mask": "bool", "tgt_key_padding_mask": "bool",
         "memory_key_padding_mask": "bool"},
    ),
    "post_norm_gelu_float_masks": (
        {"activation": "gelu"},
        {"tgt_mask": "float", "memory_mask": "float", "memory_key_padding_mask": "float"},
    ),
}


@pytest.mark.parametrize("case", sorted(DECODER_LAYER_CASES))
def test_decoder_layer_matches_torch(torch_ref, case: str) -> None:
    init_kwargs, call = DECODER_LAYER_CASES[case]
    mine, ref = build(torch_ref, "TransformerDecoderLayer", D_MODEL, HEADS, FF, **init_kwargs)
    assert repr(mine) == repr(ref)
    rng = np.random.default_rng(2)
    batch_first = init_kwargs.get("batch_first", False)
    arrays = {"tgt": sequence(rng, TGT, batch_first), "memory": sequence(rng, SRC, batch_first)}
    sizes = {"tgt_mask": (TGT, TGT), "memory_mask": (TGT, SRC)}
    for key, kind in call.items():
        if key in sizes:
            arrays[key] = mask(rng, kind, *sizes[key])
        else:
            arrays[key] = padding(kind, TGT if key.startswith("tgt") else SRC)
    run_both(torch_ref, mine, ref, arrays, ("tgt", "memory"))


@pytest.mark.parametrize("batch_first", [False, True])
def test_encoder_and_decoder_stacks_match_torch(torch_ref, batch_first: bool) -> None:
    rng = np.random.default_rng(3)
    encoder, encoder_ref = stack(torch_ref, "TransformerEncoder", {"batch_first": batch_first})
    src = sequence(rng, SRC, batch_first)
    run_both(torch_ref, encoder, encoder_ref,
             {"src": src, "mask": mask(rng, "float_causal", SRC, SRC), "src_key_padding_mask": padding("bool", SRC)},
             ("src",))
    decoder, decoder_ref = stack(torch_ref, "TransformerDecoder", {"batch_first": batch_first, "norm_first": True})
    run_both(torch_ref, decoder, decoder_ref,
             {"tgt": sequence(rng, TGT, batch_first), "memory": src, "tgt_mask": mask(rng, "bool_causal", TGT, TGT),
              "memory_key_padding_mask": padding("bool", SRC)},
             ("tgt", "memory"))


TRANSFORMER_CASES = {
    "seq_first_post_norm": {},
    "batch_first_pre_norm_gelu": {"batch_first": True, "norm_first": True, "activation": "gelu"},
}


@pytest.mark.parametrize("case", sorted(TRANSFORMER_CASES))
def test_transformer_matches_torch(torch_ref, case: str) -> None:
    kwargs = TRANSFORMER_CASES[case]
    mine, ref = build(torch_ref, "Transformer", D_MODEL, HEADS, 2, 2, FF, **kwargs)
    rng = np.random.default_rng(4)
    batch_first = kwargs.get("batch_first", False)
    causal = nn.Transformer.generate_square_subsequent_mask(TGT, dtype=minitorch.float64)
    arrays = {
        "src": sequence(rng, SRC, batch_first), "tgt": sequence(rng, TGT, batch_first),
        "tgt_mask": values(causal), "src_key_padding_mask": padding("bool", SRC),
        "memory_key_padding_mask": padding("bool", SRC), "tgt_key_padding_mask": np.zeros((BATCH, TGT), dtype=bool),
    }
    run_both(torch_ref, mine, ref, arrays, ("src", "tgt"), tgt_is_causal=True)


def test_transformer_unbatched_with_src_mask(torch_ref) -> None:
    mine, ref = build(torch_ref, "Transformer", D_MODEL, HEADS, 1, 1, FF)
    rng = np.random.default_rng(5)
    arrays = {"src": sequence(rng, SRC, False, batched=False), "tgt": sequence(rng, TGT, False, batched=False),
              "src_mask": mask(rng, "bool", SRC, SRC), "memory_mask": mask(rng, "float", TGT, SRC)}
    run_both(torch_ref, mine, ref, arrays, ("src", "tgt"))


MHA_CASES = {
    "bias_kv": ({"add_bias_kv": True}, {}),
    "zero_attn_2d_mask_and_padding": ({"add_zero_attn": True}, {"attn_mask": "2d", "key_padding_mask": True}),
    "both_kdim_vdim_3d_mask": ({"add_bias_kv": True, "add_zero_attn": True, "kdim": 3, "vdim": 5},
                               {"attn_mask": "3d", "key_padding_mask": True}),
    "both_per_head_weights": ({"add_bias_kv": True, "add_zero_attn": True, "batch_first": True},
                              {"key_padding_mask": True, "average_attn_weights": False}),
}


@pytest.mark.parametrize("case", sorted(MHA_CASES))
def test_multihead_attention_bias_kv_and_zero_attn(torch_ref, case: str) -> None:
    init_kwargs, call = MHA_CASES[case]
    mine, ref = build(torch_ref, "MultiheadAttention", D_MODEL, HEADS, **init_kwargs)
    assert list(mine.state_dict()) == list(ref.state_dict())
    rng = np.random.default_rng(6)
    lq, lk = 3, 4
    lead = (lambda n: (BATCH, n)) if init_kwargs.get("batch_first") else (lambda n: (n, BATCH))
    arrays = {
        "query": rng.standard_normal(lead(lq) + (D_MODEL,)),
        "key": rng.standard_normal(lead(lk) + (init_kwargs.get("kdim", D_MODEL),)),
        "value": rng.standard_normal(lead(lk) + (init_kwargs.get("vdim", D_MODEL),)),
    }
    if call.get("attn_mask") == "2d":
        arrays["attn_mask"] = mask(rng, "bool", lq, lk)
    elif call.get("attn_mask") == "3d":
        arrays["attn_mask"] = rng.standard_normal((BATCH * HEADS, lq, lk))
    if call.get("key_padding_mask"):
        padded = np.zeros((BATCH, lk), dtype=bool)
        padded[1] = True  # every key of the second sequence: only the appended positions are left to attend
        arrays["key_padding_mask"] = padded
    flags = {k: v for k, v in call.items() if k == "average_attn_weights"}
    our_in = {k: ours(a, k in ("query", "key", "value")) for k, a in arrays.items()}
    ref_in = {k: theirs(torch_ref, a, k in ("query", "key", "value")) for k, a in arrays.items()}
    (out, weights), (expected, expected_weights) = mine(**our_in, **flags), ref(**ref_in, **flags)
    assert_close(out, expected, **TOL)
    assert_close(weights, expected_weights, **TOL, what="attention weights")
    g = rng.standard_normal(tuple(expected.shape))
    (out * ours(g)).sum().backward()
    (expected * torch_ref.tensor(g)).sum().backward()
    for k in ("query", "key", "value"):
        assert_close(our_in[k].grad, ref_in[k].grad, **TOL, what=f"gradient of {k}")
    ref_params = dict(ref.named_parameters())
    for name, p in mine.named_parameters():
        assert_close(p.grad, ref_params[name].grad, **TOL, what=f"gradient of {name}")


STATE_DICT_CASES = {
    "TransformerEncoderLayer": lambda n: n.TransformerEncoderLayer(D_MODEL, HEADS, FF, bias=False),
    "TransformerDecoderLayer": lambda n: n.TransformerDecoderLayer(D_MODEL, HEADS, FF, norm_first=True),
    "TransformerEncoder": lambda n: n.TransformerEncoder(n.TransformerEncoderLayer(D_MODEL, HEADS, FF), 3),
    "TransformerDecoder": lambda n: n.TransformerDecoder(n.TransformerDecoderLayer(D_MODEL, HEADS, FF), 2,
                                                         n.LayerNorm(D_MODEL)),
    "Transformer": lambda n: n.Transformer(D_MODEL, HEADS, 2, 1, FF),
    "MultiheadAttention": lambda n: n.MultiheadAttention(D_MODEL, HEADS, add_bias_kv=True, kdim=3, vdim=5),
}


@pytest.mark.parametrize("name", sorted(STATE_DICT_CASES))
def test_state_dict_keys_shapes_and_loading_both_ways(torch_ref, name: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mine, ref = STATE_DICT_CASES[name](nn), STATE_DICT_CASES[name](torch_ref.nn)
    ours_sd, ref_sd = mine.state_dict(), ref.state_dict()
    assert list(ours_sd) == list(ref_sd)
    assert [tuple(t.shape) for t in ours_sd.values()] == [tuple(t.shape) for t in ref_sd.values()]
    assert repr(mine) == repr(ref)
    load_torch_weights(mine, ref)
    for key, t in mine.state_dict().items():
        np.testing.assert_array_equal(values(t), values(ref_sd[key]), err_msg=key)
    rng = np.random.default_rng(8)
    fresh = {k: rng.standard_normal(tuple(t.shape)) for k, t in ours_sd.items()}
    mine.load_state_dict({k: minitorch.tensor(a) for k, a in fresh.items()})
    ref.load_state_dict({k: torch_ref.tensor(values(t)) for k, t in mine.state_dict().items()})
    for key, t in ref.state_dict().items():
        np.testing.assert_array_equal(values(t), fresh[key].astype(np.float32), err_msg=key)


def test_encoder_layers_are_independent_copies() -> None:
    layer = nn.TransformerEncoderLayer(D_MODEL, HEADS, FF)
    encoder = nn.TransformerEncoder(layer, 2, enable_nested_tensor=False)
    first, second = encoder.layers[0].linear1.weight, encoder.layers[1].linear1.weight
    np.testing.assert_array_equal(values(first), values(layer.linear1.weight))
    assert first is not second and first is not layer.linear1.weight
    with minitorch.no_grad():
        first.fill_(0.5)
    assert float(second.abs().max().item()) != 0.5 and float(layer.linear1.weight.abs().max().item()) != 0.5


def test_initialization_follows_torch() -> None:
    """Transformer re-draws every matrix Xavier-uniform; biases and norms keep their layers' starts."""
    big = 64
    model = nn.Transformer(big, 4, 1, 1, 2 * big, batch_first=True)
    params = dict(model.named_parameters())
    for name, p in params.items():
        if p.dim() > 1:
            fan_out, fan_in = p.shape
            bound = math.sqrt(6.0 / (fan_in + fan_out))
            drawn = np.abs(values(p))
            assert drawn.max() <= bound and drawn.max() > 0.95 * bound, name
    np.testing.assert_array_equal(values(params["encoder.layers.0.self_attn.in_proj_bias"]), 0.0)
    np.testing.assert_array_equal(values(params["decoder.norm.weight"]), 1.0)
    linear_bias = np.abs(values(params["encoder.layers.0.linear2.bias"]))
    assert linear_bias.max() <= 1 / math.sqrt(2 * big) and linear_bias.max() > 0.5 / math.sqrt(2 * big)
    attn = nn.MultiheadAttention(big * 4, 4, add_bias_kv=True)  # bias_k (1, 1, E): Xavier normal, std sqrt(1/E)
    drawn = np.concatenate([values(attn.bias_k).ravel(), values(attn.bias_v).ravel()])
    assert abs(drawn.std() / math.sqrt(1.0 / (big * 4)) - 1) < 0.15


def test_generate_square_subsequent_mask_matches_torch(torch_ref) -> None:
    mine, ref = nn.Transformer.generate_square_subsequent_mask(4), torch_ref.nn.Transformer.generate_square_subsequent_mask(4)
    assert str(mine.dtype) == str(ref.dtype).replace("torch", "minitorch")
    np.testing.assert_array_equal(values(mine), values(ref))
    wide = nn.Transformer.generate_square_subsequent_mask(3, dtype=minitorch.float64)
    assert wide.dtype == minitorch.float64 and np.isneginf(values(wide)).sum() == 3


def test_encoder_inference_zeros_padded_positions_as_torch(torch_ref) -> None:
    """Eval mode, no gradient, batch first, even heads, left-aligned padding: PyTorch's nested-tensor path
    returns zeros (then the final norm) at padded positions; with gradients on, the ordinary values."""
    mine, ref = stack(torch_ref, "TransformerEncoder", {"batch_first": True})
    with minitorch.no_grad():
        mine.norm.bias.fill_(0.25)
    with torch_ref.no_grad():
        ref.norm.bias.fill_(0.25)
    assert mine.use_nested_tensor and ref.use_nested_tensor
    src = sequence(np.random.default_rng(9), SRC, True)
    soft = np.where(padding("bool", SRC), -0.5, 0.0)  # nonzero: dropped by the nested path, not just biased
    for pad in (padding("bool", SRC), padding("float", SRC), soft):
        with minitorch.no_grad(), torch_ref.no_grad():
            out = mine(ours(src), src_key_padding_mask=ours(pad))
            expected = ref(theirs(torch_ref, src), src_key_padding_mask=theirs(torch_ref, pad))
        assert_close(out, expected, **TOL)
        np.testing.assert_allclose(values(out)[1, -2:], 0.25)
    with_grad = mine(ours(src), src_key_padding_mask=ours(padding("bool", SRC)))
    assert np.abs(values(with_grad)[1, -2:] - 0.25).max() > 1e-3
    right_aligned = padding("bool", SRC)[:, ::-1].copy()
    for check in (True, False):  # unchecked, a row of n real tokens counts as its first n positions
        mine.mask_check = ref.mask_check = check
        with minitorch.no_grad(), torch_ref.no_grad():
            out = mine(ours(src), src_key_padding_mask=ours(right_aligned))
            expected = ref(theirs(torch_ref, src), src_key_padding_mask=theirs(torch_ref, right_aligned))
        assert_close(out, expected, **TOL)


def test_nested_tensor_warning_matches_torch(torch_ref) -> None:
    for kwargs in ({}, {"batch_first": True, "norm_first": True}, {"batch_first": True, "bias": False}):
        with warnings.catch_warnings(record=True) as caught_ref:
            warnings.simplefilter("always")
            torch_ref.nn.TransformerEncoder(torch_ref.nn.TransformerEncoderLayer(D_MODEL, HEADS, FF, **kwargs), 1)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(D_MODEL, HEADS, FF, **kwargs), 1)
        assert [str(w.message) for w in caught] == [str(w.message) for w in caught_ref]
        assert encoder.use_nested_tensor is False


def test_errors_match_torch(torch_ref) -> None:
    assert_same_error(lambda: nn.TransformerEncoderLayer(6, 4), lambda: torch_ref.nn.TransformerEncoderLayer(6, 4))
    assert_same_error(lambda: nn.TransformerDecoderLayer(8, 2, activation="tanh"),
                      lambda: torch_ref.nn.TransformerDecoderLayer(8, 2, activation="tanh"))
    mine, ref = build(torch_ref, "Transformer", D_MODEL, HEADS, 1, 1, FF)
    rng = np.random.default_rng(10)
    src, tgt = sequence(rng, SRC, False), rng.standard_normal((TGT, BATCH + 1, D_MODEL))
    assert_same_error(lambda: mine(ours(src), ours(tgt)), lambda: ref(theirs(torch_ref, src), theirs(torch_ref, tgt)))
    narrow = rng.standard_normal((TGT, BATCH, D_MODEL - 1))
    assert_same_error(lambda: mine(ours(src), ours(narrow)),
                      lambda: ref(theirs(torch_ref, src), theirs(torch_ref, narrow)))
    int_mask = np.zeros((SRC, SRC), dtype=np.int64)
    tgt = sequence(rng, TGT, False)
    assert_same_error(lambda: mine(ours(src), ours(tgt), src_mask=ours(int_mask)),
                      lambda: ref(theirs(torch_ref, src), theirs(torch_ref, tgt), src_mask=theirs(torch_ref, int_mask)))
    assert_same_error(lambda: mine.decoder(ours(tgt), ours(src), tgt_is_causal=True),
                      lambda: ref.decoder(theirs(torch_ref, tgt), theirs(torch_ref, src), tgt_is_causal=True))
    assert_same_error(lambda: mine.encoder(ours(src), is_causal=True),
                      lambda: ref.encoder(theirs(torch_ref, src), is_causal=True))
    attn, attn_ref = build(torch_ref, "MultiheadAttention", D_MODEL, HEADS, add_bias_kv=True)
    int_padding = np.zeros((BATCH, SRC), dtype=np.int64)
    assert_same_error(lambda: attn(*[ours(src)] * 3, key_padding_mask=ours(int_padding)),
                      lambda: attn_ref(*[theirs(torch_ref, src)] * 3, key_padding_mask=theirs(torch_ref, int_padding)))


def test_mismatched_mask_types_warn_as_torch(torch_ref) -> None:
    layer, ref = build(torch_ref, "TransformerEncoderLayer", D_MODEL, HEADS, FF)
    rng = np.random.default_rng(11)
    src, float_mask, bool_padding = sequence(rng, SRC, False), mask(rng, "float", SRC, SRC), padding("bool", SRC)
    with warnings.catch_warnings(record=True) as caught_ref:
        warnings.simplefilter("always")
        expected = ref(theirs(torch_ref, src), theirs(torch_ref, float_mask), theirs(torch_ref, bool_padding))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = layer(ours(src), ours(float_mask), ours(bool_padding))
    assert_close(out, expected, **TOL)
    assert str(caught[0].message) == str(caught_ref[0].message)


@pytest.mark.parametrize("activation", ["relu", "gelu", "GELU", "silu"])
def test_activation_attribute_as_torch(torch_ref, activation: str) -> None:
    """``layer.activation`` is the function (or the module) as in PyTorch, with the same ``activation_relu_or_gelu``."""
    mine = nn.TransformerEncoderLayer(D_MODEL, HEADS, FF, activation=activation_for(nn, activation))
    ref = torch_ref.nn.TransformerEncoderLayer(D_MODEL, HEADS, FF, activation=activation_for(torch_ref.nn, activation))
    assert mine.activation_relu_or_gelu == ref.activation_relu_or_gelu
    if activation in ("relu", "gelu"):
        assert mine.activation is getattr(nn.functional, activation)
    elif activation == "GELU":
        assert isinstance(mine.activation, nn.GELU) and "activation" in dict(mine.named_children())
    else:
        assert mine.activation is nn.functional.silu


def test_whole_model_saves_and_loads(tmp_path) -> None:
    """A Transformer saves whole (``minitorch.save(model)``) and loads back computing the same."""
    model = nn.Transformer(D_MODEL, HEADS, 1, 1, FF, dropout=0.0, activation="gelu", batch_first=True).double().eval()
    minitorch.save(model, tmp_path / "model.pt")
    loaded = minitorch.load(tmp_path / "model.pt", weights_only=False)
    assert loaded.decoder.layers[0].activation is nn.functional.gelu
    rng = np.random.default_rng(12)
    src, tgt = ours(sequence(rng, SRC, True)), ours(sequence(rng, TGT, True))
    np.testing.assert_array_equal(values(loaded(src, tgt)), values(model(src, tgt)))
