"""Gradients and edge values that differed from PyTorch (task h9), each against PyTorch itself.

``copysign``, ``var``/``std``, ``prod``/``cumprod`` with zeros, ``median`` ties, ``fmax``/``fmin`` ties,
``logaddexp2`` at infinities, the smooth-L1/Huber losses at infinities, ``logit`` at 0 and 1,
``kl_div`` at a zero target, ELU/CELU with a non-finite ``alpha``; the channel dropouts' warnings
and masks; and writes into expanded (stride-0) tensors, which PyTorch 2.x still makes with a
deprecation warning.
"""

from __future__ import annotations

import math
import warnings
from typing import Any, Callable, Optional

import pytest

import minitorch

inf, nan = math.inf, math.nan

#: float64 values agree to a few units in the last place where each library sums or multiplies
#: in its own order (minitorch's reductions are not PyTorch's vectorised ones)
RTOL = 1e-12


def _same_floats(ours: Any, theirs: Any, signed_zeros: bool = True) -> bool:
    """Equal nested lists of floats (or None): NaN equal to NaN, infinities by sign, zeros by sign
    when ``signed_zeros``."""
    if isinstance(theirs, list):
        return (isinstance(ours, list) and len(ours) == len(theirs)
                and all(_same_floats(a, b, signed_zeros) for a, b in zip(ours, theirs)))
    if theirs is None or ours is None:
        return ours is theirs
    if math.isnan(theirs) or math.isnan(ours):
        return math.isnan(theirs) and math.isnan(ours)
    if signed_zeros and (theirs == 0 or ours == 0):
        return ours == theirs and math.copysign(1.0, ours) == math.copysign(1.0, theirs)
    return math.isclose(ours, theirs, rel_tol=RTOL)


Make = Callable[..., Any]


def _run(library: Any, values: list[Any], make: Make, order: int = 1) -> tuple[Any, list[Any]]:
    """``make(library, *leaves)``'s value and the gradients of its sum (``order`` 2: the gradients of
    the sum of those gradients, through ``create_graph``), the leaves float64 tensors of ``values``."""
    leaves = [library.tensor(v, dtype=library.float64, requires_grad=True) for v in values]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = make(library, *leaves)
        if order == 1:
            out.sum().backward()
            return out.detach().tolist(), [None if leaf.grad is None else leaf.grad.tolist() for leaf in leaves]
        firsts = library.autograd.grad(out.sum(), leaves, create_graph=True, allow_unused=True)
        # the squares: a plain sum of the gradients is 0 for a shift-invariant op (var, std)
        total = sum((g * g).sum() for g in firsts if g is not None)
        seconds = library.autograd.grad(total, leaves, allow_unused=True)
    return [g.tolist() for g in firsts if g is not None], [None if g is None else g.tolist() for g in seconds]


def assert_matches(values: list[Any], make: Make, torch: Any, order: int = 1) -> None:
    ours, theirs = _run(minitorch, values, make, order), _run(torch, values, make, order)
    # the values' zeros by sign (ELU's x at -0); the gradients' zeros by value only
    assert _same_floats(ours[0], theirs[0]) and _same_floats(ours[1], theirs[1], signed_zeros=False), \
        f"minitorch {ours}\n    torch {theirs}"


def _f(name: str, **kwargs: Any) -> Make:
    """``F.name(a, b, **kwargs)`` of each library."""
    return lambda lib, *args: getattr(lib.nn.functional, name)(*args, **kwargs)


ROW = [0.126, -0.132, 0.64, 0.0, -0.536, 1.7, 0.41, 0.0, -0.93, 2.2, 0.5, 1.3]
NO_ZERO = [0.126, -0.132, 0.64, -0.105, -0.536, 1.7, 0.41, 1.1, -0.93, 2.2, 0.5, 1.3]
ONE_ZERO = NO_ZERO[:3] + [0.0] + NO_ZERO[4:]

