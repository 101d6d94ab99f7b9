"""One ``m4bench setup`` of a source at a time; a second one waits for the first.

Provisioning writes under ``tasks/<source>/`` (ground truth, agent catalogs and the data
links beside them) and ``perturbed/<source>/``, replacing folders as it goes. Two setups
of one source used to race there; now the second waits (saying so) and then finds most
of the work done. Holding the lock, nobody else writes those folders, so temporary files
of interrupted atomic writes in them are orphans and are removed, and so are the scratch
databases of tie orders (``ground-truth/.ties-*``) a killed setup left.
"""

from __future__ import annotations

import contextlib
import fcntl
import shutil
from collections.abc import Iterator
from pathlib import Path

from m4bench.fileio import sweep_atomic_temps
from m4bench.home import DataHome
from m4bench.provision.layout import TIE_SCRATCH_PREFIX, ground_truth_dir, perturbed_root
from m4bench.sources.lock import Notify, to_stderr


def setup_lock_path(home: DataHome, source: str) -> Path:
    return home.tasks / f".{source}.lock"


@contextlib.contextmanager
def setup_lock(home: DataHome, source: str, notify: Notify | None = None) -> Iterator[None]:
    """Hold the provisioning lock of ``source`` (waiting for another holder to finish),
    after removing the orphaned temporary files of its folders."""
    tell = notify or to_stderr
    path = setup_lock_path(home, source)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a") as handle:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            tell(f"waiting for another m4bench setup of source {source!r} to finish")
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX)
        try:
            for folder in (home.tasks / source, perturbed_root(home, source)):
                swept = sweep_atomic_temps(folder) if folder.is_dir() else None
                if swept is not None and swept.files:
                    tell(swept.summary(str(folder)))
            _sweep_tie_scratch(ground_truth_dir(home, source), tell)
            yield
        finally:
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)


def _sweep_tie_scratch(folder: Path, tell: Notify) -> None:
    """Remove the scratch databases of tie orders a killed setup left in ``folder``."""
    scratch = sorted(folder.glob(f"{TIE_SCRATCH_PREFIX}*"))
    for leftover in scratch:
        shutil.rmtree(leftover, ignore_errors=True)
    if scratch:
        tell(f"removed {len(scratch)} scratch folders of tie orders left in {folder}")
