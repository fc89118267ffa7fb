"""Run graded code in a process that cannot reach the course, the grader or its secrets.

A :class:`Sandbox` starts commands the way the grader must start anything that imports a
submission:

- in a folder of its own (the workspace), with a scrubbed environment (a fixed ``PATH``, a
  ``HOME`` inside the workspace, and only the variables named in :data:`PASSED_VARIABLES`);
- in its own session and process group, killed with all its children on a timeout and
  after every run, whether the command ended or not;
- under resource limits (address space, CPU time, processes, file size), its output going
  to a file whose size the file-size limit caps;
- when the grader runs as root (as Gradescope's does): as an unprivileged user of its own
  (:data:`SANDBOX_USER`, made on first use), which cannot write the course or the
  grader's output; without a PID namespace every process that user still has after a
  run is killed; and, where
  the kernel allows mount namespaces, with the course checkout and the folders the
  installed ``minitorch`` points at hidden under an empty ``tmpfs`` (the interpreter's
  own environment stays visible) and in a fresh PID namespace, so ``/proc`` shows no
  parent and a detached child dies with the run.

Without root none of the user, mount or PID isolation is possible: the grader says so,
and the run is as safe as the instructor's own account (fine for a student's local run).
"""

from __future__ import annotations

import json
import os
import pwd
import resource
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Callable, Optional, Sequence

#: the unprivileged account graded code runs as when the grader is root
SANDBOX_USER = "minitorch-sandbox"
#: environment variables graded code gets from the grader (nothing else passes)
PASSED_VARIABLES = ("NUMBA_ENABLE_CUDASIM", "NUMBA_DISABLE_JIT", "MINITORCH_REQUIRE_TORCH", "LANG", "LC_ALL", "TZ")
SAFE_PATH = "/usr/local/bin:/usr/bin:/bin"
GIB = 1024**3
MIB = 1024**2
#: default limits of one sandboxed run
DEFAULT_MEMORY_BYTES = 16 * GIB  # address space: Numba and LLVM reserve far more than they use
DEFAULT_FILE_BYTES = 512 * MIB
DEFAULT_PROCESSES = 512  # threads count too (Numba, BLAS, torch pools)
#: characters of captured output read back
OUTPUT_TAIL = 6000
#: seconds between SIGTERM and SIGKILL when a run is stopped
GRACE_SECONDS = 1.0


@dataclass
class Limits:
    """Resource limits of one sandboxed run."""

    memory_bytes: int = DEFAULT_MEMORY_BYTES
    file_bytes: int = DEFAULT_FILE_BYTES
    processes: int = DEFAULT_PROCESSES

    def apply(self, cpu_seconds: float) -> None:
        """Set the limits on the calling process (run in the child before ``exec``); the CPU
        limit allows ``cpu_seconds`` of wall-clock time on every core."""
        resource.setrlimit(resource.RLIMIT_AS, (self.memory_bytes, self.memory_bytes))
        resource.setrlimit(resource.RLIMIT_FSIZE, (self.file_bytes, self.file_bytes))
        resource.setrlimit(resource.RLIMIT_NPROC, (self.processes, self.processes))
        cpu = max(1, int(cpu_seconds * (os.cpu_count() or 1)))  # every core busy for the whole wall-clock limit
        resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


@dataclass
class RunResult:
    """How a sandboxed command ended: exit code (None after a timeout) and output tail."""

    returncode: Optional[int]
    output: str


def ensure_user(name: str = SANDBOX_USER) -> pwd.struct_passwd:
    """The sandbox account, created (no home, no login shell) when it does not exist yet."""
    try:
        return pwd.getpwnam(name)
    except KeyError:
        pass
    subprocess.run(
        ["useradd", "--system", "--no-create-home", "--home-dir", "/nonexistent", "--shell", "/usr/sbin/nologin",
         "--user-group", name],
        check=True, capture_output=True,
    )
    return pwd.getpwnam(name)


def installed_sources() -> list[Path]:
    """Folders the installed ``minitorch`` distribution points at (an editable install's checkout)."""
    try:
        text = metadata.distribution("minitorch").read_text("direct_url.json")
    except (metadata.PackageNotFoundError, FileNotFoundError):
        return []
    if not text:
        return []
    url = json.loads(text).get("url", "")
    return [Path(url.removeprefix("file://")).resolve()] if url.startswith("file://") else []


