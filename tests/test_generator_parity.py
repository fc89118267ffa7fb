"""minitorch's generator gives PyTorch's CPU numbers for a seed.

Oracles: the Mersenne Twister's published reference outputs (independent of both libraries),
numbers derived by hand from them, and PyTorch itself (where it is installed) for every
sampler, run on the same seed in the same order.
"""

from __future__ import annotations

import math
import platform
from typing import Any, Callable

import numpy as np
import pytest

import minitorch
from minitorch.mersenne import STATE_LAYOUT, MersenneStream
from torch_oracle import import_torch

#: the 10000th word of a twister seeded with 5489 (the check value of C++'s std::mt19937)
REFERENCE_SEED, REFERENCE_INDEX, REFERENCE_WORD = 5489, 10000, 4123659995
#: the first words of a twister seeded with 0 (the reference implementation's init_genrand(0))
SEED_ZERO_WORDS = [2357136044, 2546248239, 3071714933]


def test_the_twister_matches_its_reference_check_value() -> None:
    assert int(MersenneStream(REFERENCE_SEED).words32(REFERENCE_INDEX)[-1]) == REFERENCE_WORD


def test_seed_zero_gives_the_reference_words_and_rand_their_low_24_bits() -> None:
    assert MersenneStream(0).words32(3).tolist() == SEED_ZERO_WORDS
    minitorch.manual_seed(0)
    expected = [(word % 2**24) / 2**24 for word in SEED_ZERO_WORDS]
    assert minitorch.rand(3).tolist() == expected
    minitorch.manual_seed(0)
    high, low = SEED_ZERO_WORDS[0], SEED_ZERO_WORDS[1]
    assert minitorch.rand(1, dtype=minitorch.float64).item() == (((high << 32) | low) % 2**53) / 2**53


def test_randint_and_randperm_by_hand_from_the_reference_words() -> None:
    minitorch.manual_seed(0)
    assert minitorch.randint(0, 10, (3,)).tolist() == [word % 10 for word in SEED_ZERO_WORDS]
    minitorch.manual_seed(0)
    order = list(range(4))
    for i, word in enumerate(SEED_ZERO_WORDS):
        j = i + word % (4 - i)
        order[i], order[j] = order[j], order[i]
    assert minitorch.randperm(4).tolist() == order


def test_randn_of_a_few_values_is_box_muller_holding_the_second_sample() -> None:
    minitorch.manual_seed(0)
    first = minitorch.randn(1, dtype=minitorch.float64).item()
    second = minitorch.randn(1, dtype=minitorch.float64).item()
    words = MersenneStream(0).words64(2)
    angle, radius = (float(w % 2**53) / 2**53 for w in words)
    r = math.sqrt(-2.0 * math.log1p(-radius))
    assert first == pytest.approx(r * math.cos(2 * math.pi * angle), rel=1e-15)
    assert second == pytest.approx(r * math.sin(2 * math.pi * angle), rel=1e-15)
    minitorch.manual_seed(0)
    minitorch.randn(1)
    minitorch.manual_seed(0)  # reseeding drops the held sample
    assert minitorch.randn(1, dtype=minitorch.float64).item() == first


def test_the_held_normal_sample_survives_a_state_round_trip() -> None:
    minitorch.manual_seed(4)
    minitorch.randn(3)
    state = minitorch.get_rng_state()
    after = minitorch.randn(5).tolist()
    minitorch.manual_seed(99)
    minitorch.set_rng_state(state)
    assert minitorch.randn(5).tolist() == after


