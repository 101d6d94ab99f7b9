"""Whether bubblewrap can run here, and the marks of tests that need it."""

from __future__ import annotations

import shutil
import subprocess

import pytest


def bwrap_works() -> bool:
    if shutil.which("bwrap") is None or shutil.which("prlimit") is None:
        return False
    probe = ["bwrap", "--ro-bind", "/", "/", "--unshare-all", "--", "true"]
    return subprocess.run(probe, capture_output=True, check=False).returncode == 0


needs_bwrap = [
    pytest.mark.bwrap,
    pytest.mark.skipif(not bwrap_works(), reason="bubblewrap cannot run here"),
]
