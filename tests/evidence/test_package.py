"""Packages carry no secret, identifier, timestamp or local path, and verify only intact."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import pytest
import zstandard
from evidence_helpers import TASK, Planted, build_campaign

from m4bench.errors import M4BenchError
from m4bench.evidence import PackageOptions, package_results, verify_package
from m4bench.evidence.archive import read_archive, write_archive
from m4bench.home import DataHome
from m4bench.tasks.catalog import load_catalog


@pytest.fixture
def campaign(tmp_path: Path) -> tuple[Path, Planted, DataHome]:
    home = DataHome(tmp_path / "home")
    results = tmp_path / "results"
    planted = build_campaign(results, home.root)
    return results, planted, home


def _package(tmp_path: Path, results: Path, home: DataHome, salt: bytes | None = None) -> Path:
    out = tmp_path / "pkg" / "evidence.tar.zst"
    package_results(results, out, PackageOptions(salt=salt, home=home))
    return out


def _members(path: Path) -> dict[str, bytes]:
    return read_archive(path)


def test_archive_holds_no_planted_secret_identifier_timestamp_or_path(
    tmp_path: Path, campaign: tuple[Path, Planted, DataHome]
) -> None:
    results, planted, home = campaign
    members = _members(_package(tmp_path, results, home, salt=b"0123456789abcdef-private"))
    raw = (
        zstandard.ZstdDecompressor()
        .stream_reader(io.BytesIO((tmp_path / "pkg" / "evidence.tar.zst").read_bytes()))
        .read()
    )
    for text in [raw.decode("latin-1"), *(m.decode("utf-8") for m in members.values())]:
        for value in [*planted.secrets, *planted.identifiers, *planted.timestamps, *planted.paths]:
            assert value not in text, value
        assert not re.search(r"\b2180-\d\d-\d\d", text)


def test_scores_only_output_keeps_row_ids_key_hashes_and_numeric_scores(
    tmp_path: Path, campaign: tuple[Path, Planted, DataHome]
) -> None:
    results, _, home = campaign
    members = _members(_package(tmp_path, results, home, salt=b"0123456789abcdef-private"))
    outputs = [name for name in members if name.endswith("output.csv")]
    assert len(outputs) == 2
    rows = list(csv.DictReader(io.StringIO(members[outputs[0]].decode())))
    scored = load_catalog().task(TASK).card.evaluation.scored_columns
    assert list(rows[0]) == ["row_id", "row_key_hash", *scored]
    assert [r["row_id"] for r in rows] == ["1", "2", "3"]
    assert len({r["row_key_hash"] for r in rows}) == 3
    assert [r["sofa"] for r in rows] == ["2", "3", "4"]


def test_key_hashes_depend_on_the_salt(
    tmp_path: Path, campaign: tuple[Path, Planted, DataHome]
) -> None:
    results, _, home = campaign

    def hashes(salt: bytes) -> list[str]:
        out = tmp_path / salt.decode() / "e.tar.zst"
        package_results(results, out, PackageOptions(salt=salt, home=home))
        member = next(v for k, v in _members(out).items() if k.endswith("output.csv"))
        return [r["row_key_hash"] for r in csv.DictReader(io.StringIO(member.decode()))]

    assert hashes(b"first-salt-0123456") != hashes(b"other-salt-0123456")


def test_report_audit_and_superseded_attempts(
    tmp_path: Path, campaign: tuple[Path, Planted, DataHome]
) -> None:
    results, _, home = campaign
    out = tmp_path / "e.tar.zst"
    result = package_results(results, out, PackageOptions(home=home))
    audit = result.audit
    assert (audit.runs, audit.expected_runs, audit.missing_runs) == (2, 3, 1)
    assert [a.attempt for a in audit.superseded_attempts] == [1]
    assert "[local-path]" in (audit.superseded_attempts[0].error or "") or "[redacted]" in (
        audit.superseded_attempts[0].error or ""
    )
    assert audit.retained_artifacts["output.csv"] == 2
    actions = {a.path.rsplit("/", 1)[-1]: a for a in result.report.files}
    assert "trace.jsonl" not in actions  # scores-only: rows may hide in it in any shape
    assert "subject_id" in actions["output.csv"].dropped_columns
    skipped = {s.source.rsplit("/", 1)[-1] for s in result.report.skipped}
    assert skipped == {"diff.parquet", "trace.jsonl"}
    assert not any(name.endswith("diff.parquet") for name in _members(out))


def test_same_results_give_byte_identical_packages(
    tmp_path: Path, campaign: tuple[Path, Planted, DataHome]
) -> None:
    results, _, home = campaign
    first = package_results(results, tmp_path / "a.tar.zst", PackageOptions(home=home))
    second = package_results(results, tmp_path / "b.tar.zst", PackageOptions(home=home))
    assert first.sha256 == second.sha256


def test_a_fresh_package_verifies(tmp_path: Path, campaign: tuple[Path, Planted, DataHome]) -> None:
    results, _, home = campaign
    report = verify_package(_package(tmp_path, results, home))
    assert report.passed, report.failures
    assert any("1 planned run has no result record" in w for w in report.warnings)


def test_tampering_with_any_packaged_file_fails_verification(
    tmp_path: Path, campaign: tuple[Path, Planted, DataHome]
) -> None:
    results, _, home = campaign
    original = _members(_package(tmp_path, results, home))
    for name in sorted(original):
        files = dict(original)
        files[name] = files[name].replace(b"1", b"2", 1) if b"1" in files[name] else b" "
        forged = tmp_path / "forged.tar.zst"
        write_archive(forged, files)
        report = verify_package(forged)
        assert not report.passed, name


def test_a_consistently_forged_manifest_still_fails_on_the_audit(
    tmp_path: Path, campaign: tuple[Path, Planted, DataHome]
) -> None:
    """Editing a record and re-hashing everything still contradicts the stated audit."""
    from m4bench.evidence.package import entries_of, manifest_bytes

    results, _, home = campaign
    files = _members(_package(tmp_path, results, home))
    record = next(name for name in files if name.endswith("result.json"))
    files[record] = files[record].replace(b'"publishable": true', b'"publishable": false')
    files["MANIFEST.json"] = manifest_bytes(entries_of(files))
    forged = tmp_path / "forged.tar.zst"
    write_archive(forged, files)
    report = verify_package(forged)
    assert any("publishable_failures" in f for f in report.failures)


def test_full_outputs_are_refused_for_a_source_not_marked_public(
    tmp_path: Path, campaign: tuple[Path, Planted, DataHome]
) -> None:
    results, _, home = campaign
    with pytest.raises(M4BenchError, match="not marked public"):
        package_results(results, tmp_path / "e.tar.zst", PackageOptions(outputs="full", home=home))
    assert not (tmp_path / "e.tar.zst").exists()


def test_package_inside_results_is_refused(
    campaign: tuple[Path, Planted, DataHome],
) -> None:
    results, _, home = campaign
    with pytest.raises(M4BenchError, match="inside the results directory"):
        package_results(results, results / "e.tar.zst", PackageOptions(home=home))