GRADIENTS: dict[str, tuple[list[Any], Make]] = {
    # 1. copysign: result / input, 0 at input 0 (NaN at infinities and NaN); zeros for other
    "copysign": ([[1.5, -0.0, 0.0, inf, -inf, nan, 2.0], [-1.0, 1.0, -1.0, -1.0, 1.0, 1.0, -0.0]],
                 lambda t, a, b: t.copysign(a, b)),
    "copysign_broadcast": ([[[1.5], [-2.0]], [-1.0, 0.0, -0.0]], lambda t, a, b: t.copysign(a, b)),
    "copysign_number": ([[1.5, -2.0, 0.0]], lambda t, a: t.copysign(a, -1.0)),
    # 2. var / std / var_mean: 2/(N - c) g (x - mean)
    "var_inf": ([[inf, 1.0, 2.0]], lambda t, a: a.var()),
    "var_huge": ([[1e308, -1e308, 2.0]], lambda t, a: a.var()),
    "std_huge": ([[1e308, -1e308, 2.0]], lambda t, a: a.std()),
    "var_dim_inf": ([[inf, 1.0, 2.0, 3.0]], lambda t, a: a.reshape(2, 2).var(1)),
    "var_dims_keepdim": ([ROW], lambda t, a: a.reshape(2, 3, 2).var((0, 2), keepdim=True)),
    "var_correction_0": ([ROW], lambda t, a: a.reshape(3, 4).var(0, correction=0)),
    "var_correction_too_big": ([[1.0, 2.0, 2.0]], lambda t, a: a.var(correction=3)),
    "var_one_element_dim": ([[1.0, 2.0]], lambda t, a: a.reshape(2, 1).var(1)),
    "var_mean_inf": ([[inf, 1.0, 2.0]], lambda t, a: t.var_mean(a)[0] + t.var_mean(a)[1]),
    "std_mean_dim": ([[-inf, 1.0, 2.0, 3.0]], lambda t, a: t.std_mean(a.reshape(2, 2), 0)[0]),
    "std_inf": ([[inf, 1.0, 2.0]], lambda t, a: a.std()),
    # 3. prod / cumprod with zeros: the exact product of the others
    "prod_one_zero": ([ONE_ZERO], lambda t, a: a.prod()),
    "prod_two_zeros": ([ROW], lambda t, a: a.prod()),
    "prod_dim_one_zero": ([ONE_ZERO], lambda t, a: a.reshape(3, 4).prod(1)),
    "prod_dim_two_zeros": ([ROW], lambda t, a: a.reshape(4, 3).prod(0)),
    "prod_dim_keepdim": ([ROW], lambda t, a: a.reshape(3, 4).prod(1, keepdim=True)),
    "prod_inf_and_zero": ([[inf, 0.0, 3.0]], lambda t, a: a.prod()),
    "prod_inf_and_two_zeros": ([[inf, 0.0, 0.0]], lambda t, a: a.prod()),
    "prod_dim_inf_and_zero": ([[inf, 2.0, 0.0, 3.0]], lambda t, a: a.reshape(2, 2).prod(1)),
    "cumprod_no_zero": ([NO_ZERO], lambda t, a: a.cumprod(0)),
    "cumprod_one_zero": ([ONE_ZERO], lambda t, a: a.cumprod(0)),
    "cumprod_two_zeros": ([ROW], lambda t, a: a.cumprod(0)),
    "cumprod_dim": ([ROW], lambda t, a: a.reshape(3, 4).cumprod(1)),
    "cumprod_dim0": ([ROW], lambda t, a: a.reshape(3, 4).cumprod(0)),
    "cumprod_zero_first": ([[0.0, 2.0, 3.0, 0.5]], lambda t, a: a.cumprod(0)),
    # 4. median / nanmedian over all elements: ties share the gradient evenly
    "median_ties": ([[1.0, 2.0, 2.0, 3.0, 2.0]], lambda t, a: a.median()),
    "median_nan": ([[1.0, nan, 2.0, nan, 2.0]], lambda t, a: a.median()),
    "median_dim_ties": ([[1.0, 2.0, 2.0, 3.0, 2.0, 2.0]], lambda t, a: a.reshape(2, 3).median(1).values),
    "nanmedian_ties": ([[1.0, 2.0, 2.0, nan, 2.0]], lambda t, a: a.nanmedian()),
    "nanmedian_all_nan": ([[nan, nan]], lambda t, a: a.nanmedian()),
    # 5. fmax / fmin ties go whole to the first operand; maximum / minimum split them
    "fmax": ([[1.0, 2.0, nan, nan, 0.5], [1.0, 1.0, nan, 3.0, nan]], lambda t, a, b: t.fmax(a, b)),
    "fmin": ([[1.0, 2.0, nan, nan, 0.5], [1.0, 1.0, nan, 3.0, nan]], lambda t, a, b: t.fmin(a, b)),
    "fmax_broadcast": ([[[1.0], [2.0]], [1.0, 2.0, 3.0]], lambda t, a, b: t.fmax(a, b)),
    "maximum_ties": ([[1.0, 2.0], [1.0, 1.0]], lambda t, a, b: t.maximum(a, b)),
    "minimum_ties": ([[1.0, 2.0], [1.0, 1.0]], lambda t, a, b: t.minimum(a, b)),
    # 6. logaddexp2 / logaddexp at infinities
    "logaddexp2": ([[inf, inf, -inf, -inf, inf, 1.0, 0.3, -1.7], [1.0, inf, -inf, 1.0, -inf, nan, 0.1, 2.2]],
                   lambda t, a, b: t.logaddexp2(a, b)),
    "logaddexp": ([[inf, inf, -inf, -inf, inf, 1.0, 0.3, -1.7], [1.0, inf, -inf, 1.0, -inf, nan, 0.1, 2.2]],
                  lambda t, a, b: t.logaddexp(a, b)),
    # 7. losses at infinities, logit at 0 and 1, kl_div at a zero target
    "smooth_l1": ([[inf, -inf, 1.0, 0.2, nan, 3.0], [1.0, 1.0, inf, 0.0, 0.0, -inf]],
                  _f("smooth_l1_loss", reduction="none")),
    "smooth_l1_beta": ([[inf, -inf, 1.0, 0.2], [1.0, 1.0, inf, 0.0]], _f("smooth_l1_loss", reduction="none", beta=0.5)),
    "smooth_l1_beta_0": ([[inf, -inf, 1.0, 0.2], [1.0, 1.0, inf, 0.0]], _f("smooth_l1_loss", reduction="none", beta=0.0)),
    "smooth_l1_mean": ([[inf, 1.0, 0.2], [1.0, 1.0, 0.0]], _f("smooth_l1_loss")),
    "huber": ([[inf, -inf, 1.0, 0.2, nan, 3.0], [1.0, 1.0, inf, 0.0, 0.0, -inf]], _f("huber_loss", reduction="none")),
    "huber_delta": ([[inf, -inf, 1.0, 0.2], [1.0, 1.0, inf, 0.0]], _f("huber_loss", reduction="none", delta=2.0)),
    "logit": ([[0.0, -0.0, 1.0, 0.5, -0.5, 1.5, nan, 0.25]], lambda t, a: a.logit()),
    "logit_eps": ([[0.0, 1.0, 0.5, -0.5, 1.5, 0.1, 0.9, 0.25]], lambda t, a: a.logit(eps=0.1)),
    "logit_eps_0": ([[0.0, -0.0, 1.0, 0.5, -0.5, 1.5]], lambda t, a: a.logit(eps=0.0)),
    "special_logit": ([[0.0, 1.0, 0.5]], lambda t, a: t.special.logit(a)),
    "kl_div": ([[-1.0, -2.0, -0.5], [0.0, 0.5, 1.0]], _f("kl_div", reduction="sum")),
    "kl_div_batchmean": ([[[-1.0, -2.0], [-0.5, -3.0]], [[0.0, 0.5], [1.0, 0.0]]], _f("kl_div", reduction="batchmean")),
    "kl_div_log_target": ([[-1.0, -2.0, -0.5], [-inf, -0.5, 0.0]], _f("kl_div", reduction="sum", log_target=True)),
    # 8. elu / celu with a non-finite or negative alpha: x itself at +-0, the alpha e^x slope kept
    "elu_alpha_nan": ([[0.0, -0.0, 1.0, -1.0]], _f("elu", alpha=nan)),
    "elu_alpha_inf": ([[0.0, -0.0, 1.0, -1.0]], _f("elu", alpha=inf)),
    "elu_alpha_minus_inf": ([[0.0, -0.0, 1.0, -1.0]], _f("elu", alpha=-inf)),
    "elu_alpha_negative": ([[0.0, -0.0, 1.0, -1.0]], _f("elu", alpha=-1.0)),
    "elu_alpha_zero": ([[0.0, -0.0, 1.0, -1.0]], _f("elu", alpha=0.0)),
    "elu_default": ([[0.0, -0.0, 1.0, -1.0, -30.0]], _f("elu")),
    "celu_alpha_nan": ([[0.0, -0.0, 1.0, -1.0]], _f("celu", alpha=nan)),
    "celu_alpha_inf": ([[0.0, -0.0, 1.0, -1.0]], _f("celu", alpha=inf)),
    "celu_alpha_negative": ([[0.0, -0.0, 1.0, -1.0]], _f("celu", alpha=-1.0)),
    "torch_celu_alpha_nan": ([[0.0, -0.0, 1.0, -1.0]], lambda t, a: t.celu(a, alpha=nan)),
    "elu_in_place_alpha_zero": ([[0.0, -0.0, 1.0, -1.0]], lambda t, a: t.nn.functional.elu(a * 1.0, alpha=0.0, inplace=True)),
    "selu": ([[0.0, -0.0, 1.0, -1.0]], lambda t, a: t.nn.functional.selu(a)),
}