def test_a_state_of_the_wrong_kind_is_refused_with_its_values_named() -> None:
    good = minitorch.get_rng_state()
    with pytest.raises(RuntimeError, match="5056 bytes"):
        minitorch.set_rng_state(good[:100])
    fields = list(STATE_LAYOUT.unpack(bytes(good.numpy().tobytes())))
    fields[1] = 0  # words left before the next twist: must be in [1, 624]
    bad = minitorch.tensor(list(STATE_LAYOUT.pack(*fields)), dtype=minitorch.uint8)
    with pytest.raises(RuntimeError, match=r"left \(0\) must be in \[1, 624\]"):
        minitorch.set_rng_state(bad)
    assert minitorch.get_rng_state().tolist() == good.tolist()  # nothing changed


def test_layout_is_pytorchs_5056_bytes() -> None:
    assert STATE_LAYOUT.size == minitorch.get_rng_state().numel() == 5056


# ---- against PyTorch itself ----

def _calls() -> dict[str, Callable[[Any], Any]]:
    """Programs written once and run under either library (``lib`` is the module)."""
    def init_layers(lib: Any) -> list[Any]:
        layers = [lib.nn.Linear(20, 7), lib.nn.Conv2d(3, 4, 3), lib.nn.Embedding(5, 20), lib.nn.LSTM(4, 3)]
        return [p for layer in layers for p in layer.parameters()]

    def loader_epochs(lib: Any) -> list[Any]:
        data = lib.utils.data.TensorDataset(lib.arange(10))
        loader = lib.utils.data.DataLoader(data, batch_size=4, shuffle=True)
        return [[batch[0].tolist() for batch in loader] for _ in range(3)]

    def samplers(lib: Any) -> list[Any]:
        data = lib.utils.data
        return [list(data.RandomSampler(range(7), replacement=True, num_samples=40)),
                list(data.RandomSampler(range(5), num_samples=12)),
                list(data.SubsetRandomSampler([10, 20, 30, 40])),
                list(data.WeightedRandomSampler([0.1, 0.5, 0.4], 5)),
                [list(part) for part in data.random_split(range(10), [3, 7])]]

    def fills(lib: Any) -> list[Any]:
        strided = lib.empty(6, 5).t()
        strided.normal_()
        sliced = lib.empty(6, 5)[:, 1:4]
        sliced.uniform_(-2, 3)
        return [strided, sliced, lib.empty(4).cauchy_(), lib.empty(4).log_normal_(), lib.empty(4).geometric_(0.3),
                lib.empty(5).exponential_(2.0), lib.empty(3, dtype=lib.float64).exponential_()]

    def integers(lib: Any) -> list[Any]:
        return [lib.randint(-5, 5, (7,)), lib.randint(0, 2**40, (3,)), lib.randint(3, (4,), dtype=lib.int32),
                lib.empty(4, dtype=lib.int32).random_(), lib.empty(3, dtype=lib.int64).random_(),
                lib.empty(4).random_(3, 9), lib.empty(3, dtype=lib.float64).random_(), lib.empty(5, dtype=lib.bool).random_(),
                lib.empty(2, dtype=lib.int64).random_(-(2**63), None), lib.randperm(30)]

    def normals(lib: Any) -> list[Any]:
        return [lib.randn(3), lib.randn(2, 3), lib.randn(33, dtype=lib.float64), lib.randn(33), lib.randn(16),
                lib.normal(lib.zeros(20), lib.ones(20) * 2), lib.normal(lib.arange(20.0), 0.5),
                lib.normal(1.0, lib.full((5,), 3.0)), lib.normal(2.0, 3.0, size=(2, 9)), lib.randn(5, 4).t()]

    def chances(lib: Any) -> list[Any]:
        return [lib.bernoulli(lib.rand(3, 4)), lib.bernoulli(lib.rand(6, dtype=lib.float64)),
                lib.empty(7).bernoulli_(0.3), lib.empty(2, 3).bernoulli_(lib.tensor([0.1, 0.5, 0.9])),
                lib.multinomial(lib.rand(3, 5), 2), lib.multinomial(lib.rand(2, 5), 6, replacement=True),
                lib.multinomial(lib.tensor([0.2, 0.8]), 1, replacement=True),
                lib.multinomial(lib.rand(4, dtype=lib.float64), 4)]

    def dropouts(lib: Any) -> list[Any]:
        functional = lib.nn.functional
        x = lib.ones(2, 3, 4, 4)
        return [functional.dropout(lib.ones(40), 0.3), functional.dropout2d(x, 0.5), functional.dropout1d(x[0], 0.25),
                functional.alpha_dropout(lib.ones(9), 0.2, training=True), lib.nn.Dropout(0.1)(lib.ones(3, 7))]

    def gamma_family(lib: Any) -> list[Any]:
        found = []
        for dtype in (lib.float32, lib.float64):
            a = lib.tensor([0.3, 0.7, 1.0, 2.5, 5.0, 0.05], dtype=dtype)
            b = lib.tensor([1.0, 2.0, 0.5, 3.0, 1.5, 0.8], dtype=dtype)
            d = lib.distributions
            found += [d.Gamma(a, b).sample((7,)), d.Dirichlet(a).sample((3,)), d.Beta(a, b).sample((4,)),
                      d.StudentT(a + 1, lib.zeros(6, dtype=dtype), b).sample((5,))]
        return found

    def generators(lib: Any) -> list[Any]:
        g = lib.Generator().manual_seed(7)
        values = [lib.rand(2, generator=g), lib.randn(20, generator=g), lib.randperm(5, generator=g)]
        return values + [g.get_state(), lib.get_rng_state(), g.initial_seed(), lib.initial_seed()]

    return {f.__name__: f for f in (init_layers, loader_epochs, samplers, fills, integers, normals, chances,
                                    dropouts, gamma_family, generators)}


