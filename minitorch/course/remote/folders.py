"""Folders that both ends of the channel see: a test's temporary folder and the worker's copy of it.

A test hands minitorch paths in its own temporary folder (``tmp_path / "ckpt.mt"``). The
worker must not reach the trusted side's file system, so it gets a *mirror*: a folder of its
own holding a copy of the test's folder. The path travels as ``{"path": n, "rel": "ckpt.mt"}``
(folder ``n``, a path inside it), and each end turns it into a path of its own copy.

The two copies are kept equal around every request: the side that sends a request first
sends the snapshots of the folders that changed on its side since the last exchange, and
the reply carries those that the request changed on the other. A snapshot holds the regular
files (contents and permission bits) and the sub-folders; symbolic links and special files
are neither sent nor followed, and a received snapshot is written without following any
link, only inside its folder: a worker cannot make the trusted side write or read anywhere
else.
"""

from __future__ import annotations

import base64
import os
import shutil
import stat
from pathlib import Path, PurePosixPath
from typing import Any, Optional

from .protocol import ProtocolError

#: the most bytes of files one folder's snapshot may carry
MAX_FOLDER_BYTES = 64 * 1024 * 1024
#: the most entries (files and folders) one snapshot may hold
MAX_FOLDER_ENTRIES = 2000
#: a file's permission bits that travel
MODE_BITS = 0o777

Signature = dict[str, tuple]


def signature(root: Path) -> Signature:
    """What a folder holds, cheaply compared: each entry's kind, size, time and mode."""
    found: Signature = {}
    for folder, dirs, files in os.walk(root):
        for name in sorted(dirs + files):
            path = Path(folder, name)
            info = path.lstat()
            relative = path.relative_to(root).as_posix()
            if stat.S_ISDIR(info.st_mode):
                found[relative] = ("dir",)
            elif stat.S_ISREG(info.st_mode):
                found[relative] = ("file", info.st_size, info.st_mtime_ns, info.st_mode & MODE_BITS)
            if len(found) > MAX_FOLDER_ENTRIES:
                raise ProtocolError(f"a shared folder holds more than {MAX_FOLDER_ENTRIES} entries")
        dirs[:] = [d for d in dirs if not Path(folder, d).is_symlink()]
    return found


def snapshot(root: Path) -> dict[str, Any]:
    """The folder's sub-folders and regular files (base64 contents and mode), by relative path."""
    entries: dict[str, Any] = {}
    total = 0
    for relative, kind in signature(root).items():
        if kind[0] == "dir":
            entries[relative] = {"dir": True}
            continue
        data = _read_regular(root / relative)
        if data is None:
            continue
        total += len(data)
        if total > MAX_FOLDER_BYTES:
            raise ProtocolError(f"a shared folder holds more than {MAX_FOLDER_BYTES} bytes")
        entries[relative] = {"data": base64.b64encode(data).decode("ascii"), "mode": kind[3]}
    return entries


def apply(root: Path, entries: Any) -> None:
    """Make ``root`` hold exactly ``entries`` (a :func:`snapshot`): write what differs, remove
    what is gone. Never follows a link; never touches anything outside ``root``."""
    if not isinstance(entries, dict) or len(entries) > MAX_FOLDER_ENTRIES:
        raise ProtocolError("a malformed folder snapshot")
    wanted = {checked_relative(name): body for name, body in entries.items()}
    for relative in sorted(wanted, key=lambda r: r.count("/")):
        body = wanted[relative]
        if not isinstance(body, dict):
            raise ProtocolError("a malformed folder entry")
        if body.get("dir") is True:
            _make_folder(root, relative)
            continue
        data, mode = body.get("data"), body.get("mode")
        if not isinstance(data, str) or not isinstance(mode, int) or isinstance(mode, bool):
            raise ProtocolError("a malformed file entry")
        try:
            contents = base64.b64decode(data, validate=True)
        except ValueError:
            raise ProtocolError("a malformed file entry") from None
        _write_regular(root, relative, contents, mode & MODE_BITS)
    for relative, kind in sorted(signature(root).items(), key=lambda item: -item[0].count("/")):
        if relative not in wanted:
            path = root / relative
            if kind[0] == "dir":
                shutil.rmtree(path, ignore_errors=True)
            else:
                path.unlink(missing_ok=True)


