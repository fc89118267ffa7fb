"""The course tooling: task registry, solution markers, student releases and the autograder.

- :mod:`.tasks` reads every ``assignments/*/tasks.toml``.
- :mod:`.markers` finds and checks the solution regions in the package and the notebooks.
- :mod:`.release` writes a student release with the regions of chosen steps stubbed.
- :mod:`.autograde` scores a copy of the package task by task, running it in
  :mod:`.sandbox`, on the tests :mod:`.calibration` finds failing on the stubs.

Run ``python -m minitorch.course --help`` (or ``make student`` / ``make grade``).
"""