@pytest.mark.parametrize("name", sorted(GRADIENTS))
def test_values_and_gradients_match_torch(name: str, torch_ref) -> None:
    values, make = GRADIENTS[name]
    assert_matches(values, make, torch_ref)


@pytest.mark.parametrize("alpha", [nan, -1.0, -inf])
@pytest.mark.parametrize("name", ["elu", "celu"])
def test_in_place_elu_with_a_negative_alpha_refuses_backward_as_torch(name: str, alpha: float, torch_ref) -> None:
    def outcome(lib: Any) -> Any:
        x = lib.tensor([0.0, -0.0, 1.0, -1.0], dtype=lib.float64, requires_grad=True)
        out = getattr(lib.nn.functional, name)(x * 1.0, alpha=alpha, inplace=True)
        try:
            out.sum().backward()
        except RuntimeError as error:
            return out.tolist(), out.grad_fn.name(), str(error)
        return out.tolist(), out.grad_fn.name(), x.grad.tolist()

    ours, theirs = outcome(minitorch), outcome(torch_ref)
    assert _same_floats(ours[0], theirs[0]) and ours[1:] == theirs[1:], f"minitorch {ours}\n    torch {theirs}"


VARIANCE_WARNINGS = [
    "t.tensor([3.0]).var()", "t.tensor([3.0]).std()", "t.var_mean(t.tensor([3.0]))", "t.std_mean(t.tensor([3.0]))",
    "t.ones(2, 2).var(1)", "t.ones(2, 2).std(0)", "t.ones(2, 2).var(correction=4)", "t.ones(2, 2).std(correction=4)",
    "t.ones(2, 2).var(1, correction=2)", "t.var_mean(t.ones(2, 2), 1, correction=2)", "t.ones(0).var()",
    "t.ones(0).std(0)", "t.std(t.tensor([3.0]), 0)", "t.ones(2, 3).var(dim=[])", "t.tensor(2.0).var()",
]