def mounts_supported() -> bool:
    """True when this process may make a private mount and PID namespace (root, and the kernel lets it)."""
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        return False
    probe = subprocess.run(
        ["unshare", "--mount", "--pid", "--fork", "--propagation", "private", "true"], capture_output=True,
    )
    return probe.returncode == 0


def _kept_inside(hidden: Path, keep: Sequence[Path]) -> list[Path]:
    return [k for k in keep if k != hidden and hidden in k.parents]


def hiding_script(hidden: Sequence[Path], keep: Sequence[Path], holder: Path) -> str:
    """Shell lines that put an empty tmpfs over each of ``hidden`` and bind back ``keep`` inside it.

    Each kept folder is first bind-mounted to a spot under ``holder`` (outside every hidden
    folder), so it is still reachable once its parent is covered."""
    lines = ["set -e"]
    saved: list[tuple[Path, Path]] = []
    for index, path in enumerate(k for h in hidden for k in _kept_inside(h, keep)):
        spot = holder / f"keep{index}"
        lines += [f"mkdir -p {shlex.quote(str(spot))}", f"mount --bind {shlex.quote(str(path))} {shlex.quote(str(spot))}"]
        saved.append((path, spot))
    for path in hidden:
        lines.append(f"mount -t tmpfs -o size=1m,mode=755 none {shlex.quote(str(path))}")
    for path, spot in saved:
        lines += [f"mkdir -p {shlex.quote(str(path))}", f"mount --bind {shlex.quote(str(spot))} {shlex.quote(str(path))}"]
    return "\n".join(lines)


