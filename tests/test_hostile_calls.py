"""Hostile calls never kill or hang the interpreter, and what PyTorch refuses minitorch refuses (task h4).

The crash hunter (``tools/hunt_crashes.py``) runs hostile calls in child processes under
minitorch and PyTorch. Each test below pins down a bug it found: a call that crashed or hung
runs in a child (a regression must not take pytest down with it); a call that returned where
PyTorch raises runs here, checked against PyTorch itself. Next to the refusals sit the valid
calls nearest to them, so a check cannot refuse what PyTorch accepts. The last test replays
every hand-written hostile case, minitorch and PyTorch side by side in their own children.
"""

from __future__ import annotations

import math
import sys
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from layer_helpers import assert_close

import minitorch
import minitorch.nn.functional as MF

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tools"))

from hostile_cases import HAND_CASES  # noqa: E402
from hunt_crashes import hunt, run_cases  # noqa: E402

NAMES = {"nan": math.nan, "inf": math.inf}
FLOAT32_TOLERANCE = 1e-5  # the valid calls compute in float32, each library in its own order
#: seconds one call of the child-process tests may take (the first call of a kernel compiles it)
DEADLINE_S = 60.0
HANG_DEADLINE_S = 6.0  # the harness test's deadline: its one slow call sleeps far longer


