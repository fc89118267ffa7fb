"""The README of a student release: written for the student, from the task registry.

A release of step ``N`` replaces the reference's README by this one: which step the student
is on and which steps are solved for them, the commands (``make lab``, ``make status``,
``make grade``), then per step its guide, notebook and tasks with their files, points and
the command that checks each one, and how to hand the work in. The reference's README stays
in the release as ``docs/framework-readme.md`` (the framework's own overview).
"""

from __future__ import annotations

from pathlib import Path

from .tasks import Step

#: where a release keeps the reference's own README
FRAMEWORK_README = "docs/framework-readme.md"


def _notebooks_of(step: Step, notebooks: list[str]) -> list[str]:
    """The step's notebooks: those named ``NN_*.ipynb`` for step ``NN`` (a step may have several)."""
    prefix = f"{step.number:02d}_"
    return [name for name in notebooks if Path(name).name.startswith(prefix)]


def _step_section(step: Step, root: Path, notebooks: list[str]) -> list[str]:
    guide = step.directory.relative_to(root) / "README.md"
    named = " and ".join(f"`{name}`" for name in _notebooks_of(step, notebooks))
    lines = [f"### Step {step.number}: {step.name}", "", f"Read `{guide.as_posix()}` first"
             + (f", then work through {named} (`make lab`)." if named else ".")]
    lines += ["", "| task | what you write | points | your files | check it |", "|---|---|---|---|---|"]
    for task in step.tasks:
        files = ", ".join(f"`{name}`" for name in task.files)
        lines.append(f"| {task.id} | {task.title} | {task.points:g} | {files} | `make status TASK={task.id}` |")
    return lines + [""]


def student_readme(steps: list[Step], first_stubbed: int, root: Path, notebooks: list[str]) -> str:
    """The release README for a release whose steps ``>= first_stubbed`` are left to the student."""
    yours = [s for s in steps if s.number >= first_stubbed]
    solved = [s for s in steps if s.number < first_stubbed]
    points = sum(t.points for s in yours for t in s.tasks)
    lines = [
        f"# minitorch: your course, from step {first_stubbed}",
        "",
        "minitorch is a small deep-learning framework with PyTorch's names: by the end of the course,",
        "code written for PyTorch runs on the framework you wrote, with `import minitorch as torch`.",
        "",
    ]
    if solved:
        lines += [f"Steps {solved[0].number} to {solved[-1].number} are solved for you (their code is the course's"
                  " own), so a mistake there cannot hold you back; the rest is yours:"
                  f" {sum(len(s.tasks) for s in yours)} tasks, {points:g} points.", ""]
    else:
        lines += [f"Every step is yours: {sum(len(s.tasks) for s in yours)} tasks, {points:g} points.", ""]
    lines += [
        "## Getting started",
        "",
        "```bash",
        "make lab                    # set-up if needed, then JupyterLab with the course notebooks",
        f"make status STEP={first_stubbed}           # which of the step's tasks pass, points, the next task",
        "make status TASK=X.Y        # one task only",
        f"make grade STEP={first_stubbed}            # score it as the grader does (the tests you can see)",
        "make test                   # everything: the whole test suite and the notebooks",
        "make milestone N=1          # a milestone on your own code (make milestone: the five, the steps each needs)",
        "```",
        "",
        "Each command sets up the environment the first time (Python 3.11, in `.venv`). Code you",
        "have not written yet raises `NotImplementedError: Task X.Y: ...`, naming the task that",
        "fills it in; the comment above it is the task's hint.",
        "",
        "## Your tasks",
        "",
    ]
    for step in yours:
        lines += _step_section(step, root, notebooks)
    lines += [
        "## Handing in",
        "",
        "Hand in the `minitorch/` folder (or the whole repository) the way your instructor says,",
        "for example by uploading it to Gradescope. The grader runs the course's own tests, with",
        "hidden ones besides those you can see, on a fresh copy of your `minitorch/` package: only",
        "your code inside it counts, and changes to `tests/` or to the tooling have no effect.",
        "",
        "## More",
        "",
        f"- `{FRAMEWORK_README}`: the framework's own README (layout, backends, commands).",
        "- `docs/`: the API reference and the design notes.",
        "",
    ]
    return "\n".join(lines)
