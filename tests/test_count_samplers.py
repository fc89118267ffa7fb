"""``poisson``, ``binomial`` and the ``Poisson``/``Binomial``/``Multinomial`` distributions draw PyTorch's numbers.

Oracles: PyTorch itself, run on the same seed (every element equal, and the generator's state
bytes after the draw); a draw worked out by hand from the Mersenne Twister's words; and, without
PyTorch, the analytic mean and variance of each distribution (sample moments of many draws within
a few standard errors).
"""

from __future__ import annotations

import math
import platform
from typing import Any, Callable

import numpy as np
import pytest

import minitorch
from minitorch.mersenne import MersenneStream
from torch_oracle import import_torch

SEED = 3
#: moment checks: draws per case, and the standard errors allowed
DRAWS = 100_000
SIGMAS = 5
#: PyTorch's conversion of an out-of-range double to int64 (what an infinite rate gives) is x86-64's
X86_64 = platform.machine().lower() in ("x86_64", "amd64")

Program = Callable[[Any, Any], Any]


def _rates(lib: Any, dtype: Any) -> dict[str, Any]:
    """Rates across the regimes of PyTorch's Poisson sampler, as ``lib`` tensors of ``dtype``."""
    spread = np.random.default_rng(0)
    return {
        "small": lib.tensor(spread.random(400) * 10, dtype=dtype),
        "large": lib.tensor(10 + spread.random(400) * 500, dtype=dtype),
        "edges": lib.tensor([0.0, 1e-8, 0.5, 9.999, 10.0, 10.001, 1e6, 1e12, 0.0], dtype=dtype),
    }


def _poisson_programs() -> dict[str, Program]:
    def regimes(lib: Any, dtype: Any) -> list[Any]:
        return [lib.poisson(rates) for rates in _rates(lib, dtype).values()]

    def strided(lib: Any, dtype: Any) -> list[Any]:
        grid = lib.tensor(np.arange(1.0, 25.0).reshape(4, 6), dtype=dtype)
        return [lib.poisson(grid.t()), lib.poisson(grid[:, 1:5:2]), lib.poisson(lib.tensor([4.0, 30.0], dtype=dtype).expand(3, 2)),
                lib.poisson(lib.tensor(7.5, dtype=dtype)), lib.poisson(lib.zeros(0, 3, dtype=dtype))]

    return {"regimes": regimes, "strided": strided}


def _binomial_programs() -> dict[str, Program]:
    spread = np.random.default_rng(1)
    counts = np.floor(np.exp(spread.uniform(0, 9, 300)))
    probs = spread.random(300)

    def inversion(lib: Any, dtype: Any) -> Any:  # count * min(p, 1 - p) below 10
        return lib.binomial(lib.tensor(np.floor(counts[:100] % 40), dtype=dtype), lib.tensor(probs[:100] * 0.2, dtype=dtype))

    def rejection(lib: Any, dtype: Any) -> Any:  # BTRS: count * p at least 10
        return lib.binomial(lib.tensor(counts + 100, dtype=dtype), lib.tensor(0.1 + 0.4 * probs, dtype=dtype))

    def symmetric(lib: Any, dtype: Any) -> list[Any]:  # p above 1/2: count minus a draw at 1 - p, by both methods
        return [lib.binomial(lib.tensor(counts, dtype=dtype), lib.tensor(0.5 + 0.5 * probs, dtype=dtype)),
                lib.binomial(lib.tensor([20.0, 20.0, 19.0, 1e4], dtype=dtype), lib.tensor([0.5, 0.5000001, 0.51, 0.99], dtype=dtype))]

    def edges(lib: Any, dtype: Any) -> Any:  # unchecked values: p < 0 gives 0, p > 1 the count, NaN p NaN
        count = [0.0, 10.0, 10.0, 7.0, 7.0, 7.0, 10.5, 1e9, float("inf"), float("inf"), -3.0, 1.0]
        prob = [0.5, 0.0, 1.0, -0.5, 1.5, float("nan"), 0.5, 0.3, 0.0, 1.0, 0.5, 0.999999]
        return lib.binomial(lib.tensor(count, dtype=dtype), lib.tensor(prob, dtype=dtype))

    def strided(lib: Any, dtype: Any) -> list[Any]:
        grid = lib.tensor(np.arange(1.0, 61.0).reshape(6, 10), dtype=dtype)
        chances = lib.tensor(np.linspace(0.05, 0.95, 60).reshape(6, 10), dtype=dtype)
        return [lib.binomial(grid.t(), chances.t()), lib.binomial(grid[:, ::3], chances[:, ::3]),
                lib.binomial(grid, lib.tensor(0.3, dtype=dtype)), lib.binomial(lib.tensor(50.0, dtype=dtype).expand(4), chances[0, :4])]

    return {f.__name__: f for f in (inversion, rejection, symmetric, edges, strided)}


