"""The ordinary-user bwrap path (user namespace, no nested namespaces), checked from root.

A root harness takes the setpriv path, which the other tests cover; here the command
line an ordinary user's harness would build is run as ``nobody``. Under a non-root
harness the other tests already take this path, so this one only runs as root.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from bwrap_probe import needs_bwrap

from m4bench.sandbox import BwrapSandbox, Limits, SandboxSpec

NOBODY = 65534

pytestmark = [
    *needs_bwrap,
    pytest.mark.skipif(os.geteuid() != 0, reason="the other tests already run unprivileged"),
]

PROBE = (
    "id -u; ls /sys/class/net 2>/dev/null; cat /proc/net/dev | tail -n +3 | cut -d: -f1; "
    "unshare -U true 2>/dev/null; echo nested=$?; touch /escape 2>/dev/null; echo root=$?; "
    'echo ok > out.txt; /usr/bin/python3 -c "$BOMB"'
)
BOMB = """
import os, time
count = 0
try:
    for _ in range(200):
        if os.fork() == 0:
            time.sleep(5)
            os._exit(0)
        count += 1
except OSError:
    pass
print(count, flush=True)
os._exit(0)
"""


@pytest.fixture
def world_root() -> Iterator[Path]:
    # pytest's own temporary directories are private to root; nobody must reach these.
    root = Path(tempfile.mkdtemp(prefix="m4bench-unpriv-"))
    root.chmod(0o755)
    try:
        yield root
    finally:
        shutil.rmtree(root, ignore_errors=True)


def test_user_namespace_path_as_nobody(world_root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    workdir = world_root / "workdir"
    workdir.mkdir()
    os.chown(workdir, NOBODY, NOBODY)
    spec = SandboxSpec(
        workdir=workdir,
        log_dir=world_root / "logs",
        env={"PATH": "/usr/bin:/bin", "BOMB": BOMB},
        limits=Limits(processes=15),
    )
    monkeypatch.setattr(os, "geteuid", lambda: NOBODY)
    monkeypatch.setattr(os, "getuid", lambda: NOBODY)
    sandbox = BwrapSandbox(check=False)
    argv = sandbox.build_argv(["sh", "-c", PROBE], spec, None)
    monkeypatch.undo()
    assert "--unshare-user" in argv and "--disable-userns" in argv and "setpriv" not in argv[0]
    as_nobody = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]
    done = subprocess.run(
        [*as_nobody, *argv],
        cwd=workdir,
        env=sandbox.host_environment(spec),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    lines = done.stdout.split()
    assert lines[0] == str(NOBODY), done.stderr
    assert "lo" in lines and "nested=0" not in lines and "root=0" not in lines
    assert (workdir / "out.txt").read_text() == "ok\n"
    assert int(lines[-1]) < 15