@pytest.mark.parametrize("code", VARIANCE_WARNINGS)
def test_variance_without_degrees_of_freedom_warns_as_torch(code: str, torch_ref) -> None:
    def caught(library: Any) -> list[tuple[str, str]]:
        with warnings.catch_warnings(record=True) as found:
            warnings.simplefilter("always")
            eval(code, {"t": library})  # noqa: S307 - the test's own code
        return [(w.category.__name__, str(w.message).split(" (Triggered internally")[0]) for w in found]

    assert caught(minitorch) == caught(torch_ref)


SECOND_DERIVATIVES: dict[str, tuple[list[Any], Make]] = {
    "copysign": ([[1.5, -2.0, 0.5], [-1.0, 1.0, -1.0]], lambda t, a, b: t.copysign(a, b) * a),
    "var": ([ROW], lambda t, a: a.var()),
    "var_dim": ([ROW], lambda t, a: a.reshape(3, 4).var(1, correction=0)),
    "std": ([NO_ZERO], lambda t, a: a.std() * a),  # alone its gradient has a constant norm
    "prod_no_zero": ([NO_ZERO[:5]], lambda t, a: a.prod()),
    "prod_one_zero": ([ONE_ZERO[:5]], lambda t, a: a.prod()),
    "prod_two_zeros": ([[0.5, 0.0, 2.0, 0.0, 3.0]], lambda t, a: a.prod()),
    "prod_dim_zeros": ([ROW], lambda t, a: a.reshape(3, 4).prod(1)),
    "cumprod_zeros": ([[0.5, 0.0, 2.0, 0.0, 3.0]], lambda t, a: a.cumprod(0)),
    "logit": ([[0.25, 0.5, 0.75]], lambda t, a: a.logit()),
    "logit_eps": ([[0.05, 0.5, 0.75]], lambda t, a: a.logit(eps=0.1)),
    "logaddexp2": ([[0.3, -1.7], [0.1, 2.2]], lambda t, a, b: t.logaddexp2(a, b)),
    "median": ([[1.0, 2.0, 2.0, 3.0]], lambda t, a: a.median() * a.sum()),
}


