"""Edge cases the differential fuzzer and crash hunter left open (task h6), each against PyTorch itself.

Bool inputs to kernels PyTorch has no bool version of, Python numbers where PyTorch takes only a
tensor, ``allclose``/``isclose`` of two dtypes, and gradients at infinite inputs.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import pytest

import minitorch

NAMES = {"nan": math.nan, "inf": math.inf}


def _outcome(code: str, library: Any) -> Any:
    """``code`` (over ``t``, ``F``) under ``library`` as plain data, or the error's type and message."""
    scope = {"t": library, "F": library.nn.functional, **NAMES}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = eval(code, scope)  # noqa: S307 - the test's own code
    except Exception as error:  # noqa: BLE001 - the error is the outcome compared
        return type(error).__name__, str(error)
    if isinstance(out, bool):
        return out
    return tuple(out.shape), str(out.dtype).rsplit(".", 1)[-1], out.detach().tolist()


def assert_same(code: str, torch: Any) -> None:
    ours, theirs = _outcome(code, minitorch), _outcome(code, torch)
    assert ours == theirs, f"{code}:\n minitorch: {ours}\n torch:     {theirs}"


BOOL = "t.tensor([True, False, True])"
BOOL_MATRIX = "t.tensor([[True, False], [False, True]])"
BOOL_REFUSED = [
    f"{BOOL}.abs()", f"t.abs({BOOL})", f"abs({BOOL})", f"{BOOL}.abs_()", f"{BOOL}.absolute()",
    f"{BOOL}.floor()", f"{BOOL}.ceil()", f"{BOOL}.round()", f"{BOOL}.trunc()", f"{BOOL}.fix()",
    f"t.floor({BOOL})", f"{BOOL}.floor_()", f"{BOOL}.ceil_()", f"{BOOL}.round_()", f"{BOOL}.trunc_()",
    f"{BOOL}.round(decimals=1)", "t.tensor([1, -2]).round(decimals=1)",
    f"+{BOOL}", f"{BOOL}.positive()", f"t.positive({BOOL})",
    f"{BOOL}.relu()", f"t.relu({BOOL})", f"F.relu({BOOL})", f"{BOOL}.relu_()", f"F.relu({BOOL}, inplace=True)",
    f"{BOOL}.pow({BOOL})", f"{BOOL} ** {BOOL}", f"{BOOL}.pow_({BOOL})", f"t.pow(True, {BOOL})",
    f"-{BOOL}", f"{BOOL}.neg()", f"{BOOL}.frac()",
    f"{BOOL_MATRIX}.abs()",
]
#: the valid calls nearest to them: integers and the bool ops PyTorch has
BOOL_ACCEPTED = [
    "t.tensor([1, -2]).abs()", "t.tensor([1, -2]).floor()", "t.tensor([1, -2]).round()", "t.tensor([1.25, -2.5]).round(decimals=1)",
    f"{BOOL}.sign()", f"{BOOL}.sgn()", f"{BOOL}.pow(2)", f"{BOOL}.pow(True)", f"{BOOL}.pow(2.5)", f"t.pow(2, {BOOL})",
    f"{BOOL} ** 2", f"{BOOL}.square()", f"+t.tensor([1, -2])", "F.relu(t.tensor([1, -2]))",
]


@pytest.mark.parametrize("code", BOOL_REFUSED)
def test_bool_inputs_are_refused_as_torch_refuses_them(code: str, torch_ref) -> None:
    assert_same(code, torch_ref)


@pytest.mark.parametrize("code", BOOL_ACCEPTED)
def test_the_bool_and_integer_calls_torch_takes_still_work(code: str, torch_ref) -> None:
    assert_same(code, torch_ref)


X = "t.tensor([1.5, -2.0])"
INTS = "t.tensor([4, 6])"
NUMBER_REFUSED = [
    f"t.maximum({X}, 2)", f"t.maximum(2, {X})", f"{X}.maximum(2)", f"t.minimum({X}, 1.0)", f"{X}.minimum(True)",
    f"t.atan2({X}, 2)", f"t.atan2(1.0, {X})", f"{X}.atan2(2.0)", f"t.arctan2({X}, 2)",
    f"t.fmax({X}, 2)", f"t.fmax(2, {X})", f"{X}.fmax(2)", f"t.fmin({X}, 2)", f"{X}.fmin(2.0)",
    f"t.ldexp({X}, 2)", f"{X}.ldexp(2)", f"t.nextafter({X}, 2.0)", f"{X}.nextafter(2.0)",
    f"t.gcd({INTS}, 2)", f"{INTS}.gcd(2)", f"t.lcm({INTS}, 2)", f"{INTS}.lcm(2)",
    f"t.heaviside({X}, 2.0)", f"{X}.heaviside(2.0)", f"t.logaddexp2({X}, 2.0)", f"{X}.logaddexp2(2.0)",
    f"{X}.logaddexp(2.0)", f"t.logaddexp({X}, 2.0)", f"{X}.hypot(2.0)", f"t.hypot({X}, 2.0)",
    f"t.dist({X}, 2.0)", f"{X}.dist(2.0)", f"t.isclose({X}, 2.0)", f"t.allclose({X}, 2.0)",
]
NUMBER_ACCEPTED = [
    f"t.maximum({X}, t.tensor(1.0))", f"{X}.minimum(t.tensor([0, 0]))", f"t.atan2({X}, t.tensor(2.0))",
    f"t.fmax({X}, t.tensor([nan, 0.0]))", f"t.ldexp({X}, t.tensor([1, 2]))", f"t.gcd({INTS}, t.tensor([2, 4]))",
    f"t.heaviside({X}, t.tensor([0.5]))", f"t.dist({X}, t.tensor([1.0, 1.0]))", f"{X} + 2", f"t.copysign({X}, -1.0)",
]


