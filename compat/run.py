"""Run the PyTorch corpus under PyTorch and under minitorch and compare what they print.

``python compat/run.py [SCRIPT ...] [--markdown compat/STATUS.md]`` runs each script of
``compat/corpus/`` twice in child processes: with the real ``torch``, and through
``as_minitorch.py`` with ``torch`` resolved to this checkout's minitorch. The two outputs agree
when their lines have the same text between numbers and their numbers are printed alike
(point, exponent, the decimals of formatted output) and equal within a
relative tolerance (``DEFAULT_RTOL``; a script may loosen it with a ``# compat: rtol=1e-4``
line, or set an absolute floor with ``# compat: atol=1e-9``). Object addresses (``0x7f...``)
are masked before comparing, and minitorch's own qualified names (``minitorch.Size``,
``minitorch.float32``) read as PyTorch's: a program printing them is right for minitorch (a
tensor print's suffixes are joined to their line, as the longer name may move a line break).
"""

from __future__ import annotations

import argparse
import math
import os
import re
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

COMPAT = Path(__file__).resolve().parent
ROOT = COMPAT.parent
CORPUS = COMPAT / "corpus"
BOOTSTRAP = COMPAT / "as_minitorch.py"

#: numbers printed in float64 agree to this relative tolerance unless a script says otherwise
DEFAULT_RTOL = 1e-6
#: an absolute floor, so that a float64 round-off near zero (1e-17 against 0.0) still agrees
DEFAULT_ATOL = 1e-12
#: seconds one script may run in one library (minitorch's first run compiles kernels)
DEFAULT_TIMEOUT = 600
#: PyTorch's intra-op threads in the children (``OMP_NUM_THREADS``)
TORCH_THREADS = "1"
#: characters of a line shown in a report
SHOWN = 110
#: up to this many decimals a number counts as formatted (``tensor([0.5000])``, ``{:.4f}``); two
#: formatted numbers must show the same number of decimals (``tensor(1.)`` is not ``tensor(1.0000)``)
FEW_DECIMALS = 4

NUMBER = re.compile(
    r"(?<![\w.])[-+]?(?:(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|(?:nan|inf)(?![A-Za-z_]))"
)
#: object addresses (``<... object at 0x7f...>``) differ between any two runs
ADDRESS = re.compile(r"\b0x[0-9a-fA-F]+\b")
MARKER = re.compile(r"^#\s*compat:\s*(?P<key>rtol|atol)\s*=\s*(?P<value>\S+)\s*$", re.M)
#: ``minitorch.`` as the start of a qualified name (``minitorch.Size``, ``dtype=minitorch.int32``),
#: not inside another name (``myminitorch.x``), a path (``/minitorch.py``) or a bare mention
OWN_PREFIX = re.compile(r"(?<![\w./\\-])minitorch\.(?=[A-Za-z_])")
#: a tensor print's suffix moved to its own line: with ``minitorch.float64`` four characters longer
#: than ``torch.float64``, the two libraries may rightly break before a suffix at different points
SUFFIX_BREAK = re.compile(r",\n +(?=(?:dtype|grad_fn|requires_grad|device|size)=)")
EXCEPTION_LINE = re.compile(r"^[A-Za-z_][\w.]*(Error|Exception|Interrupt|Exit|Warning)\b.*")


@dataclass
class Run:
    """One script's run under one library."""

    ok: bool
    stdout: str
    stderr: str
    seconds: float

    def error_line(self, script: Path) -> str:
        """The exception and the line of the script it came from (or the last line of stderr)."""
        lines = [line for line in self.stderr.splitlines() if line.strip()]
        if not lines:
            return "no output on stderr"
        exception = next((line for line in reversed(lines) if EXCEPTION_LINE.match(line)), lines[-1])
        frames = re.findall(rf'File "[^"]*{re.escape(script.name)}", line (\d+)', self.stderr)
        where = f"line {frames[-1]}: " if frames else ""
        return where + exception.strip()


