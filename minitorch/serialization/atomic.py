"""Replace a file all at once or not at all, and leave nothing behind.

The new contents go to a temporary file ``.<name>.<16 hex digits>.tmp`` in the target's
folder (so the final rename stays on one file system), are flushed and fsynced to disk,
and only then renamed over the target with :func:`os.replace`, which is atomic: a
reader, or the next run after a crash, sees either the old file or the new one, never
half of each.

- **Debris.** If writing fails, the temporary file is removed. A process killed mid-save
  (``kill -9``, out of memory, a power cut) can't remove its own, so every save first
  removes the temporary files that earlier saves to the same path left behind. A save in
  progress holds a lock on its temporary file (``flock``; the kernel drops it when the
  process dies), so a save never removes the file of another save that is still running.
- **Permissions.** Overwriting keeps the target's permission bits (``0o600`` stays
  ``0o600``) and, where the system allows, its owner and group; the temporary file is
  never readable by more people than the target. A new file gets ``0o666`` minus the
  umask, as with ``open(path, 'wb')``. ACLs, extended attributes and hard links of the
  old file are not carried over: the target is a new file.
- **Paths.** A symbolic link is followed: the file it points to is replaced and the link
  stays. A target that is a directory or a link loop fails before anything is written. A
  target that exists but is not a regular file (``/dev/null``, a named pipe) is written
  in place, as ``open(path, 'wb')`` would: there is no file to swap.
- **Errors** are :class:`OSError` (``PermissionError``, ``IsADirectoryError``, ...) that
  name the target as the caller wrote it, never the temporary file.
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import secrets
import stat
from typing import IO, Callable, Iterator, Optional

try:
    import fcntl
except ImportError:  # Windows: no flock, but a file open in another process can't be deleted there
    fcntl = None  # type: ignore[assignment]

#: random hex digits in a temporary file's name
TEMP_TOKEN_BYTES = 8
TEMP_SUFFIX = ".tmp"
#: characters of the target's name kept in a temporary file's name: 50 characters of up to
#: 4 bytes in UTF-8, plus dots, token and suffix, stay within a 255-byte file name
TEMP_STEM_CHARS = 50
#: permissions of a new file before the umask applies, as for ``open(path, 'wb')``
NEW_FILE_MODE = 0o666
#: permissions of a temporary file that will take an existing target's: owner only, until then
PRIVATE_MODE = 0o600
#: the permission bits copied from an old target (not set-user-ID, set-group-ID or sticky)
PERMISSION_BITS = 0o777
#: POSIX renames an open file, so a save keeps its lock until the new file is in place;
#: Windows can't rename an open file (nor delete one, which protects it there)
RENAME_WHILE_OPEN = fcntl is not None


def _temp_prefix(base: str) -> str:
    return f".{base[:TEMP_STEM_CHARS]}."


def _temp_name_pattern(base: str) -> re.Pattern[str]:
    """The names of temporary files of saves to a target called ``base``."""
    return re.compile(re.escape(_temp_prefix(base)) + f"[0-9a-f]{{{2 * TEMP_TOKEN_BYTES}}}" + re.escape(TEMP_SUFFIX))


def _lock(fd: int, wait: bool) -> bool:
    """Take the exclusive lock on ``fd``'s file. False when another holder has it (and not
    ``wait``) or the file system has no locks: then nobody can tell a live save from debris."""
    if fcntl is None:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | (0 if wait else fcntl.LOCK_NB))
    except OSError:
        return False
    return True


def _still_named(fd: int, path: str) -> bool:
    """Whether ``path`` is still the name of ``fd``'s file (not removed or replaced meanwhile)."""
    try:
        return os.path.samestat(os.stat(path, follow_symlinks=False), os.fstat(fd))
    except FileNotFoundError:
        return False


def _remove_if_abandoned(path: str) -> None:
    """Remove the temporary file ``path`` unless a running save holds its lock."""
    if fcntl is None:
        with contextlib.suppress(OSError):
            os.unlink(path)  # fails while the save that writes it has it open
        return
    try:  # never follow a link, never block on a named pipe
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return
    try:
        if stat.S_ISREG(os.fstat(fd).st_mode) and _lock(fd, wait=False) and _still_named(fd, path):
            os.unlink(path)
    except OSError:
        pass  # not ours to remove (another user's, in a shared folder), or gone already
    finally:
        os.close(fd)


def remove_stale_temps(directory: str, base: str) -> None:
    """Remove what earlier saves to ``directory/base`` that were killed mid-write left behind."""
    pattern = _temp_name_pattern(base)
    try:
        with os.scandir(directory) as entries:
            names = [entry.name for entry in entries if pattern.fullmatch(entry.name)]
    except OSError:
        return  # creating the new temporary file will report what is wrong with the folder
    for name in names:
        _remove_if_abandoned(os.path.join(directory, name))