@pytest.mark.parametrize("name", sorted(SECOND_DERIVATIVES))
def test_second_derivatives_match_torch(name: str, torch_ref) -> None:
    values, make = SECOND_DERIVATIVES[name]
    assert_matches(values, make, torch_ref, order=2)


NODE_NAMES = {
    "copysign": lambda t, a: t.copysign(a, a), "fmax": lambda t, a: t.fmax(a, a), "fmin": lambda t, a: t.fmin(a, a),
    "logaddexp2": lambda t, a: t.logaddexp2(a, a), "logit": lambda t, a: a.logit(), "var": lambda t, a: a.var(),
    "median": lambda t, a: a.median(), "nanmedian": lambda t, a: a.nanmedian(), "prod": lambda t, a: a.prod(),
}


@pytest.mark.parametrize("name", sorted(NODE_NAMES))
def test_grad_fn_names_match_torch(name: str, torch_ref) -> None:
    def node(lib: Any) -> str:
        return NODE_NAMES[name](lib, lib.tensor([0.25, 0.5, 0.75], requires_grad=True)).grad_fn.name()

    assert node(minitorch) == node(torch_ref)


def test_logaddexp2_dtypes_match_torch(torch_ref) -> None:
    def outcome(lib: Any, a: list[float], b: list[float], kind: str) -> Any:
        result = lib.logaddexp2(lib.tensor(a, dtype=getattr(lib, kind)), lib.tensor(b, dtype=getattr(lib, kind)))
        return str(result.dtype).rsplit(".", 1)[-1], result.tolist()

    a, b = [inf, -inf, 1.0, 2.0], [1.0, -inf, 1.0, 0.25]
    for kind in ("float16", "bfloat16", "float32"):
        assert outcome(minitorch, a, b, kind) == outcome(torch_ref, a, b, kind), kind


# ---- 9. channel dropout: warnings, and which elements are zeroed together ----

DROPOUT_CALLS = [
    ("dropout2d", (2, 3, 4)), ("dropout2d", (2, 3)), ("dropout2d", (2, 3, 4, 5)), ("dropout2d", (2, 3, 2, 2, 2)),
    ("dropout2d", (3, 4, 5)), ("dropout3d", (2, 3, 2, 2, 2)), ("dropout3d", (3, 2, 2, 2)), ("dropout3d", (2, 3)),
    ("dropout3d", (4, 3, 2)), ("dropout3d", (2, 3, 2, 2, 2, 2)), ("dropout3d", (5,)), ("dropout1d", (2, 3, 4)),
    ("dropout1d", (3, 4)),
]


def _dropout(lib: Any, name: str, shape: tuple[int, ...], seed: int, **kwargs: Any) -> tuple[Any, list[Any]]:
    lib.manual_seed(seed)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            out = getattr(lib.nn.functional, name)(lib.ones(shape), **kwargs).tolist()
        except Exception as error:  # noqa: BLE001 - the error is the outcome compared
            out = (type(error).__name__, str(error))
    return out, [(w.category.__name__, str(w.message)) for w in caught]


@pytest.mark.parametrize("seed", [0, 3])
@pytest.mark.parametrize(("name", "shape"), DROPOUT_CALLS)
def test_channel_dropout_warns_and_draws_as_torch(name: str, shape: tuple[int, ...], seed: int, torch_ref) -> None:
    """minitorch's generator draws PyTorch's numbers for a seed, so the masks are equal, not only alike."""
    ours, theirs = _dropout(minitorch, name, shape, seed), _dropout(torch_ref, name, shape, seed)
    assert ours == theirs


@pytest.mark.parametrize("kwargs", [{"p": 1.0}, {"p": 0.0}, {"training": False}, {"p": 1.5}, {"p": nan}])
@pytest.mark.parametrize("name", ["dropout2d", "dropout3d"])
def test_channel_dropout_edge_probabilities_match_torch(name: str, kwargs: dict[str, Any], torch_ref) -> None:
    for shape in [(2, 3), (2, 3, 2, 2), (4,)]:
        assert _dropout(minitorch, name, shape, 0, **kwargs) == _dropout(torch_ref, name, shape, 0, **kwargs)


