"""An ATIF trajectory as HTML: one block per step, with its message, reasoning, tool
calls (SQL shown as code) and observations, every text escaped and bounded."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from atif import Step, ToolCall, Trajectory

from m4bench.viewer.html_kit import PAGE_BUDGET, TEXT_LIMIT, esc, pairs, text_block

OBSERVATION_LIMIT = 8_000
"""Characters of one observation shown; tool results are often whole tables."""
_SQL_ARGUMENTS = ("query", "sql", "statement")


@dataclass
class Budget:
    """Characters of agent text a page may still show."""

    left: int = PAGE_BUDGET

    def take(self, text: str, limit: int) -> int:
        """The limit for showing ``text``, charged against what is left."""
        allowed = max(min(limit, self.left), 0)
        self.left -= min(len(text), allowed)
        return allowed


def _text(content: Any) -> str:
    """A message or observation as text: its text parts; other parts named, not loaded."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    parts = []
    for part in content:
        if getattr(part, "type", None) == "text":
            parts.append(part.text or "")
        else:
            source = getattr(part, "source", None)
            parts.append(f"[{part.type}: {getattr(source, 'path', '?')}]")
    return "\n".join(parts)


def _sql_of(call: ToolCall) -> str | None:
    for name in _SQL_ARGUMENTS:
        value = call.arguments.get(name)
        if isinstance(value, str):
            return value
    if "sql" in call.function_name.lower() and len(call.arguments) == 1:
        [value] = call.arguments.values()
        return value if isinstance(value, str) else None
    return None


def _call(call: ToolCall, budget: Budget) -> str:
    sql = _sql_of(call)
    head = (
        f"<p><b>tool call</b> <code>{esc(call.function_name)}</code> "
        f'<span class="meta">{esc(call.tool_call_id)}</span></p>'
    )
    if sql is not None:
        rest = {k: v for k, v in call.arguments.items() if v is not sql}
        body = text_block(sql, limit=budget.take(sql, TEXT_LIMIT), css="sql")
        if rest:
            other = json.dumps(rest, indent=2, ensure_ascii=False, default=str)
            body += text_block(other, limit=budget.take(other, TEXT_LIMIT))
        return head + body
    arguments = json.dumps(call.arguments, indent=2, ensure_ascii=False, default=str)
    return head + text_block(arguments, limit=budget.take(arguments, TEXT_LIMIT))


def _step(step: Step, budget: Budget, instruction: str) -> str:
    meta = " · ".join(
        esc(part) for part in (step.timestamp, step.model_name, _metrics(step)) if part
    )
    parts = [
        f'<div class="step {esc(step.source)}" id="step-{step.step_id}">',
        f'<p><b>#{step.step_id} {esc(step.source)}</b> <span class="meta">{meta}</span></p>',
    ]
    message = _text(step.message)
    if message and message == instruction:
        parts.append('<p class="meta">the instruction, shown above</p>')
    elif message:
        parts.append(text_block(message, limit=budget.take(message, TEXT_LIMIT)))
    if step.reasoning_content:
        shown = text_block(
            step.reasoning_content, limit=budget.take(step.reasoning_content, TEXT_LIMIT)
        )
        parts.append(f"<details><summary>reasoning</summary>{shown}</details>")
    parts.extend(_call(call, budget) for call in step.tool_calls or [])
    for result in step.observation.results if step.observation else []:
        content = _text(result.content)
        source = f" of {esc(result.source_call_id)}" if result.source_call_id else ""
        parts.append(f"<p><b>observation</b>{source}</p>")
        parts.append(text_block(content, limit=budget.take(content, OBSERVATION_LIMIT), css="obs"))
    parts.append("</div>")
    return "".join(parts)


def _metrics(step: Step) -> str:
    metrics = step.metrics
    if metrics is None:
        return ""
    found = metrics.model_dump(exclude_none=True)
    shown = {
        k: v for k, v in found.items() if isinstance(v, int | float) and not isinstance(v, bool)
    }
    return ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in shown.items())


def trajectory_html(trajectory: Trajectory, budget: Budget, instruction: str = "") -> str:
    """The trajectory's summary and its steps, until the page's budget runs out; a
    step giving exactly ``instruction`` (shown elsewhere on the page) says so instead."""
    agent = trajectory.agent
    summary = pairs(
        [
            ("ATIF version", trajectory.schema_version),
            ("session", trajectory.session_id),
            ("agent", f"{agent.name} {agent.version or ''}".strip()),
            ("model", agent.model_name),
            ("steps", len(trajectory.steps)),
        ]
    )
    notes = f'<p class="note">{esc(trajectory.notes)}</p>' if trajectory.notes else ""
    blocks = []
    for index, step in enumerate(trajectory.steps):
        if budget.left <= 0:
            rest = len(trajectory.steps) - index
            blocks.append(
                f'<p class="note">… {rest:,} more steps not shown: this page reached its '
                f"size limit; open trajectory.json itself</p>"
            )
            break
        blocks.append(_step(step, budget, instruction))
    final = trajectory.final_metrics
    totals = ""
    if final is not None:
        found = final.model_dump(exclude_none=True)
        totals = "<h3>final metrics</h3>" + pairs(
            (k.replace("_", " "), v) for k, v in found.items() if not isinstance(v, dict | list)
        )
    return summary + notes + "".join(blocks) + totals
