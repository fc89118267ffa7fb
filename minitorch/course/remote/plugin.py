"""The pytest plugin of the trusted test process: ``minitorch`` becomes the worker's.

Loaded with ``-p`` before any conftest or test module is imported, it connects to the
worker over the descriptors the grader passed and installs :class:`.client.RemoteFinder`.
The grading plugin, loaded next to it, records the outcomes in this trusted process.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Optional

import pytest

from .client import FDS_VARIABLE, Connection, connect_from_environment, install

#: the channel to the worker; None when the module is imported outside a grading run (a
#: release's import check walks every module), where there is nothing to connect to
CONNECTION: Optional[Connection] = connect_from_environment() if FDS_VARIABLE in os.environ else None
if CONNECTION is not None:
    install(CONNECTION)


#: the marker of tests that cannot run through a proxy (they share memory with the graded code)
IN_PROCESS_MARKER = "in_process"


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Leave out the tests marked ``in_process``: through a proxy they would fail on any
    submission, the reference included (the grading plugin, later, records only what is left)."""
    if CONNECTION is None:
        return
    dropped = [item for item in items if item.get_closest_marker(IN_PROCESS_MARKER) is not None]
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = [item for item in items if item.get_closest_marker(IN_PROCESS_MARKER) is None]


def pytest_sessionstart(session: pytest.Session) -> None:
    """Let the tests hand the graded code paths in their temporary folders (as mirrors)."""
    if CONNECTION is not None:
        CONNECTION.shared_roots.append(Path(session.config._tmp_path_factory.getbasetemp()))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> object:
    """While a test's body runs, a SystemExit of the graded code comes back as one (pytest
    records it as the test's failure); elsewhere it stays a RemoteError."""
    if CONNECTION is None:
        return (yield)
    CONNECTION.in_test = True
    try:
        return (yield)
    finally:
        CONNECTION.in_test = False


def pytest_runtest_logfinish(nodeid: str, location: object) -> None:
    """A test's folders are shared only while it runs."""
    if CONNECTION is not None:
        CONNECTION.end_test()


def pytest_unconfigure(config: object) -> None:
    """Close the channel: the worker sees the end of its input and exits."""
    if CONNECTION is not None:
        CONNECTION.close()
