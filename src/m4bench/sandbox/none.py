"""The ``none`` backend: runs the command directly, for development only.

No isolation at all: the command sees the whole host. Results are marked not
publishable. Proxy networking still routes well-behaved clients through the egress
proxy (the bridge runs on the host loopback), which is useful to debug allowlists.
"""

from __future__ import annotations

import sys
from pathlib import Path

from m4bench.sandbox.base import ProcessSandbox
from m4bench.sandbox.bwrap import BRIDGE_SCRIPT
from m4bench.sandbox.egress import proxy_environment
from m4bench.sandbox.spec import NetworkMode, SandboxSpec


class NoSandbox(ProcessSandbox):
    """Unisolated execution; the environment is still only what the spec gives."""

    name = "none"
    isolated = False

    def host_environment(self, spec: SandboxSpec) -> dict[str, str]:
        env = dict(spec.env)
        if spec.network is NetworkMode.PROXY:
            env.update(proxy_environment(spec.proxy_port))
        return env

    def build_argv(
        self,
        command: list[str],
        spec: SandboxSpec,
        egress_socket: Path | None,
        status_fd: int | None = None,
        seccomp_fd: int | None = None,
    ) -> list[str]:
        if spec.network is NetworkMode.PROXY and egress_socket is not None:
            bridge = [sys.executable, "-I", str(BRIDGE_SCRIPT), "--socket", str(egress_socket)]
            return [*bridge, "--port", str(spec.proxy_port), "--", *command]
        return list(command)

    def workdir_for_agent(self, spec: SandboxSpec) -> Path:
        return spec.workdir

    def path_for_agent(self, spec: SandboxSpec, host_path: Path) -> Path | None:
        return host_path
