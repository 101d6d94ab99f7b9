"""The warning ``m4bench run`` and ``m4bench campaign run`` print before an unisolated run."""

from __future__ import annotations

from m4bench.cli.common import make_console
from m4bench.runner.finish import not_isolated_reason
from m4bench.sandbox import BwrapSandbox, DockerSandbox, NoSandbox

_ISOLATES = {box.name: box.isolated for box in (BwrapSandbox, DockerSandbox, NoSandbox)}


def warn_if_unisolated(backend: str) -> bool:
    """Print, on stderr and before anything runs, what the backend leaves open; True
    when it warned (the backend isolates nothing)."""
    if _ISOLATES.get(backend, True):
        return False
    make_console(stderr=True).print(
        f"[yellow]warning:[/] --sandbox {backend} isolates nothing. Not isolated: the "
        "filesystem (the agent runs as you and can read the ground truth, the task "
        "catalog and your files), the network (any host, no egress log), other runs "
        "(their folders and records are open to it). Every run is recorded unpublishable "
        f"({not_isolated_reason(backend)}). Use it to debug an adapter, not for results.",
        highlight=False,
        soft_wrap=True,
    )
    return True
