"""The autograder against a student who attacks it (the threat model of assignments/README.md).

Every attack is a step-0 student release (nothing implemented: its honest score on task
0.1 is 0) with a few malicious lines added, graded by the CLI in its own process. Each test
checks that the attack scores exactly the honest 0, that ``results.json`` is valid and
leaks nothing, and that no file of the course checkout changed (hashes before and after).

The isolation needs root (the sandbox user, the mount and PID namespaces), as on
Gradescope; without root these tests are skipped with that reason.

Step 0 is graded remotely (the tests run in a trusted process, the submission in a
sandboxed worker), so the attacks on the test process's own reporting score 0 as well.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from minitorch.course.release import release

ROOT = Path(__file__).resolve().parents[1]
TASK = "0.1"
GRADE_TIMEOUT = 300
#: seconds a graded run may take in the attacks that loop forever
SHORT_TIMEOUT = 20
SECRET_VARIABLE = "MINITORCH_GRADER_API_KEY"
SECRET_VALUE = "sk-redteam-do-not-leak-4242"
HIDDEN_MARK = "HIDDEN-SOURCE-4f1c"
#: seconds a detached child waits for results.json to appear, and the test waits after the grader
CHILD_PATIENCE = 120
CHILD_PATIENCE_AFTER = 3
#: what the checkout hash leaves out: caches and build outputs that honest runs touch too
UNHASHED = {".git", ".venv", ".numba-cache", "__pycache__", ".pytest_cache", ".hypothesis", "out", ".ipynb_checkpoints"}

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="the grader's sandbox needs root (as on Gradescope)")


def checkout_hashes(root: Path) -> dict[str, str]:
    """sha256 of every file of the checkout outside caches."""
    hashes = {}
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d not in UNHASHED]
        for name in files:
            path = Path(folder, name)
            if not path.is_symlink():
                hashes[str(path.relative_to(root))] = hashlib.sha256(path.read_bytes()).hexdigest()
    return hashes


@pytest.fixture(scope="module")
def stub_release(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("release") / "step-0"
    release(ROOT, 0, folder)
    return folder


@pytest.fixture
def submission(stub_release: Path, tmp_path: Path) -> Path:
    """A fresh copy of the stub release's package, for one attack to edit."""
    folder = tmp_path / "submission"
    folder.mkdir()
    shutil.copytree(stub_release / "minitorch", folder / "minitorch", ignore=shutil.ignore_patterns("__pycache__"))
    return folder


def add_to_init(submission: Path, code: str) -> None:
    with open(submission / "minitorch" / "__init__.py", "a", encoding="utf-8") as f:
        f.write("\n" + code + "\n")


def grade(submission: Path, out: Path, *extra: str, course: Path = ROOT, workspace: Path | None = None,
          task: str = TASK, timeout: float = GRADE_TIMEOUT) -> tuple[subprocess.CompletedProcess, dict]:
    """Grade ``task`` (0.1 unless told) of ``submission`` with a secret in the grader's environment."""
    results = out / "results.json"
    command = [
        sys.executable, "-m", "minitorch.course", "grade", "--root", str(course), "--submission", str(submission),
        "--task", task, "--results", str(results), "--workspace", str(workspace or out / "workspace"), *extra,
    ]
    env = dict(os.environ, **{SECRET_VARIABLE: SECRET_VALUE})
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=timeout)
    assert results.is_file(), f"no results.json:\n{done.stdout}\n{done.stderr}"
    return done, json.loads(results.read_text(encoding="utf-8"))


def assert_honest_zero(done: subprocess.CompletedProcess, data: dict) -> None:
    """Score 0 (the stub's honest score), no secret in the results, the grader did not crash."""
    assert data["score"] == 0, data
    assert all(entry["score"] == 0 for entry in data["tests"]), data
    text = json.dumps(data)
    assert SECRET_VALUE not in text and HIDDEN_MARK not in text
    assert "Traceback (most recent call last)" not in done.stderr, done.stderr


