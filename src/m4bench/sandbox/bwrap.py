"""The bubblewrap backend: unprivileged Linux namespaces plus ``prlimit`` rlimits.

The sandbox sees ``/usr`` (and the ``/lib``, ``/bin`` links into it), a few certificate
and alternatives directories of ``/etc``, fresh ``/proc`` and ``/dev``, a private
size-capped ``/tmp``, the workdir (writable) and exactly the mounts of the spec (read
only). Nothing of the user's home is bound. All namespaces are unshared (the network
namespace holds only ``lo``), every capability is dropped, new user namespaces are
refused (a seccomp filter on every path, and ``--disable-userns`` where the sandbox has
a user namespace of its own), and the sandbox dies with the harness.

The command's environment is exactly the spec's: it is bwrap's own environment (the
launcher is started with nothing else), never a ``--setenv`` argument, so no value
(an API key) shows in the host's world-readable ``/proc/<pid>/cmdline``; a process's
``environ`` is readable only by its own user. On a timeout the processes inside the
sandbox's PID namespace get SIGTERM first (bwrap would not forward it), then the
grace period, then SIGKILL.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import shutil
import signal
import stat
import subprocess
from pathlib import Path

from m4bench.errors import M4BenchError
from m4bench.sandbox.base import ProcessSandbox, SandboxProcess
from m4bench.sandbox.egress import proxy_environment
from m4bench.sandbox.seccomp import userns_filter
from m4bench.sandbox.spec import (
    BRIDGE_IN_SANDBOX,
    EGRESS_SOCKET_IN_SANDBOX,
    Limits,
    NetworkMode,
    SandboxSpec,
)

BRIDGE_SCRIPT = Path(__file__).with_name("egress_bridge.py")
SYSTEM_PYTHON = "/usr/bin/python3"
SETPRIV = "/usr/bin/setpriv"
_UID_BASE, _UID_SPAN = 200_000, 100_000
SANDBOX_GID = 199_999
"""The one supplementary group of a root harness's sandbox user: the group a mounted
file is given to be read by it, so no file is made world-readable for a sandbox."""
_ROOT_LINKS = ("bin", "sbin", "lib", "lib32", "lib64", "libx32")
_ETC_DIRS = ("/etc/ssl", "/etc/ca-certificates", "/etc/alternatives", "/etc/pki")
_INSTALL_HINT = (
    "install bubblewrap (Debian/Ubuntu: sudo apt-get install bubblewrap; Fedora: sudo dnf "
    "install bubblewrap; or run scripts/system-deps.sh), or choose --sandbox docker|none"
)


def check_bwrap_available() -> None:
    """Raise a clear error unless ``bwrap`` and ``prlimit`` exist and namespaces work."""
    for tool, package in (("bwrap", "bubblewrap"), ("prlimit", "util-linux")):
        if shutil.which(tool) is None:
            raise M4BenchError(
                f"sandbox bwrap: '{tool}' not found on PATH ({package})", _INSTALL_HINT
            )
    probe = subprocess.run(
        ["bwrap", "--ro-bind", "/", "/", "--unshare-all", "--", "true"],
        capture_output=True,
        text=True,
        check=False,
    )
    if probe.returncode != 0:
        raise M4BenchError(
            f"sandbox bwrap: bubblewrap cannot create namespaces: {probe.stderr.strip()}",
            hint="enable unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1 "
            "or user.max_user_namespaces > 0), or choose --sandbox docker|none",
        )


def _count_tasks_of(uid: int) -> int:
    """Tasks (processes and threads) owned by ``uid``; RLIMIT_NPROC counts them all."""
    total = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            if entry.stat().st_uid == uid:
                total += len(os.listdir(entry / "task"))
        except OSError:
            continue
    return total


def _child_pid(spec: SandboxSpec) -> int | None:
    """The host PID of the sandbox's init, from bwrap's JSON status (None: not yet)."""
    try:
        lines = spec.status_path.read_text(encoding="utf-8").splitlines()
    except OSError:
        return None
    for line in lines:
        with contextlib.suppress(ValueError):
            value = json.loads(line).get("child-pid")
            if isinstance(value, int) and value > 0:
                return value
    return None


def namespace_members(init: int | None) -> list[int]:
    """Host PIDs of the processes in ``init``'s PID namespace, ``init`` itself left out."""
    if init is None:
        return []
    try:
        namespace = os.readlink(f"/proc/{init}/ns/pid")
    except OSError:
        return []
    members = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == init:
            continue
        with contextlib.suppress(OSError):
            if os.readlink(entry / "ns" / "pid") == namespace:
                members.append(int(entry.name))
    return members


