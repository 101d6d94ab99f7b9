"""The bubblewrap backend: unprivileged Linux namespaces plus ``prlimit`` rlimits.

The sandbox sees ``/usr`` (and the ``/lib``, ``/bin`` links into it), a few certificate
and alternatives directories of ``/etc``, fresh ``/proc`` and ``/dev``, a private
size-capped ``/tmp``, the workdir (writable) and exactly the mounts of the spec (read
only). Nothing of the user's home is bound. All namespaces are unshared (the network
namespace holds only ``lo``), nested user namespaces are disabled, every capability is
dropped, the environment is cleared, and the sandbox dies with the harness.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from pathlib import Path

from m4bench.errors import M4BenchError
from m4bench.sandbox.base import ProcessSandbox, SandboxProcess
from m4bench.sandbox.egress import proxy_environment
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


def sandbox_uid(spec: SandboxSpec) -> int:
    """The unprivileged user id a root harness runs this sandbox as (one per workdir)."""
    digest = hashlib.sha256(str(spec.workdir).encode()).digest()
    return _UID_BASE + int.from_bytes(digest[:4], "big") % _UID_SPAN


def prlimit_argv(limits: Limits, uid: int) -> list[str]:
    """``prlimit`` options for the limits (soft = hard).

    RLIMIT_NPROC is checked against every task of the sandbox's user id (not only the
    sandbox's own), so the limit is that user's current task count plus the allowance.
    """
    argv = ["prlimit"]
    if limits.cpu_seconds is not None:
        argv.append(f"--cpu={limits.cpu_seconds}")
    if limits.address_space_bytes is not None:
        argv.append(f"--as={limits.address_space_bytes}")
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

    def build_argv(
        self,
        command: list[str],
        spec: SandboxSpec,
        egress_socket: Path | None,
        status_fd: int | None = None,
    ) -> list[str]:
        as_root = os.geteuid() == 0
        uid = sandbox_uid(spec) if as_root else os.getuid()
        argv = [*prlimit_argv(spec.limits, uid), "bwrap"]
        if as_root:
            # Root is exempt from RLIMIT_NPROC and a user namespace would still map to
            # root: keep the host user namespace and drop to ``uid`` with no capability.
            argv += ["--unshare-pid", "--unshare-net", "--unshare-ipc", "--unshare-uts"]
            argv += ["--unshare-cgroup-try"]
        else:
            argv += ["--unshare-all", "--unshare-user", "--disable-userns", "--cap-drop", "ALL"]
        argv += ["--die-with-parent", "--new-session", "--clearenv"]
        if status_fd is not None:
            argv += ["--json-status-fd", str(status_fd)]
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
        env = dict(spec.env)
        prefix: list[str] = []
        if spec.network is NetworkMode.PROXY:
            if egress_socket is None:
                raise M4BenchError("sandbox bwrap: proxy networking without an egress socket")
            argv += ["--ro-bind", str(BRIDGE_SCRIPT), str(BRIDGE_IN_SANDBOX)]
            argv += ["--bind", str(egress_socket), str(EGRESS_SOCKET_IN_SANDBOX)]
            env.update(proxy_environment(spec.proxy_port))
            prefix = [SYSTEM_PYTHON, "-I", str(BRIDGE_IN_SANDBOX)]
            prefix += ["--socket", str(EGRESS_SOCKET_IN_SANDBOX), "--port", str(spec.proxy_port)]
            prefix += ["--"]
        argv += ["--remount-ro", "/"]
        for key in sorted(env):
            argv += ["--setenv", key, env[key]]
        drop = [SETPRIV, f"--reuid={uid}", f"--regid={uid}", "--clear-groups"] if as_root else []
        drop += ["--inh-caps=-all", "--bounding-set=-all", "--no-new-privs", "--"] if drop else []
        return [*argv, "--", *drop, *prefix, *command]