def evaluate(code: str, library: Any) -> Any:
    """``code`` (over ``t``, ``F``, ``nan``, ``inf``) evaluated with ``library``."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return eval(code, {"t": library, "F": library.nn.functional, **NAMES})  # noqa: S307 - the test's own code


def raised_by(code: str, library: Any) -> BaseException:
    try:
        evaluate(code, library)
    except Exception as error:  # noqa: BLE001 - the test inspects whatever was raised
        return error
    raise AssertionError(f"{library.__name__} returned for {code}")


def assert_same_refusal(code: str, torch: Any) -> None:
    """``code`` raises under both libraries: the same exception type, the same message."""
    theirs, ours = raised_by(code, torch), raised_by(code, minitorch)
    assert type(ours).__name__ == type(theirs).__name__, f"{code}: torch {theirs!r}, minitorch {ours!r}"
    assert str(ours) == str(theirs), f"{code}:\n minitorch: {ours}\n torch:     {theirs}"


# ---- calls that crashed (a segfault) or hung: now PyTorch's error, checked in a child ----

CRASHED_OR_HUNG = {
    # was: SIGSEGV. 12 * 2**62 wraps to 0 in int64: NumPy sized the positions array 0 and wrote past it
    "repeat_interleave_count_wraps": "t.arange(12.).reshape(3, 4).repeat_interleave(2 ** 62)",
    # were: hangs, a Python loop over each of 2**62 output positions (or terms, or pieces)
    "adaptive_max_pool1d_huge": "F.adaptive_max_pool1d(t.ones(1, 1, 4), 2 ** 62)",
    "adaptive_avg_pool1d_huge": "F.adaptive_avg_pool1d(t.ones(1, 4), 2 ** 62)",
    "interpolate_huge": "F.interpolate(t.ones(1, 1, 4), size=2 ** 62)",
    "mvlgamma_huge_p": "t.ones(3).mvlgamma(2 ** 62)",
    "tensor_split_huge_sections": "t.ones(3).tensor_split(2 ** 62)",
}


def test_calls_that_crashed_or_hung_raise_torchs_error(torch_ref) -> None:
    cases = list(CRASHED_OR_HUNG.items())
    for (name, code), outcome in zip(cases, run_cases("minitorch", cases, DEADLINE_S)):
        expected = raised_by(code, torch_ref)
        assert outcome["kind"] == "raise", f"{name}: {outcome}"
        assert (outcome["type"], outcome["message"]) == (type(expected).__name__, str(expected)), name


def test_repeat_interleave_nearby_sizes_still_work(torch_ref) -> None:
    for code in ("t.arange(6.).repeat_interleave(3)", "t.arange(4.).reshape(2, 2).repeat_interleave(t.tensor([1, 3]), dim=0)",
                 "t.repeat_interleave(t.ones(3), t.tensor([2, 2, 2]), output_size=6)"):
        assert_close(evaluate(code, minitorch), evaluate(code, torch_ref))


# ---- in-place writes into a broadcast tensor: PyTorch refuses, minitorch wrote (and lost writes) ----

EXPANDED = "t.zeros(1, 3).expand(3, 3)"
OVERLAPPING_WRITES = [
    f"{EXPANDED}.add_(1)", f"{EXPANDED}.mul_(2)", f"{EXPANDED}.copy_(t.arange(9.).reshape(3, 3))",
    f"{EXPANDED}.fill_(t.tensor(2.0))", f"{EXPANDED}.exp_()", f"{EXPANDED}.clamp_(0, 0.5)", f"{EXPANDED}.pow_(2)",
    f"{EXPANDED}.index_add_(0, t.tensor([0]), t.ones(1, 3))", f"{EXPANDED}.scatter_(0, t.tensor([[1, 0, 1]]), 1.0)",
    f"{EXPANDED}.masked_scatter_(t.ones(3, 3, dtype=t.bool), t.ones(9))", f"{EXPANDED}.uniform_()",
    f"(lambda x: x.__setitem__(slice(None), t.ones(3, 3)))({EXPANDED})",
    f"F.relu({EXPANDED}, inplace=True)", f"F.dropout({EXPANDED}, 0.5, inplace=True)",
    f"t.add(t.ones(3, 3), 1, out={EXPANDED})", f"t.cat([t.ones(1, 3)] * 3, out={EXPANDED})",
]
#: writes PyTorch lets into a broadcast tensor (every element of a row gets one value)
OVERLAPPING_FILLS = [
    f"{EXPANDED}.fill_(2.0)", f"{EXPANDED}.zero_()", f"{EXPANDED}.masked_fill_(t.ones(3, 3, dtype=t.bool), 1.0)",
    f"{EXPANDED}.tril_()", f"F.threshold_({EXPANDED}, -1.0, 5.0)", f"(lambda x: x.__setitem__(0, 5.0) or x)({EXPANDED})",
    f"t.zeros(3, 3, out={EXPANDED})",
]


@pytest.mark.parametrize("code", OVERLAPPING_WRITES)
def test_writes_into_a_broadcast_tensor_are_refused(code: str, torch_ref) -> None:
    assert_same_refusal(code, torch_ref)


@pytest.mark.parametrize("code", OVERLAPPING_FILLS)
def test_fills_of_a_broadcast_tensor_still_work(code: str, torch_ref) -> None:
    assert_close(evaluate(code, minitorch), evaluate(code, torch_ref))


def test_writes_into_a_transposed_tensor_still_work(torch_ref) -> None:
    code = "t.arange(6.).reshape(2, 3).t().add_(t.ones(3, 2))"  # non-contiguous, but no element shared
    assert_close(evaluate(code, minitorch), evaluate(code, torch_ref))


# ---- other calls that returned where PyTorch raises ----

REFUSED = [
    "t.tril_indices(-1, 3)", "t.triu_indices(2, -3)",
    "t.searchsorted(t.tensor([1.0, 2.0]), t.tensor([1.5]), sorter=t.tensor([-1, 0]))",
    "t.searchsorted(t.tensor([1.0, 2.0]), t.tensor([1.5]), sorter=t.tensor([0, 5]))",
    "t.searchsorted(t.tensor([1.0, 2.0]), t.tensor([1.5]), sorter=t.tensor([0]))",
    "t.searchsorted(t.tensor([1.0, 2.0]), t.tensor([1.5]), sorter=t.tensor([0.0, 1.0]))",
    "t.repeat_interleave(t.ones(3), t.tensor([2, 2, 2]), output_size=2)",
    "t.repeat_interleave(t.ones(3), 2, output_size=2)",
    "t.cartesian_prod(t.ones(2, 2))", "t.cartesian_prod(t.ones(2), t.ones(2, 2))",
    "F.adaptive_avg_pool1d(t.ones(1, 1, 0), 2)", "F.adaptive_avg_pool2d(t.ones(1, 1, 0, 4), 2)",
    "t.arange(12.).reshape(3, 4)[t.tensor([1, 0], dtype=t.uint8)]",
    "F.dropout(t.ones(3), nan)", "F.alpha_dropout(t.ones(3), nan)", "F.dropout1d(t.ones(3))", "F.dropout1d(t.ones(1, 2, 3, 4))",
    "F.dropout2d(t.ones(3))",
    "F.rrelu(t.ones(3), 5.0)", "F.rrelu(t.ones(3), nan)", "F.rrelu(t.ones(3), 0.1, inf)",
    "F.softshrink(t.ones(3), nan)", "F.softshrink(t.ones(3, dtype=t.float64), -1.0)",
    "F.pdist(t.ones(3, 4), nan)",
    "F.group_norm(t.ones(3, 4), 1, t.ones(1, 1))", "F.group_norm(t.ones(3, 4), 2, t.ones(3))",
    "t.linalg.householder_product(t.ones(4, 3), t.ones(4, 3))",
    "t.diff(t.ones(3), -1)", "t.diff(t.tensor(1.0))",
    "t.heaviside(t.ones(2), t.tensor([1]))", "F.kl_div(t.ones(3), t.tensor([1, 2, 3]), reduction='sum')",
    "F.prelu(t.ones(2, 3, dtype=t.float64), t.ones(1))", "t.broadcast_shapes(t.ones(2))",
]
#: the valid calls nearest to :data:`REFUSED`
ACCEPTED = [
    "t.tril_indices(0, 3)", "t.triu_indices(3, 2, 1)",
    "t.searchsorted(t.tensor([2.0, 1.0]), t.tensor([1.5]), sorter=t.tensor([1, 0]))",
    "t.cartesian_prod(t.arange(2.), t.arange(3.))",
    "F.adaptive_avg_pool1d(t.ones(0, 4), 2)", "F.adaptive_avg_pool2d(t.ones(1, 0, 2, 4), 2)",
    "t.arange(12.).reshape(3, 4)[t.tensor([1, 0, 1], dtype=t.uint8)]",
    "F.dropout2d(t.ones(0))", "F.dropout2d(t.ones(3), training=False)", "F.dropout1d(t.ones(2, 3), 0.0)",
    "F.rrelu(t.arange(-2., 2.), 0.2, 0.2)", "F.softshrink(t.arange(-2., 2.), 1.0)", "F.pdist(t.arange(6.).reshape(3, 2), 1.0)",
    "F.group_norm(t.arange(12.).reshape(3, 4), 2, t.arange(4.), t.ones(4))",
    "t.diff(t.arange(4.) ** 2, 2)", "t.diff(t.ones(2), 5)",
]


@pytest.mark.parametrize("code", REFUSED)
def test_calls_torch_refuses_are_refused(code: str, torch_ref) -> None:
    assert_same_refusal(code, torch_ref)


@pytest.mark.parametrize("code", ACCEPTED)
def test_valid_calls_next_to_them_match_torch(code: str, torch_ref) -> None:
    ours, theirs = evaluate(code, minitorch), evaluate(code, torch_ref)
    if isinstance(theirs, tuple):
        assert len(ours) == len(theirs)
        for mine, ref in zip(ours, theirs):
            assert_close(mine, ref, FLOAT32_TOLERANCE, FLOAT32_TOLERANCE)
    else:
        assert_close(ours, theirs, FLOAT32_TOLERANCE, FLOAT32_TOLERANCE)


def test_byte_masks_warn_as_torch_does() -> None:
    with pytest.warns(UserWarning, match="indexing with dtype torch.uint8 is now deprecated"):
        minitorch.arange(3.)[minitorch.tensor([1, 0, 1], dtype=minitorch.uint8)]


def test_dropout_of_an_empty_vector_keeps_its_shape() -> None:
    """Was: ``dropout2d`` of shape ``(0,)`` returned shape ``(1, 0)`` (its mask broadcast a new dimension)."""
    assert MF.dropout2d(minitorch.ones(0)).shape == (0,)
    assert np.array_equal(MF.dropout2d(minitorch.ones(0)).numpy(), np.ones(0))


# ---- the sweep: every hand-written hostile case, under both libraries, each in children ----


def test_no_hostile_call_crashes_hangs_or_is_silently_accepted(torch_ref) -> None:
    """Every case of ``hostile_cases.HAND_CASES``: no signal, no hang, and whatever PyTorch
    refuses is refused (``differs``, two different values, is left to the op tests)."""
    rows = hunt(list(HAND_CASES), deadline=DEADLINE_S)
    bad = [f"{row['verdict']}: {row['code']} -> {row['minitorch']}" for row in rows
           if row["verdict"] in ("crash", "hang", "silent")]
    assert not bad, "\n".join(bad)
    assert sum(row["minitorch"]["kind"] == "raise" for row in rows) > len(rows) // 2  # the cases are hostile


def test_the_hunter_tells_crashes_and_hangs_from_errors() -> None:
    """The harness itself: a segfault, a hang and an error, one child after another."""
    cases = [("error", "t.ones(2)[5]"), ("segfault", "__import__('ctypes').string_at(0)"),
             ("hang", "__import__('time').sleep(600)"), ("value", "t.ones(2).sum().item()")]
    error, crash, hang, value = run_cases("minitorch", cases, deadline=HANG_DEADLINE_S)
    assert (error["kind"], error["type"]) == ("raise", "IndexError")
    assert (crash["kind"], crash["how"]) == ("crash", "signal 11")
    assert hang["kind"] == "hang"
    assert value == dict(value, kind="value", value=2.0)