def grant_sandbox_read(path: Path) -> None:
    """Let a root harness's sandbox user read ``path`` (bound directly, so the folders
    above it, which keep other users out, need not change): a file others may not read
    is given to :data:`SANDBOX_GID` with group read. Never adds read for others."""
    info = path.stat()
    if info.st_mode & stat.S_IROTH:
        return
    if info.st_gid != SANDBOX_GID:
        os.chown(path, -1, SANDBOX_GID)
    path.chmod(stat.S_IMODE(info.st_mode) | stat.S_IRGRP)


def sandbox_uid(spec: SandboxSpec) -> int:
    """The unprivileged user id a root harness runs this sandbox as (one per workdir)."""
    digest = hashlib.sha256(str(spec.workdir).encode()).digest()
    return _UID_BASE + int.from_bytes(digest[:4], "big") % _UID_SPAN


def prlimit_argv(limits: Limits, uid: int) -> list[str]:
    """``prlimit`` options for the limits (soft = hard).

    RLIMIT_NPROC is checked against every task of the sandbox's user id (not only the
    sandbox's own), so the limit is that user's current task count plus the allowance.
    """
    argv = [shutil.which("prlimit") or "prlimit"]
    if limits.cpu_seconds is not None:
        argv.append(f"--cpu={limits.cpu_seconds}")
    if limits.address_space_bytes is not None:
        argv.append(f"--as={limits.address_space_bytes}")
    if limits.data_bytes is not None:
        argv.append(f"--data={limits.data_bytes}")
    if limits.file_size_bytes is not None:
        argv.append(f"--fsize={limits.file_size_bytes}")
    if limits.processes is not None:
        argv.append(f"--nproc={_count_tasks_of(uid) + limits.processes}")
    return [*argv, "--"]


def _chown_tree(root: Path, uid: int) -> None:
    """Give the sandbox user the workdir (a root harness runs the sandbox unprivileged)."""
    os.chown(root, uid, uid)
    for parent, dirs, files in os.walk(root):
        for name in dirs + files:
            os.chown(os.path.join(parent, name), uid, uid, follow_symlinks=False)


def _parent_dirs(destinations: list[Path]) -> list[str]:
    """Create the missing parents of bind destinations as 0755 directories.

    bwrap would create them 0700, which an unprivileged sandbox user cannot traverse.
    ``/tmp`` is not covered: it is a fresh tmpfs, so a bind under it (a checkout or a
    virtual environment living in /tmp) needs its parents made too.
    """
    covered = {Path("/usr"), Path("/etc"), Path("/proc"), Path("/dev")}
    made: list[Path] = []
    for dest in destinations:
        for parent in reversed(dest.parents[:-1]):
            if parent in made or any(parent == c or c in parent.parents for c in covered):
                continue
            made.append(parent)
    argv: list[str] = []
    for path in made:
        argv += ["--perms", "0755", "--dir", str(path)]
    return argv


def _base_filesystem() -> list[str]:
    argv = ["--ro-bind", "/usr", "/usr"]
    for name in _ROOT_LINKS:
        path = Path("/") / name
        if path.is_symlink():
            argv += ["--symlink", os.readlink(path), str(path)]
        elif path.is_dir():
            argv += ["--ro-bind", str(path), str(path)]
    for etc in _ETC_DIRS:
        argv += ["--ro-bind-try", etc, etc]
    return argv