@pytest.fixture
def unchanged_checkout():
    before = checkout_hashes(ROOT)
    yield
    after = checkout_hashes(ROOT)
    changed = sorted(k for k in before.keys() | after.keys() if before.get(k) != after.get(k))
    assert not changed, f"the course checkout changed: {changed[:10]}"


# ---------------------------------------------------------------------- the honest baseline


def test_stub_release_scores_zero(submission: Path, tmp_path: Path, unchanged_checkout) -> None:
    done, data = grade(submission, tmp_path)
    assert_honest_zero(done, data)
    assert data["tests"][0]["max_score"] > 0


# ---------------------------------------------------------------------- attacks on the files


def test_rewriting_the_workspace_tests_at_import(submission: Path, tmp_path: Path, unchanged_checkout) -> None:
    add_to_init(submission, """
import pathlib
for _test in pathlib.Path("tests").glob("test_*.py"):
    try:
        _test.write_text("import pytest\\n@pytest.mark.task('0.1')\\ndef test_free():\\n    pass\\n")
    except OSError:
        pass
for _name in ("conftest.py", "tests/conftest_extra.py"):
    try:
        pathlib.Path(_name).write_text("")
    except OSError:
        pass
""")
    done, data = grade(submission, tmp_path)
    assert_honest_zero(done, data)


def test_writing_the_course_checkout(submission: Path, tmp_path: Path, unchanged_checkout) -> None:
    targets = [ROOT / "assignments" / "00-operators" / "tasks.toml", ROOT / "tests" / "conftest.py", ROOT / "planted.py"]
    add_to_init(submission, f"""
for _target in {[str(t) for t in targets]!r}:
    try:
        with open(_target, "a") as _f:
            _f.write("# planted by a submission\\n")
    except OSError:
        pass
""")
    done, data = grade(submission, tmp_path)
    assert_honest_zero(done, data)
    assert not (ROOT / "planted.py").exists()


def test_conftest_planted_in_a_reused_workspace(submission: Path, tmp_path: Path, unchanged_checkout) -> None:
    workspace = tmp_path / "reused"
    planted = "import pytest\n@pytest.hookimpl(hookwrapper=True)\ndef pytest_runtest_makereport(item, call):\n    outcome = yield\n    outcome.get_result().outcome = 'passed'\n"
    for folder in (workspace, workspace / "box", workspace / "box" / "tests"):
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "conftest.py").write_text(planted)
    done, data = grade(submission, tmp_path, workspace=workspace)
    assert_honest_zero(done, data)


def test_detached_child_rewrites_results_after_the_grader(submission: Path, tmp_path: Path, unchanged_checkout) -> None:
    results = tmp_path / "results.json"
    add_to_init(submission, f"""
import json as _json, os as _os, time as _time
if _os.fork() == 0:
    _os.setsid()
    if _os.fork() == 0:
        _deadline = _time.time() + {CHILD_PATIENCE}
        while not _os.path.exists({str(results)!r}) and _time.time() < _deadline:
            _time.sleep(0.1)
        _time.sleep(0.5)
        try:
            with open({str(results)!r}, "w") as _f:
                _json.dump({{"score": 100, "tests": []}}, _f)
        except OSError:
            pass
    _os._exit(0)
""")
    done, data = grade(submission, tmp_path)
    assert_honest_zero(done, data)
    time.sleep(CHILD_PATIENCE_AFTER)  # longer than the child waits once results.json exists
    assert json.loads(results.read_text(encoding="utf-8"))["score"] == 0


# ---------------------------------------------------------------------- reaching the reference


def test_importing_the_reference_through_its_paths(submission: Path, tmp_path: Path, unchanged_checkout) -> None:
    add_to_init(submission, """
import json as _json, os as _os, sys as _sys
_places = [_os.environ.get("PWD", ""), "/proc/%d/cwd" % _os.getppid()]
try:
    from importlib import metadata as _metadata
    _url = _json.loads(_metadata.distribution("minitorch").read_text("direct_url.json"))["url"]
    _places.append(_url.removeprefix("file://"))
except Exception:
    pass
for _place in _places:
    if _place and _os.path.isfile(_os.path.join(_place, "minitorch", "operators.py")):
        _source = open(_os.path.join(_place, "minitorch", "operators.py")).read()
        if "NotImplementedError" not in _source.split("def mul", 1)[-1][:400]:
            __path__.insert(0, _os.path.join(_place, "minitorch"))
            for _name in [n for n in _sys.modules if n.startswith("minitorch.")]:
                del _sys.modules[_name]
            break
""")
    done, data = grade(submission, tmp_path)
    assert_honest_zero(done, data)


