"""Copy a task into a folder of one's own, as the start of a new task.

``copy_task`` writes ``INTO/<family>/``: the task's folder under its new name (the card's
name and family rewritten, comments kept), the family's reference file for that task,
its provenance (family and task renamed, reviews cleared: reviewers saw the original,
not the copy) and the mutants and coverage bins of that reference. The family folder
appears whole or not at all. Point ``$M4BENCH_TASKS`` at ``INTO`` and the copy is a task.
"""

from __future__ import annotations

import os
import re
import shutil
import tomllib
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import yaml

from m4bench.errors import M4BenchError
from m4bench.fileio import atomic_write_text, read_user_text
from m4bench.tasks.card import CARD_FILE, load_card, name_rule_problems
from m4bench.tasks.catalog import (
    PROVENANCE_FILE,
    Catalog,
    ProvenanceCreated,
    Task,
)
from m4bench.tasks.facts import FACTS_FILE, load_facts
from m4bench.tasks.mutants import MUTANTS_FILE

COVERAGE_FILE = "coverage.toml"  # read by m4bench.validity.coverage
_NAME = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)*$")
_ENTRY = re.compile(r"^\[\[(mutant|exempt|bin)\]\]\s*$", re.M)
_TASKS_LINE = re.compile(r"^tasks\s*=\s*\[[^\]]*\]", re.M)


@dataclass(frozen=True)
class CopyRequest:
    """What to copy and what to call it."""

    task: Task
    name: str
    family: str
    into: Path
    author: str


def copy_task(request: CopyRequest, catalog: Catalog) -> Path:
    """Write the copy; return the new task's folder. Nothing is written on any error."""
    check_request(request, catalog)
    target = request.into / request.family
    request.into.mkdir(parents=True, exist_ok=True)
    staging = request.into / f".{request.family}.partial-{os.getpid()}"
    shutil.rmtree(staging, ignore_errors=True)
    try:
        _write_family(request, staging)
        staging.rename(target)
    except OSError as exc:
        raise M4BenchError(f"cannot copy {request.task.name} to {target}: {exc}") from exc
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return target / request.name


def check_request(request: CopyRequest, catalog: Catalog) -> None:
    """The new names follow the card rules and are free in the catalog and in ``into``."""
    card = request.task.card
    for label, value in (("task name", request.name), ("family", request.family)):
        if not _NAME.match(value):
            raise M4BenchError(f"{label} {value!r}: use lower-case words joined by hyphens")
    problems = name_rule_problems(request.name, card.dataset, card.mode)
    if problems:
        raise M4BenchError(
            f"{request.name!r}: {problems[0]} ({request.task.name} is a {card.mode} task)"
        )
    if not request.author.strip():
        raise M4BenchError(
            "--author is blank", hint="name who creates the task: it goes in PROVENANCE.yaml"
        )
    if request.name in catalog.names:
        raise M4BenchError(f"a task named {request.name!r} exists already")
    if request.family in catalog.families or (request.into / request.family).exists():
        raise M4BenchError(
            f"family {request.family!r} exists already",
            hint="a copy starts a new family; choose another --family",
        )


def _write_family(request: CopyRequest, staging: Path) -> None:
    task = request.task
    shutil.copytree(task.dir, staging / request.name)
    _rename_card(staging / request.name / CARD_FILE, request.name, request.family)
    _drop_paper_lengths(staging / request.name / FACTS_FILE)
    reference = staging / task.card.reference.file
    reference.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(task.reference_path, reference)
    _write_provenance(request, staging / PROVENANCE_FILE)
    for file in (MUTANTS_FILE, COVERAGE_FILE):
        source = task.family_dir / file
        if source.exists():
            text = read_user_text(source)
            kept = keep_entries(text, source, task.card.reference.file, task.name, request.name)
            atomic_write_text(staging / file, kept)


def _rename_card(path: Path, name: str, family: str) -> None:
    text = read_user_text(path)
    for key, value in (("name", name), ("family", family)):
        pattern = rf'^{key}\s*=\s*"[^"]*"'
        text, count = re.subn(pattern, f'{key} = "{value}"', text, count=1, flags=re.M)
        if count != 1:
            raise M4BenchError(f"{path}: no {key} line to rewrite")
    atomic_write_text(path, text)
    card = load_card(path)
    if (card.name, card.family) != (name, family):
        raise M4BenchError(f"{path}: the rewritten card reads {card.name!r} in {card.family!r}")


def _drop_paper_lengths(path: Path) -> None:
    """A copy is no paper task: its facts keep no paper lengths to be held to."""
    if not path.exists():
        return
    text = read_user_text(path)
    kept = re.sub(r"^\[lengths\]\n(?:(?!\[)[^\n]*\n)*", "", text, flags=re.M)
    atomic_write_text(path, kept)
    if load_facts(path).lengths is not None:
        raise M4BenchError(f"{path}: the [lengths] table could not be removed from the copy")


def _write_provenance(request: CopyRequest, path: Path) -> None:
    original = request.task.provenance
    copied = original.model_copy(
        update={
            "family": request.family,
            "applies_to": [request.name],
            "created": ProvenanceCreated(by=request.author, date=date.today()),
            "reviews": [],
            "review_status": "pending",
        }
    )
    header = (
        f"# Provenance of the {request.family} family, copied from {request.task.name} "
        f"({original.family}).\n"
        "# Reviews are added only by the reviewers themselves.\n"
    )
    body = yaml.safe_dump(copied.model_dump(mode="json"), sort_keys=False, allow_unicode=True)
    atomic_write_text(path, header + body)


def keep_entries(text: str, path: Path, reference: str, old_task: str, new_task: str) -> str:
    """``text`` of a mutants or coverage file, keeping the exemptions and the entries of
    ``reference`` that apply to ``old_task``; a mutant's ``tasks`` list is renamed to
    ``new_task``.

    Entries are cut at their ``[[mutant]]``, ``[[exempt]]`` or ``[[bin]]`` lines, so
    comments and multi-line strings survive as written.
    """
    starts = [match.start() for match in _ENTRY.finditer(text)]
    pieces = [text[: starts[0] if starts else len(text)]]
    for begin, end in zip(starts, [*starts[1:], len(text)], strict=True):
        piece = text[begin:end]
        try:
            parsed = tomllib.loads(piece)
        except tomllib.TOMLDecodeError as exc:
            raise M4BenchError(f"{path}: an entry does not parse on its own: {exc}") from exc
        kind, entries = next(iter(parsed.items()))
        entry = entries[0]
        if kind != "exempt" and entry.get("reference", "reference.sql") != reference:
            continue
        tasks = entry.get("tasks")
        if tasks is not None:
            if old_task not in tasks:
                continue
            piece = _TASKS_LINE.sub(f'tasks = ["{new_task}"]', piece, count=1)
        pieces.append(piece)
    return "".join(pieces)