def _flatten(value: Any) -> list[Any]:
    if isinstance(value, (list, tuple)):
        return [item for part in value for item in _flatten(part)]
    if hasattr(value, "detach"):
        return [np.asarray(value.detach().cpu().numpy())]
    return [value]


@pytest.mark.parametrize("name", sorted(_calls()))
def test_the_same_program_draws_pytorchs_numbers(name: str) -> None:
    torch = import_torch()
    program = _calls()[name]
    torch.manual_seed(3)
    expected = _flatten(program(torch))
    minitorch.manual_seed(3)
    got = _flatten(program(minitorch))
    assert len(got) == len(expected)
    for ours, theirs in zip(got, expected):
        if isinstance(theirs, np.ndarray):
            assert ours.dtype == theirs.dtype and ours.shape == theirs.shape
            if theirs.dtype.kind == "f":
                # float32 normal fills use single-precision log/sin/cos: last-bit differences
                np.testing.assert_allclose(ours, theirs, rtol=4e-6, atol=2e-6)
            else:
                np.testing.assert_array_equal(ours, theirs)
        else:
            assert ours == theirs


def test_a_pytorch_state_restores_into_minitorch_and_back() -> None:
    torch = import_torch()
    torch.manual_seed(11)
    torch.randn(3)  # leaves a held normal sample in the state
    state = torch.get_rng_state()
    minitorch.set_rng_state(minitorch.tensor(state.tolist(), dtype=minitorch.uint8))
    assert minitorch.get_rng_state().tolist() == state.tolist()
    assert np.array_equal(minitorch.randn(7).numpy(), torch.randn(7).numpy())
    assert minitorch.get_rng_state().tolist() == torch.get_rng_state().tolist()


X86 = ("x86_64", "AMD64")


@pytest.mark.skipif(platform.machine() not in X86, reason="PyTorch fills float32 normals with its x86 vector kernel only there")
@pytest.mark.parametrize("count", [16, 17, 100, 4099])
def test_float32_normal_fills_match_pytorchs_vector_kernel_bit_for_bit(count: int) -> None:
    torch = import_torch()
    for seed in range(3):
        torch.manual_seed(seed)
        expected = [torch.randn(count).numpy(), torch.empty(count).normal_(0.3, 2.5).numpy(),
                    torch.empty(count).uniform_(-0.3, 2.5).numpy()]
        minitorch.manual_seed(seed)
        got = [minitorch.randn(count).numpy(), minitorch.empty(count).normal_(0.3, 2.5).numpy(),
               minitorch.empty(count).uniform_(-0.3, 2.5).numpy()]
        for ours, theirs in zip(got, expected):
            np.testing.assert_array_equal(ours, theirs)


