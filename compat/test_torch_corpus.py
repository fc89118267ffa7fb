"""Each corpus script prints under minitorch what it prints under PyTorch (see ``run.py``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from compat import run
from compat.known_gaps import KNOWN_GAPS


class Disagreement(AssertionError):
    """minitorch printed something else than PyTorch, or failed where PyTorch ran."""


def _expected(script: Path) -> object:
    """A script on the known-gaps list is a strict xfail: it must still differ from PyTorch
    (and only that: PyTorch itself failing is an error either way)."""
    gap = KNOWN_GAPS.get(script.name)
    marks = [pytest.mark.xfail(strict=True, raises=Disagreement, reason=f"known gap: {gap}")] if gap else []
    return pytest.param(script, marks=marks, id=script.stem)


def test_every_known_gap_names_a_corpus_script() -> None:
    names = {script.name for script in run.corpus_scripts()}
    assert set(KNOWN_GAPS) <= names, sorted(set(KNOWN_GAPS) - names)


@pytest.mark.parametrize("script", [_expected(script) for script in run.corpus_scripts()])
def test_script_agrees_with_torch(script: Path) -> None:
    result = run.run_script(script)
    if not result.torch.ok:
        pytest.fail(f"{script.name} fails under PyTorch itself: {result.torch.error_line(script)}", pytrace=False)
    if not result.agree:
        raise Disagreement(f"{script.name} under minitorch: {result.summary()}")
