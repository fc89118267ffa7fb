"""A pytest plugin that records, per test, its course task and its outcome.

The autograder and the integrity tests load it by file (``-p minitorch_grading_plugin``
with this file's folder copied onto ``sys.path``), so it imports nothing from minitorch: it
must keep working when the copy of minitorch under test does not even import.

Options:
    ``--grading-report FILE``   append one JSON object per line to FILE: a ``collected``
                                line per kept test, a ``result`` line per finished test, an
                                ``error`` line per module that failed to collect.
    ``--grading-task ID``       keep only the tests marked ``@pytest.mark.task(ID)`` (repeatable).
    ``--grading-backend NAME``  drop tests parametrized by the ``backend`` fixture with another
                                value (repeatable).

Lines are written as they happen, so a crash or a timeout still leaves what ran.
"""

from __future__ import annotations

import json
from typing import Any, Optional

import pytest

#: longest traceback text kept per test
MAX_OUTPUT_CHARS = 4000
HIDDEN_FOLDER = "hidden"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("grading", "course autograder")
    group.addoption("--grading-report", default=None, help="JSON-lines file to append results to")
    group.addoption("--grading-task", action="append", default=[], help="keep only tests of this task id")
    group.addoption("--grading-backend", action="append", default=[], help="keep only this value of the backend fixture")


def task_of(item: pytest.Item) -> Optional[str]:
    """The task id of the closest ``task`` marker, or None."""
    marker = item.get_closest_marker("task")
    if marker is None or not marker.args:
        return None
    return str(marker.args[0])


def _is_hidden(nodeid: str) -> bool:
    return f"/{HIDDEN_FOLDER}/" in "/" + nodeid


class _Recorder:
    def __init__(self, config: pytest.Config) -> None:
        self.path: Optional[str] = config.getoption("--grading-report")
        self.tasks = set(config.getoption("--grading-task"))
        self.backends = set(config.getoption("--grading-backend"))
        self.items: dict[str, str] = {}  # nodeid -> task
        self.failed: set[str] = set()

    def write(self, record: dict[str, Any]) -> None:
        if self.path is None:
            return
        with open(self.path, "a", encoding="utf-8") as f:
            f.write(json.dumps(record) + "\n")

    # -------------------------------------------------------------- hooks

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(self, config: pytest.Config, items: list[pytest.Item]) -> None:
        kept, dropped = [], []
        for item in items:
            task = task_of(item)
            callspec = getattr(item, "callspec", None)
            backend = callspec.params.get("backend") if callspec is not None else None
            if self.tasks and task not in self.tasks:
                dropped.append(item)
            elif self.backends and backend is not None and backend not in self.backends:
                dropped.append(item)
            else:
                kept.append(item)
        if dropped:
            config.hook.pytest_deselected(items=dropped)
            items[:] = kept
        for item in items:
            self.items[item.nodeid] = task_of(item) or ""
            self.write({"kind": "collected", "nodeid": item.nodeid, "task": task_of(item), "hidden": _is_hidden(item.nodeid)})

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:
            self.write({"kind": "error", "nodeid": report.nodeid, "output": _text(report)})

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if report.nodeid not in self.items:
            return
        if report.failed:
            self.failed.add(report.nodeid)
            exception = _exception(report)
            self.write(
                {
                    "kind": "result", "nodeid": report.nodeid, "task": self.items[report.nodeid],
                    "when": report.when, "status": "failed", "exception": exception[0],
                    "message": exception[1], "output": _text(report),
                }
            )
        elif report.when == "call" or (report.when == "setup" and report.skipped):
            status = "skipped" if report.skipped else "passed"
            self.write(
                {
                    "kind": "result", "nodeid": report.nodeid, "task": self.items[report.nodeid],
                    "when": report.when, "status": status, "exception": None, "message": "",
                    "output": _text(report) if report.skipped else "",
                }
            )


def _text(report: Any) -> str:
    text = str(report.longrepr) if report.longrepr is not None else ""
    if len(text) > MAX_OUTPUT_CHARS:
        text = "...\n" + text[-MAX_OUTPUT_CHARS:]
    return text


def _exception(report: pytest.TestReport) -> tuple[Optional[str], str]:
    """The type name and message of the exception that failed the test (the innermost one)."""
    longrepr = report.longrepr
    crash = getattr(longrepr, "reprcrash", None)
    if crash is None:
        return None, str(longrepr)[-MAX_OUTPUT_CHARS:]
    message = crash.message
    name, _, rest = message.partition(":")
    name = name.strip().rsplit(".", 1)[-1]
    return (name if name.isidentifier() else None), rest.strip()


def pytest_configure(config: pytest.Config) -> None:
    config.pluginmanager.register(_Recorder(config), "grading-recorder")
