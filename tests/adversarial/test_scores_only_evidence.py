"""A scores-only evidence package carries no data row in any shape: not as a table, not
as JSON lines, not in a sentence; what it dropped, its sanitization report says."""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest
from console_entry import run_main
from hostile_runs import SOURCE, TASK, shared_home
from profile_text import local_profile
from synthetic_sources import SyntheticSources

from m4bench.evidence import PackageOptions, package_results
from m4bench.evidence.archive import read_archive
from m4bench.provision.ground_truth import ground_truth_path
from m4bench.sql import quote_literal
from m4bench.tasks.catalog import Catalog

pytestmark = pytest.mark.adversarial

PROFILE = local_profile("leaky", [TASK], agents=["replay"])


def _leaky_script(rows: list[tuple[int, int]]) -> str:
    """An agent printing truth rows as JSON lines and in prose, then an answer."""
    lines = ["import json", "print('stay_id,meld')"]
    for stay, value in rows:
        lines.append(f"print(json.dumps({{'stay_id': {stay}, 'meld': {value}}}))")
        lines.append(f"print('Stay {stay} has a MELD score of {value}, checked by hand.')")
    lines.append("open('output.csv', 'w').write('stay_id,meld\\n1,2\\n')")
    return "\n".join(lines) + "\n"


def test_truth_rows_in_json_lines_and_prose_never_reach_a_scores_only_package(
    tmp_path_factory: pytest.TempPathFactory,
    synthetic_sources: SyntheticSources,
    catalog: Catalog,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    home = shared_home(tmp_path_factory, synthetic_sources)
    truth = ground_truth_path(home, SOURCE, catalog.task(TASK))
    with duckdb.connect() as con:
        query = f"SELECT stay_id, meld FROM read_parquet({quote_literal(str(truth))}) LIMIT 5"
        rows = [(int(s), int(m)) for s, m in con.execute(query).fetchall() if m is not None]
    assert rows
    script = tmp_path / "leaky.py"
    script.write_text(_leaky_script(rows), encoding="utf-8")
    profile = tmp_path / "leaky.toml"
    profile.write_text(PROFILE, encoding="utf-8")
    results = tmp_path / "results"
    args = ["campaign", "run", str(profile), "--results", str(results), "--no-progress"]
    args += ["--sandbox", "none", "--source", f"mimic-iv={SOURCE}", "--home", str(home.root)]
    ran = run_main([*args, "--replay", str(script)], monkeypatch, capsys)
    assert ran.code == 0, ran.err + ran.out
    (kept,) = results.rglob("trace.jsonl")
    assert f'"stay_id": {rows[0][0]}' in kept.read_text(encoding="utf-8")  # the leak is real
    out = tmp_path / "evidence.tar.zst"
    result = package_results(results, out, PackageOptions(outputs="scores-only", home=home))
    members = read_archive(out)
    assert not any(name.endswith("trace.jsonl") for name in members)
    text = "\n".join(data.decode("utf-8", errors="replace") for data in members.values())
    for stay, _ in rows:
        assert str(stay) not in text, stay
    assert "MELD score of" not in text
    skipped = {Path(s.source).name: s.reason for s in result.report.skipped}
    assert "any shape" in skipped["trace.jsonl"]
    report = json.loads(members["SANITIZATION_REPORT.json"])
    assert any(Path(s["source"]).name == "trace.jsonl" for s in report["skipped"])
