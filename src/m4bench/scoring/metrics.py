"""Turning counts into the paper's numbers: match rates, reward, key F1, nMAE, checks."""

from __future__ import annotations

from typing import Any

from m4bench.scoring.agent_table import AgentRows
from m4bench.scoring.alternatives import Admitted
from m4bench.scoring.compare import JoinCounts
from m4bench.scoring.model import ColumnScore, KeyMetrics, Mismatch, OrderedError, StrictCheck
from m4bench.scoring.truth import TruthTable
from m4bench.tasks.evaluation import EvaluationSpec

# The paper rounds each rate and their mean to 8 decimals, so 200858/200859 is
# reported as 0.99999502 and never as 1.0.
REWARD_DECIMALS = 8


def rate(numerator: int, denominator: int) -> float:
    return round(numerator / denominator, REWARD_DECIMALS) if denominator else 0.0


def reward_of(columns: list[ColumnScore]) -> float:
    if not columns:
        return 0.0
    mean = sum(column.match_rate for column in columns) / len(columns)
    return min(1.0, max(0.0, round(mean, REWARD_DECIMALS)))


def key_metrics(
    truth_rows: int,
    agent: AgentRows | None,
    joined: int,
    missing_sample: list[dict[str, Any]],
    extra_sample: list[dict[str, Any]],
) -> KeyMetrics:
    rows = agent.rows if agent else 0
    unique = agent.unique_keys if agent else 0
    precision = joined / unique if unique else 0.0
    recall = joined / truth_rows if truth_rows else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    return KeyMetrics(
        truth_rows=truth_rows,
        agent_rows=rows,
        agent_unique_keys=unique,
        agent_keys_in_truth=joined,
        extra_keys=unique - joined,
        duplicate_rows=rows - unique,
        uncastable_key_rows=agent.bad_key_rows if agent else 0,
        missing_keys=truth_rows - joined,
        precision=precision,
        recall=recall,
        f1=f1,
        row_coverage=recall,
        missing_key_sample=_text_keys(missing_sample),
        extra_key_sample=_text_keys(extra_sample),
    )


def _text_keys(records: list[dict[str, Any]]) -> list[dict[str, str | None]]:
    return [{name: _text(value) for name, value in record.items()} for record in records]


def _text(value: Any) -> str | None:
    return None if value is None else str(value)


def column_scores(
    spec: EvaluationSpec,
    truth: TruthTable,
    keys: KeyMetrics,
    counts: JoinCounts | None,
    present: set[str],
) -> list[ColumnScore]:
    """Per scored column: ``matched + mismatched + missing + extra + duplicate = denominator``."""
    denominator = keys.truth_rows + keys.extra_keys + keys.duplicate_rows
    scores = []
    for name in spec.scored_columns:
        column = truth.columns[name]
        totals = counts.totals if counts else None
        matched = totals.matched.get(name, 0) if totals and name in present else 0
        sample = counts.samples.get(name, []) if counts else []
        match_rate = rate(matched, denominator)
        scores.append(
            ColumnScore(
                column=name,
                truth_type=column.sql_type,
                comparison=column.kind,
                tolerance=spec.tolerance_for(name),
                present=name in present,
                matched=matched,
                mismatched=keys.agent_keys_in_truth - matched,
                missing=keys.missing_keys,
                extra=keys.extra_keys,
                duplicate=keys.duplicate_rows,
                uncastable=totals.uncastable.get(name, 0) if totals else 0,
                denominator=denominator,
                match_rate=match_rate,
                passed=match_rate >= spec.accuracy_threshold and denominator > 0,
                mismatch_sample=[_mismatch(record) for record in sample],
                error=None if name in present else f"column {name!r} is not in the output",
                matched_by_alternative=_by_alternative(counts, name),
            )
        )
    return scores


def _by_alternative(counts: JoinCounts | None, name: str) -> int:
    admitted = counts.admitted if counts else None
    return admitted.by_column.get(name, 0) if admitted else 0