@dataclass
class Result:
    """A script's runs under both libraries and how their outputs compare."""

    script: Path
    torch: Run
    minitorch: Run
    difference: Optional[str]

    @property
    def agree(self) -> bool:
        return self.torch.ok and self.minitorch.ok and self.difference is None

    def summary(self) -> str:
        if not self.torch.ok:
            return "torch failed: " + self.torch.error_line(self.script)
        if not self.minitorch.ok:
            first = compare(self.torch.stdout, self.minitorch.stdout, *tolerances(self.script), partial=True)
            printed = f" (after a difference: {first})" if first else ""
            return self.minitorch.error_line(self.script) + printed
        return self.difference or ""


def tolerances(script: Path) -> tuple[float, float]:
    """The (rtol, atol) a script asks for with ``# compat:`` lines, else the defaults."""
    found = {m.group("key"): float(m.group("value")) for m in MARKER.finditer(script.read_text())}
    return found.get("rtol", DEFAULT_RTOL), found.get("atol", DEFAULT_ATOL)


def split_numbers(line: str) -> tuple[list[str], list[str]]:
    """The text between numbers, and the numbers as printed, of one line."""
    texts, numbers, start = [], [], 0
    for match in NUMBER.finditer(line):
        texts.append(line[start:match.start()])
        numbers.append(match.group())
        start = match.end()
    texts.append(line[start:])
    return texts, numbers


def style(number: str) -> tuple[bool, bool, int]:
    """How a number is printed: with a point, with an exponent, and its decimals when they are few.

    Formatted output (``tensor([1.0000])``, ``{:.4f}``) has a fixed number of decimals, which must
    match; a float's repr (``0.30000000000000004``) has as many as its value needs, which may not.
    """
    mantissa = re.split("[eE]", number)[0]
    decimals = len(mantissa.split(".")[1]) if "." in mantissa else 0
    return "." in number, "e" in number.lower(), min(decimals, FEW_DECIMALS + 1)


def close(a: str, b: str, rtol: float, atol: float) -> bool:
    """Two printed numbers agree: the same style and values equal within the tolerance."""
    if a == b:
        return True
    if max(abs(float(a)), abs(float(b))) <= atol:  # round-off at zero prints as it likes (1e-17, 0.0)
        return True
    style_a, style_b = style(a), style(b)
    if style_a[:2] != style_b[:2] or (max(style_a[2], style_b[2]) <= FEW_DECIMALS and style_a[2] != style_b[2]):
        return False
    x, y = float(a), float(b)
    if math.isnan(x) or math.isnan(y):
        return math.isnan(x) and math.isnan(y)
    if math.isinf(x) or math.isinf(y):
        return x == y
    return abs(x - y) <= atol + rtol * max(abs(x), abs(y))


def as_torch_names(text: str) -> str:
    """minitorch's output with its qualified names spelled as PyTorch's (``torch.Size``)."""
    return OWN_PREFIX.sub("torch.", text)


def joined_suffixes(text: str) -> str:
    """Tensor prints with every ``dtype=``/``grad_fn=``/... suffix on the line it follows."""
    return SUFFIX_BREAK.sub(", ", text)


def compare(expected: str, actual: str, rtol: float, atol: float, partial: bool = False) -> Optional[str]:
    """The first difference between two outputs, or None when they agree.

    With ``partial`` the actual output may stop early (its run failed): only the lines it
    printed are compared.
    """
    want = joined_suffixes(ADDRESS.sub("0x?", expected)).splitlines()
    got = joined_suffixes(ADDRESS.sub("0x?", as_torch_names(actual))).splitlines()
    for number, (a, b) in enumerate(zip(want, got), start=1):
        if a == b:
            continue
        (texts_a, nums_a), (texts_b, nums_b) = split_numbers(a), split_numbers(b)
        same_text = texts_a == texts_b
        if same_text and all(close(x, y, rtol, atol) for x, y in zip(nums_a, nums_b)):
            continue
        return f"line {number}: torch `{a[:SHOWN]}` vs minitorch `{b[:SHOWN]}`"
    if len(want) != len(got) and not (partial and len(got) < len(want)):
        return f"torch printed {len(want)} lines, minitorch {len(got)}"
    return None


def child_env(**extra: str) -> dict[str, str]:
    """The environment of the children: this checkout's minitorch first on the path, fixed hashing."""
    env = dict(os.environ, **extra)
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT)] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    env["PYTHONHASHSEED"] = "0"
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return env