class BwrapSandbox(ProcessSandbox):
    """Default backend on Linux."""

    name = "bwrap"
    isolated = True

    def __init__(self, check: bool = True) -> None:
        if check:
            check_bwrap_available()

    def wants_status_fd(self) -> bool:
        return True

    def started(self, spec: SandboxSpec, returncode: int | None) -> bool:
        """bwrap reports ``exit-code`` only for a command that ran.

        A bwrap killed by the harness (timeout) reports nothing more than ``child-pid``;
        setup takes milliseconds, so such a run counts as started.
        """
        try:
            status = spec.status_path.read_text(encoding="utf-8")
        except OSError:
            return False
        if '"exit-code"' in status:
            return True
        return returncode is not None and returncode < 0 and '"child-pid"' in status

    def start(self, command: list[str], spec: SandboxSpec) -> SandboxProcess:
        if os.geteuid() == 0 and spec.workdir.is_dir():
            _chown_tree(spec.workdir, sandbox_uid(spec))
        return super().start(command, spec)

    def host_environment(self, spec: SandboxSpec) -> dict[str, str]:
        """The command's environment, handed down by bwrap (see the module's text)."""
        env = dict(spec.env)
        if spec.network is NetworkMode.PROXY:
            env.update(proxy_environment(spec.proxy_port))
        return env

    def seccomp_program(self) -> bytes:
        return userns_filter()

    def soft_stop(self, spec: SandboxSpec, leader: int) -> None:
        """SIGTERM every process of the sandbox's PID namespace but its init (bwrap's
        own), which would take the others down with SIGKILL; before the sandbox is up,
        the launcher's group gets it."""
        members = namespace_members(_child_pid(spec))
        if not members:
            super().soft_stop(spec, leader)
        for pid in members:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGTERM)

    def build_argv(
        self,
        command: list[str],
        spec: SandboxSpec,
        egress_socket: Path | None,
        status_fd: int | None = None,
        seccomp_fd: int | None = None,
    ) -> list[str]:
        as_root = os.geteuid() == 0
        uid = sandbox_uid(spec) if as_root else os.getuid()
        argv = [*prlimit_argv(spec.limits, uid), shutil.which("bwrap") or "bwrap"]
        if as_root:
            # Root is exempt from RLIMIT_NPROC and a user namespace would still map to
            # root: keep the host user namespace and drop to ``uid`` with no capability.
            argv += ["--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts"]
            argv += ["--unshare-cgroup-try"]
        else:
            argv += ["--unshare-all", "--unshare-user", "--disable-userns", "--cap-drop", "ALL"]
        argv += ["--die-with-parent", "--new-session"]
        if status_fd is not None:
            argv += ["--json-status-fd", str(status_fd)]
        if seccomp_fd is not None:
            argv += ["--seccomp", str(seccomp_fd)]
        argv += _base_filesystem()
        argv += ["--proc", "/proc", "--dev", "/dev"]
        argv += ["--perms", "1777", "--size", str(spec.limits.tmp_size_bytes), "--tmpfs", "/tmp"]
        mounts = sorted(spec.mounts, key=lambda m: (len(m.sandbox.parts), str(m.sandbox)))
        destinations = [m.sandbox for m in mounts] + [spec.workdir_in_sandbox, BRIDGE_IN_SANDBOX]
        argv += _parent_dirs(destinations)
        for mount in mounts:
            argv += ["--ro-bind", str(mount.host), str(mount.sandbox)]
        argv += ["--bind", str(spec.workdir), str(spec.workdir_in_sandbox)]
        argv += ["--chdir", str(spec.workdir_in_sandbox)]
        prefix: list[str] = []
        if spec.network is NetworkMode.PROXY:
            if egress_socket is None:
                raise M4BenchError("sandbox bwrap: proxy networking without an egress socket")
            argv += ["--ro-bind", str(BRIDGE_SCRIPT), str(BRIDGE_IN_SANDBOX)]
            argv += ["--bind", str(egress_socket), str(EGRESS_SOCKET_IN_SANDBOX)]
            prefix = [SYSTEM_PYTHON, "-I", str(BRIDGE_IN_SANDBOX)]
            prefix += ["--socket", str(EGRESS_SOCKET_IN_SANDBOX), "--port", str(spec.proxy_port)]
            prefix += ["--"]
        argv += ["--remount-ro", "/"]
        groups = f"--groups={SANDBOX_GID}"
        drop = [SETPRIV, f"--reuid={uid}", f"--regid={uid}", groups] if as_root else []
        drop += ["--inh-caps=-all", "--bounding-set=-all", "--no-new-privs", "--"] if drop else []
        return [*argv, "--", *drop, *prefix, *command]