def test_submission_that_links_to_the_reference(tmp_path: Path, unchanged_checkout) -> None:
    linked = tmp_path / "linked"
    linked.mkdir()
    (linked / "minitorch").symlink_to(ROOT / "minitorch")
    done, data = grade(linked, tmp_path)
    assert_honest_zero(done, data)
    assert "link" in data["output"]


# ---------------------------------------------------------------------- leaks


def test_grader_environment_never_reaches_graded_code(submission: Path, tmp_path: Path, unchanged_checkout) -> None:
    add_to_init(submission, "import os as _os\nraise RuntimeError(repr(dict(_os.environ)))")
    done, data = grade(submission, tmp_path)
    assert_honest_zero(done, data)
    assert "RuntimeError" in data["output"]  # the attack ran and its message is shown: without the secret


@pytest.fixture
def course_with_hidden_tests(tmp_path: Path) -> Path:
    """A copy of the course whose task 0.1 also has a hidden test with a recognisable source."""
    course = tmp_path / "course"
    course.mkdir()
    for part in ("assignments", "tests", "minitorch"):
        shutil.copytree(ROOT / part, course / part, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "pyproject.toml", course / "pyproject.toml")
    (course / "tests" / "hidden").mkdir()
    (course / "tests" / "hidden" / "test_hidden_operators.py").write_text(
        f"import pytest\nimport minitorch.operators as ops\n\n# {HIDDEN_MARK}\n"
        "@pytest.mark.task('0.1')\ndef test_secret_mul():\n    assert ops.mul(3.0, 4.0) == 12.0\n"
    )
    return course


def test_hidden_tests_never_shown(submission: Path, tmp_path: Path, course_with_hidden_tests: Path, unchanged_checkout) -> None:
    add_to_init(submission, """
import pathlib as _pathlib
_found = [p.read_text() for p in _pathlib.Path("tests").rglob("*.py") if "hidden" in str(p)]
if _found:
    raise RuntimeError("".join(_found))
""")
    done, data = grade(submission, tmp_path, course=course_with_hidden_tests)
    assert_honest_zero(done, data)
    assert "test_secret_mul" not in json.dumps(data) and "test_hidden_operators" not in json.dumps(data)


def test_hidden_tests_count_for_an_honest_reference(tmp_path: Path, course_with_hidden_tests: Path) -> None:
    done, data = grade(ROOT, tmp_path, course=course_with_hidden_tests)
    entry = data["tests"][0]
    assert entry["score"] == entry["max_score"], entry
    assert "test_secret_mul" not in json.dumps(data)


# ---------------------------------------------------------------------- failure modes


BROKEN_PACKAGES = {
    "endless-import": ("while True:\n    pass", "did not finish"),
    "sleeping-import": ("import time\ntime.sleep(3600)", "did not finish"),
    "syntax-error": ("def broken(:", "SyntaxError"),
    "flood-of-output": ("import sys\nwhile True:\n    sys.stdout.write('x' * 65536)", "import"),
}


@pytest.mark.parametrize("kind", sorted(BROKEN_PACKAGES))
def test_broken_package_gets_a_results_file(kind: str, submission: Path, tmp_path: Path, unchanged_checkout) -> None:
    code, symptom = BROKEN_PACKAGES[kind]
    add_to_init(submission, code)
    started = time.monotonic()
    done, data = grade(submission, tmp_path, "--timeout", str(SHORT_TIMEOUT))
    assert time.monotonic() - started < GRADE_TIMEOUT / 2
    assert_honest_zero(done, data)
    assert symptom in data["output"], data["output"]


