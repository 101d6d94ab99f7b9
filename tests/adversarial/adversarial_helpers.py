"""Shared builders for the adversarial tests: specs, a world-reachable root, a scanner."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from bwrap_probe import needs_bwrap

from m4bench.sandbox import Limits, NetworkMode, SandboxSpec

NOBODY = 65534
AS_NOBODY = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]

adversarial = [pytest.mark.adversarial, *needs_bwrap]


def make_spec(
    root: Path,
    *,
    env: dict[str, str] | None = None,
    limits: Limits | None = None,
    network: NetworkMode = NetworkMode.NONE,
    allowed: tuple[str, ...] = (),
    grace: float = 1.0,
) -> SandboxSpec:
    workdir = root / "workdir"
    workdir.mkdir(exist_ok=True)
    return SandboxSpec(
        workdir=workdir,
        log_dir=root / "logs",
        env=env if env is not None else {"PATH": "/usr/bin:/bin"},
        network=network,
        allowed_endpoints=allowed,
        limits=limits or Limits(),
        kill_grace_seconds=grace,
    )


@contextmanager
def world_root() -> Iterator[Path]:
    """A directory an unprivileged user can reach (pytest's own are private to root)."""
    root = Path(tempfile.mkdtemp(prefix="m4bench-adv-"))
    root.chmod(0o755)
    try:
        yield root
    finally:
        shutil.rmtree(root, ignore_errors=True)


SCAN = r"""
import os, sys
marker = sys.stdin.read().strip().encode()
seen = {"cmdline": 0, "environ": 0, "bwrap": 0}
hits = []
for pid in os.listdir("/proc"):
    if not pid.isdigit() or int(pid) == os.getpid():
        continue
    for name in ("cmdline", "environ"):
        try:
            with open(f"/proc/{pid}/{name}", "rb") as handle:
                data = handle.read()
        except OSError:
            continue
        seen[name] += 1
        if name == "cmdline" and b"bwrap" in data and b"--seccomp" in data:
            seen["bwrap"] += 1
        if marker in data:
            hits.append(f"{pid}/{name}")
print(seen["cmdline"], seen["environ"], seen["bwrap"], " ".join(hits) or "-")
"""


def scan_proc(marker: str, as_nobody: bool) -> tuple[int, int, int, list[str]]:
    """(cmdlines read, environs read, bwrap launchers seen, files holding ``marker``)
    over every process of the host, read as root or as ``nobody`` (the marker goes in
    on standard input, so the scanner's own command line does not hold it)."""
    prefix = AS_NOBODY if as_nobody and os.geteuid() == 0 else []
    done = subprocess.run(
        [*prefix, "/usr/bin/python3", "-I", "-c", SCAN],
        input=marker,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    cmdlines, environs, launchers, hits = done.stdout.split(maxsplit=3)
    found = [] if hits.strip() == "-" else hits.split()
    return int(cmdlines), int(environs), int(launchers), found