def _host(values: Any) -> list[np.ndarray]:
    values = values if isinstance(values, list) else [values]
    return [np.asarray(v.detach().cpu().numpy()) for v in values]


def _state(lib: Any, generator: Any = None) -> bytes:
    state = lib.get_rng_state() if generator is None else generator.get_state()
    return bytes(np.asarray(state.numpy(), dtype=np.uint8))


def _assert_same_draws(program: Program, dtype_name: str) -> None:
    """``program`` after the same seed under both libraries: equal values, dtypes and states."""
    torch = import_torch()
    torch.manual_seed(SEED)
    theirs = _host(program(torch, getattr(torch, dtype_name)))
    their_state = _state(torch)
    minitorch.manual_seed(SEED)
    ours = _host(program(minitorch, getattr(minitorch, dtype_name)))
    assert len(ours) == len(theirs)
    for mine, expected in zip(ours, theirs):
        assert mine.dtype == expected.dtype and mine.shape == expected.shape
        np.testing.assert_array_equal(mine, expected)
    assert _state(minitorch) == their_state


@pytest.mark.parametrize("dtype_name", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(_poisson_programs()))
def test_poisson_draws_are_pytorchs(name: str, dtype_name: str) -> None:
    _assert_same_draws(_poisson_programs()[name], dtype_name)


def test_poisson_of_half_precision_rates_is_pytorchs() -> None:
    _assert_same_draws(lambda lib, dtype: lib.poisson(lib.tensor([0.5, 3.0, 12.0, 200.0, 4000.0], dtype=dtype)), "float16")


@pytest.mark.skipif(not X86_64, reason="an infinite rate gives C's out-of-range int64 conversion, x86-64's here")
def test_an_infinite_rate_gives_the_int64_minimum_as_pytorch_on_x86_64() -> None:
    _assert_same_draws(lambda lib, dtype: lib.poisson(lib.tensor([float("inf"), 1e30, 3.0], dtype=dtype)), "float64")


@pytest.mark.parametrize("dtype_name", ["float32", "float64"])
@pytest.mark.parametrize("name", sorted(_binomial_programs()))
def test_binomial_draws_are_pytorchs(name: str, dtype_name: str) -> None:
    _assert_same_draws(_binomial_programs()[name], dtype_name)


def test_a_small_rate_counts_uniforms_until_their_product_falls_below_exp_minus_rate() -> None:
    """Poisson below rate 10 by hand from the twister's words: uniforms :math:`(W \\bmod 2^{53}) 2^{-53}`."""
    rate = 2.5
    uniforms = [(int(w) % 2**53) / 2**53 for w in MersenneStream(SEED).words64(64)]
    product, count = 1.0, 0
    for u in uniforms:
        product *= u
        if product <= math.exp(-rate):
            break
        count += 1
    minitorch.manual_seed(SEED)
    assert minitorch.poisson(minitorch.tensor([rate], dtype=minitorch.float64)).item() == count


def test_an_explicit_generator_is_used_and_the_default_one_left_alone() -> None:
    torch = import_torch()

    def program(lib: Any) -> tuple[list[np.ndarray], bytes, bytes]:
        lib.manual_seed(SEED)
        before = _state(lib)
        g = lib.Generator().manual_seed(11)
        drawn = [lib.poisson(lib.tensor([3.0, 40.0]), generator=g), lib.binomial(lib.tensor([30.0, 8.0]), lib.tensor([0.4, 0.7]), g)]
        assert _state(lib) == before
        return _host(drawn), _state(lib, g), before

    ours, their_values = program(minitorch), program(torch)
    for mine, expected in zip(ours[0], their_values[0]):
        np.testing.assert_array_equal(mine, expected)
    assert ours[1:] == their_values[1:]


