"""Atomic writes and validated record reads."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import BaseModel

from m4bench.errors import M4BenchError
from m4bench.fileio import (
    atomic_path,
    is_atomic_temp,
    read_model,
    read_toml_model,
    sha256_file,
    sweep_atomic_temps,
    write_model,
)


class Probe(BaseModel):
    a: int = 0


class Record(BaseModel):
    name: str
    count: int


def test_atomic_path_keeps_old_file_when_writer_fails(tmp_path: Path) -> None:
    target = tmp_path / "out.txt"
    target.write_text("old")
    with pytest.raises(RuntimeError), atomic_path(target) as tmp:
        tmp.write_text("half")
        raise RuntimeError("crash")
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["out.txt"]


def test_write_then_read_model_round_trips(tmp_path: Path) -> None:
    target = tmp_path / "r.json"
    write_model(target, Record(name="a", count=3))
    assert read_model(target, Record) == Record(name="a", count=3)
    # canonical: sorted keys, stable bytes
    assert target.read_text() == '{\n  "count": 3,\n  "name": "a"\n}\n'


def test_read_model_names_file_and_field(tmp_path: Path) -> None:
    target = tmp_path / "bad.json"
    target.write_text('{"name": "a", "count": "many"}')
    with pytest.raises(M4BenchError) as info:
        read_model(target, Record)
    assert "bad.json" in str(info.value)
    assert "count" in str(info.value)


def test_sha256_file_matches_known_digest(tmp_path: Path) -> None:
    target = tmp_path / "f"
    target.write_bytes(b"abc")
    assert sha256_file(target) == (
        "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
    )


@pytest.mark.parametrize(
    ("text", "line"),
    [('a = 1\nb = "x\n', 2), ("a = 1\n\nb = 2\nc = [\n", 4), ("a = 1\nb = 2\nx = \n\n", 3)],
)
def test_toml_errors_name_the_line_also_at_the_end_of_the_file(
    tmp_path: Path, text: str, line: int
) -> None:
    path = tmp_path / "card.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(M4BenchError, match=rf"^{re.escape(str(path))}:{line}: not valid TOML"):
        read_toml_model(path, Probe, "docs/x.md")


_KILLED_WRITER = """
import os, signal, sys
from pathlib import Path
from m4bench.fileio import atomic_path
with atomic_path(Path(sys.argv[1])) as tmp:
    tmp.write_bytes(b"x" * 5000)
    os.kill(os.getpid(), signal.SIGKILL)
"""


def test_a_killed_atomic_write_leaves_a_temp_file_the_sweep_removes(tmp_path: Path) -> None:
    target = tmp_path / "parquet" / "mimiciv_derived" / "urine_output_rate.parquet"
    target.parent.mkdir(parents=True)
    target.write_bytes(b"old")
    done = subprocess.run([sys.executable, "-c", _KILLED_WRITER, str(target)], check=False)
    assert done.returncode == -signal.SIGKILL
    (orphan,) = [p for p in target.parent.iterdir() if p != target]
    assert orphan.name.startswith(".urine_output_rate.parquet.")
    assert is_atomic_temp(orphan.name)
    swept = sweep_atomic_temps(tmp_path)
    assert swept.files == (orphan,)
    assert swept.bytes == 5000
    assert sorted(tmp_path.rglob("*")) == [target.parent.parent, target.parent, target]
    assert target.read_bytes() == b"old"
    assert swept.summary("source 's1'") == (
        "removed 1 temporary file (5.0 kB) left by an interrupted write in source 's1'"
    )
    assert sweep_atomic_temps(tmp_path).files == ()
    assert "(3.2 GB)" in type(swept)(swept.files * 2, 3_200_000_000).summary("x")
    assert "(12 bytes)" in type(swept)(swept.files * 2, 12).summary("x")


def test_the_sweep_removes_only_files_named_as_atomic_writes_name_them(tmp_path: Path) -> None:
    orphans = [
        tmp_path / ".concepts.json.z16gpsf2.tmp",
        tmp_path / ".catalog.duckdb.q1w_e3r4.tmp",
        tmp_path / ".catalog.duckdb.q1w_e3r4.tmp.wal",  # DuckDB's log beside a temp database
        tmp_path / "parquet" / "mimiciv_icu" / ".chartevents.parquet.ab12cd34.tmp",
    ]
    kept = [
        tmp_path / "source.json",
        tmp_path / ".lock",
        tmp_path / "notes.tmp",
        tmp_path / ".chartevents.parquet.tmp",  # no random part: not an atomic_path name
        tmp_path / ".chartevents.parquet.AB12CD34.tmp",  # mkstemp never uses upper case
        tmp_path / ".x.abc.tmp",  # too short a random part
        tmp_path / ".x.ab12cd34.tmp.bak",
        tmp_path / "x.ab12cd34.tmp",  # no leading dot
        tmp_path / "parquet" / "mimiciv_icu" / "chartevents.parquet",
    ]
    for path in orphans + kept:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"12345")
    folder = tmp_path / ".folder.ab12cd34.tmp"  # a directory is never removed
    folder.mkdir()
    outside = tmp_path.parent / f"{tmp_path.name}-outside.txt"
    outside.write_text("keep")
    link = tmp_path / ".link.ab12cd34.tmp"
    link.symlink_to(outside)
    swept = sweep_atomic_temps(tmp_path)
    assert swept.files == tuple(sorted(orphans))
    assert swept.bytes == 5 * len(orphans)
    assert all(path.exists() for path in kept) and not any(p.exists() for p in orphans)
    assert folder.is_dir() and link.is_symlink() and outside.read_text() == "keep"
    assert sweep_atomic_temps(tmp_path / "no-such-folder").files == ()


def test_atomic_path_names_its_temp_files_as_the_sweep_expects(tmp_path: Path) -> None:
    names = set()
    for _ in range(50):
        with atomic_path(tmp_path / "catalog.duckdb") as tmp:
            names.add(tmp.name)
            assert is_atomic_temp(tmp.name) and is_atomic_temp(tmp.name + ".wal")
    assert len(names) == 50
    assert os.listdir(tmp_path) == ["catalog.duckdb"]