@pytest.mark.parametrize("code", NUMBER_REFUSED)
def test_a_number_where_torch_takes_only_a_tensor_is_refused(code: str, torch_ref) -> None:
    assert_same(code, torch_ref)


@pytest.mark.parametrize("code", NUMBER_ACCEPTED)
def test_tensor_operands_next_to_them_still_work(code: str, torch_ref) -> None:
    assert_same(code, torch_ref)


CLOSE = [
    "t.allclose(t.ones(2), t.ones(2, dtype=t.float64))", "t.allclose(t.ones(2, dtype=t.float64), t.ones(2))",
    "t.isclose(t.ones(2), t.ones(2, dtype=t.float64))", "t.allclose(t.ones(2, dtype=t.int64), t.ones(2))",
    "t.isclose(t.ones(2, dtype=t.int64), t.ones(2, dtype=t.int32))", "t.isclose(t.tensor([True, False]), t.ones(2))",
    "t.ones(2).allclose(t.ones(2, dtype=t.float64))",
    "t.isclose(t.ones(2), t.ones(2), rtol=-1.0)", "t.isclose(t.ones(2), t.ones(2), atol=-0.5)",
    # the same dtype on both sides still compares
    "t.isclose(t.tensor([1, 2]), t.tensor([1, 3]), atol=1)", "t.allclose(t.tensor([1.0, inf]), t.tensor([1.0 + 1e-7, inf]))",
    "t.isclose(t.tensor([nan, 1.0]), t.tensor([nan, 1.1]), equal_nan=True)", "t.isclose(t.ones(2), t.ones(1))",
]


@pytest.mark.parametrize("code", CLOSE)
def test_allclose_and_isclose_of_two_dtypes_match_torch(code: str, torch_ref) -> None:
    assert_same(code, torch_ref)


def _grads(library: Any, values: list[list[float]], make: Any) -> list[Any]:
    leaves = [library.tensor(v, dtype=library.float64, requires_grad=True) for v in values]
    make(library, *leaves).sum().backward()
    return [leaf.grad.tolist() for leaf in leaves]


#: float64 gradients agree to a few units in the last place (each library sums in its own order)
GRADIENT_RTOL = 1e-12


def _same_floats(ours: Any, theirs: Any) -> bool:
    """Equal lists of floats, NaN equal to NaN, infinities equal by sign."""
    if isinstance(theirs, list):
        return isinstance(ours, list) and len(ours) == len(theirs) and all(map(_same_floats, ours, theirs))
    return (math.isnan(ours) and math.isnan(theirs)) or math.isclose(ours, theirs, rel_tol=GRADIENT_RTOL)


GRADIENTS_AT_INFINITY = {
    "logsumexp": ([[math.inf, 1.0, 2.0]], lambda lib, a: lib.logsumexp(a, 0)),
    "logsumexp_all_minus_inf": ([[-math.inf, -math.inf, 1.0, 2.0]], lambda lib, a: a.reshape(2, 2).logsumexp(1)),
    "logsumexp_nan": ([[math.nan, math.inf]], lambda lib, a: a.logsumexp(0)),
    "std": ([[math.inf, 1.0, 2.0]], lambda lib, a: a.std()),
    "std_dim": ([[math.inf, 1.0, 2.0, 3.0]], lambda lib, a: a.reshape(2, 2).std(0)),
    "std_nan": ([[math.nan, 1.0, 2.0]], lambda lib, a: a.std()),
    "norm": ([[math.inf, 1.0]], lambda lib, a: a.norm()),
    "amax_ties": ([[math.inf, math.inf, 1.0]], lambda lib, a: a.amax()),
    "log_softmax": ([[-math.inf, 1.0]], lambda lib, a: a.log_softmax(0)),
}


@pytest.mark.parametrize("name", sorted(GRADIENTS_AT_INFINITY))
def test_gradients_at_infinite_inputs_match_torch(name: str, torch_ref) -> None:
    values, make = GRADIENTS_AT_INFINITY[name]
    ours, theirs = _grads(minitorch, values, make), _grads(torch_ref, values, make)
    assert _same_floats(ours, theirs), f"{name}: minitorch {ours}, torch {theirs}"


def test_clamp_sends_gradients_to_broadcast_tensor_bounds(torch_ref) -> None:
    def make(lib: Any, x: Any, low: Any, high: Any) -> Any:
        return x.reshape(2, 3).clamp(low.reshape(2, 1), high)

    values = [[-2.0, 0.5, 3.0, 1.0, -1.0, 0.0], [2.0, -0.5], [1.0, 0.5, 2.0]]
    assert _grads(minitorch, values, make) == _grads(torch_ref, values, make)
