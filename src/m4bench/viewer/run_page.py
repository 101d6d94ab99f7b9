"""The page of one run: identity and status, instruction and skills, the trajectory,
the output against the truth, the score, the isolation verdicts, usage and timings."""

from __future__ import annotations

from m4bench.viewer.collect import Excerpt, RunView
from m4bench.viewer.html_kit import Page, esc, pairs, table, text_block
from m4bench.viewer.links import INDEX_FILE, index_link
from m4bench.viewer.record_html import (
    artifacts_html,
    disagreements_html,
    sandbox_html,
    score_html,
    usage_html,
)
from m4bench.viewer.trajectory_html import Budget, trajectory_html

SECTIONS = (
    ("summary", "Summary"),
    ("instruction", "Instruction and skills"),
    ("trajectory", "Trajectory"),
    ("output", "Output against the truth"),
    ("score", "Score"),
    ("isolation", "Egress and contamination"),
    ("usage", "Usage and timings"),
)


def _summary(view: RunView) -> str:
    record, spec = view.record, view.record.identity
    rows = pairs(
        [
            ("run id", record.run_id),
            ("task", spec.task),
            ("condition", spec.condition),
            ("schema", spec.schema_name),
            ("agent", spec.agent),
            ("model", spec.model),
            ("reasoning", spec.reasoning),
            ("trial", spec.trial),
            ("attempt", record.attempt),
            ("status", record.status),
            ("status detail", record.status_detail or None),
            ("reward", record.reward),
            ("simulated", record.simulated),
            ("source", record.source),
            ("agent version", record.versions.agent),
            ("m4bench", record.versions.m4bench),
            ("error", record.error),
        ]
    )
    notes = "".join(f'<p class="note">{esc(note)}</p>' for note in view.notes)
    return rows + notes


def _excerpt(excerpt: Excerpt, budget: Budget) -> str:
    block = text_block(excerpt.text, limit=budget.take(excerpt.text, 200_000))
    cut = f'<p class="note">the file is {excerpt.size:,} bytes; only part was read</p>'
    return block + (cut if excerpt.cut else "")


def _instruction(view: RunView, budget: Budget) -> str:
    parts = [
        _excerpt(view.instruction, budget)
        if view.instruction
        else "<p>The run kept no instruction.md.</p>"
    ]
    if not view.skills:
        parts.append("<p>No skills were given (condition "
                     f"{esc(view.record.identity.condition)}).</p>")  # fmt: skip
    for skill in view.skills:
        record = skill.record
        parts.append(
            f"<h3>skill {esc(record.folder)}</h3>"
            + pairs([("origin", record.origin), ("sha256", record.sha256)])
        )
        if skill.text is not None:
            parts.append(text_block(skill.text, limit=budget.take(skill.text, 100_000)))
        else:
            parts.append(
                '<p class="meta">Its text is not kept with the run (the workdir was '
                "removed); the digest names the exact text given.</p>"
            )
    return "".join(parts)


def _trajectory(view: RunView, budget: Budget) -> str:
    found = view.trajectory
    if found.trajectory is not None:
        shown = view.instruction.text if view.instruction and not view.instruction.cut else ""
        return trajectory_html(found.trajectory, budget, shown)
    if not found.problem:
        return "<p>The run kept no trajectory.json.</p>"
    raw = _excerpt(found.raw, budget) if found.raw else ""
    return f'<p class="note">{esc(found.problem)}</p>{raw}'


def _output(view: RunView) -> str:
    parts = [disagreements_html(view.disagreements)]
    if view.output_head:
        header, *rows = view.output_head
        width = len(header)
        shaped = [(row + [""] * width)[:width] for row in rows]
        parts.append(f"<h3>output.csv: the first {len(rows)} rows</h3>")
        parts.append(table(header, shaped))
    if view.stderr_tail is not None:
        shown = text_block(view.stderr_tail.text)
        parts.append(f"<details><summary>stderr.log (its end)</summary>{shown}</details>")
    return "".join(parts)


def run_page(view: RunView, index_href: str = f"../{INDEX_FILE}") -> Page:
    """The page of one run; ``index_href`` leads back to the index."""
    record, spec = view.record, view.record.identity
    budget = Budget()
    bodies = {
        "summary": _summary(view),
        "instruction": _instruction(view, budget),
        "trajectory": _trajectory(view, budget),
        "output": _output(view),
        "score": score_html(record.score),
        "isolation": sandbox_html(record),
        "usage": usage_html(record) + "<h3>artifacts</h3>" + artifacts_html(record),
    }
    cell = index_link(
        index_href,
        {"task": spec.task, "condition": spec.condition, "schema": spec.schema_name,
         "agent": spec.agent, "model": spec.model},
    )  # fmt: skip
    nav = "".join(f'<a href="#{key}">{esc(title)}</a>' for key, title in SECTIONS)
    sections = "".join(f'<h2 id="{key}">{esc(title)}</h2>{bodies[key]}' for key, title in SECTIONS)
    body = (
        f'<p><a href="{esc(index_href)}">← all runs</a> · '
        f'<a href="{esc(cell)}">runs of this cell</a></p>'
        f"<h1>{esc(spec.task)} · {esc(spec.condition)} · {esc(spec.agent)} · "
        f"trial {spec.trial}</h1><nav>{nav}</nav>{sections}"
    )
    return Page(title=f"m4bench run {record.run_id}", body=body)
