"""Saving to a path (task 8.4) under attack: killed mid-write, permissions, odd targets.

- A save killed with SIGKILL (a real child process, stopped in the middle of writing its
  records) leaves the previous checkpoint intact and a temporary file behind; the next
  save to that path removes it, but never the temporary file of a save still running.
- Overwriting keeps the target's permission bits, and the temporary file is never readable
  by more people than the target.
- Errors name the target as the caller wrote it, never the temporary file; a directory, a
  link loop, a missing or unwritable folder fail before anything is written.
"""

from __future__ import annotations

import io
import os
import re
import signal
import stat
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import minitorch
from minitorch import Tensor

#: what these tests check lives in the file system next to the graded code (links, pipes,
#: modes, child processes killed mid-save): a mirror in another process cannot show it
pytestmark = [pytest.mark.task("8.4"), pytest.mark.in_process]

#: the name of a temporary file of a save to ``ckpt.mt``
DEBRIS = re.compile(r"\.ckpt\.mt\.[0-9a-f]{16}\.tmp")
CHILD_TIMEOUT_S = 300

#: a child that saves a checkpoint to argv[1] and stops after its first record is written:
#: it prints "writing" and waits for a line on stdin (or for its SIGKILL)
STALLING_SAVE = """
import sys
import minitorch
from minitorch.serialization import archive

write_record = archive.tensor_bytes

def stall_before_the_second_record(t):
    if t.numel() == 3:
        print("writing", flush=True)
        sys.stdin.readline()
    return write_record(t)

archive.tensor_bytes = stall_before_the_second_record
minitorch.save({"epoch": int(sys.argv[2]), "big": minitorch.ones(2**20), "small": minitorch.zeros(3)}, sys.argv[1])
print("saved", flush=True)
"""


def child_env() -> dict[str, str]:
    """The environment of a child Python that imports this very minitorch."""
    return dict(os.environ, PYTHONPATH=str(Path(minitorch.__file__).resolve().parents[1]))


def start_stalled_save(path: Path, epoch: int) -> subprocess.Popen:
    """A child process in the middle of saving epoch ``epoch`` to ``path``."""
    child = subprocess.Popen(
        [sys.executable, "-c", STALLING_SAVE, str(path), str(epoch)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=child_env(),
    )
    line = child.stdout.readline()  # type: ignore[union-attr]
    assert line == "writing\n", f"the child did not reach the middle of its save: {line!r}"
    return child


def debris(folder: Path) -> list[Path]:
    return sorted(p for p in folder.iterdir() if DEBRIS.fullmatch(p.name))


def test_sigkill_mid_save_keeps_the_old_file_and_the_next_save_removes_the_debris(tmp_path: Path) -> None:
    path = tmp_path / "ckpt.mt"
    minitorch.save({"epoch": 1}, path)
    before = path.read_bytes()
    left: list[list[Path]] = []
    for epoch in (2, 3):
        child = start_stalled_save(path, epoch)
        child.kill()  # SIGKILL: no handler, no finally, no cleanup
        assert child.wait(CHILD_TIMEOUT_S) == -signal.SIGKILL
        left.append(debris(tmp_path))
        assert len(left[-1]) == 1 and left[-1][0].stat().st_size > 4 * 2**20  # the big record reached the disk
        assert path.read_bytes() == before and minitorch.load(path) == {"epoch": 1}
    assert left[0] != left[1]  # the second killed save removed the first one's debris: none piles up

    minitorch.save({"epoch": 4}, path)
    assert sorted(os.listdir(tmp_path)) == ["ckpt.mt"]
    assert minitorch.load(path) == {"epoch": 4}


def test_a_save_in_progress_elsewhere_is_not_disturbed(tmp_path: Path) -> None:
    """Two processes save to one path: the second's cleanup leaves the first's file alone
    (it is locked), and both saves complete; the last rename wins."""
    path = tmp_path / "ckpt.mt"
    child = start_stalled_save(path, epoch=7)
    try:
        [running] = debris(tmp_path)
        minitorch.save({"epoch": 8}, path)
        assert running.exists() and minitorch.load(path) == {"epoch": 8}
        out, _ = child.communicate("go on\n", timeout=CHILD_TIMEOUT_S)
    finally:
        child.kill()
        child.wait(CHILD_TIMEOUT_S)
    assert child.returncode == 0 and out == "saved\n"
    assert sorted(os.listdir(tmp_path)) == ["ckpt.mt"]
    assert minitorch.load(path)["epoch"] == 7


def test_debris_of_safetensors_saves_is_removed_too(tmp_path: Path) -> None:
    path = tmp_path / "ckpt.mt"
    stale = tmp_path / ".ckpt.mt.0123456789abcdef.tmp"
    stale.write_bytes(b"\0" * 1000)
    minitorch.save_safetensors({"w": minitorch.ones(2)}, path)
    assert sorted(os.listdir(tmp_path)) == ["ckpt.mt"]


def test_only_regular_files_named_like_debris_are_removed(tmp_path: Path) -> None:
    path = tmp_path / "ckpt.mt"
    outside = tmp_path / "elsewhere"
    outside.write_text("keep me")
    link = tmp_path / ".ckpt.mt.0123456789abcdef.tmp"
    link.symlink_to(outside)
    fifo = tmp_path / ".ckpt.mt.fedcba9876543210.tmp"
    os.mkfifo(fifo)
    lookalikes = [".ckpt.mt.0123.tmp", ".ckpt.mtx.0123456789abcdef.tmp", "ckpt.mt.0123456789abcdef.tmp"]
    for name in lookalikes:
        (tmp_path / name).write_text("not debris")
    minitorch.save(1, path)
    assert sorted(os.listdir(tmp_path)) == sorted(["ckpt.mt", "elsewhere", link.name, fifo.name, *lookalikes])
    assert outside.read_text() == "keep me"


# ---------------------------------------------------------------- permissions


@pytest.mark.parametrize("mode", [0o600, 0o640, 0o444, 0o755])
def test_overwriting_keeps_the_permission_bits(tmp_path: Path, mode: int) -> None:
    path = tmp_path / "ckpt.mt"
    minitorch.save({"epoch": 1}, path)
    path.chmod(mode)
    minitorch.save({"epoch": 2}, path)
    assert stat.S_IMODE(path.stat().st_mode) == mode
    assert minitorch.load(path) == {"epoch": 2}


def test_a_new_file_gets_the_umask_mode(tmp_path: Path) -> None:
    old = os.umask(0o027)
    try:
        minitorch.save(1, tmp_path / "new.mt")
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "new.mt").stat().st_mode) == 0o640


