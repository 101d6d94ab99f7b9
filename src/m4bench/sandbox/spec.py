"""What a sandboxed command may see and use, and what became of it.

A :class:`SandboxSpec` is backend-neutral: the same spec drives bubblewrap, Docker or
the unisolated development backend. Paths are host paths unless named ``*_in_sandbox``.
"""

from __future__ import annotations

import os
import re
from datetime import datetime
from enum import StrEnum
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from m4bench.sandbox.observed import ObservedUsage

DEFAULT_WORKDIR_IN_SANDBOX = Path("/workdir")
BRIDGE_IN_SANDBOX = Path("/run/m4bench/egress_bridge.py")
EGRESS_SOCKET_IN_SANDBOX = Path("/run/m4bench/egress.sock")
DEFAULT_PROXY_PORT = 18080
_ENV_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class NetworkMode(StrEnum):
    """``none``: only a private loopback. ``proxy``: allowlisted endpoints via the egress proxy."""

    NONE = "none"
    PROXY = "proxy"


class Mount(BaseModel):
    """A read-only bind of ``host`` at ``sandbox`` (a file or a directory)."""

    model_config = ConfigDict(frozen=True)

    host: Path
    sandbox: Path

    @field_validator("host", "sandbox")
    @classmethod
    def _absolute(cls, value: Path) -> Path:
        if not value.is_absolute():
            raise ValueError(f"mount path must be absolute, got {value}")
        return value


class Limits(BaseModel):
    """Resource limits of a sandboxed command (``None`` = unlimited).

    Per process (rlimits, soft = hard): CPU seconds, address space, writable data
    (``data_bytes``: RLIMIT_DATA, private writable memory; unlike the address space it
    ignores reservations that are never written) and the size of one file. For the
    whole sandbox: processes, the private ``/tmp``, the workdir's bytes and entries
    (watched during the run; the sandbox is stopped past them) and concurrent
    connections through the egress proxy (more wait for a free slot).
    """

    model_config = ConfigDict(frozen=True)

    cpu_seconds: int | None = Field(default=None, ge=1)
    address_space_bytes: int | None = Field(default=None, ge=1 << 20)
    data_bytes: int | None = Field(default_factory=lambda: half_of_memory(), ge=1 << 20)
    file_size_bytes: int | None = Field(default=None, ge=1)
    processes: int | None = Field(default=512, ge=1)
    tmp_size_bytes: int = Field(default=1 << 30, ge=1 << 20)
    workdir_bytes: int | None = Field(default=32 << 30, ge=1 << 20)
    workdir_entries: int | None = Field(default=200_000, ge=16)
    egress_connections: int = Field(default=32, ge=1)


def half_of_memory() -> int:
    """Half the host's physical memory (at least 1 GiB): the default per-process cap on
    writable data, so that no single process of an agent can exhaust the host."""
    try:
        total = os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError):
        return 8 << 30
    return max(total // 2, 1 << 30)


def _check_endpoint(value: str) -> str:
    host, sep, port = value.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise ValueError(f"endpoint must be 'host:port', got {value!r}")
    # Same normal form as the proxy's: lower case, IPv6 without brackets.
    return f"{host.strip('[]').lower()}:{int(port)}"


class SandboxSpec(BaseModel):
    """Everything a backend needs to isolate one command."""

    model_config = ConfigDict(frozen=True)

    workdir: Path
    workdir_in_sandbox: Path = DEFAULT_WORKDIR_IN_SANDBOX
    mounts: tuple[Mount, ...] = ()
    env: dict[str, str] = Field(default_factory=dict)
    network: NetworkMode = NetworkMode.NONE
    allowed_endpoints: tuple[str, ...] = ()
    log_dir: Path
    proxy_port: int = Field(default=DEFAULT_PROXY_PORT, ge=1024, lt=65536)
    limits: Limits = Field(default_factory=Limits)
    kill_grace_seconds: float = Field(default=5.0, ge=0)

    @model_validator(mode="after")
    def _logs_outside_workdir(self) -> SandboxSpec:
        log_dir, workdir = self.log_dir.resolve(), self.workdir.resolve()
        if log_dir == workdir or workdir in log_dir.parents:
            raise ValueError(
                f"log_dir {self.log_dir} is inside the workdir {self.workdir}; the sandboxed "
                "command could rewrite its own logs: choose a directory outside it"
            )
        return self

    @field_validator("env")
    @classmethod
    def _env_names(cls, value: dict[str, str]) -> dict[str, str]:
        for name, text in value.items():
            if not _ENV_NAME.fullmatch(name):
                raise ValueError(f"environment variable name {name!r} is not valid")
            if "\0" in text:
                raise ValueError(f"environment variable {name} contains a NUL byte")
        return value

    @field_validator("allowed_endpoints")
    @classmethod
    def _endpoints(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(sorted({_check_endpoint(item) for item in value}))

    @field_validator("workdir", "workdir_in_sandbox", "log_dir")
    @classmethod
    def _absolute(cls, value: Path) -> Path:
        if not value.is_absolute():
            raise ValueError(f"workdir must be an absolute path, got {value}")
        return value

    @property
    def stdout_path(self) -> Path:
        return self.log_dir / "stdout.log"

    @property
    def stderr_path(self) -> Path:
        return self.log_dir / "stderr.log"

    @property
    def status_path(self) -> Path:
        """Where the launcher reports that the command started (bwrap's JSON status)."""
        return self.log_dir / "sandbox-status.jsonl"

    @property
    def egress_log_path(self) -> Path:
        return self.log_dir / "egress.jsonl"

    def path_in_sandbox(self, host_path: Path) -> Path | None:
        """Where a host path appears inside an isolating sandbox, or ``None`` if hidden."""
        candidates = [(self.workdir, self.workdir_in_sandbox)]
        candidates += [(m.host, m.sandbox) for m in self.mounts]
        for host, inner in sorted(candidates, key=lambda c: len(c[0].parts), reverse=True):
            if host_path == host or host in host_path.parents:
                return inner / host_path.relative_to(host)
        return None


class SandboxResult(BaseModel):
    """How a sandboxed command ended. Written by the harness, never by the command."""

    backend: str
    isolated: bool
    returncode: int | None
    timed_out: bool
    killed: bool
    elapsed_seconds: float
    started_at: datetime | None = Field(
        default=None, description="wall-clock time (UTC) the command was started"
    )
    stdout_path: Path
    stderr_path: Path
    sandbox_started: bool = True
    sandbox_error: str | None = None
    publishable: bool
    publishable_reason: str
    limit_exceeded: str | None = Field(
        default=None, description="the sandbox-wide limit the command went past (it was stopped)"
    )
    observed_usage: ObservedUsage | None = Field(
        default=None,
        description="token counts the egress proxy read in the provider's plain-HTTP "
        "responses; None when it saw none (TLS, no proxy)",
    )
