"""Replace a file all at once or not at all.

The new contents go to a temporary file in the same directory (so the final rename stays
on one file system), are flushed and fsynced to disk, and only then renamed over the
target with :func:`os.replace`, which is atomic: a reader, or the next run after a crash,
sees either the old file or the new one, never half of each. If writing fails, the
temporary file is removed and the old file is untouched.
"""

from __future__ import annotations

import contextlib
import os
import secrets
from typing import IO, Callable

#: random hex digits in a temporary file's name
TEMP_TOKEN_BYTES = 8
#: permissions of a new file before the umask applies, as for ``open(path, 'wb')``
NEW_FILE_MODE = 0o666


def _create_temp(directory: str, base: str) -> tuple[int, str]:
    """A new, empty file next to the target; never an existing one."""
    while True:
        path = os.path.join(directory, f".{base}.{secrets.token_hex(TEMP_TOKEN_BYTES)}.tmp")
        try:
            return os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), NEW_FILE_MODE), path
        except FileExistsError:
            continue


def _fsync_directory(directory: str) -> None:
    """Make the rename itself durable (POSIX; a no-op where directories can't be opened)."""
    if not hasattr(os, "O_DIRECTORY"):
        return
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def atomic_write(path: "os.PathLike[str] | str", write: Callable[[IO[bytes]], None]) -> None:
    """Call ``write(stream)`` on a temporary file, then atomically move it to ``path``.

    A symbolic link at ``path`` is followed: the file it points to is replaced.
    """
    target = os.path.realpath(os.fspath(path))
    directory, base = os.path.split(target)
    # BEGIN SOLUTION 8.4
    fd, temp = _create_temp(directory, base)
    try:
        with os.fdopen(fd, "wb") as stream:
            write(stream)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temp, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp)
        raise
    _fsync_directory(directory)
    # END SOLUTION