def test_through_a_symlink_the_linked_file_keeps_its_mode(tmp_path: Path) -> None:
    real = tmp_path / "real.mt"
    minitorch.save(1, real)
    real.chmod(0o600)
    link = tmp_path / "latest.mt"
    link.symlink_to(real)
    minitorch.save(2, link)
    assert link.is_symlink() and stat.S_IMODE(real.stat().st_mode) == 0o600 and minitorch.load(real) == 2


def test_the_temporary_file_is_never_wider_than_the_target(tmp_path: Path, monkeypatch: Any) -> None:
    """A 0o600 checkpoint's next version is not readable by others even while it is written."""
    from minitorch.serialization import archive

    path = tmp_path / "ckpt.mt"
    minitorch.save(1, path)
    path.chmod(0o600)
    seen: list[int] = []
    real_tensor_bytes = archive.tensor_bytes

    def look(t: Tensor) -> np.ndarray:
        [temp] = debris(tmp_path)
        seen.append(stat.S_IMODE(temp.stat().st_mode))
        return real_tensor_bytes(t)

    monkeypatch.setattr(archive, "tensor_bytes", look)
    minitorch.save({"w": minitorch.ones(2)}, path)
    assert seen == [0o600]


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="only root can give a file to another user")
def test_overwriting_as_root_keeps_the_owner_and_group(tmp_path: Path) -> None:
    path = tmp_path / "ckpt.mt"
    minitorch.save(1, path)
    os.chown(path, 4321, 4322)
    minitorch.save(2, path)
    assert (path.stat().st_uid, path.stat().st_gid) == (4321, 4322)


# ---------------------------------------------------------------- errors name the target


def test_a_directory_target_is_refused_before_writing(tmp_path: Path) -> None:
    target = tmp_path / "ckpt.mt"
    target.mkdir()
    with pytest.raises(IsADirectoryError) as caught:
        minitorch.save(1, target)
    assert caught.value.filename == str(target)
    assert sorted(os.listdir(tmp_path)) == ["ckpt.mt"] and not os.listdir(target)


def test_a_missing_folder_is_named(tmp_path: Path) -> None:
    target = tmp_path / "missing" / "ckpt.mt"
    with pytest.raises(FileNotFoundError, match="a save creates its new file in") as caught:
        minitorch.save(1, target)
    assert caught.value.filename == str(target) and ".tmp" not in str(caught.value)