def tie_notes(admitted: Admitted) -> list[str]:
    """What admitting tie alternatives changed, in a line, when it changed anything."""
    parts = []
    if admitted.cell_count:
        parts.append(f"{admitted.cell_count} cells matched an admissible alternative")
    if admitted.added_rows:
        parts.append(f"{len(admitted.added_rows)} keys only another tie order gives counted in")
    if admitted.excused:
        parts.append(f"{len(admitted.excused)} truth keys another tie order lacks excused")
    if not parts:
        return []
    return [
        f"ties admitted: {'; '.join(parts)} (another valid order of a tie the definition "
        "leaves open; --ties strict scores against the truth alone)"
    ]


def _mismatch(record: dict[str, Any]) -> Mismatch:
    return Mismatch(
        key={name: _text(value) for name, value in record["key"].items()},
        truth=_text(record["truth"]),
        agent=_text(record["agent"]),
        reason=record["reason"],
    )


def ordered_error(
    truth_rows: int, truth: TruthTable, counts: JoinCounts | None, present: set[str]
) -> OrderedError:
    """Paper nMAE (matched rows only) and the variant charging 1 per missing truth row
    (``truth_rows``: the truth's rows, with tie alternatives' keys counted in or out)."""
    joined = counts.totals.joined if counts else 0
    matched_rows: dict[str, float | None] = {}
    all_rows: dict[str, float | None] = {}
    for name in truth.ordered:
        total = counts.totals.error_sums.get(name) if counts and name in present else None
        if total is None:
            # No column (or no comparison): every row errs 1; with no row matched, the
            # paper's mean over matched rows has nothing to average.
            matched_rows[name] = 1.0 if joined else None
            all_rows[name] = 1.0
            continue
        matched_rows[name] = total / joined if joined else None
        missing = truth_rows - joined
        all_rows[name] = (total + missing) / truth_rows if truth_rows else None
    return OrderedError(
        columns=list(truth.ordered),
        scales=dict(truth.scales),
        per_column_matched_rows=matched_rows,
        per_column_all_truth_rows=all_rows,
        nmae_matched_rows=_mean(matched_rows),
        nmae_all_truth_rows=_mean(all_rows),
    )


def _mean(values: dict[str, float | None]) -> float | None:
    usable = [value for value in values.values() if value is not None]
    if not usable or len(usable) < len(values):
        return None
    return sum(usable) / len(usable)


def strict_checks(
    spec: EvaluationSpec,
    *,
    exists: bool,
    parsed_rows: int | None,
    header: list[str] | None,
    keys: KeyMetrics,
    columns: list[ColumnScore],
) -> list[StrictCheck]:
    """The paper's checks, in its order: exists, valid CSV, columns, coverage, accuracy."""
    missing = [name for name in spec.required_columns if header is None or name not in header]
    if parsed_rows is not None:
        parsed = f"{parsed_rows} data rows parsed"
    elif not exists:
        parsed = "no output"
    else:  # the rows were never read: say why instead of counting zero
        keys_absent = [name for name in spec.key_columns if header is None or name not in header]
        parsed = (
            f"rows not parsed: the output was not compared because key columns are "
            f"missing: {keys_absent}"
            if header is not None and keys_absent
            else "rows not parsed: the output was not compared"
        )
    checks = [
        StrictCheck(name="output_exists", passed=exists, detail="" if exists else "no output"),
        StrictCheck(name="output_is_valid_csv", passed=bool(parsed_rows), detail=parsed),
        StrictCheck(
            name="has_required_columns",
            passed=header is not None and not missing,
            detail=f"missing: {missing}" if missing else "all required columns present",
        ),
        StrictCheck(
            name="row_coverage",
            passed=keys.truth_rows > 0 and keys.row_coverage >= spec.row_coverage_threshold,
            detail=f"{keys.row_coverage:.6f} of truth keys (threshold "
            f"{spec.row_coverage_threshold})",
        ),
    ]
    checks.extend(
        StrictCheck(
            name=f"score_accuracy[{column.column}]",
            passed=column.passed,
            detail=f"match rate {column.match_rate} (threshold {spec.accuracy_threshold})",
        )
        for column in columns
    )
    return checks