LAYOUTS = {
    "no-package-folder": (lambda s: shutil.rmtree(s / "minitorch"), "no minitorch/ folder"),
    "no-init": (lambda s: (s / "minitorch" / "__init__.py").unlink(), "no __init__.py"),
    "empty-package": (lambda s: [p.write_text("") for p in (s / "minitorch").rglob("*.py")], "empty"),
    "package-is-a-file": (lambda s: (shutil.rmtree(s / "minitorch"), (s / "minitorch").write_text("")), "plain folder"),
}


@pytest.mark.parametrize("kind", sorted(LAYOUTS))
def test_bad_layout_gets_a_clear_message(kind: str, submission: Path, tmp_path: Path, unchanged_checkout) -> None:
    spoil, words = LAYOUTS[kind]
    spoil(submission)
    done, data = grade(submission, tmp_path)
    assert_honest_zero(done, data)
    assert words in data["output"], data["output"]


def test_non_json_lines_in_the_report(submission: Path, tmp_path: Path, unchanged_checkout) -> None:
    add_to_init(submission, """
import sys as _sys
if "--grading-report" in _sys.argv:
    with open(_sys.argv[_sys.argv.index("--grading-report") + 1], "a") as _f:
        _f.write("this is not json\\n{\\"kind\\": \\"result\\"}\\n[1, 2]\\n")
""")
    done, data = grade(submission, tmp_path)
    assert_honest_zero(done, data)


# ---------------------------------------------------------------------- scoring inside the graded process


IN_PROCESS_FORGERIES = {
    "patched-report-factory": """
import _pytest.reports as _reports
_original = _reports.TestReport.from_item_and_call.__func__
def _forged(cls, item, call):
    report = _original(cls, item, call)
    report.outcome, report.longrepr = "passed", None
    return report
_reports.TestReport.from_item_and_call = classmethod(_forged)
""",
    "atexit-report-rewrite": """
import atexit as _atexit, json as _json, sys as _sys
_report = _sys.argv[_sys.argv.index("--grading-report") + 1] if "--grading-report" in _sys.argv else ""
def _rewrite():
    try:
        lines = [_json.loads(l) for l in open(_report)]
    except OSError:
        return
    with open(_report, "w") as f:
        for record in lines:
            if record.get("kind") == "result":
                record.update(status="passed", exception=None, message="", output="")
            f.write(_json.dumps(record) + "\\n")
_atexit.register(_rewrite)
""",
}


@pytest.mark.parametrize("kind", sorted(IN_PROCESS_FORGERIES))
def test_forging_outcomes_inside_the_test_process(kind: str, submission: Path, tmp_path: Path, unchanged_checkout) -> None:
    add_to_init(submission, IN_PROCESS_FORGERIES[kind])
    done, data = grade(submission, tmp_path)
    assert_honest_zero(done, data)


#: a task of a later step that is graded remotely (the reference passes all its tests through the proxy)
LATER_TASK = "4.3"
#: its first grading also calibrates it: a stub release of step 4 and the reference, through the
#: proxy; each of the three runs may take the grader's per-task time (a busy machine is slow)
LATER_TASK_TIMEOUT = 1200
LATER_GRADE_TIMEOUT = 3 * LATER_TASK_TIMEOUT


def test_forging_outcomes_in_a_later_step(tmp_path: Path, tmp_path_factory: pytest.TempPathFactory,
                                          unchanged_checkout) -> None:
    """Remote grading is not only for steps 0 and 1: a step-4 task's scores are decided outside
    the submission's processes too, so patching pytest's reports from the package changes nothing."""
    release_folder = tmp_path_factory.mktemp("release") / "step-4"
    release(ROOT, 4, release_folder)
    submission = tmp_path / "submission"
    shutil.copytree(release_folder / "minitorch", submission / "minitorch", ignore=shutil.ignore_patterns("__pycache__"))
    add_to_init(submission, IN_PROCESS_FORGERIES["patched-report-factory"])
    done, data = grade(submission, tmp_path, "--timeout", str(LATER_TASK_TIMEOUT), task=LATER_TASK,
                       timeout=LATER_GRADE_TIMEOUT)
    assert f"task {LATER_TASK} is graded inside the sandbox" not in done.stderr
    assert_honest_zero(done, data)