def test_a_link_loop_is_refused(tmp_path: Path) -> None:
    (tmp_path / "a.mt").symlink_to(tmp_path / "b.mt")
    (tmp_path / "b.mt").symlink_to(tmp_path / "a.mt")
    with pytest.raises(OSError, match="Too many levels of symbolic links") as caught:
        minitorch.save(1, tmp_path / "a.mt")
    assert caught.value.filename == str(tmp_path / "a.mt")
    assert (tmp_path / "a.mt").is_symlink() and (tmp_path / "b.mt").is_symlink()


def test_an_unwritable_folder_is_named(tmp_path: Path, monkeypatch: Any) -> None:
    """What ``os.open`` says in a folder without write permission (injected: root may write anywhere)."""
    from minitorch.serialization import atomic

    path, before = tmp_path / "ckpt.mt", None
    minitorch.save(1, path)
    before = path.read_bytes()
    real_open = os.open

    def refuse_new_files(name: Any, flags: int, *args: Any, **kwargs: Any) -> int:
        if flags & os.O_CREAT:
            raise PermissionError(13, "Permission denied", name)
        return real_open(name, flags, *args, **kwargs)

    monkeypatch.setattr(atomic.os, "open", refuse_new_files)
    with pytest.raises(PermissionError, match=r"Permission denied \(a save creates its new file in ") as caught:
        minitorch.save(2, path)
    monkeypatch.undo()
    assert caught.value.filename == str(path) and ".tmp" not in str(caught.value)
    assert path.read_bytes() == before


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root may write in any folder")
def test_a_read_only_folder_is_named(tmp_path: Path) -> None:
    path = tmp_path / "ckpt.mt"
    minitorch.save(1, path)
    tmp_path.chmod(0o555)
    try:
        with pytest.raises(PermissionError) as caught:
            minitorch.save(2, path)
    finally:
        tmp_path.chmod(0o755)
    assert caught.value.filename == str(path) and minitorch.load(path) == 1


@pytest.mark.parametrize("failing", ["write", "replace"])
def test_failures_mid_save_name_the_target(tmp_path: Path, monkeypatch: Any, failing: str) -> None:
    from minitorch.serialization import archive, atomic

    path = tmp_path / "ckpt.mt"
    minitorch.save(1, path)

    def disk_full(t: Tensor) -> np.ndarray:
        raise OSError(28, "No space left on device")

    def became_a_directory(source: str, target: str) -> None:  # as os.replace says it
        raise IsADirectoryError(21, "Is a directory", source, target)

    if failing == "write":
        monkeypatch.setattr(archive, "tensor_bytes", disk_full)
    else:
        monkeypatch.setattr(atomic.os, "replace", became_a_directory)
    with pytest.raises(OSError) as caught:
        minitorch.save({"w": minitorch.ones(2)}, path)
    monkeypatch.undo()
    assert caught.value.filename == str(path) and caught.value.filename2 is None
    assert ".tmp" not in str(caught.value)
    assert sorted(os.listdir(tmp_path)) == ["ckpt.mt"] and minitorch.load(path) == 1


# ---------------------------------------------------------------- targets that are not regular files


def test_a_device_is_written_in_place_not_replaced() -> None:
    before = os.stat(os.devnull)
    minitorch.save({"w": minitorch.ones(3)}, os.devnull)
    after = os.stat(os.devnull)
    assert stat.S_ISCHR(after.st_mode) and after.st_ino == before.st_ino


def test_a_named_pipe_receives_a_loadable_checkpoint(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    received: list[bytes] = []
    reader = threading.Thread(target=lambda: received.append(fifo.read_bytes()))
    reader.start()
    minitorch.save({"w": minitorch.tensor([1.5, -2.0])}, fifo)
    reader.join(CHILD_TIMEOUT_S)
    assert minitorch.load(io.BytesIO(received[0]))["w"].tolist() == [1.5, -2.0]
    assert stat.S_ISFIFO(fifo.stat().st_mode)


def test_a_long_file_name_gets_a_temporary_file_that_fits(tmp_path: Path) -> None:
    path = tmp_path / ("ü" * 120 + ".mt")  # 242 bytes of UTF-8: a temporary name with all of it would not fit
    minitorch.save(1, path)
    (tmp_path / ("." + "ü" * 50 + ".0123456789abcdef.tmp")).write_bytes(b"stale")
    minitorch.save(2, path)
    assert sorted(os.listdir(tmp_path)) == [path.name] and minitorch.load(path) == 2