@dataclass
class Sandbox:
    """Where and how graded commands run; see the module's docstring."""

    workspace: Path
    hidden: list[Path] = field(default_factory=list)  # folders graded code must not see
    limits: Limits = field(default_factory=Limits)
    extra_env: dict[str, str] = field(default_factory=dict)
    user: Optional[pwd.struct_passwd] = None
    namespaces: bool = False
    writable: tuple[str, ...] = (".home", ".tmp")  # workspace folders graded code may write

    @classmethod
    def create(cls, workspace: Path, hidden: Sequence[Path], limits: Optional[Limits] = None) -> "Sandbox":
        """A sandbox for ``workspace``, as strong as this process's privileges allow."""
        folders = {Path(p).resolve() for p in hidden} - {Path("/")}
        box = cls(workspace=workspace, hidden=sorted(folders), limits=limits or Limits())
        if os.geteuid() == 0:
            box.user = ensure_user()
            box.namespaces = mounts_supported()
        return box

    @property
    def isolated(self) -> bool:
        """True when graded code runs as another user than the grader's."""
        return self.user is not None

    def give_workspace(self, writable: Sequence[str]) -> None:
        """Hand the folders ``writable`` (relative to the workspace) to the sandbox user; the
        workspace itself and everything else in it (the course's tests) stay the grader's,
        readable but not writable, so graded code can neither edit nor add a test or conftest."""
        os.chmod(self.workspace, 0o755)
        if self.user is None:
            return
        for part in writable:
            top = self.workspace / part
            top.mkdir(exist_ok=True)
            os.chown(top, self.user.pw_uid, self.user.pw_gid, follow_symlinks=False)
            for folder, dirs, files in os.walk(top):
                for name in dirs + files:
                    os.chown(os.path.join(folder, name), self.user.pw_uid, self.user.pw_gid, follow_symlinks=False)

    def environment(self) -> dict[str, str]:
        """The scrubbed environment of a graded command."""
        env = {name: os.environ[name] for name in PASSED_VARIABLES if name in os.environ}
        env.update(
            PATH=SAFE_PATH, HOME=str(self.workspace / ".home"), PWD=str(self.workspace), TMPDIR=str(self.workspace / ".tmp"),
            PYTHONDONTWRITEBYTECODE="1", PYTHONNOUSERSITE="1", PYTHONHASHSEED="0",
        )
        env.update(self.extra_env)
        return env

    def interpreter(self) -> str:
        """The Python graded code runs under: this one, named by its real folder (the course's
        ``.venv`` may be a link into a folder that is hidden from the sandbox)."""
        executable = Path(sys.executable)
        return str(executable.parent.resolve() / executable.name)

    def _visible(self) -> list[Path]:
        """Folders graded code needs: the interpreter's environment and the workspace."""
        interpreter = Path(self.interpreter())
        return sorted({Path(sys.prefix).resolve(), Path(sys.base_prefix).resolve(), interpreter.parent, interpreter.resolve().parent, self.workspace})

    def _blocked_ancestors(self, keep: Sequence[Path]) -> list[Path]:
        """Ancestors of kept folders the sandbox user could not pass through (e.g. a 0700 /root)."""
        blocked = set()
        for path in keep:
            for parent in path.parents:
                if parent != Path("/") and not os.stat(parent).st_mode & 0o001:
                    blocked.add(parent)
        return sorted(blocked)

    def _command(self, argv: Sequence[str], holder: Path) -> list[str]:
        if self.user is None:
            return list(argv)
        drop = ["setpriv", f"--reuid={self.user.pw_uid}", f"--regid={self.user.pw_gid}", "--clear-groups", "--"]
        if not self.namespaces:
            return drop + list(argv)
        keep = self._visible()
        hidden = sorted(set(self.hidden) | set(self._blocked_ancestors(keep)))
        hidden = [h for h in hidden if not any(other in h.parents for other in hidden)]  # outermost only
        script = hiding_script(hidden, keep, holder)
        script += "\nexec " + " ".join(shlex.quote(part) for part in drop + list(argv))
        return ["unshare", "--mount", "--pid", "--fork", "--kill-child", "--mount-proc", "--propagation", "private",
                "sh", "-c", script]

    def run(
        self, argv: Sequence[str], timeout: float, log: Path, pass_fds: Sequence[int] = (),
        driver: Optional[Callable[[], None]] = None,
    ) -> RunResult:
        """Run ``argv`` in the workspace; output goes to ``log`` (a file the grader owns).

        ``pass_fds`` stay open in the command. With a ``driver``, the command is a server:
        ``driver()`` runs while it does (and keeps to ``timeout`` itself), then the command
        is stopped; the exit code is None unless it had already ended."""
        self.give_workspace(self.writable)
        holder = Path(tempfile.mkdtemp(prefix="minitorch-sandbox-mounts-"))
        with open(log, "wb") as out:
            process = subprocess.Popen(
                self._command(argv, holder), cwd=self.workspace, env=self.environment(), stdin=subprocess.DEVNULL,
                stdout=out, stderr=subprocess.STDOUT, start_new_session=True, pass_fds=tuple(pass_fds),
                preexec_fn=lambda: self.limits.apply(timeout + GRACE_SECONDS),
            )
            try:
                if driver is not None:
                    driver()
                    code: Optional[int] = process.poll()
                else:
                    code = process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                code = None
            finally:
                self._stop(process)
                shutil.rmtree(holder, ignore_errors=True)
        return RunResult(code, read_tail(log))

    def _stop(self, process: subprocess.Popen) -> None:
        """Kill the run's process group and, without a PID namespace, every process the sandbox user still has."""
        for sig in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.killpg(process.pid, sig)
            except (ProcessLookupError, PermissionError):
                pass
            if sig == signal.SIGTERM:
                try:
                    process.wait(timeout=GRACE_SECONDS)
                except subprocess.TimeoutExpired:
                    pass
        process.wait()
        if self.user is not None and not self.namespaces:
            # in a PID namespace every process of the run died with it (its init is gone);
            # without one, the sandbox user's processes are found by uid, which also ends
            # those of another grading running beside this one
            kill_user_processes(self.user.pw_uid)


def kill_user_processes(uid: int, rounds: int = 5) -> None:
    """SIGKILL every process whose real uid is ``uid`` (repeated: a fork may race the first pass)."""
    for _ in range(rounds):
        found = False
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit():
                continue
            try:
                status = (entry / "status").read_text()
            except OSError:
                continue
            uids = next((line.split()[1:] for line in status.splitlines() if line.startswith("Uid:")), [])
            if str(uid) in uids:
                found = True
                try:
                    os.kill(int(entry.name), signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
        if not found:
            return
        time.sleep(0.05)


def read_tail(path: Path, limit: int = OUTPUT_TAIL) -> str:
    """The last ``limit`` characters of a (possibly huge, possibly binary) log file."""
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            size = f.tell()
            f.seek(max(0, size - 4 * limit))
            data = f.read()
    except OSError:
        return ""
    return data.decode("utf-8", errors="replace")[-limit:]
