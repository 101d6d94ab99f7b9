"""Lint rules that hold a task's texts to its facts (``facts.toml``, see
:mod:`m4bench.tasks.facts`): the instruction says its facts and no procedure beyond them,
each skill and the operational spec say every fact of theirs, and each text stays near
the length of the paper's."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

from m4bench.errors import M4BenchError
from m4bench.tasks.catalog import Task
from m4bench.tasks.facts import (
    FACTS_FILE,
    Fact,
    TaskFacts,
    codes_in,
    load_facts,
    missing_tokens,
    numbers_in,
    words,
)
from m4bench.tasks.finding import Finding

INSTRUCTION_MAX_RATIO = 1.3
SKILL_RATIO_BAND = (0.8, 1.5)

FACTS_RULES: dict[str, str] = {
    "facts-file": "facts.toml exists and validates; skill facts name the task's skills; "
    "operational-spec facts exist exactly when the task has an operational spec",
    "facts-instruction-extra": "the instruction names no number, item id or code that is "
    "not among its instruction facts",
    "facts-instruction-excluded": "the instruction uses no term of instruction_excludes "
    "(procedure kept for the skill)",
    "facts-instruction-missing": "the instruction names every number, id and term of its "
    "instruction facts",
    "facts-skill-missing": "each skill names every number, id and term of its skill facts",
    "facts-opspec-missing": "the operational spec names every number, id and term of its facts",
    "facts-length": f"an instruction is at most {INSTRUCTION_MAX_RATIO}x the paper's words, "
    f"skills and operational specs {SKILL_RATIO_BAND[0]}x to {SKILL_RATIO_BAND[1]}x",
}


def task_facts_path(task: Task) -> Path:
    return task.dir / FACTS_FILE


def facts_findings(task: Task) -> list[Finding]:
    """Every facts finding of one task."""
    path = task_facts_path(task)
    if not path.exists():
        message = f"no {FACTS_FILE}: state what the instruction, skills and spec convey"
        return [Finding("facts-file", path, 1, message)]
    try:
        facts = load_facts(path)
    except M4BenchError as exc:
        return [Finding("facts-file", path, _line(exc.message), exc.message)]
    out = list(_structure(task, facts, path))
    if task.instruction_path.exists():
        out.extend(_instruction(task, facts))
    out.extend(_skills(task, facts))
    out.extend(_opspec(task, facts))
    out.extend(_lengths(task, facts, path))
    return out


def _line(message: str) -> int:
    head = message.split(": ", 1)[0]
    tail = head.rsplit(":", 1)[-1]
    return int(tail) if tail.isdigit() else 1


def _structure(task: Task, facts: TaskFacts, path: Path) -> Iterator[Finding]:
    skills = task.skill_paths
    for fact in facts.skill:
        if fact.skill is None and len(skills) > 1:
            message = f"skill fact {fact.fact!r}: name its skill (one of {sorted(skills)})"
            yield Finding("facts-file", path, 1, message)
        elif fact.skill is not None and fact.skill not in skills:
            message = f"skill fact {fact.fact!r} names {fact.skill!r}, not a skill of the task"
            yield Finding("facts-file", path, 1, message)
    has_spec = bool(task.operational_spec and task.operational_spec.strip())
    if has_spec and not facts.operational_spec:
        yield Finding("facts-file", path, 1, "the task has an operational spec: state its facts")
    if facts.operational_spec and not has_spec:
        yield Finding("facts-file", path, 1, "operational-spec facts, but no operational spec")


def _instruction(task: Task, facts: TaskFacts) -> Iterator[Finding]:
    path, text = task.instruction_path, task.instruction
    allowed = {token for fact in facts.instruction for token in (*fact.numbers, *fact.ids)}
    for kind, found in (("number", numbers_in(text)), ("code", codes_in(text))):
        for token, line in found:
            if token not in allowed:
                message = (
                    f"names the {kind} {token}, which no instruction fact names: procedure "
                    "belongs in the skill (or add the fact, if the paper's instruction states it)"
                )
                yield Finding("facts-instruction-extra", path, line, message)
    flat = " ".join(text.split()).casefold()
    for term in facts.instruction_excludes:
        if " ".join(term.split()).casefold() in flat:
            message = f"uses {term!r}, which the facts keep out of the instruction"
            yield Finding("facts-instruction-excluded", path, _term_line(text, term), message)
    yield from _coverage("facts-instruction-missing", path, text, facts.instruction)


def _skills(task: Task, facts: TaskFacts) -> Iterator[Finding]:
    skills = task.skill_paths
    only = next(iter(skills)) if len(skills) == 1 else None
    for name, path in skills.items():
        text = path.read_bytes().decode("utf-8", errors="replace")
        mine = [fact for fact in facts.skill if (fact.skill or only) == name]
        yield from _coverage("facts-skill-missing", path, text, mine)


def _opspec(task: Task, facts: TaskFacts) -> Iterator[Finding]:
    text = task.operational_spec
    if text and facts.operational_spec:
        path = task.operational_spec_path
        yield from _coverage("facts-opspec-missing", path, text, facts.operational_spec)


def _coverage(rule: str, path: Path, text: str, facts: Sequence[Fact]) -> Iterator[Finding]:
    for fact in facts:
        lacking = list(missing_tokens(text, fact))
        if lacking:
            message = f"does not convey {fact.fact!r}: lacks {', '.join(map(repr, lacking))}"
            yield Finding(rule, path, 1, message)


def text_lengths(task: Task, facts: TaskFacts) -> dict[str, tuple[int, int | None]]:
    """Words of each of the task's texts beside the paper's (None where not known)."""
    paper = facts.lengths
    out: dict[str, tuple[int, int | None]] = {}
    if task.instruction_path.exists():
        out["instruction"] = (words(task.instruction), paper.instruction if paper else None)
    skills = sum(words(p.read_text(encoding="utf-8")) for p in task.skill_paths.values())
    out["skills"] = (skills, paper.skill if paper else None)
    if task.operational_spec:
        spec_paper = paper.operational_spec if paper else None
        out["operational spec"] = (words(task.operational_spec), spec_paper)
    return out


def _lengths(task: Task, facts: TaskFacts, path: Path) -> Iterator[Finding]:
    where = {
        "instruction": task.instruction_path,
        "skills": path,
        "operational spec": task.operational_spec_path,
    }
    for what, (ours, paper) in text_lengths(task, facts).items():
        if paper is None or not ours:
            continue
        too_long = ours > INSTRUCTION_MAX_RATIO * paper
        if too_long if what == "instruction" else not _in_band(ours, paper):
            yield _length_finding(where[what], what, ours, paper)


def _in_band(ours: int, paper: int) -> bool:
    low, high = SKILL_RATIO_BAND
    return low * paper <= ours <= high * paper


def _length_finding(path: Path, what: str, ours: int, paper: int) -> Finding:
    ratio = ours / paper
    message = f"{what}: {ours} words, {ratio:.2f}x the paper's {paper}"
    return Finding("facts-length", path, 1, message)


def _term_line(text: str, term: str) -> int:
    needle = term.split()[0].casefold() if term.split() else term
    for number, line in enumerate(text.splitlines(), start=1):
        if needle in line.casefold():
            return number
    return 1
