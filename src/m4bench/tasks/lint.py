"""Catalog lint: named rules, each finding naming the file, the line and what to fix.

Rules are grouped by the file they read: the card, the instruction, the skills, the
operational spec, the family's reference query and provenance, and the generated control
skills. ``lint_catalog`` runs them all; errors fail ``m4bench tasks lint``, warnings are
printed (they mark work that depends on something not yet in the catalog or library).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from m4bench.concepts.library import ConceptLibrary
from m4bench.errors import M4BenchError
from m4bench.fileio import read_user_text
from m4bench.sources.datasets import DERIVED_SCHEMAS
from m4bench.tasks.card import (
    CARD_FILE,
    line_of,
    load_card,
    name_rule_problems,
)
from m4bench.tasks.case_lint import CASE_RULES, case_findings
from m4bench.tasks.catalog import (
    SKILLS_DIR,
    Catalog,
    Task,
    catalog_roots,
    catalog_task_dirs,
    clash_message,
    family_clashes,
    repeated_names,
)
from m4bench.tasks.drop_tables_lint import drop_table_findings
from m4bench.tasks.evaluation import paper_scored_columns
from m4bench.tasks.facts_lint import FACTS_RULES, facts_findings
from m4bench.tasks.finding import Finding
from m4bench.tasks.lint_select import concerns
from m4bench.tasks.mutant_lint import lint_mutants
from m4bench.tasks.provenance_lint import lint_provenance
from m4bench.tasks.reference_lint import (
    DatabaseFactory,
    check_reference_runs,
    empty_database_factory,
)
from m4bench.tasks.skills import (
    SKILL_FILE,
    decoy_skill,
    parse_skill,
    raw_sql_skill,
    split_front_matter,
)

RULES: dict[str, str] = {
    "card-valid": "task.toml parses and validates against the card model",
    "card-depends-on": "depends_on is derived from the reference SQL, never written in the card",
    "card-name": "name equals the folder, carries the database prefix and the -raw suffix rule",
    "card-family": "family equals the parent folder",
    "card-scored-rule": "scored_columns = value columns + non-key, non-identifier required columns",
    "card-drop-tables": "each drop_tables entry names a source table of the dataset or a "
    "concept of the library (the closest name suggested); standard tasks drop one",
    "instruction-placeholder": "instruction has {output_path} and no unknown placeholder",
    "instruction-sparse": "instruction has no item ids, schema names or SQL and stays short",
    "instruction-contract": "instruction lists the required columns in order",
    "skill-present": "the skills folder holds only <name>/SKILL.md folders, at least one",
    "skill-front-matter": "SKILL.md front matter: name (= folder), description, version, category",
    "skill-no-sql": "skills hold no code fences and no SQL",
    "skill-table-unavailable": "skills name no table the task's database lacks",
    "opspec-present": "sentinel tasks, and only they, have a non-empty operational-spec.md",
    "opspec-forbidden": "operational specs hold no SQL, schema names, item ids or code provenance",
    "reference-file": "the family's reference SQL exists and names every output column",
    "reference-columns": "the reference outputs exactly the required columns, in order",
    "reference-runs": "the reference runs on an empty database with its concepts materialized",
    "control-rawsql": "the raw-reference-SQL skill can be generated with valid front matter",
    "control-decoy": "the decoy names another family's skill that the catalog can supply "
    "(from the task decoy_from names, when given)",
    "provenance": "PROVENANCE.yaml is valid, covers the family's tasks, reviews are real",
    "concept-library": "the concept library loads, so dependencies can be closed",
    **CASE_RULES,
    **FACTS_RULES,
    "catalog-folder": "every <family>/<task>/ folder holds a task.toml (a warning: a folder "
    "without one is no task)",
    "catalog-unique": "task names and family folders are unique across the catalog's folders "
    "(a clashing family gets this finding alone, not provenance or mutant findings)",
}

KNOWN_PLACEHOLDERS = frozenset({"output_path", "db_path"})
MAX_INSTRUCTION_LINES = 40
_ITEM_ID = re.compile(r"(?<![\w.])\d{5,}(?!\w|\.\d)")
_SQL = re.compile(r"\bselect\b[\s\S]{0,200}?\bfrom\b|\b(from|join)\s+[a-z_]+\.[a-z_]+", re.I)
_FENCE = re.compile(r"^\s*(```|~~~)", re.M)
_PLACEHOLDER = re.compile(r"\{([a-z_]+)\}")
_BACKTICKED = re.compile(r"`([A-Za-z_][A-Za-z0-9_.]*)`")
_SCHEMA_NAMES = re.compile(r"\b(mimiciv_\w+|eicu_crd)\b", re.I)
_PARSE_LINE = re.compile(r"\bLine (\d+), Col")  # where the SQL parser stopped
_OPSPEC_FORBIDDEN = re.compile(r"mimiciv_|MIT-LCP|mimic-code|\bitemid\b", re.I)


@dataclass(frozen=True)
class LintReport:
    """What ``lint_report`` found, and how many task folders it read."""

    tasks: int
    findings: list[Finding]

    @property
    def errors(self) -> int:
        return sum(1 for finding in self.findings if finding.severity == "error")


def lint_catalog(
    root: Path | None = None,
    *,
    database: DatabaseFactory | None = None,
    run_references: bool = True,
    on_task: Callable[[str, int], None] | None = None,
    concepts_root: Path | None = None,
    extra_roots: Sequence[Path] | None = None,
) -> list[Finding]:
    """Every finding of every rule over the catalog (see :func:`lint_report`)."""
    return lint_report(
        root,
        database=database,
        run_references=run_references,
        on_task=on_task,
        concepts_root=concepts_root,
        extra_roots=extra_roots,
    ).findings


def lint_report(
    root: Path | None = None,
    *,
    database: DatabaseFactory | None = None,
    run_references: bool = True,
    on_task: Callable[[str, int], None] | None = None,
    concepts_root: Path | None = None,
    extra_roots: Sequence[Path] | None = None,
    only: Sequence[Path] | None = None,
) -> LintReport:
    """Every finding of every rule over the catalog at ``root`` (default: the package's)
    and ``extra_roots`` (default: the folders of ``$M4BENCH_TASKS``), with the number of
    task folders read (those whose card does not load included).

    ``database`` builds the connection a task's reference runs on (default: empty source
    tables plus the concepts it reads, materialized from the library). ``on_task`` is
    called with each task name and the task count, for progress display;
    ``concepts_root`` points at another concept library folder (default: the package's).
    ``only`` names task folders: only their tasks and families are linted and reported.
    """
    roots = catalog_roots(root, extra_roots)
    findings: list[Finding] = []
    library = _load_library(findings, concepts_root)
    graph = {n: frozenset(d) for n, d in library.edges().items()} if library else {}
    tasks: list[Task] = []
    folders = catalog_task_dirs(roots)
    for task_dir in folders:
        task = _lint_card(task_dir, findings)
        if task is not None:
            tasks.append(Task(card=task.card, dir=task.dir, concept_graph=graph))
    findings.extend(_unique_names(folders, tasks))
    findings.extend(_cardless_folders(roots))
    catalog = Catalog(roots=roots, tasks=tuple(sorted(tasks, key=lambda t: t.name)))
    derived = sorted(library.concepts) if library else []
    factory = database or empty_database_factory(library)
    linted = [t for t in catalog.tasks if only is None or t.dir in only]
    for task in linted:
        if on_task is not None:
            on_task(task.name, len(linted))
        findings.extend(lint_task(task, catalog, derived))
        if run_references:
            findings.extend(check_reference_runs(task, factory))
    # A family found in two folders is reported once (catalog-unique): its provenance and
    # mutants, read from one folder for tasks of both, would only add confusing findings.
    clashing = set(family_clashes(folders))
    kept = {t.family for t in linted} - clashing
    families = Catalog(roots, tuple(t for t in catalog.tasks if t.family in kept))
    findings.extend(lint_provenance(families))
    findings.extend(lint_mutants(families))
    if only is not None:
        findings = [f for f in findings if concerns(f, only, roots)]
    ordered = sorted(findings, key=lambda f: (str(f.path), f.line, f.rule))
    return LintReport(tasks=len(folders) if only is None else len(only), findings=ordered)


def lint_task(task: Task, catalog: Catalog, derived: list[str]) -> list[Finding]:
    """The per-task rules that need no database."""
    out: list[Finding] = []
    for check in (_card_rules, _instruction_rules, _opspec_rules, _reference_rules):
        out.extend(check(task))
    out.extend(case_findings(task, derived))
    out.extend(drop_table_findings(task, derived))
    out.extend(_instruction_table_names(task, derived))
    out.extend(_skill_rules(task, derived))
    out.extend(_control_rules(task, catalog))
    out.extend(facts_findings(task))
    return out


def _load_library(findings: list[Finding], root: Path | None) -> ConceptLibrary | None:
    try:
        return ConceptLibrary.load("mimic-iv", root=root)
    except M4BenchError as exc:
        where = Path(exc.message.split(":", 1)[0]) if ":" in exc.message else Path("concepts")
        findings.append(Finding("concept-library", where, 1, exc.message, "warning"))
        return None


def _cardless_folders(roots: Sequence[Path]) -> Iterator[Finding]:
    """A ``<family>/<task>/`` folder without ``task.toml`` is silently no task; a card
    misnamed (``Task.toml``, ``task.tml``) is the usual cause."""
    for root in roots:
        for family in _visible_dirs(root):
            for folder in _visible_dirs(family):
                if not (folder / CARD_FILE).exists():
                    message = f"no {CARD_FILE} here, so this folder is no task (misnamed?)"
                    yield Finding("catalog-folder", folder, 1, message, "warning")


def _visible_dirs(folder: Path) -> list[Path]:
    if not folder.is_dir():
        return []
    return sorted(p for p in folder.iterdir() if p.is_dir() and not p.name.startswith((".", "_")))


def _unique_names(folders: list[Path], tasks: list[Task]) -> Iterator[Finding]:
    """A family folder in two roots, or a task name given twice, across the catalog."""
    for family, families in family_clashes(folders).items():
        yield Finding("catalog-unique", families[-1], 1, clash_message(family, families))
    for name, (first, *others) in repeated_names(tasks).items():
        for task in others:
            message = f"task {name!r} is also defined in {first.dir}"
            yield Finding("catalog-unique", task.card_path, 1, message)


def _lint_card(task_dir: Path, findings: list[Finding]) -> Task | None:
    path = task_dir / CARD_FILE
    text = read_user_text(path)
    if re.search(r"^\s*depends_on\s*=", text, re.M):
        line = line_of(text, "depends_on")
        findings.append(Finding("card-depends-on", path, line, "remove depends_on: it is derived"))
        return None
    try:
        return Task(card=load_card(path), dir=task_dir)
    except M4BenchError as exc:
        match = re.match(r".*?:(\d+): (.*)", exc.message, re.S)
        line, message = (int(match.group(1)), match.group(2)) if match else (1, exc.message)
        findings.append(Finding("card-valid", path, line, message))
        return None


def _card_rules(task: Task) -> Iterator[Finding]:
    card, path = task.card, task.card_path
    text = path.read_text(encoding="utf-8")
    if card.name != task.dir.name:
        yield Finding(
            "card-name",
            path,
            line_of(text, "name"),
            f"name {card.name!r} differs from its folder {task.dir.name!r}",
        )
    for problem in name_rule_problems(card.name, card.dataset, card.mode):
        yield Finding("card-name", path, line_of(text, "name"), problem)
    if card.family != task.family_dir.name:
        yield Finding(
            "card-family",
            path,
            line_of(text, "family"),
            f"family {card.family!r} differs from the folder {task.family_dir.name!r}",
        )
    spec = card.evaluation
    expected = paper_scored_columns(spec.key_columns, spec.value_columns, spec.required_columns)
    if spec.scored_columns != expected:
        yield Finding(
            "card-scored-rule",
            path,
            line_of(text, "scored_columns"),
            f"scored_columns must be {expected}",
        )


def _instruction_rules(task: Task) -> Iterator[Finding]:
    path = task.instruction_path
    if not path.exists():
        yield Finding("instruction-placeholder", path, 1, "instruction.md is missing")
        return
    text = task.instruction
    if "{output_path}" not in text:
        yield Finding(
            "instruction-placeholder", path, 1, "the output contract must say {output_path}"
        )
    for number, line in enumerate(text.splitlines(), start=1):
        for name in _PLACEHOLDER.findall(line):
            if name not in KNOWN_PLACEHOLDERS:
                yield Finding(
                    "instruction-placeholder", path, number, f"unknown placeholder {{{name}}}"
                )
        for why, pattern in (
            ("an item id", _ITEM_ID),
            ("a schema name", _SCHEMA_NAMES),
            ("SQL", _SQL),
            ("the word itemid", re.compile(r"\bitemid", re.I)),
        ):
            if pattern.search(line):
                yield Finding(
                    "instruction-sparse",
                    path,
                    number,
                    f"instruction names {why}; keep it to the concept and the output contract",
                )
    fence = _FENCE.search(text)
    if fence:
        yield Finding(
            "instruction-sparse",
            path,
            text[: fence.start()].count("\n") + 1,
            "no code blocks in an instruction",
        )
    if len(text.splitlines()) > MAX_INSTRUCTION_LINES:
        yield Finding(
            "instruction-sparse",
            path,
            MAX_INSTRUCTION_LINES + 1,
            f"instruction is longer than {MAX_INSTRUCTION_LINES} lines",
        )
    contract = ", ".join(task.card.evaluation.required_columns)
    if contract not in " ".join(text.split()):
        yield Finding(
            "instruction-contract",
            path,
            len(text.splitlines()),
            f"instruction must list the columns in order: {contract}",
        )


def _instruction_table_names(task: Task, derived: list[str]) -> Iterator[Finding]:
    """Derived table names (those with an underscore) leak the answer's recipe."""
    path = task.instruction_path
    if not path.exists():
        return
    tables = {name for name in derived if "_" in name} - set(task.card.evaluation.required_columns)
    for number, line in enumerate(task.instruction.splitlines(), start=1):
        for name in sorted(set(re.findall(r"\b[a-z]+_[a-z0-9_]+\b", line)) & tables):
            yield Finding(
                "instruction-sparse", path, number, f"instruction names the table {name!r}"
            )


def _skill_rules(task: Task, derived: list[str]) -> Iterator[Finding]:
    root = task.dir / SKILLS_DIR
    entries = sorted(root.iterdir()) if root.is_dir() else []
    if not task.skill_paths:
        yield Finding("skill-present", root, 1, "a task needs at least one skill/<name>/SKILL.md")
    for entry in entries:
        extra = (
            [entry] if entry.is_file() else [p for p in entry.rglob("*") if p.name != SKILL_FILE]
        )
        for stray in extra:
            yield Finding("skill-present", stray, 1, "skills folders hold only SKILL.md")
    schema = DERIVED_SCHEMAS[task.card.dataset]
    qualified = [f"{schema}.{n}" for n in derived] if schema else []
    unavailable = {n.split(".", 1)[1] for n in task.card.effective_drop_tables(qualified)}
    for path in task.skill_paths.values():
        yield from _one_skill(path, unavailable, task.card.mode)


def _one_skill(path: Path, unavailable: set[str], mode: str) -> Iterator[Finding]:
    try:
        parse_skill(path)
    except M4BenchError as exc:
        match = re.match(r".*?:(\d+): (.*)", exc.message, re.S)
        line, message = (int(match.group(1)), match.group(2)) if match else (1, exc.message)
        yield Finding("skill-front-matter", path, line, message)
    text = path.read_bytes().decode("utf-8", errors="replace")
    for number, row in enumerate(text.splitlines(), start=1):
        if _FENCE.match(row) or _SQL.search(row):
            yield Finding(
                "skill-no-sql", path, number, "skills describe procedures in words, never SQL"
            )
        names = {t.rsplit(".", 1)[-1] for t in _BACKTICKED.findall(row)}
        names |= {w for w in re.findall(r"\b\w+\.(\w+)\b", row) if w in unavailable}
        names |= {w for w in re.findall(r"\b[a-z]+_[a-z0-9_]+\b", row) if w in unavailable}
        for bad in sorted(names & unavailable):
            yield Finding(
                "skill-table-unavailable",
                path,
                number,
                f"names {bad!r}, which a {mode} task's database lacks",
            )


def _opspec_rules(task: Task) -> Iterator[Finding]:
    path, text = task.operational_spec_path, task.operational_spec
    present = bool(text and text.strip())
    if task.card.controls.sentinel and not present:
        yield Finding(
            "opspec-present", path, 1, "sentinel tasks need a non-empty operational-spec.md"
        )
    if not task.card.controls.sentinel and text is not None:
        yield Finding(
            "opspec-present",
            path,
            1,
            "only sentinel tasks carry an operational spec ([controls] sentinel = true)",
        )
    if not text:
        return
    for number, line in enumerate(text.splitlines(), start=1):
        for why, pattern in (
            ("SQL", _SQL),
            ("a code block", _FENCE),
            ("a schema name or code provenance", _OPSPEC_FORBIDDEN),
            ("a number of 5 or more digits", _ITEM_ID),
        ):
            if pattern.search(line):
                yield Finding("opspec-forbidden", path, number, f"operational spec contains {why}")


def _reference_rules(task: Task) -> Iterator[Finding]:
    path = task.reference_path
    if not path.exists():
        yield Finding("reference-file", path, 1, "the family's reference SQL is missing")
        return
    try:
        columns = task.reference_columns
    except M4BenchError as exc:
        where = _PARSE_LINE.search(exc.message)
        yield Finding("reference-file", path, int(where.group(1)) if where else 1, exc.message)
        return
    required = task.card.evaluation.required_columns
    if columns != required:
        line = line_of(task.card_path.read_text(encoding="utf-8"), "required_columns")
        yield Finding(
            "reference-columns",
            task.card_path,
            line,
            f"reference outputs {columns}, card requires {required}",
        )


def _control_rules(task: Task, catalog: Catalog) -> Iterator[Finding]:
    card_text = task.card_path.read_text(encoding="utf-8")
    line = line_of(card_text, "decoy_skill")
    if task.reference_path.exists():
        try:
            folder, text = raw_sql_skill(task)
            header, body, _ = split_front_matter(text, task.dir / "raw-sql" / folder / SKILL_FILE)
            if "```" in task.reference_sql:
                yield Finding(
                    "control-rawsql",
                    task.reference_path,
                    1,
                    "a code fence in the reference SQL would break the generated skill",
                )
            elif header.get("name") != folder or task.reference_sql.strip() not in body:
                yield Finding(
                    "control-rawsql",
                    task.card_path,
                    1,
                    "generated raw-SQL skill lacks its name or query",
                )
        except M4BenchError as exc:
            yield Finding("control-rawsql", task.card_path, 1, exc.message)
    wanted = task.card.controls.decoy_skill
    own_family = {name for t in catalog.family(task.family) for name in t.skill_paths}
    if wanted in own_family:
        yield Finding(
            "control-decoy",
            task.card_path,
            line,
            f"decoy {wanted!r} is a skill of the task's own family",
        )
        return
    try:
        decoy_skill(task, catalog)
    except M4BenchError as exc:
        carried = any(wanted in other.skill_paths for other in catalog.peers(task))
        if carried and task.card.controls.decoy_from is not None:
            where = line_of(card_text, "decoy_from")
            yield Finding("control-decoy", task.card_path, where, exc.message.split(": ", 1)[-1])
            return
        yield Finding(
            "control-decoy",
            task.card_path,
            line,
            f"decoy {wanted!r} is not yet carried by any task in the catalog",
            "warning",
        )