def test_float64_draws_match_pytorch_bit_for_bit() -> None:
    torch = import_torch()

    def draws(lib: Any) -> list[Any]:
        d = lib.float64
        return [lib.randn(1000, dtype=d), lib.randn(7, dtype=d), lib.empty(300, dtype=d).exponential_(0.7),
                lib.empty(300, dtype=d).cauchy_(0.5, 2.0), lib.empty(300, dtype=d).log_normal_(0.5, 0.7),
                lib.empty(300, dtype=d).uniform_(-0.3, 2.5), lib.empty(50, 30, dtype=d).t().normal_(1.0, 3.0)]

    torch.manual_seed(5)
    expected = [t.numpy() for t in draws(torch)]
    minitorch.manual_seed(5)
    for ours, theirs in zip((t.numpy() for t in draws(minitorch)), expected):
        np.testing.assert_array_equal(ours, theirs)


def _sixteen_bit_draws(lib: Any, name: str, count: int) -> list[Any]:
    """Every sampler that fills a float16 or bfloat16 tensor, as float32 values (exact for both)."""
    d = getattr(lib, name)
    made = [lib.rand(count, dtype=d), lib.randn(count, dtype=d), lib.empty(count, dtype=d).normal_(1.0, 2.0),
            lib.empty(count, dtype=d).uniform_(-0.3, 0.7), lib.empty(count, dtype=d).exponential_(),
            lib.empty(count, dtype=d).cauchy_(), lib.empty(count, dtype=d).log_normal_(),
            lib.empty(count, dtype=d).geometric_(0.3), lib.empty(count, dtype=d).random_(),
            lib.empty(count, dtype=d).random_(3, 20), lib.randint(0, 100, (count,), dtype=d),
            lib.bernoulli(lib.full((count,), 0.3, dtype=d)), lib.empty(count, 3, dtype=d).t().normal_()]
    return [t.float() for t in made]


@pytest.mark.skipif(platform.machine() not in X86, reason="PyTorch fills normals with its x86 vector kernel only there")
@pytest.mark.parametrize("name", ["float16", "bfloat16"])
@pytest.mark.parametrize("count", [8, 20, 37, 4099])
def test_sixteen_bit_floats_draw_pytorchs_float32_numbers_rounded_once(name: str, count: int) -> None:
    """PyTorch draws the 16-bit floats in float32 and rounds: a uniform of 24 bits (lifted to the
    upper bound by rounding, it becomes the lower one), a normal fill buffered one block of 16 at
    a time; the rest from float64 values rounded through float32."""
    torch = import_torch()
    torch.manual_seed(2)
    expected = [t.numpy() for t in _sixteen_bit_draws(torch, name, count)]
    minitorch.manual_seed(2)
    got = [t.numpy() for t in _sixteen_bit_draws(minitorch, name, count)]
    for ours, theirs in zip(got, expected):
        np.testing.assert_array_equal(ours, theirs)
    assert minitorch.get_rng_state().tolist() == torch.get_rng_state().tolist()


def test_a_sixteen_bit_uniform_never_reaches_its_upper_bound() -> None:
    """Rounded to 8 significant bits, a float32 draw above 1 - 2**-9 would be 1.0: it becomes 0."""
    minitorch.manual_seed(0)
    values = minitorch.rand(200_000, dtype=minitorch.bfloat16).float().numpy()
    assert values.max() < 1.0 and (values == 0.0).sum() > 100  # about 2**-9 of them, not ~2**-24
