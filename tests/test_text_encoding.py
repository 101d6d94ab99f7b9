"""A file that is not UTF-8 text is a user error naming the file, the first bad byte and
its offset, read through ``m4bench.fileio`` by every command (no UnicodeDecodeError)."""

from __future__ import annotations

from pathlib import Path

import pytest
from console_entry import m4bench
from pydantic import BaseModel
from typer.testing import CliRunner

from m4bench.cli import app
from m4bench.errors import M4BenchError
from m4bench.fileio import read_model, read_toml_model, read_user_text
from m4bench.runner.builtin_agents import replay_adapter

BINARY = b"\xff\xfe\x00binary\x89PNG"


class Record(BaseModel):
    name: str


def test_utf8_text_is_read_as_is(tmp_path: Path) -> None:
    path = tmp_path / "q.sql"
    path.write_bytes("SELECT 'café'\n".encode())
    assert read_user_text(path) == "SELECT 'café'\n"


def test_newlines_are_read_as_read_text_reads_them(tmp_path: Path) -> None:
    path = tmp_path / "windows.toml"
    path.write_bytes(b"a = 1\r\nb = 2\rc = 3\n")
    assert read_user_text(path) == path.read_text(encoding="utf-8") == "a = 1\nb = 2\nc = 3\n"


def test_text_that_is_not_utf8_names_the_byte_and_its_offset(tmp_path: Path) -> None:
    path = tmp_path / "latin1.sql"
    path.write_bytes("SELECT 'café'".encode("latin-1"))
    with pytest.raises(M4BenchError) as info:
        read_user_text(path)
    assert info.value.message == f"{path}: not UTF-8 text (byte 0xe9 at offset 11)"
    assert info.value.hint is not None and "UTF-8" in info.value.hint


def test_a_missing_file_is_still_file_not_found(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        read_user_text(tmp_path / "none.sql")


def test_a_binary_json_record_is_a_damaged_record(tmp_path: Path) -> None:
    path = tmp_path / "record.json"
    path.write_bytes(BINARY)
    with pytest.raises(M4BenchError) as info:
        read_model(path, Record)
    assert info.value.message == f"{path}: not UTF-8 text (byte 0xff at offset 0)"
    assert info.value.hint is not None and "damaged" in info.value.hint


def test_a_binary_toml_file_is_refused_and_a_missing_one_is_still_none(tmp_path: Path) -> None:
    path = tmp_path / "mutants.toml"
    path.write_bytes(b"[a]\nname = 'x'\n" + BINARY)
    with pytest.raises(
        M4BenchError, match=r"mutants.toml: not UTF-8 text \(byte 0xff at offset 15\)"
    ):
        read_toml_model(path, Record, "docs/validity.md")
    assert read_toml_model(tmp_path / "none.toml", Record, "docs/validity.md") is None


def test_data_list_shows_a_binary_manifest_as_damaged(tmp_path: Path) -> None:
    for name, content in (("binary", BINARY), ("broken", b"{not json")):
        (tmp_path / "sources" / name).mkdir(parents=True)
        (tmp_path / "sources" / name / "source.json").write_bytes(content)
    shown = CliRunner().invoke(
        app, ["data", "list", "--home", str(tmp_path)], env={"COLUMNS": "400"}
    )
    assert shown.exit_code == 0, shown.output
    rows = {line.split("│")[1].strip(): line for line in shown.output.splitlines() if "│" in line}
    assert "damaged" in rows["binary"] and "damaged" in rows["broken"]
    assert "not UTF-8 text (byte 0xff at offset 0)" in rows["binary"]


def test_campaign_status_of_a_binary_manifest_exits_2(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    manifest = tmp_path / "campaign.json"
    manifest.write_bytes(BINARY)
    code, err = m4bench(["campaign", "status", str(tmp_path)], monkeypatch, capsys)
    assert code == 2
    assert err.startswith(f"error: {manifest}: not UTF-8 text (byte 0xff at offset 0) hint:")


def test_a_binary_campaign_profile_or_replay_file_is_named(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    profile = tmp_path / "binary.toml"
    profile.write_bytes(BINARY)
    code, err = m4bench(["campaign", "plan", str(profile)], monkeypatch, capsys)
    assert code == 2 and err.startswith(f"error: {profile}: not UTF-8 text"), err
    replay = tmp_path / "binary.sql"
    replay.write_bytes(BINARY)
    with pytest.raises(M4BenchError, match="not UTF-8 text"):
        replay_adapter(replay, None)  # what `m4bench run --agent replay` checks up front
