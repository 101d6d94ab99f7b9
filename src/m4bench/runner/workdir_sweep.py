"""What an attempt leaves behind: the workdir and the raw logs, removed when it ends.

An attempt is finished when its ``logs/`` folder is gone: :func:`discard_attempt_files`
removes it (with the raw, unredacted stdout and stderr) at the end of every attempt
the harness finishes, and the workdir unless it was asked to keep it. An attempt the
harness did not finish (killed, interrupted, crashed) keeps both; the next attempt of
the run sweeps them (:func:`sweep_unfinished_attempts`), so a campaign resumed after a
crash leaves no agent workdir and no unredacted log behind. An earlier attempt whose
harness process still lives on this host (``logs/harness.pid``) is left alone.
"""

from __future__ import annotations

import os
import socket

from m4bench.fileio import make_private
from m4bench.runner.workdir import RunPaths
from m4bench.runner.workdir_files import remove_tree

PID_FILE = "harness.pid"


def discard_attempt_files(paths: RunPaths, keep_workdir: bool) -> None:
    """End of an attempt: remove its raw logs and, unless kept, its workdir."""
    if not keep_workdir:
        remove_tree(paths.workdir)
    remove_tree(paths.logs)


def sweep_unfinished_attempts(paths: RunPaths) -> list[int]:
    """Remove the workdirs and raw logs of the run's earlier attempts that never
    finished; make this attempt's folder private (0700). Returns the attempts swept."""
    make_private(paths.attempt_dir)
    (paths.logs / PID_FILE).write_text(_me(), encoding="utf-8")
    swept = []
    for number in paths.folder.attempt_numbers():
        earlier = RunPaths(paths.run_dir, number)
        if number == paths.attempt or not earlier.logs.exists() or _running(earlier):
            continue
        remove_tree(earlier.workdir)
        remove_tree(earlier.logs)
        swept.append(number)
    return swept


def _me() -> str:
    return f"{socket.gethostname()} {os.getpid()}"


def _running(paths: RunPaths) -> bool:
    """Whether the attempt's harness process is alive on this host (not this process)."""
    try:
        host, pid = (paths.logs / PID_FILE).read_text(encoding="utf-8").split()
        number = int(pid)
    except (OSError, ValueError):
        return False
    if host != socket.gethostname() or number == os.getpid():
        return False
    try:
        os.kill(number, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True
    return True
