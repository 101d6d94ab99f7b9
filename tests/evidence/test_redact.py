"""Redaction rules one by one, and what they must leave alone."""

from __future__ import annotations

from m4bench.evidence.outputs import is_sensitive_name, scores_only
from m4bench.evidence.redact import Redactor, is_data_row
from m4bench.tasks.catalog import load_catalog


def test_each_rule_replaces_its_kind_and_counts_it() -> None:
    redactor = Redactor(literals=["/srv/private/results"], identifiers=frozenset({"4321"}))
    text = redactor.text(
        "key sk-proj-abcdefghijklmnop1234 mail a.b@c.org path /home/alice/x.csv "
        "at 2150-03-04 10:11:12 stay 30012345 id 4321 in /srv/private/results/run"
    )
    assert "sk-proj" not in text and "a.b@c.org" not in text and "alice" not in text
    assert "2150" not in text and "30012345" not in text and "4321" not in text
    assert "/srv/private/results" not in text
    assert set(redactor.counts) == {"secret", "email", "local_path", "timestamp", "identifier",
                                    "literal"}  # fmt: skip


def test_sql_and_item_ids_survive() -> None:
    sql = (
        "SELECT subject_id, hadm_id, stay_id, MAX(valuenum) AS value\n"
        "FROM mimiciv_icu.chartevents WHERE itemid IN (220045, 220050, 220179)\n"
        "GROUP BY subject_id, hadm_id, stay_id"
    )
    assert Redactor().text(sql) == sql


def test_a_table_of_values_becomes_one_stub_with_its_header() -> None:
    rows = "\n".join(f"{i}, {i * 2}, 2150-01-0{i} 00:00" for i in range(1, 5))
    text = Redactor().text(f"result:\nstay, value, time\n{rows}\ndone")
    lines = text.split("\n")
    assert lines[0] == "result:" and lines[-1] == "done"
    assert len(lines) == 3 and lines[1].startswith("[data block removed: 5 lines, sha256 ")


def test_data_row_detection() -> None:
    assert is_data_row("30001 | 12.5 | 3 | 7")
    assert is_data_row("1,2,3")
    assert not is_data_row("subject_id, hadm_id, stay_id")
    assert not is_data_row("a single value 42")


def test_sensitive_column_names() -> None:
    for name in ("charttime", "anchor_age", "ab_id", "stay_id", "culture_time", "gender"):
        assert is_sensitive_name(name), name
    for name in ("sofa", "aki_stage", "gcs_min", "ventilation_status", "meld"):
        assert not is_sensitive_name(name), name


def test_scores_only_drops_columns_holding_text() -> None:
    evaluation = load_catalog().task("mimic-ventilation").card.evaluation
    header = ",".join(evaluation.required_columns)
    row = ",".join(
        "x" if c in evaluation.scored_columns else "1" for c in evaluation.required_columns
    )
    text, report = scores_only(f"{header}\n{row}\n", evaluation, None)
    assert text.splitlines()[0] == "row_id"
    assert all(reason for reason in report.dropped.values())
    assert set(report.dropped) == set(evaluation.required_columns)
