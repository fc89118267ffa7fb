"""``TaskSpec``: what a :class:`Timer` runs and how it is labelled (everything but the globals)."""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from typing import Optional

#: the indent of code shown under a ``stmt:`` or ``setup:`` heading
_CODE_INDENT = "  "


@dataclass(frozen=True)
class TaskSpec:
    """The statement, its setup and the labels :class:`Compare` groups by; hashable, so replicates merge."""

    stmt: str
    setup: str
    global_setup: str = ""
    label: Optional[str] = None
    sub_label: Optional[str] = None
    description: Optional[str] = None
    env: Optional[str] = None
    num_threads: int = 1

    @property
    def title(self) -> str:
        """``label: sub_label``, else the one-line statement, else ``stmt:`` and the statement indented below."""
        sub_label = f": {self.sub_label}" if self.sub_label else ""
        if self.label is not None:
            return self.label + sub_label
        if "\n" not in self.stmt:
            return self.stmt + sub_label
        in_brackets = f" ({self.sub_label})" if self.sub_label else ""
        return f"stmt:{in_brackets}\n{textwrap.indent(self.stmt, _CODE_INDENT)}"

    def setup_str(self) -> str:
        """``setup: ...`` (the code below the heading when it has several lines); empty for no setup."""
        if not self.setup or self.setup == "pass":
            return ""
        if "\n" in self.setup:
            return f"setup:\n{textwrap.indent(self.setup, _CODE_INDENT)}"
        return f"setup: {self.setup}"

    def summarize(self) -> str:
        """Title, description and setup, one per line; a block of several lines is followed by a blank line."""
        sections = [section for section in (self.title, self.description or "", self.setup_str()) if section]
        return "\n".join(f"{section}\n" if "\n" in section else section for section in sections)
