"""Corpus scripts that do not agree with PyTorch yet, each with what stops it.

``make test`` runs the whole corpus. A script named here is expected to differ (a strict
``xfail``): the day it agrees, its test fails until the script is taken off this list, so the
list never hides a script that works, nor keeps one that silently regressed from agreeing.
The reasons are the runner's first difference (``python compat/run.py SCRIPT``).
"""

from __future__ import annotations

#: script file name -> the gap that stops it (the first error or difference)
KNOWN_GAPS: dict[str, str] = {
    'save_load.py': "line 76: SerializationError: refusing to rebuild obj, an object of class '__main__.TheModelClass': the class is neither one of minitorch's own nor allowlisted (by design: with add_safe_globals([TheModelClass]) the script agrees)",
}
