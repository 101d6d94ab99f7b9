from __future__ import annotations

import json
import math
import re
import subprocess
import sys
from pathlib import Path

import pytest
from analysis_campaign import grid, write_runs_csv
from typer.testing import CliRunner

from m4bench.analysis import AnalysisSettings, analyze
from m4bench.analysis.figures import FIGURE_NAMES
from m4bench.analysis.tables import Table, to_latex, to_markdown
from m4bench.cli import app
from m4bench.errors import M4BenchError

FAST = ["--reps", "300", "--permutation-reps", "300"]


@pytest.fixture(scope="module")
def paper_out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("paper")
    analyze("paper-release-v1", out, AnalysisSettings(reps=1_000, permutation_reps=1_000))
    return out


def test_every_table_in_three_formats_and_every_figure_in_two(paper_out: Path) -> None:
    names = {path.stem for path in (paper_out / "tables").iterdir()}
    assert {
        "headline",
        "by_mode",
        "cluster_sensitivity",
        "largest_gains",
        "largest_declines",
        "secondary_by_task",
        "key_diagnostics",
        "matched_controls",
        "schema_robustness",
        "strict_passes",
        "resources",
        "per_task",
        "cells",
        "integrity",
        "by_group",
    } <= names
    for name in names:
        for suffix in ("csv", "md", "tex"):
            assert (paper_out / "tables" / f"{name}.{suffix}").stat().st_size > 0
    for figure in FIGURE_NAMES:
        assert (paper_out / "figures" / f"{figure}.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert b"<svg" in (paper_out / "figures" / f"{figure}.svg").read_bytes()[:2000]


def test_report_is_self_contained(paper_out: Path) -> None:
    page = (paper_out / "report.html").read_text(encoding="utf-8")
    # forest, arms overlaid, skill slopes, heatmap; the schema probe has no runs to draw
    assert page.count('src="data:image/png;base64,') == 4
    assert "schema probe slopes</b>: nothing to draw; needs: &#x27;no-skill&#x27; runs" in page
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", page)
    assert "0.703 → 0.839" in page  # a headline sentence computed from the data
    assert page.count('<details class="task"') == 28


def test_outputs_are_byte_identical_across_runs(paper_out: Path, tmp_path: Path) -> None:
    analyze("paper-release-v1", tmp_path, AnalysisSettings(reps=1_000, permutation_reps=1_000))
    first = sorted(p.relative_to(paper_out) for p in paper_out.rglob("*") if p.is_file())
    second = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*") if p.is_file())
    assert first == second
    for rel in first:
        assert (paper_out / rel).read_bytes() == (tmp_path / rel).read_bytes(), rel


def test_cli_json_prints_headline_estimands(tmp_path: Path) -> None:
    csv_path = write_runs_csv(tmp_path / "runs.csv", grid())
    result = CliRunner().invoke(
        app, ["analyze", str(csv_path), "--out", str(tmp_path / "out"), "--json", *FAST]
    )
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)
    rows = {(e["metric"], e["scope"]): e for e in document["headline"]}
    balanced = rows[("reward", "task-balanced")]
    assert balanced["delta"] == pytest.approx(0.12)
    assert (balanced["improved"], balanced["total"]) == (4, 5)
    assert {"baseline", "treatment", "ci_low", "ci_high"} <= balanced.keys()
    assert ("reward", "model-a") in rows and ("reward", "model-b") in rows
    assert (tmp_path / "out" / "report.html").exists()


def test_report_sentences_follow_the_data(tmp_path: Path) -> None:
    csv_path = write_runs_csv(tmp_path / "runs.csv", grid())
    analyze(csv_path, tmp_path / "out", AnalysisSettings(reps=300, permutation_reps=300))
    page = (tmp_path / "out" / "report.html").read_text(encoding="utf-8")
    # levels 0.55 -> 0.67 and 4 of 5 improved are this campaign's, not the paper's
    assert "mean reward 0.550 → 0.670, delta +0.120" in page
    assert "4 of 5 tasks improved" in page
    assert (
        "The largest per-task gain is mimic-sofa-24h-raw (+0.300); "
        "the largest decline is mimic-kdigo-48h (-0.050)." in page
    )
    assert "0.703" not in page and "paper-release-v1" not in page
    assert "60 of 60 loaded runs" in page


