"""Probe the tests of each task against that task's stubs alone, in one process.

Generating one student release per task and running each in its own process is exact but
slow. This pytest plugin gets the same answer for plain Python code: before a test of task
``X.Y`` runs, every function holding a region of ``X.Y`` gets the code object compiled from
its stubbed source (``function.__code__`` is swapped, so every reference to the function
sees the stub); after the test the reference code is put back. Only ``X.Y``'s stubs are
active, so a failure shows what that task's stub does to its own tests.

Functions that cannot be swapped (Numba kernels: their compiled code does not read
``__code__``) make their task "not probed"; the integrity tests cover those tasks with a
real release instead.

Use: ``python -m pytest -p minitorch.course.probe --probe-report FILE --probe-task X.Y ...``.
With ``--probe-release`` nothing is swapped: the plugin runs the chosen tasks' tests on a
student release (stubbed for real) with the same selection and quick Hypothesis settings.
"""

from __future__ import annotations

import ast
import importlib
import json
import re
import types
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

import pytest

from .markers import Region, find_regions, stub_lines, stub_source
from .release import belongs_in_release, repository_files
from .tasks import load_tasks

#: longest failure text kept per test
MAX_OUTPUT_CHARS = 2000
#: Hypothesis examples per test while probing (a test's own settings may ask for more)
PROBE_EXAMPLES = 10
#: the prefix Numba's CUDA simulator puts before the message of an exception raised in a
#: kernel thread, e.g. ``NotImplementedError: tid=[3, 0, 0] ctaid=[0, 0, 0]: Task 3.4: ...``
SIMULATOR_PREFIX = re.compile(r"^(?P<type>[\w.]+): tid=\[[\d, ]*\] ctaid=\[[\d, ]*\]: ")


@dataclass
class Swap:
    """One function of the reference and the stubbed code that replaces its own."""

    function: types.FunctionType
    original: types.CodeType
    stubbed: types.CodeType


def _qualname_at(tree: ast.AST, line: int) -> Optional[str]:
    """The ``__qualname__`` of the innermost function whose body holds ``line``."""
    best: Optional[str] = None

    def visit(node: ast.AST, prefix: str) -> None:
        nonlocal best
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                inside = child.lineno < line <= (child.end_lineno or child.lineno)
                name = f"{prefix}{child.name}"
                if isinstance(child, ast.ClassDef):
                    visit(child, name + ".")
                elif inside:
                    best = name
                    visit(child, name + ".<locals>.")
            else:
                visit(child, prefix)

    visit(tree, "")
    return best


def _code_by_qualname(code: types.CodeType, qualname: str) -> Optional[types.CodeType]:
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            if const.co_qualname == qualname:
                return const
            found = _code_by_qualname(const, qualname)
            if found is not None:
                return found
    return None


def _function_by_qualname(module: types.ModuleType, qualname: str) -> Optional[types.FunctionType]:
    """The function object behind ``qualname`` in ``module`` (unwrapping static/class methods and
    ``functools.wraps`` decorators)."""
    if "<locals>" in qualname:
        return None
    target: Any = module
    parts = qualname.split(".")
    for part in parts:
        holder = target
        target = vars(holder).get(part) if isinstance(holder, type) else getattr(holder, part, None)
        if target is None:
            return None
    if isinstance(target, (staticmethod, classmethod)):
        target = target.__func__
    if isinstance(target, property):
        target = target.fget
    while isinstance(target, types.FunctionType) and isinstance(getattr(target, "__wrapped__", None), types.FunctionType):
        target = target.__wrapped__  # a decorated function: the region's code is the wrapped one's
    return target if isinstance(target, types.FunctionType) else None


def module_name(path: str) -> str:
    return path.removesuffix(".py").replace("/", ".").removesuffix(".__init__")