def test_dropout3d_in_place_and_its_layer(torch_ref) -> None:
    def run(lib: Any) -> Any:
        lib.manual_seed(1)
        x = lib.ones(3, 2, 2, 2)
        same = lib.nn.functional.dropout3d(x, 0.5, inplace=True) is x
        layer = lib.nn.Dropout3d(0.5)
        return same, x.tolist(), layer(lib.ones(2, 3, 1, 1, 2)).tolist(), repr(layer), layer.eval()(lib.ones(1)).tolist()

    assert run(minitorch) == run(torch_ref)


# ---- 10. writes into expanded tensors: PyTorch writes them, with a deprecation warning ----

EXPANDED_WRITES = [
    "b = t.zeros(3); e = b.expand(2, 3); e.index_fill_(0, t.tensor([1]), 5.0)",
    "b = t.zeros(3); e = b.expand(2, 3); e.index_fill_(1, t.tensor([0, 2]), 5.0)",
    "b = t.zeros(3); e = b.expand(2, 3); e.index_fill_(-1, t.tensor([-1, 0, -1]), t.tensor(5.0))",
    "b = t.zeros(3, 1); e = b.expand(3, 4); e.index_fill_(1, t.tensor([1]), 7.0)",
    "b = t.zeros(3, 1); e = b.expand(3, 4); e.index_fill_(0, t.tensor([1]), 7.0)",
    "b = t.zeros(2, 1, 3); e = b.expand(2, 4, 3); e.index_fill_(2, t.tensor([2]), 1.5)",
    "b = t.zeros(3, dtype=t.int64); e = b.expand(2, 3); e.index_fill_(1, t.tensor([1]), 4)",
    "b = t.zeros(3); e = b.expand(2, 3); e.index_fill_(1, t.tensor([3]), 5.0)",
    "b = t.zeros(3); e = b.expand(2, 3); e.index_fill_(1, t.tensor([1.0]), 5.0)",
    "b = t.zeros(3); e = b.expand(2, 3); e.index_fill_(1, t.tensor([1]), t.tensor([5.0]))",
    "b = t.zeros(3); e = b.expand(2, 3); e.index_put_((t.tensor([0, 1]), t.tensor([1, 2])), t.tensor(5.0))",
    "b = t.zeros(3); e = b.expand(2, 3); e.index_put_((t.tensor([[True, False, True], [False, False, False]]),), t.tensor(5.0))",
    "b = t.zeros(3); e = b.expand(2, 3); e.masked_fill_(t.tensor([[True, False, True], [False, False, False]]), 5.0)",
    "b = t.zeros(3); e = b.expand(2, 3); e.masked_fill_(t.tensor([False, True, False]), t.tensor(2.5))",
    "b = t.zeros(2, 1); e = b.expand(2, 3); e.masked_fill_(t.tensor([[False, False, False], [False, True, False]]), 1.0)",
    "b = t.zeros(3); e = b.expand(2, 3); e.index_put_((t.tensor([0, 1]), t.tensor([1, 2])), t.tensor([5.0, 6.0]))",
    "b = t.zeros(3); e = b.expand(2, 3); e.index_put_((t.tensor([0, 1]), t.tensor([1, 1])), t.tensor([5.0, 6.0]))",
    "b = t.zeros(3); e = b.expand(2, 3); e.index_put_((t.tensor([0, 1]), t.tensor([1, 2])), t.tensor([5.0, 6.0]), accumulate=True)",
    "b = t.zeros(3); e = b.expand(2, 3); e.index_put_((t.tensor([0, 1]), t.tensor([1, 1])), t.tensor(1.5), accumulate=True)",
    "b = t.zeros(2, 1); e = b.expand(2, 3); e.index_put_((t.tensor([1, 0, 1]),), t.tensor([[1.0, 2.0, 3.0]]))",
    "b = t.zeros(3); e = b.expand(2, 3); e.index_put_((t.tensor([0, 5]), t.tensor([1, 2])), t.tensor(5.0))",
    "b = t.zeros(3); e = b.expand(2, 3); e.index_put_((t.tensor([0, 1]), t.tensor([1, 2])), t.tensor([5, 6]))",
    # not expanded: unchanged behaviour, no warning
    "b = t.zeros(2, 3); e = b[:, 1:]; e.index_fill_(1, t.tensor([0]), 5.0)",
    "b = t.zeros(2, 3); e = b.t(); e.masked_fill_(t.tensor([True, False]), 5.0)",
    "b = t.zeros(3); e = b.expand(1, 3); e.masked_fill_(t.tensor([True, False, True]), 5.0)",
]


