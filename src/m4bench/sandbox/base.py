"""The backend protocol and the process handle every backend returns.

A backend turns ``(command, spec)`` into a host command line and starts it in its own
process group; :class:`SandboxProcess` waits for it, enforces the timeout (SIGTERM to
the command's processes, as the backend finds them, then SIGKILL to the whole group
after the grace period), watches the workdir's size and reports a
:class:`SandboxResult`. When the spec asks for ``proxy`` networking, the backend starts
an :class:`EgressProxy` outside the sandbox for the lifetime of the process.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import IO, Protocol

from m4bench.errors import M4BenchError
from m4bench.sandbox.egress import EgressProxy
from m4bench.sandbox.observed import ObservedUsage
from m4bench.sandbox.seccomp import filter_fd
from m4bench.sandbox.spec import SandboxResult, SandboxSpec
from m4bench.sandbox.watch import WorkdirWatch


class Sandbox(Protocol):
    """An isolation backend."""

    name: str
    isolated: bool

    def start(self, command: list[str], spec: SandboxSpec) -> SandboxProcess: ...

    def run(self, command: list[str], spec: SandboxSpec, timeout: float) -> SandboxResult: ...

    def workdir_for_agent(self, spec: SandboxSpec) -> Path: ...

    def path_for_agent(self, spec: SandboxSpec, host_path: Path) -> Path | None: ...


class SandboxProcess:
    """A running sandboxed command (the leader of its own process group)."""

    def __init__(
        self,
        popen: subprocess.Popen[bytes],
        spec: SandboxSpec,
        backend: ProcessSandbox,
        proxy: EgressProxy | None,
        handles: tuple[IO[bytes], IO[bytes]],
    ) -> None:
        self._popen = popen
        self._spec = spec
        self._backend = backend
        self._proxy = proxy
        self._handles = handles
        self._started = time.monotonic()
        self._started_at = datetime.now(UTC)
        self._killed = False
        self._watch = WorkdirWatch(spec.workdir, spec.limits, self._over_limit)
        self._watch.start()

    @property
    def pid(self) -> int:
        return self._popen.pid

    def poll(self) -> int | None:
        return self._popen.poll()

    def terminate(self) -> None:
        """SIGTERM the command's processes, wait the grace period, then SIGKILL the
        whole process group."""
        self._killed = True
        self._backend.soft_stop(self._spec, self._popen.pid)
        with contextlib.suppress(subprocess.TimeoutExpired):
            self._popen.wait(timeout=self._spec.kill_grace_seconds)
        self._signal_group(signal.SIGKILL)
        self._popen.wait()

    def wait(self, timeout: float | None = None) -> SandboxResult:
        """Wait up to ``timeout`` seconds (``None``: forever), then stop and report."""
        remaining = None if timeout is None else max(self._started + timeout - time.monotonic(), 0)
        timed_out = False
        try:
            self._popen.wait(timeout=remaining)
        except subprocess.TimeoutExpired:
            timed_out = True
            self.terminate()
        except BaseException:
            # Ctrl-C reaches the harness only (the agent leads its own session): stop
            # the agent's whole group and the proxy before the interrupt goes on.
            self.stop()
            raise
        elapsed = time.monotonic() - self._started
        self._signal_group(signal.SIGKILL)
        observed = self._close()
        started = self._backend.started(self._spec, self._popen.returncode)
        name, isolated = self._backend.name, self._backend.isolated
        return SandboxResult(
            backend=name,
            isolated=isolated,
            returncode=self._popen.returncode,
            timed_out=timed_out,
            killed=self._killed,
            elapsed_seconds=round(elapsed, 3),
            started_at=self._started_at,
            stdout_path=self._spec.stdout_path,
            stderr_path=self._spec.stderr_path,
            sandbox_started=started,
            sandbox_error=None if started else _tail(self._spec.stderr_path),
            publishable=isolated,
            publishable_reason=(
                f"isolated by the {name} sandbox"
                if isolated
                else f"the {name} backend does not isolate the agent"
            ),
            limit_exceeded=self._watch.exceeded,
            observed_usage=observed,
        )

    def _over_limit(self) -> None:
        """The workdir went past its limit: stop the command (called by the watch)."""
        if self._popen.poll() is None:
            self.terminate()

    def stop(self) -> None:
        """Stop the process group now (SIGTERM, the grace period, SIGKILL) and release
        the log handles and the egress proxy; a second interrupt still kills the group."""
        try:
            self.terminate()
        finally:
            self._signal_group(signal.SIGKILL)
            self._close()

    def _signal_group(self, sig: signal.Signals) -> None:
        # Leftover members of the group (daemonised children) are reaped too.
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(self._popen.pid, sig)

    def _close(self) -> ObservedUsage | None:
        """Release the logs, the watch and the proxy; what the proxy saw of usage."""
        self._watch.stop()
        for handle in self._handles:
            handle.close()
        observed = None
        if self._proxy is not None:
            self._proxy.stop()
            observed = self._proxy.observed_usage()
            self._proxy = None
        return observed


def _tail(path: Path, limit: int = 2000) -> str:
    text = path.read_text(encoding="utf-8", errors="replace")
    return text[-limit:].strip() or "(no message)"


class ProcessSandbox:
    """Shared start/run logic; subclasses build the host command line."""

    name = "abstract"
    isolated = True

    def build_argv(
        self,
        command: list[str],
        spec: SandboxSpec,
        egress_socket: Path | None,
        status_fd: int | None = None,
        seccomp_fd: int | None = None,
    ) -> list[str]:
        """The host command line; ``status_fd`` is an open fd the launcher may report on,
        ``seccomp_fd`` one holding the filter of :meth:`seccomp_program`."""
        raise NotImplementedError

    def wants_status_fd(self) -> bool:
        return False

    def seccomp_program(self) -> bytes | None:
        """A compiled seccomp filter the launcher loads (``None``: none)."""
        return None

    def soft_stop(self, spec: SandboxSpec, leader: int) -> None:
        """Ask the command to stop (the grace period follows): SIGTERM to the group."""
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(leader, signal.SIGTERM)

    def started(self, spec: SandboxSpec, returncode: int | None) -> bool:
        """Whether the command itself ran (``False``: the sandbox failed to set up)."""
        return True

    def host_environment(self, spec: SandboxSpec) -> dict[str, str]:
        """Environment of the host-side launcher (the sandbox itself gets ``spec.env``)."""
        return {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}

    def host_cwd(self, spec: SandboxSpec) -> Path:
        return spec.workdir

    def workdir_for_agent(self, spec: SandboxSpec) -> Path:
        return spec.workdir_in_sandbox

    def path_for_agent(self, spec: SandboxSpec, host_path: Path) -> Path | None:
        """Where the agent sees ``host_path`` (``None``: it does not see it)."""
        return spec.path_in_sandbox(host_path)

    def start(self, command: list[str], spec: SandboxSpec) -> SandboxProcess:
        if not command:
            raise M4BenchError("sandbox: empty command", hint="pass the program to run")
        if not spec.workdir.is_dir():
            raise M4BenchError(
                f"{spec.workdir}: workdir does not exist", hint="create it before starting"
            )
        for mount in spec.mounts:
            if not mount.host.exists():
                raise M4BenchError(
                    f"{mount.host}: mount source does not exist",
                    hint="provision the task first, or drop the mount from the spec",
                )
        spec.log_dir.mkdir(parents=True, exist_ok=True)
        program = self.seccomp_program()
        proxy = self._start_proxy(spec)
        status = spec.status_path.open("wb") if self.wants_status_fd() else None
        seccomp_fd = filter_fd(program) if program is not None else None
        try:
            socket_path = proxy.socket_path if proxy else None
            status_fd = status.fileno() if status else None
            argv = self.build_argv(command, spec, socket_path, status_fd, seccomp_fd)
            fds = tuple(fd for fd in (status_fd, seccomp_fd) if fd is not None)
            return self._spawn(argv, spec, proxy, fds)
        except BaseException:
            if proxy is not None:
                proxy.stop()
            raise
        finally:
            if status is not None:
                status.close()
            if seccomp_fd is not None:
                os.close(seccomp_fd)

    def run(self, command: list[str], spec: SandboxSpec, timeout: float) -> SandboxResult:
        return self.start(command, spec).wait(timeout)

    def _start_proxy(self, spec: SandboxSpec) -> EgressProxy | None:
        if spec.network != "proxy":
            return None
        socket_dir = Path(tempfile.mkdtemp(prefix="m4bench-egress-"))
        proxy = EgressProxy(
            socket_dir / "egress.sock",
            set(spec.allowed_endpoints),
            spec.egress_log_path,
            max_connections=spec.limits.egress_connections,
        )
        proxy.start()
        return proxy

    def _spawn(
        self, argv: list[str], spec: SandboxSpec, proxy: EgressProxy | None, fds: tuple[int, ...]
    ) -> SandboxProcess:
        stdout = spec.stdout_path.open("wb")
        stderr = spec.stderr_path.open("wb")
        try:
            popen = subprocess.Popen(
                argv,
                stdin=subprocess.DEVNULL,
                stdout=stdout,
                stderr=stderr,
                cwd=self.host_cwd(spec),
                env=self.host_environment(spec),
                start_new_session=True,
                pass_fds=fds,
            )
        except OSError as exc:
            stdout.close()
            stderr.close()
            raise M4BenchError(
                f"sandbox {self.name}: cannot start {argv[0]}: {exc}",
                hint=f"check that {argv[0]} is installed and executable",
            ) from exc
        return SandboxProcess(popen, spec, self, proxy, (stdout, stderr))