def plan_swaps(root: Path, task_ids: set[str]) -> tuple[dict[str, list[Swap]], dict[str, list[str]]]:
    """For each task, the swaps that stub it; and for each task the regions that cannot be swapped."""
    tasks = load_tasks(root)
    swaps: dict[str, list[Swap]] = {t: [] for t in task_ids}
    unswappable: dict[str, list[str]] = {}
    for name in repository_files(root):
        if not (name.endswith(".py") and name.startswith("minitorch/") and belongs_in_release(name)):
            continue
        text = (root / name).read_text(encoding="utf-8")
        regions = [r for r in find_regions(text, name, tasks.keys()) if r.task_id in task_ids]
        if not regions:
            continue
        module = importlib.import_module(module_name(name))
        tree = ast.parse(text)
        for task_id in {r.task_id for r in regions}:
            task = tasks[task_id]
            mine = [r for r in regions if r.task_id == task_id]
            stubbed = stub_source(
                text, find_regions(text, name), lambda t, task_id=task_id: t == task_id,
                lambda indent, t, task=task: stub_lines(indent, t, task.title),
            )
            compiled = compile(stubbed, str(root / name), "exec")
            for region in mine:
                swap = _swap_for(module, tree, compiled, region)
                if swap is None:
                    unswappable.setdefault(task_id, []).append(f"{name}:{region.begin}")
                elif all(s.function is not swap.function for s in swaps[task_id]):
                    swaps[task_id].append(swap)
    return swaps, unswappable


def _swap_for(module: types.ModuleType, tree: ast.AST, compiled: types.CodeType, region: Region) -> Optional[Swap]:
    qualname = _qualname_at(tree, region.begin)
    if qualname is None:
        return None
    function = _function_by_qualname(module, qualname)
    stubbed = _code_by_qualname(compiled, qualname)
    if function is None or stubbed is None or function.__code__.co_freevars != stubbed.co_freevars:
        return None
    return Swap(function, function.__code__, stubbed)


def _thin(items: list[pytest.Item], per_test: int) -> tuple[list[pytest.Item], list[pytest.Item]]:
    """Keep at most ``per_test`` parametrizations of each test function, spread over its list."""
    groups: dict[tuple[str, str], list[pytest.Item]] = {}
    for item in items:
        key = (str(item.path), getattr(item, "originalname", item.name))
        groups.setdefault(key, []).append(item)
    keep: set[int] = set()
    for group in groups.values():
        if len(group) <= per_test:
            keep.update(id(i) for i in group)
        else:
            step = (len(group) - 1) / (per_test - 1) if per_test > 1 else 0
            keep.update(id(group[round(k * step)]) for k in range(per_test))
    return [i for i in items if id(i) in keep], [i for i in items if id(i) not in keep]


def unwrap_simulator_message(message: str) -> str:
    """``message`` without the thread and block ids of Numba's CUDA simulator.

    A stub inside a ``@cuda.jit`` kernel raises its NotImplementedError in a simulated GPU
    thread; the simulator catches it and the launch re-raises an exception of the same type
    whose text is ``"tid=[x, y, z] ctaid=[x, y, z]: "`` followed by the original message.
    The type and the stub's text are intact, so dropping that prefix gives the failure the
    stub itself raised (``NotImplementedError: Task 3.4: ...``). Other messages are returned
    unchanged, so any other error still counts as a wrong failure.
    """
    return SIMULATOR_PREFIX.sub(r"\g<type>: ", message, count=1)


def quick_hypothesis() -> None:
    """Hypothesis without shrinking and with one error per test: a stub fails on the first
    example, and shrinking or hunting for more failures would only cost time (and two
    failing lines of one test would come back as an ExceptionGroup, not as the stub's
    error). Extends the profile the test suite's conftest loaded.

    Called before the test modules are imported: ``@given`` takes the default settings at
    decoration time, and a test's own ``settings(...)`` inherits from the default of that
    moment, so a profile loaded later would not reach them."""
    try:
        from hypothesis import Phase, settings
    except ImportError:
        return
    if settings.get_current_profile_name() == "course-probe":
        return  # loaded already, and still in force
    settings.register_profile(
        "course-probe", parent=settings.default, phases=[Phase.explicit, Phase.reuse, Phase.generate],
        report_multiple_bugs=False, max_examples=PROBE_EXAMPLES,
    )
    settings.load_profile("course-probe")


