"""The parts of a run's page read from its record: the score breakdown, the isolation
verdicts (canary, egress, contamination lint), usage, timings and artifacts."""

from __future__ import annotations

from m4bench.results import ResultRecord
from m4bench.results.record import SandboxRecord
from m4bench.scoring import Score
from m4bench.viewer.disagreements import Disagreements, Key
from m4bench.viewer.html_kit import Value, esc, pairs, table, verdict


def score_html(score: Score | None) -> str:
    """Reward, strict checks, per-column match rates, key metrics and nMAE."""
    if score is None:
        return "<p>The output was not scored.</p>"
    head = pairs(
        [
            ("reward", score.reward),
            ("strict pass", score.strict_pass),
            ("failure", score.failure),
            ("limits hit", ", ".join(score.limits_hit) or None),
            ("rejected lines", score.rejected_lines),
            ("output bytes", score.output_bytes),
        ]
    )
    checks = table(
        ("check", "passed", "detail"), ([c.name, c.passed, c.detail] for c in score.checks)
    )
    columns = table(
        ("column", "comparison", "match rate", "matched", "mismatched", "missing", "extra",
         "duplicate", "uncastable", "denominator", "passed", "error"),
        ([c.column, c.comparison, c.match_rate, c.matched, c.mismatched, c.missing, c.extra,
          c.duplicate, c.uncastable, c.denominator, c.passed, c.error] for c in score.columns),
    )  # fmt: skip
    keys = score.keys
    key_table = pairs(
        [
            ("truth rows", keys.truth_rows),
            ("agent rows", keys.agent_rows),
            ("agent keys in truth", keys.agent_keys_in_truth),
            ("missing keys", keys.missing_keys),
            ("extra keys", keys.extra_keys),
            ("duplicate rows", keys.duplicate_rows),
            ("precision", keys.precision),
            ("recall", keys.recall),
            ("F1", keys.f1),
            ("nMAE (matched rows)", score.ordered_error.nmae_matched_rows),
            ("nMAE (all truth rows)", score.ordered_error.nmae_all_truth_rows),
        ]
    )
    diagnostics = "".join(f"<li>{esc(d)}</li>" for d in score.diagnostics)
    return (
        f"{head}<h3>strict checks</h3>{checks}<h3>per-column match rates</h3>{columns}"
        f"<h3>keys</h3>{key_table}"
        + (f"<h3>diagnostics</h3><ul>{diagnostics}</ul>" if diagnostics else "")
    )


def _key_text(key: Key) -> str:
    return ", ".join(f"{name}={value}" for name, value in key.items())


def disagreements_html(found: Disagreements | None) -> str:
    """The first disagreements per column and the missing, extra and duplicate keys."""
    if found is None:
        return "<p>No score and no row-level diff: nothing to compare.</p>"
    truth_note = (
        '<p class="warn">Truth values are shown (--with-truth): do not share this page.</p>'
        if found.with_truth
        else '<p class="meta">Truth values are not shown: each disagreement gives its key '
        "and the agent's value; missing truth keys are counted only "
        "(build the view with --with-truth to see them).</p>"
    )
    parts = [f'<p class="meta">Read from {esc(found.source)}. {esc(found.note)}</p>', truth_note]
    for column in found.columns:
        if not column.total:
            continue
        columns = ["output row", "key", "agent's value"] + (["truth"] if found.with_truth else [])
        rows = [
            [d.agent_row, _key_text(d.key), d.agent] + ([d.truth] if found.with_truth else [])
            for d in column.rows
        ]
        parts.append(f"<h3>{esc(column.column)}: {column.total:,} disagreeing rows</h3>")
        parts.append(table(columns, rows, caption=f"the first {len(rows)}"))
    for label, keys in (("missing", found.missing), ("extra", found.extra),
                        ("duplicate", found.duplicate)):  # fmt: skip
        parts.append(f"<h3>{label} keys: {keys.total:,}</h3>")
        if keys.rows:
            rows = [[row, _key_text(key)] for row, key in keys.rows]
            parts.append(table(("output row", "key"), rows, caption=f"the first {len(rows)}"))
    return "".join(parts)


def sandbox_html(record: ResultRecord) -> str:
    """Isolation, the canary, egress and the contamination lint, and publishability."""
    box: SandboxRecord = record.sandbox
    head = pairs(
        [
            ("publishable", record.publishable),
            ("why", record.publishable_reason),
            ("backend", box.backend),
            ("isolated", box.isolated),
            ("return code", box.returncode),
            ("timed out", box.timed_out),
            ("killed", box.killed),
        ]
    )
    return head + _canary(box) + _egress(box) + _lint(box)


def _canary(box: SandboxRecord) -> str:
    canary = box.canary
    if canary is None:
        return "<h3>filesystem canary</h3><p>not recorded</p>"
    state = verdict(canary.passed) if canary.ran else '<span class="meta">not run</span>'
    rows = pairs(
        [
            ("enforced", canary.enforced),
            ("probed", len(canary.probed)),
            ("visible", ", ".join(canary.visible) or None),
            ("detail", canary.detail),
        ]
    )
    return f"<h3>filesystem canary: {state}</h3>{rows}"


def _egress(box: SandboxRecord) -> str:
    egress = box.egress
    if egress is None:
        return "<h3>egress</h3><p>not recorded</p>"
    state = verdict(egress.refused == 0, "no refused connection", f"{egress.refused} refused")
    rows = pairs(
        [
            ("network", egress.network),
            ("allowed endpoints", ", ".join(egress.allowed_endpoints) or None),
            ("connections", egress.connections),
            ("refused", egress.refused),
            ("refused (sample)", ", ".join(egress.refused_sample) or None),
        ]
    )
    return f"<h3>egress: {state}</h3>{rows}"


def _lint(box: SandboxRecord) -> str:
    lint = box.lint
    if lint is None:
        return "<h3>contamination lint</h3><p>not recorded</p>"
    findings = table(
        ("path", "kind", "detail"), ([f.path, f.kind, f.detail] for f in lint.findings)
    )
    return (
        f"<h3>contamination lint: {verdict(lint.passed)}</h3>"
        f"<p>{lint.files:,} files, {lint.bytes:,} bytes read.</p>"
        + (findings if lint.findings else "")
    )


def usage_html(record: ResultRecord) -> str:
    usage, times = record.usage, record.timings
    tokens = pairs(
        [
            ("input (uncached)", usage.input_uncached),
            ("input (cache read)", usage.input_cache_read),
            ("input (cache write)", usage.input_cache_write),
            ("output", usage.output),
            ("turns", usage.turns),
            ("tool calls", usage.tool_calls),
            ("cost (USD)", usage.cost_usd),
            ("cost from", usage.cost_source),
        ]
    )
    seconds = table(
        ("phase", "seconds"),
        ([name, getattr(times, name)] for name in type(times).model_fields),
    )
    return f"<h3>usage</h3>{tokens}<h3>timings</h3>{seconds}"


def artifacts_html(record: ResultRecord) -> str:
    rows: list[list[Value]] = [
        [name, a.path, a.bytes, a.sha256] for name, a in record.artifacts.items()
    ]
    return table(("artifact", "path", "bytes", "sha256"), rows)
