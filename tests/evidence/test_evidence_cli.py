"""``m4bench evidence package`` and ``verify`` from the command line."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, NoReturn

import pytest
from evidence_helpers import build_campaign
from typer.testing import CliRunner

from m4bench.cli import app
from m4bench.cli import evidence as evidence_cli
from m4bench.errors import M4BenchError
from m4bench.evidence import PackageOptions, package_results


def test_package_then_verify_then_tamper(tmp_path: Path) -> None:
    results, home = tmp_path / "results", tmp_path / "home"
    build_campaign(results, home)
    salt = tmp_path / "salt.key"
    salt.write_bytes(b"a-private-salt-of-enough-bytes")
    out = tmp_path / "out" / "e.tar.zst"
    runner = CliRunner()
    made = runner.invoke(
        app, ["evidence", "package", str(results), "--out", str(out), "--salt-file", str(salt),
              "--home", str(home)],
    )  # fmt: skip
    assert made.exit_code == 0, made.output
    assert "runs 2/3 (missing 1)" in made.output
    assert (tmp_path / "out" / "e.tar.zst.sha256").exists()

    ok = runner.invoke(app, ["evidence", "verify", str(out)])
    assert ok.exit_code == 0 and "verified" in ok.output
    strict = runner.invoke(app, ["evidence", "verify", str(out), "--strict"])
    assert strict.exit_code == 1
    assert "FAIL: 1 planned run has no result record" in strict.output
    assert "warning: 1 planned run" not in strict.output

    data = bytearray(out.read_bytes())
    data[-5] ^= 0xFF
    out.write_bytes(bytes(data))
    bad = runner.invoke(app, ["evidence", "verify", str(out)])
    assert bad.exit_code == 1 and "NOT verified" in bad.output


def test_verify_fails_a_file_that_is_not_a_package(tmp_path: Path) -> None:
    runner = CliRunner()
    junk = tmp_path / "junk.tar.zst"
    junk.write_bytes(bytes(range(256)) * 8)
    failed = runner.invoke(app, ["evidence", "verify", str(junk)], env={"COLUMNS": "200"})
    assert failed.exit_code == 1
    assert "FAIL:" in failed.output and "NOT verified" in failed.output
    missing = runner.invoke(app, ["evidence", "verify", str(tmp_path / "none.tar.zst")])
    assert missing.exit_code == 2


def test_a_missing_salt_file_says_how_to_make_one(tmp_path: Path) -> None:
    results = tmp_path / "results"
    build_campaign(results, tmp_path / "home")
    salt = tmp_path / "salt.key"
    result = CliRunner().invoke(
        app, ["evidence", "package", str(results), "--out", str(tmp_path / "e.tar.zst"),
              "--salt-file", str(salt)], env={"COLUMNS": "300"},
    )  # fmt: skip
    assert isinstance(result.exception, M4BenchError)
    assert f"head -c 32 /dev/urandom > {salt}" in (result.exception.hint or "")


def test_a_short_salt_is_refused(tmp_path: Path) -> None:
    results = tmp_path / "results"
    build_campaign(results, tmp_path / "home")
    salt = tmp_path / "salt.key"
    salt.write_bytes(b"short")
    result = CliRunner().invoke(
        app, ["evidence", "package", str(results), "--out", str(tmp_path / "e.tar.zst"),
              "--salt-file", str(salt)],
    )  # fmt: skip
    assert result.exit_code != 0
    assert not (tmp_path / "e.tar.zst").exists()


def test_audit_command_reports_missing_runs(tmp_path: Path) -> None:
    import json

    results = tmp_path / "results"
    build_campaign(results, tmp_path / "home")
    shown = CliRunner().invoke(app, ["evidence", "audit", str(results), "--json"])
    assert shown.exit_code == 1
    audit = json.loads(shown.output)
    assert (audit["runs"], audit["expected_runs"], audit["missing_runs"]) == (2, 3, 1)
    assert [a["attempt"] for a in audit["superseded_attempts"]] == [1]


def test_runs_scored_against_two_truths_are_an_audit_problem_that_survives_packaging(
    tmp_path: Path,
) -> None:
    import json

    results, home = tmp_path / "results", tmp_path / "home"
    build_campaign(results, home)
    for index, path in enumerate(sorted((results / "runs").glob("*/result.json"))):
        record = json.loads(path.read_text(encoding="utf-8"))
        sha = "ab" * 32 if index == 0 else "cd" * 32
        record["ground_truth"] = {"key": "k", "sha256": sha, "rows": 3, "source_fingerprint": "f"}
        path.write_text(json.dumps(record), encoding="utf-8")
    runner = CliRunner()
    shown = runner.invoke(app, ["evidence", "audit", str(results)], env={"COLUMNS": "200"})
    assert shown.exit_code == 1
    assert "1 task has runs scored against different ground truths" in shown.output
    audit = json.loads(runner.invoke(app, ["evidence", "audit", str(results), "--json"]).output)
    assert audit["mixed_truth_tasks"] == 1

    salt = tmp_path / "salt.key"
    salt.write_bytes(b"a-private-salt-of-enough-bytes")
    out = tmp_path / "e.tar.zst"
    made = runner.invoke(
        app, ["evidence", "package", str(results), "--out", str(out), "--salt-file", str(salt),
              "--home", str(home)],
    )  # fmt: skip
    assert made.exit_code == 0, made.output
    # The sanitized records keep the truths' hashes: verification recomputes the same audit.
    verified = runner.invoke(app, ["evidence", "verify", str(out)], env={"COLUMNS": "200"})
    assert verified.exit_code == 0 and "verified" in verified.output
    assert "different ground truths" in verified.output


def _package_with_out(tmp_path: Path, out: Path) -> Any:
    results = tmp_path / "results"
    build_campaign(results, tmp_path / "home")
    return CliRunner().invoke(
        app, ["evidence", "package", str(results), "--out", str(out), "--home",
              str(tmp_path / "home")], env={"COLUMNS": "300"},
    )  # fmt: skip


def test_an_out_that_is_a_folder_is_refused_before_any_work(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def must_not_run(*_args: object, **_kwargs: object) -> NoReturn:
        raise AssertionError("the results were read before --out was checked")

    monkeypatch.setattr(evidence_cli, "result_records", must_not_run)
    monkeypatch.setattr(evidence_cli, "package_results", must_not_run)
    out = tmp_path / "dd.tar.zst"
    out.mkdir()
    result = _package_with_out(tmp_path, out)
    assert isinstance(result.exception, M4BenchError), result.output
    assert (
        result.exception.message == f"{out}: is a folder, where the package file is to be written"
    )
    assert list(out.iterdir()) == []


def test_an_out_below_a_file_is_refused_naming_the_file(tmp_path: Path) -> None:
    blocker = tmp_path / "f"
    blocker.write_text("a file, not a folder")
    result = _package_with_out(tmp_path, blocker / "x.tar.zst")
    assert isinstance(result.exception, M4BenchError), result.output
    assert result.exception.message.startswith(f"{blocker}: is a file, where a folder is needed")
    assert blocker.read_text() == "a file, not a folder"


def test_package_results_refuses_a_folder_out_and_leaves_no_staging(tmp_path: Path) -> None:
    results = tmp_path / "results"
    build_campaign(results, tmp_path / "home")
    out = tmp_path / "out" / "dd.tar.zst"
    out.mkdir(parents=True)
    with pytest.raises(M4BenchError, match="is a folder"):
        package_results(results, out, PackageOptions(home=tmp_path / "home"))
    assert [p.name for p in out.parent.iterdir()] == ["dd.tar.zst"]


def test_an_out_in_a_folder_without_write_permission_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "ro"
    folder.mkdir()
    real_access = os.access
    monkeypatch.setattr(
        "m4bench.evidence.package.os.access",
        lambda path, mode: False if Path(path) == folder else real_access(path, mode),
    )
    result = _package_with_out(tmp_path, folder / "sub" / "e.tar.zst")
    assert isinstance(result.exception, M4BenchError), result.output
    assert result.exception.message.startswith(f"{folder}: permission denied")
    assert list(folder.iterdir()) == []


def test_verify_fails_a_checksum_file_that_is_not_text(tmp_path: Path) -> None:
    out = tmp_path / "e.tar.zst"
    assert _package_with_out(tmp_path, out).exit_code == 0
    (tmp_path / "e.tar.zst.sha256").write_bytes(b"\x89PNG\r\n\x1a\n")
    failed = CliRunner().invoke(app, ["evidence", "verify", str(out)], env={"COLUMNS": "300"})
    assert failed.exit_code == 1, failed.output
    assert f"FAIL: {out}.sha256: not UTF-8 text (byte 0x89 at offset 0)" in failed.output
    assert "NOT verified" in failed.output
