"""Atomic writes and validated record reads."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from pydantic import BaseModel

from m4bench.errors import M4BenchError
from m4bench.fileio import atomic_path, read_model, read_toml_model, sha256_file, write_model


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