def test_report_says_when_no_task_changed(tmp_path: Path) -> None:
    csv_path = write_runs_csv(
        tmp_path / "runs.csv", grid(conditions=("no-skill", "with-skill-decoy"))
    )
    settings = AnalysisSettings(treatment="with-skill-decoy", reps=300, permutation_reps=300)
    analyze(csv_path, tmp_path / "out", settings)
    page = (tmp_path / "out" / "report.html").read_text(encoding="utf-8")
    assert "No task&#x27;s model-averaged reward changed." in page or (
        "No task's model-averaged reward changed." in page
    )
    assert "largest per-task gain" not in page


def test_one_trial_per_cell_draws_every_figure_without_a_within_task_interval(
    tmp_path: Path,
) -> None:
    """One trial per cell: the per-task interval is unknown (no trial to resample), the
    forest plot draws points without bars, and the report says so with a dash."""
    csv_path = write_runs_csv(tmp_path / "runs.csv", [r for r in grid() if r.identity.trial == 1])
    result = analyze(csv_path, tmp_path / "out", AnalysisSettings(reps=300, permutation_reps=300))
    assert result.task_intervals and all(
        math.isnan(item.ci_low) and math.isnan(item.ci_high) for item in result.task_intervals
    )
    assert (tmp_path / "out" / "figures" / "forest_task_deltas.svg").stat().st_size > 0
    page = (tmp_path / "out" / "report.html").read_text(encoding="utf-8")
    assert "within-task trial bootstrap interval [–, –]" in page


def test_baseline_equal_to_treatment_is_refused(tmp_path: Path) -> None:
    csv_path = write_runs_csv(tmp_path / "runs.csv", grid())
    same = AnalysisSettings(baseline="with-skill", treatment="with-skill", reps=300)
    with pytest.raises(M4BenchError, match="both 'with-skill'"):
        analyze(csv_path, tmp_path / "out", same)
    assert not (tmp_path / "out").exists()


def test_integrity_caption_follows_include_unpublishable(tmp_path: Path) -> None:
    csv_path = write_runs_csv(tmp_path / "runs.csv", grid())
    fast = {"reps": 300, "permutation_reps": 300}
    default = analyze(csv_path, tmp_path / "a", AnalysisSettings(**fast))
    included = analyze(
        csv_path, tmp_path / "b", AnalysisSettings(include_unpublishable=True, **fast)
    )
    assert "excluded from the estimands" in default.table("integrity").caption
    assert "included in the estimands" in included.table("integrity").caption


def test_cli_bad_source_exits_2_with_a_hint(tmp_path: Path) -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "m4bench",
            "analyze",
            str(tmp_path / "nope.csv"),
            "--out",
            str(tmp_path / "out"),
            *FAST,
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 2
    assert "nope.csv" in done.stderr and "hint" in done.stderr
    # The progress bar started before the input failed leaves no stale line behind.
    assert "analysis" not in done.stderr


def test_out_must_be_a_directory(tmp_path: Path) -> None:
    target = tmp_path / "taken"
    target.write_text("keep me", encoding="utf-8")
    with pytest.raises(M4BenchError, match="not a directory"):
        analyze("paper-release-v1", target, AnalysisSettings(reps=100, permutation_reps=100))
    assert target.read_text(encoding="utf-8") == "keep me"


def test_writers_escape_their_syntax() -> None:
    table = Table(
        name="t",
        title="T",
        caption="100% of a_b",
        columns=["a_b", "x|y"],
        rows=[["p_q & r", 0.12345], [None, 3]],
    )
    latex = to_latex(table)
    assert r"p\_q \& r & 0.123 \\" in latex and r"100\% of a\_b" in latex
    markdown = to_markdown(table)
    assert "| a_b | x\\|y |" in markdown and "| – | 3 |" in markdown
