"""Random sampling (``bernoulli``, ``multinomial``, ``normal``, the in-place fills) and ``logspace``.

minitorch's streams are not PyTorch's bits, so distributions are tested statistically with
fixed seeds: sample means and variances within :data:`Z` standard errors of the true ones,
chi-square for categorical counts. Shapes, dtypes and error messages are compared with
PyTorch's own; reproducibility with ``manual_seed`` and with a ``Generator``.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import minitorch

#: standard errors a sample statistic may stray from its true value (a false alarm is ~6e-5)
Z = 4.0
#: draws per statistical test
N = 20_000
SEED = 1234


def _within(sample_value: float, true_value: float, standard_error: float) -> bool:
    return abs(sample_value - true_value) <= Z * standard_error


def _chi_square_bound(dof: int) -> float:
    r"""The upper :data:`Z`-sigma point of :math:`\chi^2_{dof}` (Wilson–Hilferty cube-root normal approximation)."""
    spread = 2.0 / (9.0 * dof)
    return dof * (1.0 - spread + Z * math.sqrt(spread)) ** 3


def _chi_square(counts: np.ndarray, probabilities: np.ndarray) -> float:
    expected = counts.sum() * probabilities
    return float(((counts - expected) ** 2 / expected).sum())


def _mean_and_variance_fit(x: np.ndarray, mean: float, variance: float, fourth_central: float) -> None:
    """Sample mean and variance agree with the true ones within :data:`Z` standard errors."""
    n = x.size
    assert _within(x.mean(), mean, math.sqrt(variance / n)), (x.mean(), mean)
    variance_error = math.sqrt((fourth_central - variance**2) / n)
    assert _within(x.var(), variance, variance_error), (x.var(), variance)



def _same_error(torch_ref, call, prefix_length: int = 40) -> None:
    """minitorch raises the exception type PyTorch raises, with a message starting as PyTorch's."""
    with pytest.raises(Exception) as want:
        call(torch_ref)
    with pytest.raises(Exception) as got:
        call(minitorch)
    assert isinstance(got.value, type(want.value)), (got, want)
    assert str(got.value).startswith(str(want.value).splitlines()[0][:prefix_length]), (str(got.value), str(want.value))


# ---- bernoulli ----

def test_bernoulli_frequencies_follow_p():
    minitorch.manual_seed(SEED)
    p = np.array([0.0, 0.1, 0.5, 0.9, 1.0])
    draws = minitorch.bernoulli(minitorch.tensor(np.tile(p, (N, 1)), dtype=minitorch.float64)).numpy()
    assert set(np.unique(draws)) <= {0.0, 1.0}
    assert draws[:, 0].sum() == 0 and draws[:, -1].sum() == N
    for column, probability in zip(draws.T[1:-1], p[1:-1]):
        assert _within(column.mean(), probability, math.sqrt(probability * (1 - probability) / N))


@pytest.mark.parametrize("p", [0.2, 0.75])
def test_bernoulli_with_p_number_and_methods(p):
    minitorch.manual_seed(SEED)
    standard_error = math.sqrt(p * (1 - p) / N)
    top_level = minitorch.bernoulli(minitorch.zeros(N), p=p).numpy()
    method = minitorch.zeros(N).bernoulli(p).numpy()
    filled = minitorch.zeros(N).bernoulli_(p).numpy()
    from_tensor = minitorch.zeros(N).bernoulli_(minitorch.full((N,), p)).numpy()
    for draws in (top_level, method, filled, from_tensor):
        assert _within(draws.mean(), p, standard_error)


def test_bernoulli_dtypes_and_shapes_as_torch(torch_ref):
    for lib in (torch_ref, minitorch):
        assert lib.bernoulli(lib.rand(2, 3, dtype=lib.float64)).dtype == lib.float64
        assert lib.bernoulli(lib.zeros(4, dtype=lib.int64), p=0.5).dtype == lib.int64
        assert lib.bernoulli(lib.zeros(4, dtype=lib.bool), p=0.5).dtype == lib.bool
        assert tuple(lib.rand(2, 3).bernoulli().shape) == (2, 3)
        assert lib.zeros(3, dtype=lib.int64).bernoulli_(0.5).dtype == lib.int64
    ones = minitorch.zeros(5, dtype=minitorch.int64).bernoulli_(1.0)
    assert ones.tolist() == [1] * 5


