"""The Docker backend: the same spec as ``docker run`` options.

For hosts with a Docker engine. The image recipe is ``docker/Dockerfile`` in the
repository (``docker build -t m4bench-agent docker/``). Credentials travel as
``-e NAME`` with the value in the launcher's environment, so they never appear on a
command line. The container gets no network (``--network none``); with proxy
networking the egress socket and the bridge are mounted as in the bwrap backend.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from m4bench.errors import M4BenchError
from m4bench.sandbox.base import ProcessSandbox
from m4bench.sandbox.bwrap import BRIDGE_SCRIPT
from m4bench.sandbox.egress import proxy_environment
from m4bench.sandbox.spec import (
    BRIDGE_IN_SANDBOX,
    EGRESS_SOCKET_IN_SANDBOX,
    NetworkMode,
    SandboxSpec,
)

DEFAULT_IMAGE = "m4bench-agent:latest"
DOCKER_RUN_FAILED = 125


def _ulimits(spec: SandboxSpec) -> list[str]:
    limits = spec.limits
    pairs = [
        ("cpu", limits.cpu_seconds),
        ("as", limits.address_space_bytes),
        ("fsize", limits.file_size_bytes),
    ]
    argv: list[str] = []
    for name, value in pairs:
        if value is not None:
            argv += ["--ulimit", f"{name}={value}:{value}"]
    if limits.processes is not None:
        # The container's pids cgroup; RLIMIT_NPROC would also count the host user's
        # own processes, since the container runs under the host user id.
        argv += ["--pids-limit", str(limits.processes)]
    return argv


class DockerSandbox(ProcessSandbox):
    """Isolation by a Docker container (cannot be exercised without an engine)."""

    name = "docker"
    isolated = True

    def __init__(
        self, image: str = DEFAULT_IMAGE, docker_bin: str = "docker", check: bool = True
    ) -> None:
        self.image = image
        self.docker_bin = docker_bin
        if check and shutil.which(docker_bin) is None:
            raise M4BenchError(
                f"sandbox docker: '{docker_bin}' not found on PATH",
                hint="install a Docker engine and build the image with "
                "'docker build -t m4bench-agent docker/', or choose --sandbox bwrap",
            )

    def started(self, spec: SandboxSpec, returncode: int | None) -> bool:
        """``docker run`` exits 125 when the container could not be created."""
        return returncode != DOCKER_RUN_FAILED

    def _environment(self, spec: SandboxSpec) -> dict[str, str]:
        env = dict(spec.env)
        if spec.network is NetworkMode.PROXY:
            env.update(proxy_environment(spec.proxy_port))
        return env

    def host_environment(self, spec: SandboxSpec) -> dict[str, str]:
        base = super().host_environment(spec)
        for key in ("DOCKER_HOST", "DOCKER_CONFIG", "DOCKER_CONTEXT"):
            if key in os.environ:
                base[key] = os.environ[key]
        return {**base, **self._environment(spec)}

    def build_argv(
        self,
        command: list[str],
        spec: SandboxSpec,
        egress_socket: Path | None,
        status_fd: int | None = None,
        seccomp_fd: int | None = None,
    ) -> list[str]:
        argv = [self.docker_bin, "run", "--rm", "--init", "--network", "none"]
        argv += ["--cap-drop", "ALL", "--security-opt", "no-new-privileges", "--read-only"]
        argv += ["--user", f"{os.getuid()}:{os.getgid()}"]
        argv += _ulimits(spec)
        argv += ["--tmpfs", f"/tmp:rw,size={spec.limits.tmp_size_bytes},mode=1777"]
        argv += ["-v", f"{spec.workdir}:{spec.workdir_in_sandbox}:rw"]
        argv += ["-w", str(spec.workdir_in_sandbox)]
        for mount in sorted(spec.mounts, key=lambda m: (len(m.sandbox.parts), str(m.sandbox))):
            argv += ["-v", f"{mount.host}:{mount.sandbox}:ro"]
        prefix: list[str] = []
        if spec.network is NetworkMode.PROXY:
            if egress_socket is None:
                raise M4BenchError("sandbox docker: proxy networking without an egress socket")
            argv += ["-v", f"{BRIDGE_SCRIPT}:{BRIDGE_IN_SANDBOX}:ro"]
            argv += ["-v", f"{egress_socket}:{EGRESS_SOCKET_IN_SANDBOX}"]
            prefix = ["python3", "-I", str(BRIDGE_IN_SANDBOX)]
            prefix += ["--socket", str(EGRESS_SOCKET_IN_SANDBOX), "--port", str(spec.proxy_port)]
            prefix += ["--"]
        for key in sorted(self._environment(spec)):
            argv += ["-e", key]
        return [*argv, self.image, *prefix, *command]