def checked_relative(name: Any) -> str:
    """A path inside the folder: relative, no ``..``, no empty part."""
    if not isinstance(name, str) or not name or len(name) > 1024:
        raise ProtocolError("a malformed path in a folder snapshot")
    parts = PurePosixPath(name).parts
    if name.startswith("/") or any(p in ("", ".", "..") for p in parts) or "\0" in name:
        raise ProtocolError(f"a path outside its folder: {name[:80]!r}")
    return PurePosixPath(*parts).as_posix()


def _parent_inside(root: Path, relative: str) -> Optional[Path]:
    """The folder that holds ``relative``, when every folder on the way is a real folder (no link)."""
    folder = root
    for part in PurePosixPath(relative).parts[:-1]:
        folder = folder / part
        try:
            if not stat.S_ISDIR(folder.lstat().st_mode):
                return None
        except FileNotFoundError:
            folder.mkdir()
    return folder


def _path_inside(root: Path, relative: str) -> Optional[Path]:
    """``root / relative`` reached through real folders only (None where a link is in the way)."""
    parent = _parent_inside(root, relative)
    return None if parent is None else parent / PurePosixPath(relative).name


def _make_folder(root: Path, relative: str) -> None:
    path = _path_inside(root, relative)
    if path is None:
        return
    try:
        info = path.lstat()
    except FileNotFoundError:
        path.mkdir()
        return
    if not stat.S_ISDIR(info.st_mode):
        path.unlink()
        path.mkdir()


def _read_regular(path: Path) -> Optional[bytes]:
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
            return None
        return f.read()


def _write_regular(root: Path, relative: str, contents: bytes, mode: int) -> None:
    path = _path_inside(root, relative)
    if path is None:
        return
    try:
        info = path.lstat()
        if not stat.S_ISREG(info.st_mode):  # a link or a special file of this side stays as it is
            return
        if _read_regular(path) == contents and info.st_mode & MODE_BITS == mode:
            return
    except FileNotFoundError:
        pass
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, mode)
    with os.fdopen(fd, "wb") as f:
        f.write(contents)
        os.fchmod(f.fileno(), mode)


class FolderTable:
    """One end's shared folders by number, and what each held at the last exchange."""

    def __init__(self) -> None:
        self.roots: dict[int, Path] = {}
        self.known: dict[int, Signature] = {}
        self.forgotten: list[int] = []

    def add(self, number: int, root: Path) -> None:
        """Share ``root`` as folder ``number``; the next exchange sends all of it."""
        self.roots[number] = root
        self.known.pop(number, None)

    def drop(self, numbers: Any, delete: bool) -> None:
        """Stop sharing the folders the other end forgot (and delete them, on the worker's side)."""
        for number in numbers if isinstance(numbers, list) else []:
            root = self.roots.pop(number, None) if isinstance(number, int) else None
            self.known.pop(number, None)
            if root is not None and delete:
                shutil.rmtree(root, ignore_errors=True)

    def outgoing(self) -> dict[str, Any]:
        """Snapshots of the folders that changed here since the last exchange (new ones included)."""
        changed: dict[str, Any] = {}
        for number, root in list(self.roots.items()):
            if not root.is_dir():
                continue
            now = signature(root)
            if number not in self.known or now != self.known[number]:
                changed[str(number)] = snapshot(root)
                self.known[number] = now
        return changed

    def incoming(self, snapshots: Any, make_root: Any = None) -> None:
        """Apply the other end's snapshots (``make_root(n)`` gives the folder of a new number)."""
        if snapshots is None:
            return
        if not isinstance(snapshots, dict):
            raise ProtocolError("malformed folder snapshots")
        for key, entries in snapshots.items():
            number = int(key) if isinstance(key, str) and key.isdigit() else None
            if number is None:
                raise ProtocolError("a malformed folder number")
            if number not in self.roots:
                if make_root is None:
                    raise ProtocolError(f"the other end named a folder #{number} it was never given")
                self.add(number, make_root(number))
            apply(self.roots[number], entries)
            self.known[number] = signature(self.roots[number])

    def forget(self) -> None:
        """Stop sharing every folder (a test ended): the next message tells the other end."""
        self.forgotten.extend(self.roots)
        self.roots.clear()
        self.known.clear()