@pytest.mark.parametrize("call", [
    lambda lib: lib.bernoulli(lib.tensor([0, 1])),
    lambda lib: lib.bernoulli(lib.tensor([0.5, 1.5])),
    lambda lib: lib.bernoulli(lib.tensor([0.5, -0.5])),
    lambda lib: lib.bernoulli(lib.tensor([0.5, float("nan")])),
    lambda lib: lib.bernoulli(lib.zeros(3), p=1.5),
    lambda lib: lib.zeros(3).bernoulli_(-0.1),
    lambda lib: lib.zeros(3).bernoulli_(lib.rand(2)),
    lambda lib: lib.zeros(4).bernoulli_(lib.tensor([1, 0, 1, 1])),
    lambda lib: lib.rand(3, requires_grad=True).bernoulli_(0.5),
])
def test_bernoulli_errors_as_torch(torch_ref, call):
    _same_error(torch_ref, call)


def test_bernoulli_of_a_tensor_requiring_grad_sends_zero_gradient(torch_ref):
    for lib in (torch_ref, minitorch):
        p = lib.full((3,), 0.5, requires_grad=True)
        y = lib.bernoulli(p)
        assert y.requires_grad
        (y * 2).sum().backward()
        assert p.grad.tolist() == [0.0, 0.0, 0.0]
    assert type(minitorch.bernoulli(minitorch.full((2,), 0.5, requires_grad=True)).grad_fn).__name__ == "BernoulliBackward0"


# ---- multinomial ----

WEIGHTS = np.array([1.0, 0.0, 2.0, 3.0, 4.0])


def test_multinomial_with_replacement_chi_square():
    minitorch.manual_seed(SEED)
    draws = minitorch.multinomial(minitorch.tensor(WEIGHTS), N, replacement=True).numpy()
    counts = np.bincount(draws, minlength=len(WEIGHTS))
    assert counts[1] == 0  # a zero weight is never drawn
    kept = WEIGHTS > 0
    statistic = _chi_square(counts[kept], WEIGHTS[kept] / WEIGHTS.sum())
    assert statistic < _chi_square_bound(int(kept.sum()) - 1)


def test_multinomial_with_replacement_two_rows_have_their_own_distributions():
    minitorch.manual_seed(SEED)
    rows = np.array([[1.0, 1.0, 1.0, 1.0], [0.0, 0.0, 5.0, 5.0]])
    draws = minitorch.tensor(rows).multinomial(N, True).numpy()
    assert draws.shape == (2, N)
    first = np.bincount(draws[0], minlength=4)
    assert _chi_square(first, np.full(4, 0.25)) < _chi_square_bound(3)
    assert set(np.unique(draws[1])) == {2, 3}
    assert _within((draws[1] == 2).mean(), 0.5, math.sqrt(0.25 / N))


def test_multinomial_without_replacement_first_and_second_draws():
    r"""The first pick is category :math:`i` w.p. :math:`p_i`; the second is :math:`j` w.p.
    :math:`\sum_{i \ne j} p_i p_j / (1 - p_i)` (successive sampling without putting back)."""
    minitorch.manual_seed(SEED)
    weights = WEIGHTS[WEIGHTS > 0]
    p = weights / weights.sum()
    rows = minitorch.tensor(np.tile(weights, (N, 1))).multinomial(2).numpy()
    assert np.all(rows[:, 0] != rows[:, 1])
    assert _chi_square(np.bincount(rows[:, 0], minlength=len(p)), p) < _chi_square_bound(len(p) - 1)
    second = np.array([sum(p[i] * p[j] / (1 - p[i]) for i in range(len(p)) if i != j) for j in range(len(p))])
    assert _chi_square(np.bincount(rows[:, 1], minlength=len(p)), second) < _chi_square_bound(len(p) - 1)


def test_multinomial_without_replacement_all_categories_is_a_permutation():
    minitorch.manual_seed(SEED)
    draws = minitorch.multinomial(minitorch.tensor([[1.0, 2.0, 3.0]] * 50), 3).numpy()
    assert all(sorted(row) == [0, 1, 2] for row in draws.tolist())


def test_multinomial_zero_weights_come_last_without_replacement(torch_ref):
    """With fewer positive weights than samples, the positive ones are drawn first (as PyTorch)."""
    minitorch.manual_seed(SEED)
    for _ in range(20):
        got = minitorch.multinomial(minitorch.tensor([0.0, 3.0, 0.0, 1.0]), 3).tolist()
        assert sorted(got[:2]) == [1, 3] and got[2] in (0, 2)
    assert torch_ref.multinomial(torch_ref.tensor([1.0, 0.0, 0.0]), 2).tolist()[0] == 0