def run_once(command: list[str], timeout: float, env: Optional[dict[str, str]] = None) -> Run:
    """Run a command in a fresh temporary folder (scripts save files into the current folder)."""
    with tempfile.TemporaryDirectory(prefix="corpus-") as workdir:
        started = time.perf_counter()
        try:
            done = subprocess.run(command, cwd=workdir, env=env or child_env(), capture_output=True, text=True,
                                  timeout=timeout)
        except subprocess.TimeoutExpired as timed_out:
            stdout = timed_out.stdout.decode() if isinstance(timed_out.stdout, bytes) else (timed_out.stdout or "")
            return Run(False, stdout, f"TimeoutError: ran longer than {timeout:g} s", time.perf_counter() - started)
        return Run(done.returncode == 0, done.stdout, done.stderr, time.perf_counter() - started)


def run_script(script: Path, timeout: float = DEFAULT_TIMEOUT) -> Result:
    """Run one corpus script under both libraries and compare the outputs."""
    script = script.resolve()
    # one intra-op thread: the scripts are small, and PyTorch's thread pool stalls on a busy machine
    under_torch = run_once([sys.executable, str(script)], timeout, child_env(OMP_NUM_THREADS=TORCH_THREADS))
    under_minitorch = run_once([sys.executable, str(BOOTSTRAP), str(script)], timeout)
    difference = None
    if under_torch.ok and under_minitorch.ok:
        difference = compare(under_torch.stdout, under_minitorch.stdout, *tolerances(script))
    return Result(script, under_torch, under_minitorch, difference)


def corpus_scripts() -> list[Path]:
    return sorted(p for p in CORPUS.glob("*.py") if not p.name.startswith("_"))


def table(results: list[Result]) -> str:
    """A Markdown table: script, torch ok, minitorch ok, agree, first difference or error."""
    def cell(text: str) -> str:
        return text.replace("|", "\\|").replace("\n", " ")

    def mark(ok: bool) -> str:
        return "ok" if ok else "FAIL"

    rows = ["| script | torch | minitorch | agree | first difference or error |", "|---|---|---|---|---|"]
    for r in results:
        rows.append(
            f"| `{r.script.name}` | {mark(r.torch.ok)} | {mark(r.minitorch.ok)} | {'yes' if r.agree else 'no'} "
            f"| {cell(r.summary())} |"
        )
    agreed = sum(r.agree for r in results)
    rows.append("")
    rows.append(f"{agreed} of {len(results)} scripts agree; minitorch runs {sum(r.minitorch.ok for r in results)}, "
                f"torch runs {sum(r.torch.ok for r in results)}.")
    return "\n".join(rows) + "\n"


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("scripts", nargs="*", type=Path, help="scripts to run (default: all of compat/corpus)")
    parser.add_argument("--markdown", type=Path, help="also write the table to this Markdown file")
    parser.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT, help="seconds per script and library")
    parser.add_argument("-v", "--verbose", action="store_true", help="print each run's stderr tail on failure")
    args = parser.parse_args(argv)
    results = []
    for script in args.scripts or corpus_scripts():
        result = run_script(script, args.timeout)
        results.append(result)
        status = "agree" if result.agree else "DIFFER"
        print(f"{script.name}: {status} ({result.torch.seconds:.1f} s torch, {result.minitorch.seconds:.1f} s minitorch)"
              f" {result.summary()}", flush=True)
        if args.verbose and not result.agree:
            for run in (result.torch, result.minitorch):
                print("\n".join(run.stderr.splitlines()[-12:]))
    text = table(results)
    print()
    print(text)
    if args.markdown:
        header = ("# Corpus status\n\nGenerated by `python compat/run.py --markdown compat/STATUS.md`: each script of "
                  "`compat/corpus/` run under PyTorch and under minitorch, outputs compared line by line "
                  f"(numbers to rtol {DEFAULT_RTOL:g} unless the script says otherwise).\n\n")
        args.markdown.write_text(header + text)
    return 0 if all(r.agree for r in results) else 1


if __name__ == "__main__":
    raise SystemExit(main())