def test_a_bad_rate_stops_where_pytorch_stops() -> None:
    """The error comes when the bad element is reached, the earlier ones drawn: the states agree."""
    torch = import_torch()
    states = []
    for lib in (torch, minitorch):
        lib.manual_seed(SEED)
        with pytest.raises(RuntimeError, match="invalid Poisson rate, expected rate to be non-negative"):
            lib.poisson(lib.tensor([3.0, 25.0, -1.0, 4.0]))
        states.append(_state(lib))
    assert states[0] == states[1]


BAD_CALLS: dict[str, Callable[[Any], Any]] = {
    "negative_rate": lambda lib: lib.poisson(lib.tensor([1.0, -1.0])),
    "nan_rate": lambda lib: lib.poisson(lib.tensor([float("nan")])),
    "integer_rate": lambda lib: lib.poisson(lib.tensor([1, 2])),
    "bool_rate": lambda lib: lib.poisson(lib.tensor(True)),
    "rate_list": lambda lib: lib.poisson([1.0]),
    "integer_count": lambda lib: lib.binomial(lib.tensor([10]), lib.tensor([0.5])),
    "bool_prob": lambda lib: lib.binomial(lib.tensor([10.0]), lib.tensor([True])),
    "mixed_dtypes": lambda lib: lib.binomial(lib.tensor([10.0]), lib.tensor([0.5], dtype=lib.float64)),
    "half_count": lambda lib: lib.binomial(lib.tensor([10.0], dtype=lib.float16), lib.tensor([0.5], dtype=lib.float16)),
    "half_and_float": lambda lib: lib.binomial(lib.tensor([10.0], dtype=lib.float16), lib.tensor([0.5])),
    "prob_list": lambda lib: lib.binomial(lib.tensor([10.0]), [0.5]),
    "count_number": lambda lib: lib.binomial(10.0, lib.tensor([0.5])),
    "shapes": lambda lib: lib.binomial(lib.tensor([10.0, 5.0]), lib.tensor([0.5, 0.2, 0.3])),
}


@pytest.mark.parametrize("name", sorted(BAD_CALLS))
def test_bad_arguments_raise_pytorchs_errors(name: str) -> None:
    torch = import_torch()
    with pytest.raises(Exception) as theirs:
        BAD_CALLS[name](torch)
    with pytest.raises(Exception) as ours:
        BAD_CALLS[name](minitorch)
    assert isinstance(ours.value, type(theirs.value))  # (a shape error here is RuntimeError's subclass IndexingError)
    # PyTorch's broadcast message is followed here by the two shapes
    assert str(ours.value).startswith(str(theirs.value).split(" (Triggered internally")[0])


def test_a_nan_count_gives_nan_where_pytorchs_loop_never_ends() -> None:
    minitorch.manual_seed(SEED)
    before = _state(minitorch)
    drawn = minitorch.binomial(minitorch.tensor([float("nan"), float("nan")]), minitorch.tensor([0.3, 0.8]))
    assert np.isnan(drawn.numpy()).all() and _state(minitorch) == before


def test_a_prob_of_larger_shape_resizes_the_result_with_pytorchs_warning() -> None:
    torch = import_torch()
    results = []
    for lib in (torch, minitorch):
        lib.manual_seed(SEED)
        with pytest.warns(UserWarning, match=r"resized since it had shape \[2, 1\].*required output shape \[2, 3\]"):
            results.append(lib.binomial(lib.tensor([[10.0], [30.0]]), lib.tensor([0.5, 0.2, 0.9])).numpy())
    np.testing.assert_array_equal(results[1], results[0])