def _expanded_write(code: str, library: Any) -> Any:
    scope = {"t": library}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            exec(code, scope)  # noqa: S102 - the test's own code
        except Exception as error:  # noqa: BLE001 - the error is the outcome compared
            return type(error).__name__, str(error)
    # PyTorch's C++ warnings end with where in its sources they were raised
    messages = [(w.category.__name__, str(w.message).split(" (Triggered internally")[0]) for w in caught]
    return scope["b"].tolist(), scope["e"].tolist(), messages


@pytest.mark.parametrize("code", EXPANDED_WRITES)
def test_writes_into_expanded_tensors_match_torch(code: str, torch_ref) -> None:
    ours, theirs = _expanded_write(code, minitorch), _expanded_write(code, torch_ref)
    assert ours == theirs, f"{code}:\n minitorch: {ours}\n torch:     {theirs}"


INDEX_PUT_DTYPES = [
    "t.zeros(3).index_put_((t.tensor([1]),), t.tensor([5]))",
    "t.zeros(3).index_put((t.tensor([1]),), t.tensor(5.0, dtype=t.float64))",
    "t.zeros(3, dtype=t.int64).index_put_((t.tensor([1]),), t.tensor([5.5]))",
    "t.zeros(3).index_put((t.tensor([True, False, True]),), t.tensor(5), accumulate=True)",
    # one value through a bool mask: PyTorch's masked_fill_ route converts it
    "t.zeros(3).index_put_((t.tensor([True, False, True]),), t.tensor(5))",
    "t.zeros(2, 3).index_put((t.tensor([True, False]),), t.tensor([5]))",
]


@pytest.mark.parametrize("code", INDEX_PUT_DTYPES)
def test_index_put_dtypes_match_torch(code: str, torch_ref) -> None:
    def outcome(library: Any) -> Any:
        try:
            return eval(code, {"t": library}).tolist()  # noqa: S307 - the test's own code
        except RuntimeError as error:
            return str(error)

    assert outcome(minitorch) == outcome(torch_ref)


#: index assignments into an expanded tensor: PyTorch routes them to ``index_put_``, which writes each
#: selected element in turn (with its warning); so does minitorch's ``__setitem__``
SETITEM_INTO_EXPANDED = [
    "b = t.zeros(3); e = b.expand(2, 3); e[t.tensor([[True, False, True], [False, False, False]])] = 5.0",
    "b = t.zeros(3); e = b.expand(2, 3); e[t.tensor([0, 1]), t.tensor([1, 2])] = t.tensor([5.0, 7.0])",
]


@pytest.mark.parametrize("code", SETITEM_INTO_EXPANDED)
def test_index_assignment_into_expanded_tensors_matches_torch(code: str, torch_ref) -> None:
    ours, theirs = _expanded_write(code, minitorch), _expanded_write(code, torch_ref)
    assert ours == theirs, f"{code}:\n minitorch: {ours}\n torch:     {theirs}"


def test_index_assignment_with_a_slice_into_an_expanded_tensor_writes_as_pytorch(torch_ref) -> None:
    """Index tensors beside a slice: PyTorch warns and writes every selected element (here the
    shared row), and so does minitorch."""
    def write(lib: Any) -> tuple[list, list[str]]:
        e = lib.zeros(3).expand(2, 3)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            e[lib.tensor([0, 1]), 1:] = 5.0
        return e.tolist(), [str(w.message).split(" (Triggered internally")[0] for w in caught]  # (PyTorch's C++ place)

    assert write(minitorch) == write(torch_ref)


def test_index_fill_into_expanded_tensor_bumps_the_version(torch_ref) -> None:
    def versions(lib: Any) -> Optional[tuple[int, int]]:
        base = lib.zeros(3)
        expanded = base.expand(2, 3)
        before = base._version
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            expanded.index_fill_(1, lib.tensor([0]), 1.0)
        return int(base._version > before), int(expanded._version > before)

    assert versions(minitorch) == versions(torch_ref)
