"""No nested user namespace, no capability: on the root path and the ordinary-user path.

Inside a user namespace of its own an agent would hold every capability there (mount a
tmpfs, start a nested bwrap). From inside the sandbox, ``unshare -U``, ``unshare -r``
and a nested bwrap must fail, and the effective capability set must be empty.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from adversarial_helpers import AS_NOBODY, NOBODY, adversarial, make_spec, world_root

from m4bench.sandbox import BwrapSandbox, SandboxSpec
from m4bench.sandbox.seccomp import filter_fd, userns_filter

pytestmark = adversarial

PROBE = (
    "unshare -U true 2>/dev/null; echo userns=$?; "
    "unshare -r sh -c 'mount -t tmpfs none /tmp' 2>/dev/null; echo maproot=$?; "
    "bwrap --ro-bind / / --unshare-user true 2>/dev/null; echo nested=$?; "
    "bwrap --ro-bind / / true 2>/dev/null; echo plain=$?; "
    "grep CapEff /proc/self/status; id -u"
)


def outcomes(text: str) -> dict[str, str]:
    pairs = [line.split("=", 1) for line in text.split() if "=" in line]
    return {name: value for name, value in pairs}


def check(text: str) -> None:
    found = outcomes(text)
    assert set(found) == {"userns", "maproot", "nested", "plain"}, text
    assert all(code != "0" for code in found.values()), text
    assert "CapEff:\t0000000000000000" in text, text


def test_root_path_refuses_nested_user_namespaces(tmp_path: Path) -> None:
    spec = make_spec(tmp_path)
    result = BwrapSandbox().run(["sh", "-c", PROBE], spec, timeout=30)
    out = result.stdout_path.read_text()
    assert result.returncode == 0, result.stderr_path.read_text()
    check(out)
    if os.geteuid() == 0:
        assert out.split()[-1] != "0"


@pytest.mark.skipif(os.geteuid() != 0, reason="the root path test above is this path then")
def test_ordinary_user_path_refuses_nested_user_namespaces(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The command line an ordinary user's harness builds, run as nobody.
    with world_root() as root:
        spec: SandboxSpec = make_spec(root)
        os.chown(spec.workdir, NOBODY, NOBODY)
        sandbox = BwrapSandbox(check=False)
        fd = filter_fd(userns_filter())
        try:
            monkeypatch.setattr(os, "geteuid", lambda: NOBODY)
            monkeypatch.setattr(os, "getuid", lambda: NOBODY)
            argv = sandbox.build_argv(["sh", "-c", PROBE], spec, None, None, fd)
            monkeypatch.undo()
            assert "--disable-userns" in argv and "--seccomp" in argv
            done = subprocess.run(
                [*AS_NOBODY, *argv],
                cwd=spec.workdir,
                env=sandbox.host_environment(spec),
                pass_fds=(fd,),
                capture_output=True,
                text=True,
                timeout=60,
                check=False,
            )
        finally:
            os.close(fd)
    assert done.returncode == 0, done.stderr
    check(done.stdout)
    assert done.stdout.split()[-1] == str(NOBODY)
