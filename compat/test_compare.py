"""The runner's comparison of two printed outputs (``run.compare``) and its import alias."""

from __future__ import annotations

import subprocess
import sys

import pytest

from compat import run

RTOL, ATOL = 1e-6, 1e-12


@pytest.mark.parametrize(
    "torch_line, minitorch_line",
    [
        ("loss 0.53552322745644", "loss 0.5355232274564472"),  # float reprs: last digits differ
        ("0.5", "0.5000000000000001"),
        ("tensor([0.1235, 2.0000])", "tensor([0.1235, 2.0000])"),
        ("x 1.5e-07", "x 1.5000001e-07"),
        ("tensor([nan, -inf])", "tensor([nan, -inf])"),
        ("<MseLossBackward0 object at 0x7f00aa>", "<MseLossBackward0 object at 0x55cc01>"),
        ("grad 1e-17", "grad 0.0"),  # round-off at zero, below the absolute floor
        ("torch.Size([2, 3])", "minitorch.Size([2, 3])"),  # minitorch's own qualified names
        ("tensor([1, 2], dtype=torch.int32) torch.int32", "tensor([1, 2], dtype=minitorch.int32) minitorch.int32"),
        ("(torch.float64,)", "(minitorch.float64,)"),
    ],
)
def test_outputs_that_agree(torch_line: str, minitorch_line: str) -> None:
    assert run.compare(torch_line, minitorch_line, RTOL, ATOL) is None


@pytest.mark.parametrize(
    "torch_line, minitorch_line",
    [
        ("torch.Size([2, 3])", "torch.Shape([2, 3])"),  # text between numbers
        ("torch.Size([2])", "myminitorch.Size([2])"),  # only minitorch's own prefix is renamed
        ("torch.py", "/minitorch.py"),  # a path is not a qualified name
        ("module torch", "module minitorch"),  # nor is a bare mention
        ("0.0001", "0.0002"),  # values
        ("tensor(1.)", "tensor(1.0000)"),  # formatted decimals
        ("tensor([0.1000])", "tensor([1.0000e-01])"),  # scientific notation
        ("3", "3.0"),  # an int against a float
        ("Conv1", "Conv2"),  # digits inside a name are text
        ("tensor([ 1.0000, -2.0000])", "tensor([1.0000, -2.0000])"),  # column padding
    ],
)
def test_outputs_that_differ(torch_line: str, minitorch_line: str) -> None:
    assert run.compare(torch_line, minitorch_line, RTOL, ATOL) is not None


def test_a_suffix_moved_to_its_own_line_by_the_longer_name_agrees() -> None:
    theirs = "tensor([-0.4375, -1.0000], dtype=torch.float64, grad_fn=<Legendre3Backward>)\nnext"
    ours = "tensor([-0.4375, -1.0000], dtype=minitorch.float64,\n       grad_fn=<Legendre3Backward>)\nnext"
    assert run.compare(theirs, ours, RTOL, ATOL) is None
    # a break anywhere else still counts, as does a different suffix
    assert run.compare("tensor([1., 2.])", "tensor([1.,\n        2.])", RTOL, ATOL) is not None
    assert run.compare(theirs, ours.replace("Legendre3", "Legendre2"), RTOL, ATOL) is not None


def test_line_counts_must_match_unless_the_run_failed() -> None:
    assert run.compare("a\nb", "a", RTOL, ATOL) == "torch printed 2 lines, minitorch 1"
    assert run.compare("a\nb", "a", RTOL, ATOL, partial=True) is None


def test_a_script_loosens_its_tolerance(tmp_path) -> None:
    script = tmp_path / "loose.py"
    script.write_text("# compat: rtol=1e-4\nimport torch\n")
    assert run.tolerances(script) == (1e-4, run.DEFAULT_ATOL)


def test_the_alias_gives_minitorch_modules_and_never_torch(tmp_path) -> None:
    script = tmp_path / "imports.py"
    script.write_text(
        "import sys\n"
        "import torch\nimport torch.nn as nn\nimport torch.nn.functional as F\n"
        "from torch.utils.data import DataLoader\n"
        "print(torch.__name__, nn.__name__, F.__name__, DataLoader.__module__.split('.')[0])\n"
        "print(any(name == 'torch' and mod.__name__ == 'torch' for name, mod in sys.modules.items()))\n"
        "try:\n    import torch.not_a_module\nexcept ModuleNotFoundError as error:\n    print(error)\n"
    )
    done = subprocess.run([sys.executable, str(run.BOOTSTRAP), str(script)], env=run.child_env(),
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "minitorch minitorch.nn minitorch.nn.functional minitorch",
        "False",
        "No module named 'torch.not_a_module'",
    ]
