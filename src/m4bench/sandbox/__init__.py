"""Isolation backends for agent runs and the egress proxy.

Public API::

    spec = SandboxSpec(workdir=..., log_dir=..., mounts=(Mount(host=..., sandbox=...),),
                       env={...}, network=NetworkMode.PROXY,
                       allowed_endpoints=("api.openai.com:443",), limits=Limits(...))
    sandbox = get_sandbox("bwrap")          # or "docker", "none"
    result = sandbox.run(["cmd", ...], spec, timeout=1800)

This layer imports nothing from provisioning, tasks, scoring or agents.
"""

from __future__ import annotations

import sys

from m4bench.errors import M4BenchError
from m4bench.sandbox.base import ProcessSandbox, Sandbox, SandboxProcess
from m4bench.sandbox.bwrap import BwrapSandbox, check_bwrap_available
from m4bench.sandbox.docker import DockerSandbox
from m4bench.sandbox.egress import (
    EgressEvent,
    EgressProxy,
    proxy_environment,
    read_egress_log,
    refused,
)
from m4bench.sandbox.none import NoSandbox
from m4bench.sandbox.spec import Limits, Mount, NetworkMode, SandboxResult, SandboxSpec

SANDBOX_NAMES = ("bwrap", "docker", "none")

__all__ = [
    "SANDBOX_NAMES",
    "BwrapSandbox",
    "DockerSandbox",
    "EgressEvent",
    "EgressProxy",
    "Limits",
    "Mount",
    "NetworkMode",
    "NoSandbox",
    "ProcessSandbox",
    "Sandbox",
    "SandboxProcess",
    "SandboxResult",
    "SandboxSpec",
    "check_bwrap_available",
    "default_sandbox_name",
    "get_sandbox",
    "proxy_environment",
    "read_egress_log",
    "refused",
]


def default_sandbox_name() -> str:
    """``bwrap`` on Linux, else ``docker``."""
    return "bwrap" if sys.platform.startswith("linux") else "docker"


def get_sandbox(name: str) -> ProcessSandbox:
    """The backend called ``name``; checks that its tools are installed."""
    if name == "bwrap":
        return BwrapSandbox()
    if name == "docker":
        return DockerSandbox()
    if name == "none":
        return NoSandbox()
    raise M4BenchError(
        f"unknown sandbox {name!r}", hint=f"choose one of: {', '.join(SANDBOX_NAMES)}"
    )