def test_poisson_has_a_zero_gradient_and_binomial_none_as_in_pytorch() -> None:
    torch = import_torch()
    for lib in (torch, minitorch):
        rates = lib.tensor([3.0, 20.0], requires_grad=True)
        drawn = lib.poisson(rates)
        assert drawn.requires_grad and drawn.grad_fn.name() == "PoissonBackward0"
        drawn.sum().backward()
        assert rates.grad.tolist() == [0.0, 0.0]
        count, prob = lib.tensor([10.0, 5.0]), lib.tensor([0.3, 0.6], requires_grad=True)
        drawn = lib.binomial(count, prob)
        assert drawn.requires_grad and drawn.grad_fn.name() == "torch::autograd::NotImplemented"
        assert len(drawn.grad_fn.next_functions) == 1  # an edge for prob only, the one that requires grad
        with pytest.raises(RuntimeError, match="derivative for aten::binomial is not implemented"):
            drawn.sum().backward()
        with lib.no_grad():
            assert not lib.poisson(rates).requires_grad and not lib.binomial(count, prob).requires_grad


def _distributions(lib: Any, dtype: Any) -> list[Any]:
    d = lib.distributions
    rates = lib.tensor([0.0, 0.7, 4.0, 12.0, 250.0], dtype=dtype)
    counts = lib.tensor([[5.0], [40.0], [1000.0]], dtype=dtype)
    probs = lib.tensor([0.0, 0.1, 0.5, 0.93, 1.0], dtype=dtype)
    return [d.Poisson(rates).sample(), d.Poisson(rates).sample((4, 2)), d.Poisson(3.5).sample((6,)),
            d.Binomial(counts, probs).sample(), d.Binomial(counts, probs).sample((3,)),
            d.Binomial(25, logits=lib.tensor([-2.0, 0.0, 3.0], dtype=dtype)).sample((5,)),
            d.Binomial(probs=lib.tensor([0.3, 0.8], dtype=dtype)).sample((7,)),
            d.Multinomial(12, probs=lib.tensor([[0.2, 0.3, 0.5], [0.6, 0.0, 0.4]], dtype=dtype)).sample((3,)),
            d.Multinomial(5, logits=lib.tensor([0.1, 2.0, -1.0], dtype=dtype)).sample()]


@pytest.mark.parametrize("dtype_name", ["float32", "float64"])
def test_the_distributions_sample_pytorchs_numbers(dtype_name: str) -> None:
    _assert_same_draws(_distributions, dtype_name)


#: (rate,): mean and variance :math:`\lambda`, fourth central moment :math:`\lambda(1 + 3\lambda)`
POISSON_MOMENTS = [0.3, 4.0, 9.5, 10.0, 37.0, 800.0]
#: (n, p): mean :math:`np`, variance :math:`npq`, fourth central moment :math:`npq(1 + 3(n - 2)pq)`
BINOMIAL_MOMENTS = [(12.0, 0.3), (100.0, 0.05), (40.0, 0.5), (1000.0, 0.2), (500.0, 0.9), (30.0, 0.97)]


def _assert_moments(draws: np.ndarray, mean: float, variance: float, fourth: float) -> None:
    """Sample mean and variance within ``SIGMAS`` standard errors :math:`\\sqrt{\\sigma^2/N}` and
    :math:`\\sqrt{(\\mu_4 - \\sigma^4)/N}` of the analytic ones."""
    n = draws.size
    assert abs(draws.mean() - mean) < SIGMAS * math.sqrt(variance / n), (draws.mean(), mean)
    assert abs(draws.var() - variance) < SIGMAS * math.sqrt((fourth - variance**2) / n), (draws.var(), variance)


@pytest.mark.parametrize("rate", POISSON_MOMENTS)
def test_poisson_sample_moments_match_the_analytic_ones(rate: float) -> None:
    draws = minitorch.poisson(minitorch.full((DRAWS,), rate, dtype=minitorch.float64)).numpy()
    _assert_moments(draws, rate, rate, rate * (1 + 3 * rate))


@pytest.mark.parametrize(("n", "p"), BINOMIAL_MOMENTS)
def test_binomial_sample_moments_match_the_analytic_ones(n: float, p: float) -> None:
    draws = minitorch.binomial(minitorch.full((DRAWS,), n), minitorch.full((DRAWS,), p)).numpy().astype(np.float64)
    assert draws.min() >= 0 and draws.max() <= n and np.all(draws == np.round(draws))
    spread = n * p * (1 - p)
    _assert_moments(draws, n * p, spread, spread * (1 + 3 * (n - 2) * p * (1 - p)))