class Prober:
    def __init__(self, config: pytest.Config) -> None:
        self.report: str = config.getoption("--probe-report")
        self.task_ids = set(config.getoption("--probe-task"))
        self.backends = set(config.getoption("--probe-backend"))
        self.per_test: int = config.getoption("--probe-per-test")
        self.items: dict[str, str] = {}
        root = Path(config.getoption("--probe-root") or config.rootpath)
        if config.getoption("--probe-release"):
            # a student release: its code is stubbed already, nothing to swap
            self.swaps: dict[str, list[Swap]] = {t: [] for t in self.task_ids}
            unswappable: dict[str, list[str]] = {}
            self.probed = set(self.task_ids)
        else:
            self.swaps, unswappable = plan_swaps(root, self.task_ids)
            for task_id in unswappable:  # a task is probed with all of its stubs or not at all
                self.swaps[task_id] = []
            self.probed = {t for t, s in self.swaps.items() if s}
        self._write({"kind": "plan", "unswappable": unswappable, "swaps": {t: len(s) for t, s in self.swaps.items()}})

    def _write(self, record: dict[str, Any]) -> None:
        with open(self.report, "a", encoding="utf-8") as f:
            f.write(json.dumps(record) + "\n")

    @pytest.hookimpl(tryfirst=True)
    def pytest_collection(self, session: pytest.Session) -> None:
        quick_hypothesis()  # the initial conftests are loaded, no test module is imported yet

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, config: pytest.Config, items: list[pytest.Item]) -> None:
        quick_hypothesis()  # again, in case a conftest met during collection loaded its own profile
        kept, dropped = [], []
        for item in items:
            marker = item.get_closest_marker("task")
            task = str(marker.args[0]) if marker and marker.args else None
            callspec = getattr(item, "callspec", None)
            backend = callspec.params.get("backend") if callspec is not None else None
            wanted = task in self.probed
            if wanted and (not self.backends or backend is None or backend in self.backends):
                kept.append(item)
            else:
                dropped.append(item)
        if self.per_test:
            kept, thinned = _thin(kept, self.per_test)
            dropped.extend(thinned)
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept
        self.items = {item.nodeid: str(item.get_closest_marker("task").args[0]) for item in kept}

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_protocol(self, item: pytest.Item, nextitem: Optional[pytest.Item]):
        marker = item.get_closest_marker("task")
        swaps = self.swaps.get(str(marker.args[0]), [])
        for swap in swaps:
            swap.function.__code__ = swap.stubbed
        try:
            yield
        finally:
            for swap in swaps:
                swap.function.__code__ = swap.original

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.nodeid not in self.items:
            return
        if report.failed or (report.when == "call" and report.passed):
            crash = getattr(report.longrepr, "reprcrash", None)
            message = unwrap_simulator_message(crash.message if crash is not None else str(report.longrepr))
            self._write(
                {
                    "kind": "result", "nodeid": report.nodeid, "task": self.items.get(report.nodeid), "when": report.when,
                    "status": "failed" if report.failed else "passed",
                    "message": message[:MAX_OUTPUT_CHARS],
                    "output": str(report.longrepr)[-MAX_OUTPUT_CHARS:] if report.failed else "",
                }
            )


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("course-probe", "stub one task at a time")
    group.addoption("--probe-report", default=None, help="JSON-lines file for the results")
    group.addoption("--probe-task", action="append", default=[], help="task id to probe (repeatable)")
    group.addoption("--probe-backend", action="append", default=[], help="keep only this backend fixture value")
    group.addoption("--probe-per-test", type=int, default=0, help="run at most this many parametrizations of each test function")
    group.addoption("--probe-release", action="store_true", help="the code under test is a student release: swap nothing")
    group.addoption("--probe-root", default=None, help="the course repository (default: pytest's rootdir)")


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("--probe-report"):
        config.pluginmanager.register(Prober(config), "course-prober")


__all__ = ["Swap", "plan_swaps", "unwrap_simulator_message"]
