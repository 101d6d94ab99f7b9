"""The filesystem canary: before the agent starts, prove the sandbox hides what it must.

A short probe runs inside the very sandbox the agent will get and reports every
forbidden host path it can see: the ground truth, the task catalog, the data home,
the results directory (this run's record included), the user's home. With an
isolating backend any visible path stops the run (status ``sandbox_violation``); the
``none`` backend isolates nothing, so the probe is skipped and the verdict says so.
"""

from __future__ import annotations

import shlex
from collections.abc import Iterable
from pathlib import Path

from m4bench.errors import M4BenchError
from m4bench.results.verdicts import CanaryVerdict
from m4bench.sandbox import NetworkMode, ProcessSandbox, SandboxSpec

_HOME_ENTRIES = 256
_PROBE_TIMEOUT = 30.0
_MARK = "VISIBLE "


def forbidden_paths(
    protected: Iterable[Path], user_home: Path, runtime: Iterable[Path]
) -> list[Path]:
    """The protected paths, plus the entries of the user's home that no runtime mount
    lies under (the interpreter may legitimately live inside the home)."""
    paths = {path.resolve() for path in protected}
    runtime_dirs = [path.resolve() for path in runtime]
    home = user_home.resolve()
    if not any(home == r or home in r.parents for r in runtime_dirs):
        paths.add(home)
    elif home.is_dir():
        entries = sorted(home.iterdir())[:_HOME_ENTRIES]
        for entry in entries:
            if not any(entry == r or entry in r.parents for r in runtime_dirs):
                paths.add(entry)
    return sorted(paths)


def probe_script(paths: Iterable[Path]) -> str:
    lines = [f'[ -e {shlex.quote(str(p))} ] && echo "{_MARK}"{shlex.quote(str(p))}' for p in paths]
    return "\n".join([*lines, "exit 0"]) + "\n"


def run_canary(sandbox: ProcessSandbox, spec: SandboxSpec, paths: list[Path]) -> CanaryVerdict:
    probed = [str(p) for p in paths]
    if not sandbox.isolated:
        return CanaryVerdict(
            ran=False,
            passed=False,
            enforced=False,
            probed=probed,
            detail=f"the {sandbox.name} backend isolates nothing; the probe was skipped",
        )
    probe_spec = spec.model_copy(
        update={"network": NetworkMode.NONE, "log_dir": spec.log_dir / "canary", "env": {}}
    )
    result = sandbox.run(["/bin/sh", "-c", probe_script(paths)], probe_spec, _PROBE_TIMEOUT)
    if not result.sandbox_started:
        raise M4BenchError(
            f"sandbox {sandbox.name} could not start: {result.sandbox_error or 'no detail'}",
            hint="check the backend with a plain command (see docs/sandbox.md)",
        )
    out = result.stdout_path.read_text(encoding="utf-8", errors="replace")
    visible = sorted(line[len(_MARK) :] for line in out.splitlines() if line.startswith(_MARK))
    if result.returncode != 0:
        err = result.stderr_path.read_text(encoding="utf-8", errors="replace")[-500:]
        return CanaryVerdict(
            ran=True,
            passed=False,
            enforced=True,
            probed=probed,
            visible=visible,
            detail=f"the probe failed (exit {result.returncode}): {err.strip()}",
        )
    return CanaryVerdict(
        ran=True,
        passed=not visible,
        enforced=True,
        probed=probed,
        visible=visible,
        detail="nothing forbidden is visible" if not visible else "forbidden paths are visible",
    )