def test_multinomial_shapes_and_dtypes_as_torch(torch_ref):
    for lib in (torch_ref, minitorch):
        for dtype in (lib.float16, lib.float32, lib.float64):
            assert lib.multinomial(lib.ones(3, dtype=dtype), 2).dtype == lib.int64
        assert tuple(lib.multinomial(lib.ones(4, 3), 2).shape) == (4, 2)
        assert tuple(lib.multinomial(lib.ones(0, 3), 1).shape) == (0, 1)
        assert tuple(lib.multinomial(lib.ones(3), 7, replacement=True).shape) == (7,)
        assert not lib.multinomial(lib.ones(3, requires_grad=True), 2).requires_grad


@pytest.mark.parametrize("call", [
    lambda lib: lib.multinomial(lib.tensor([1.0, 2, 3]), 4),
    lambda lib: lib.multinomial(lib.ones(0), 1),
    lambda lib: lib.multinomial(lib.tensor([1.0, -1, 3]), 2),
    lambda lib: lib.multinomial(lib.tensor([1.0, float("inf"), 0]), 2),
    lambda lib: lib.multinomial(lib.tensor([1.0, float("nan"), 0]), 2),
    lambda lib: lib.multinomial(lib.tensor([1.0, -1, 3]), 2, True),
    lambda lib: lib.multinomial(lib.tensor([1.0, float("inf"), 0]), 2, True),
    lambda lib: lib.multinomial(lib.tensor([1.0, float("nan"), 0]), 2, True),
    lambda lib: lib.multinomial(lib.tensor([0.0, 0, 0]), 2),
    lambda lib: lib.multinomial(lib.tensor([[1.0, 2, 3], [0, 0, 0]]), 2, True),
    lambda lib: lib.multinomial(lib.tensor([1, 2, 3]), 2),
    lambda lib: lib.multinomial(lib.tensor([1.0, 2, 3]), 0),
    lambda lib: lib.multinomial(lib.tensor([1.0, 2, 3]), -1),
    lambda lib: lib.multinomial(lib.ones(2, 2, 2), 1),
    lambda lib: lib.multinomial(lib.tensor(1.0), 1),
    lambda lib: lib.multinomial(lib.ones(3), 2.0),
])
def test_multinomial_errors_as_torch(torch_ref, call):
    _same_error(torch_ref, call)


# ---- normal ----

