"""The per-name write lock of a source and the sweep of orphaned temporary files."""

from __future__ import annotations

import fcntl
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from m4bench.errors import M4BenchError
from m4bench.home import DataHome
from m4bench.sources import lock as lock_module
from m4bench.sources.ingest import ingest_dataset
from m4bench.sources.layout import SourceLayout
from m4bench.sources.lock import lock_path, source_lock

_KILLED_WRITER = """
import os, signal, sys
from pathlib import Path
from m4bench.fileio import atomic_path
with atomic_path(Path(sys.argv[1])) as tmp:
    tmp.write_bytes(b"x" * int(sys.argv[2]))
    os.kill(os.getpid(), signal.SIGKILL)
"""


def kill_mid_write(target: Path, size: int = 1000) -> Path:
    """Start an atomic write of ``target`` in a process SIGKILLed before its rename; the
    temporary file it leaves."""
    before = set(target.parent.iterdir())
    done = subprocess.run([sys.executable, "-c", _KILLED_WRITER, str(target), str(size)])
    assert done.returncode == -signal.SIGKILL
    (left,) = set(target.parent.iterdir()) - before - {target}
    return left


def test_the_lock_is_beside_the_source_exists_before_it_and_leaves_with_its_holder(
    home: DataHome,
) -> None:
    layout = SourceLayout(home.source_dir("s1"))
    with source_lock(layout):
        assert lock_path(layout) == home.sources / ".s1.lock"
        assert lock_path(layout).is_file()
        assert not layout.root.exists()  # a synthetic build renames its staging folder here
        with (
            pytest.raises(M4BenchError, match="'s1' is being written by another m4bench"),
            source_lock(layout),
        ):
            pass
        with source_lock(SourceLayout(home.source_dir("s2"))):  # other names are free
            pass
    assert list(home.sources.iterdir()) == []
    with source_lock(layout):
        pass


def test_a_lock_file_replaced_while_it_is_being_taken_is_not_trusted(
    home: DataHome, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Between our open and our flock, the holder lets go (removing the file) and a third
    writer creates and locks a new one: we must not believe we hold the lock too."""
    layout = SourceLayout(home.source_dir("s1"))
    path = lock_path(layout)
    path.parent.mkdir(parents=True)
    path.touch()
    real_flock = fcntl.flock
    newcomer = []

    def flock(fd: int, operation: int) -> None:
        if not newcomer and operation & fcntl.LOCK_EX:
            path.unlink()
            handle = path.open("a")
            real_flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            newcomer.append(handle)
        real_flock(fd, operation)

    monkeypatch.setattr(lock_module.fcntl, "flock", flock)
    try:
        with pytest.raises(M4BenchError, match="being written by another"), source_lock(layout):
            pass
    finally:
        newcomer[0].close()


def test_a_writer_holding_the_lock_of_older_versions_keeps_ingest_out(
    home: DataHome, eicu_tree: Path
) -> None:
    ingest_dataset(home, "eicu", eicu_tree, name="e", tables=["patient"])
    legacy = home.source_dir("e") / ".lock"
    with legacy.open("a") as handle:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        with pytest.raises(M4BenchError, match="being written by another"):
            ingest_dataset(home, "eicu", eicu_tree, name="e", tables=["lab"])
    report = ingest_dataset(home, "eicu", eicu_tree, name="e", tables=["lab"])
    assert report.tables[0].status == "ingested"


def test_the_next_writer_removes_what_killed_writes_left_and_says_so(
    home: DataHome, eicu_tree: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    report = ingest_dataset(home, "eicu", eicu_tree, name="e", tables=["patient"])
    layout = report.source.layout
    table = layout.table_path("eicu_crd", "patient")
    kept = {p: p.read_bytes() for p in layout.root.rglob("*") if p.is_file()}
    orphans = [
        kill_mid_write(table, 4000),
        kill_mid_write(table, 3000),  # every crash adds one
        kill_mid_write(layout.root / "concepts.json", 500),
        kill_mid_write(layout.catalog_path, 100),
    ]
    wal = orphans[-1].with_name(orphans[-1].name + ".wal")
    wal.write_bytes(b"w" * 400)
    capsys.readouterr()
    # a second crash-free writer of the same source
    again = ingest_dataset(home, "eicu", eicu_tree, name="e", tables=["patient"])
    assert again.tables[0].status == "skipped"
    assert not any(p.exists() for p in [*orphans, wal])
    assert {p: p.read_bytes() for p in layout.root.rglob("*") if p.is_file()} == kept
    lines = capsys.readouterr().err.splitlines()
    assert lines == [
        f"removed 5 temporary files (8.0 kB) left by an interrupted write in source 'e' "
        f"({layout.root})"
    ]
    ingest_dataset(home, "eicu", eicu_tree, name="e", tables=["patient"])
    assert capsys.readouterr().err == ""  # nothing removed, nothing said