def _copy_permissions(fd: int, path: str, old: os.stat_result) -> None:
    """Give the new file the old target's permission bits and, where allowed, owner and group."""
    if hasattr(os, "fchown"):
        for owner in (old.st_uid, -1):  # only root may hand a file to another user; anyone may keep it
            try:
                os.fchown(fd, owner, old.st_gid)
                break
            except OSError:  # not allowed (a group we are not in), or an owner this system can't map
                continue
    mode = stat.S_IMODE(old.st_mode) & PERMISSION_BITS
    with contextlib.suppress(OSError):  # a file system without modes: the file stays owner-only
        if hasattr(os, "fchmod"):
            os.fchmod(fd, mode)
        else:
            os.chmod(path, mode)


def create_temp(directory: str, base: str, old: Optional[os.stat_result]) -> tuple[int, str]:
    """A new, empty, locked temporary file next to the target ``base``, never an existing one.

    When the target exists (``old`` is its status) the file gets its permissions, starting
    from owner-only; otherwise the mode a new file gets.
    """
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0)
    while True:
        path = os.path.join(directory, f"{_temp_prefix(base)}{secrets.token_hex(TEMP_TOKEN_BYTES)}{TEMP_SUFFIX}")
        try:
            fd = os.open(path, flags, NEW_FILE_MODE if old is None else PRIVATE_MODE)
        except FileExistsError:
            continue
        except OSError as error:
            raise OSError(error.errno, f"{error.strerror} (a save creates its new file in {directory!r})", path) from None
        _lock(fd, wait=True)  # held until the file is renamed or removed
        if _still_named(fd, path):  # another save's cleanup may have taken it before the lock
            break
        os.close(fd)
    if old is not None:
        _copy_permissions(fd, path, old)
    return fd, path


def _fsync_directory(directory: str) -> None:
    """Make the rename itself durable (POSIX; a no-op where directories can't be opened)."""
    if not hasattr(os, "O_DIRECTORY"):
        return
    fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


@contextlib.contextmanager
def _naming(path: str) -> Iterator[None]:
    """Report an OSError inside as one about ``path`` (not the temporary file), same type."""
    try:
        yield
    except OSError as error:
        if error.errno is None or (error.filename == path and error.filename2 is None):
            raise
        raise OSError(error.errno, error.strerror, path) from None


class _StreamOnly:
    """Writes to a device or a pipe, with no ``seek`` or ``tell`` (``/dev/null`` claims to
    seek but stays at 0, which would garble a zip archive's offsets)."""

    def __init__(self, stream: IO[bytes]) -> None:
        self._stream = stream

    def write(self, data: bytes) -> int:
        return self._stream.write(data)

    def flush(self) -> None:
        self._stream.flush()


def _resolve(path: str) -> tuple[str, Optional[os.stat_result]]:
    """The file a save to ``path`` replaces (links followed) and its status, None if new."""
    target = os.path.realpath(path)
    if os.path.islink(target):  # realpath stops inside a loop of links
        raise OSError(errno.ELOOP, os.strerror(errno.ELOOP), path)
    try:
        old = os.stat(target)
    except FileNotFoundError:
        return target, None
    if stat.S_ISDIR(old.st_mode):
        raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), path)
    return target, old


def replace_atomically(target: str, write: Callable[[IO[bytes]], None], old: Optional[os.stat_result]) -> None:
    """Call ``write(stream)`` on a new temporary file next to ``target``, then move it over ``target``.

    ``old`` is the target's status when it exists (see :func:`create_temp`). On any
    exception the temporary file is removed and the target is untouched.
    """
    directory, base = os.path.split(target)
    # BEGIN SOLUTION 8.4
    fd, temp = create_temp(directory, base, old)
    try:
        with os.fdopen(fd, "wb") as stream:
            write(stream)
            stream.flush()
            os.fsync(stream.fileno())
            if RENAME_WHILE_OPEN:
                os.replace(temp, target)
        if not RENAME_WHILE_OPEN:
            os.replace(temp, target)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temp)
        raise
    # END SOLUTION


def atomic_write(path: "os.PathLike[str] | str", write: Callable[[IO[bytes]], None]) -> None:
    """Call ``write(stream)`` on a temporary file, then atomically move it to ``path``.

    Removes the debris of earlier killed saves to ``path`` first, keeps an existing
    target's permissions, follows symbolic links, and raises errors that name ``path``.
    """
    name = os.fspath(path)
    with _naming(name):
        target, old = _resolve(name)
        if old is not None and not stat.S_ISREG(old.st_mode):
            with open(target, "wb") as stream:  # a device or a pipe: nothing to swap
                write(_StreamOnly(stream))  # type: ignore[arg-type]
            return
        directory, base = os.path.split(target)
        remove_stale_temps(directory, base)
        replace_atomically(target, write, old)
        _fsync_directory(directory)