def test_normal_tensor_mean_tensor_std_broadcasts():
    minitorch.manual_seed(SEED)
    mean = minitorch.tensor([-2.0, 0.0, 5.0], dtype=minitorch.float64)
    std = minitorch.tensor([[0.5], [3.0]], dtype=minitorch.float64).expand(2, 3).contiguous()
    draws = np.stack([minitorch.normal(mean, std).numpy() for _ in range(N // 10)])
    assert draws.shape == (N // 10, 2, 3)
    for row, sigma in enumerate((0.5, 3.0)):
        for column, mu in enumerate((-2.0, 0.0, 5.0)):
            _mean_and_variance_fit(draws[:, row, column], mu, sigma**2, 3 * sigma**4)


@pytest.mark.parametrize("overload", ["tensor_float", "float_tensor", "float_float"])
def test_normal_overloads_mean_and_variance(overload):
    minitorch.manual_seed(SEED)
    mu, sigma = 1.5, 2.0
    if overload == "tensor_float":
        draws = minitorch.normal(minitorch.full((N,), mu, dtype=minitorch.float64), sigma)
    elif overload == "float_tensor":
        draws = minitorch.normal(mu, minitorch.full((N,), sigma, dtype=minitorch.float64))
    else:
        draws = minitorch.normal(mu, sigma, size=(N,), dtype=minitorch.float64)
    _mean_and_variance_fit(draws.numpy(), mu, sigma**2, 3 * sigma**4)


def test_normal_shapes_and_dtypes_as_torch(torch_ref):
    cases = [
        lambda lib: lib.normal(lib.zeros(3), lib.ones(2, 3)),
        lambda lib: lib.normal(lib.zeros(2, 3), lib.ones(3)),
        lambda lib: lib.normal(lib.zeros(3), lib.ones(3, dtype=lib.float64)),
        lambda lib: lib.normal(lib.zeros(3, dtype=lib.float64), lib.ones(3)),
        lambda lib: lib.normal(lib.zeros(3), lib.ones(3, dtype=lib.int64)),
        lambda lib: lib.normal(0.0, lib.ones(3, dtype=lib.float64)),
        lambda lib: lib.normal(2, lib.ones(2, 2)),
        lambda lib: lib.normal(lib.zeros(3), 1.0),
        lambda lib: lib.normal(mean=lib.zeros(3), std=lib.ones(3)),
        lambda lib: lib.normal(0.0, 1.0, size=(3, 4)),
        lambda lib: lib.normal(0, 1, (3,), dtype=lib.float64),
        lambda lib: lib.normal(0.0, 1.0, size=[]),
    ]
    for case in cases:
        want, got = case(torch_ref), case(minitorch)
        assert tuple(got.shape) == tuple(want.shape)
        assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]


def test_normal_out_and_requires_grad(torch_ref):
    out = minitorch.zeros(4)
    assert minitorch.normal(0.0, 1.0, (4,), out=out) is out and out.abs().sum().item() > 0
    assert minitorch.normal(0.0, 1.0, size=(3,), requires_grad=True).requires_grad
    for lib in (torch_ref, minitorch):
        mean = lib.zeros(3, requires_grad=True)
        std = lib.ones(3, requires_grad=True)
        lib.normal(mean, std).sum().backward()
        assert mean.grad.tolist() == [0.0] * 3 and std.grad.tolist() == [0.0] * 3
    assert type(minitorch.normal(minitorch.zeros(2, requires_grad=True), 1.0).grad_fn).__name__ == "NormalBackward1"


@pytest.mark.parametrize("call", [
    lambda lib: lib.normal(lib.zeros(3), -1.0),
    lambda lib: lib.normal(lib.zeros(3), float("nan")),
    lambda lib: lib.normal(lib.zeros(3), lib.tensor([1.0, -1, 1])),
    lambda lib: lib.normal(lib.zeros(3), lib.tensor([1.0, float("nan"), 1])),
    lambda lib: lib.normal(0.0, -1.0, size=(3,)),
    lambda lib: lib.normal(lib.zeros(3), lib.ones(2)),
    lambda lib: lib.normal(0.0, 1.0),
    lambda lib: lib.normal(lib.zeros(3), lib.ones(3), size=(3,)),
    lambda lib: lib.normal(lib.zeros(3, dtype=lib.int64), 1.0),
    lambda lib: lib.normal(0.0, lib.ones(3, dtype=lib.int64)),
    lambda lib: lib.normal(0.0, 1.0, (2,), dtype=lib.int64),
    lambda lib: lib.normal(0.0, 1.0, size=(3,), generator=3),
])
def test_normal_errors_as_torch(torch_ref, call):
    _same_error(torch_ref, call)


# ---- in-place fills ----

def test_uniform_exponential_normal_fills_fit():
    minitorch.manual_seed(SEED)
    low, high = -1.0, 3.0
    uniform = minitorch.zeros(N, dtype=minitorch.float64).uniform_(low, high).numpy()
    assert uniform.min() >= low and uniform.max() < high
    width = high - low
    _mean_and_variance_fit(uniform, (low + high) / 2, width**2 / 12, width**4 / 80)
    rate = 2.5
    exponential = minitorch.zeros(N, dtype=minitorch.float64).exponential_(rate).numpy()
    assert exponential.min() >= 0
    _mean_and_variance_fit(exponential, 1 / rate, 1 / rate**2, 9 / rate**4)
    normal = minitorch.zeros(N, dtype=minitorch.float64).normal_(-3.0, 0.5).numpy()
    _mean_and_variance_fit(normal, -3.0, 0.25, 3 * 0.5**4)
    keyword_from = minitorch.zeros(10).uniform_(**{"from": 5.0, "to": 6.0}).numpy()
    assert np.all((keyword_from >= 5.0) & (keyword_from < 6.0))


def test_random_fill_ranges_and_uniformity():
    minitorch.manual_seed(SEED)
    low, high = -3, 5
    draws = minitorch.zeros(N, dtype=minitorch.int64).random_(low, high).numpy()
    counts = np.bincount(draws - low, minlength=high - low)
    assert len(counts) == high - low
    assert _chi_square(counts, np.full(high - low, 1 / (high - low))) < _chi_square_bound(high - low - 1)
    upto = minitorch.zeros(N).random_(4).numpy()
    assert set(np.unique(upto)) == {0.0, 1.0, 2.0, 3.0}
    assert set(np.unique(minitorch.zeros(N).random_(to=2).numpy())) == {0.0, 1.0}
    assert set(np.unique(minitorch.zeros(N, dtype=minitorch.bool).random_().numpy())) == {False, True}
    byte = minitorch.zeros(N, dtype=minitorch.uint8).random_(250, None).numpy()
    assert byte.min() == 250 and byte.max() == 255
    wide = minitorch.zeros(N).random_().numpy()
    assert wide.min() >= 0 and wide.max() <= 2**24 and wide.max() > 2**23
    int32 = minitorch.zeros(N, dtype=minitorch.int32).random_().numpy()
    assert int32.min() >= 0 and int32.max() > 2**30


def test_fills_keep_dtype_and_return_self(torch_ref):
    for lib in (torch_ref, minitorch):
        for name, args in (("uniform_", ()), ("normal_", ()), ("exponential_", ()), ("random_", (0, 9)),
                           ("bernoulli_", (0.5,))):
            t = lib.zeros(2, 3, dtype=lib.float64)
            assert getattr(t, name)(*args) is t and t.dtype == lib.float64 and tuple(t.shape) == (2, 3)


def test_fills_on_a_leaf_requiring_grad_refuse_and_bump_version_under_no_grad(torch_ref):
    for lib in (torch_ref, minitorch):
        x = lib.zeros(3, requires_grad=True)
        for fill in (lambda t: t.uniform_(), lambda t: t.normal_(), lambda t: t.exponential_(), lambda t: t.random_(3)):
            with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
                fill(x)
        with lib.no_grad():
            before = x._version
            x.exponential_()
        assert x._version == before + 1 and x.requires_grad


@pytest.mark.parametrize("call", [
    lambda lib: lib.zeros(3).exponential_(0.0),
    lambda lib: lib.zeros(3).exponential_(-1.0),
    lambda lib: lib.zeros(3).exponential_(float("nan")),
    lambda lib: lib.zeros(3, dtype=lib.int64).exponential_(),
    lambda lib: lib.zeros(3).random_(5, 2),
    lambda lib: lib.zeros(3).random_(5, 5),
    lambda lib: lib.zeros(3).random_(0),
    lambda lib: lib.zeros(3, dtype=lib.uint8).random_(-3, 5),
    lambda lib: lib.zeros(3, dtype=lib.uint8).random_(0, 300),
    lambda lib: lib.zeros(3, dtype=lib.int32).random_(0, 2**40),
    lambda lib: lib.zeros(3, dtype=lib.bool).random_(0, 3),
    lambda lib: lib.zeros(3).uniform_(2, 1),
    lambda lib: lib.zeros(3).uniform_(0, float("inf")),
    lambda lib: lib.zeros(3).uniform_(-1e300, 1e300),
    lambda lib: lib.zeros(3, dtype=lib.float64).uniform_(-1e308, 1e308),
    lambda lib: lib.zeros(3, dtype=lib.float16).uniform_(0, 1e6),
    lambda lib: lib.zeros(3, dtype=lib.int64).uniform_(),
    lambda lib: lib.zeros(3).normal_(0, -1),
    lambda lib: lib.zeros(3, dtype=lib.int64).normal_(),
])
def test_fill_errors_as_torch(torch_ref, call):
    _same_error(torch_ref, call)


def test_random_past_a_floats_exact_integers_warns():
    with pytest.warns(UserWarning, match="2\\^24"):
        minitorch.zeros(3).random_(0, 2**25)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        minitorch.zeros(3, dtype=minitorch.float64).random_(0, 2**25)


# ---- reproducibility ----

DRAWS = {
    "bernoulli": lambda g: minitorch.bernoulli(minitorch.full((50,), 0.3), generator=g),
    "bernoulli_": lambda g: minitorch.zeros(50).bernoulli_(0.3, generator=g),
    "multinomial": lambda g: minitorch.multinomial(minitorch.tensor(WEIGHTS), 3, generator=g),
    "multinomial_replacement": lambda g: minitorch.ones(2, 6).multinomial(20, True, generator=g),
    "normal_tt": lambda g: minitorch.normal(minitorch.zeros(20), minitorch.ones(20), generator=g),
    "normal_ff": lambda g: minitorch.normal(0.0, 1.0, (20,), generator=g),
    "exponential_": lambda g: minitorch.zeros(20).exponential_(generator=g),
    "random_": lambda g: minitorch.zeros(20, dtype=minitorch.int64).random_(0, 1000, generator=g),
    "uniform_": lambda g: minitorch.zeros(20).uniform_(generator=g),
    "normal_": lambda g: minitorch.zeros(20).normal_(generator=g),
    "rand": lambda g: minitorch.rand(20, generator=g),
    "randn": lambda g: minitorch.randn(2, 10, generator=g),
    "randint": lambda g: minitorch.randint(0, 1000, (20,), generator=g),
    "randperm": lambda g: minitorch.randperm(20, generator=g),
}


@pytest.mark.parametrize("name", sorted(DRAWS))
def test_manual_seed_reproduces(name):
    draw = DRAWS[name]
    minitorch.manual_seed(SEED)
    first = draw(None).tolist()
    second = draw(None).tolist()
    minitorch.manual_seed(SEED)
    assert draw(None).tolist() == first
    assert first != second


@pytest.mark.parametrize("name", sorted(DRAWS))
def test_generator_reproduces_and_leaves_the_global_stream_alone(name):
    draw = DRAWS[name]
    minitorch.manual_seed(SEED)
    expected_global = minitorch.rand(5).tolist()
    minitorch.manual_seed(SEED)
    first = draw(minitorch.Generator().manual_seed(7)).tolist()
    assert minitorch.rand(5).tolist() == expected_global
    assert draw(minitorch.Generator().manual_seed(7)).tolist() == first
    assert draw(minitorch.Generator().manual_seed(8)).tolist() != first


def test_generator_must_be_a_generator():
    with pytest.raises(TypeError, match="Generator"):
        minitorch.zeros(3).uniform_(generator=3)
    with pytest.raises(TypeError, match="Generator"):
        minitorch.multinomial(minitorch.ones(3), 1, generator="seed")
    with pytest.raises(TypeError, match="Generator"):
        minitorch.rand(3, generator=0)


# ---- logspace ----

@pytest.mark.parametrize("start, end, steps, base", [
    (0, 2, 3, 10.0), (0, 2, 3, 2), (-3.5, 4.25, 17, 10.0), (1, -1, 5, 3.0), (0, 2, 1, 10.0), (0, 2, 0, 10.0),
    (0, 2, 3, -2.0), (0, 1, 5, 0.0),
])
def test_logspace_float64_matches_torch(torch_ref, start, end, steps, base):
    got = minitorch.logspace(start, end, steps, base=base, dtype=minitorch.float64).numpy()
    want = torch_ref.logspace(start, end, steps, base=base, dtype=torch_ref.float64).numpy()
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=0)


@pytest.mark.parametrize("dtype", ["float32", "float16", "int64", "int32", "uint8"])
def test_logspace_dtypes_match_torch(torch_ref, dtype):
    cases = [(0, 2, 3, 10.0), (0, 3, 4, 2.0)] + ([] if dtype == "uint8" else [(-1, 1, 3, 10.0)])
    for start, end, steps, base in cases:  # (PyTorch wraps a negative start around in uint8)
        got = minitorch.logspace(start, end, steps, base, dtype=getattr(minitorch, dtype))
        want = torch_ref.logspace(start, end, steps, base, dtype=getattr(torch_ref, dtype))
        assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
        np.testing.assert_allclose(got.numpy().astype(np.float64), want.numpy().astype(np.float64), rtol=1e-3)


def test_logspace_defaults_and_keywords(torch_ref):
    for lib in (torch_ref, minitorch):
        assert lib.logspace(0, 2, 3).dtype == lib.float32
        assert lib.logspace(0.0, 2.0, steps=3, base=10.0, requires_grad=True).requires_grad
        assert lib.logspace(lib.tensor(0.0), lib.tensor(2.0), 3).tolist() == [1.0, 10.0, 100.0]
    minitorch.set_default_dtype(minitorch.float64)
    try:
        assert minitorch.logspace(0, 1, 2).dtype == minitorch.float64
    finally:
        minitorch.set_default_dtype(minitorch.float32)


@pytest.mark.parametrize("call", [
    lambda lib: lib.logspace(0, 2, -1),
    lambda lib: lib.logspace(0, 10, 3, dtype=lib.bool),
])
def test_logspace_errors_as_torch(torch_ref, call):
    _same_error(torch_ref, call)
