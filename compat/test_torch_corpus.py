"""Each corpus script prints under minitorch what it prints under PyTorch (see ``run.py``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from compat import run


@pytest.mark.parametrize("script", run.corpus_scripts(), ids=lambda path: path.stem)
def test_script_agrees_with_torch(script: Path) -> None:
    result = run.run_script(script)
    if not result.torch.ok:
        pytest.fail(f"{script.name} fails under PyTorch itself: {result.torch.error_line(script)}", pytrace=False)
    if not result.agree:
        pytest.fail(f"{script.name} under minitorch: {result.summary()}", pytrace=False)
