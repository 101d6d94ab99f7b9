"""The concept library: one SQL file per derived table, dependencies read from the SQL.

A concept lives in ``sql/<dataset dir>/<category>/<name>.sql``. The file starts with a
header comment block (``-- <name>: <summary>``, a ``-- Grain: ...`` line, optional
further ``-- `` lines) followed by exactly one SELECT query. The concept becomes the
table ``mimiciv_derived.<name>``; every ``mimiciv_derived.<x>`` the query reads is a
dependency, every other schema-qualified table must exist in the dataset's schema.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError

from m4bench.concepts.graph import topological_order, transitive_closure
from m4bench.errors import M4BenchError
from m4bench.fileio import sha256_text
from m4bench.sources.datasets import derived_schema

DERIVED_SCHEMA = derived_schema("mimic-iv")  # the one library: MIMIC-IV's
SQL_ROOT = Path(__file__).parent / "sql"
CATEGORIES = (
    "demographics",
    "measurement",
    "firstday",
    "medication",
    "treatment",
    "organfailure",
    "sepsis",
    "score",
    "comorbidity",
)
_DATASET_DIRS = {"mimic-iv": "mimic_iv"}


@dataclass(frozen=True)
class Header:
    """The parsed leading comment block of a concept file."""

    summary: str
    grain: str
    notes: tuple[str, ...]

    @property
    def deviations(self) -> tuple[str, ...]:
        """Each ``Deviation:`` note with its continuation lines (up to a blank line)."""
        found: list[list[str]] = []
        current: list[str] | None = None
        for note in self.notes:
            if _is_dev(note):
                current = [note.removeprefix("Deviation:").strip()]
                found.append(current)
            elif not note:
                current = None
            elif current is not None:
                current.append(note)
        return tuple(" ".join(lines) for lines in found)

    @property
    def text(self) -> str:
        return "\n".join((self.summary, f"Grain: {self.grain}", *self.notes))


def _is_dev(note: str) -> bool:
    return note.startswith("Deviation:")


@dataclass(frozen=True)
class Concept:
    """One derived table: its SQL and what it reads."""

    name: str
    category: str
    path: Path
    sql: str
    header: Header
    dependencies: tuple[str, ...]
    source_tables: tuple[str, ...]

    @property
    def qualified(self) -> str:
        return f"{DERIVED_SCHEMA}.{self.name}"

    @property
    def query(self) -> str:
        """The query without its header and trailing semicolon."""
        return _strip_query(self.sql)

    @property
    def sql_sha256(self) -> str:
        return sha256_text(self.sql)


@dataclass(frozen=True)
class ConceptLibrary:
    """Every concept of one dataset, validated: known tables only, no cycles."""

    dataset: str
    concepts: Mapping[str, Concept] = field(default_factory=dict)

    @classmethod
    def load(
        cls,
        dataset: str = "mimic-iv",
        root: Path | None = None,
        source_tables: Iterable[str] | None = None,
    ) -> ConceptLibrary:
        """Read and validate the library of ``dataset``.

        ``root`` overrides the directory holding the category folders; ``source_tables``
        overrides the set of qualified base tables (default: the dataset's schema).
        """
        directory = root if root is not None else _dataset_dir(dataset)
        known = set(source_tables) if source_tables is not None else _schema_tables(dataset)
        concepts: dict[str, Concept] = {}
        for path in sorted(directory.glob("*/*.sql")):
            concept = parse_concept(path, known)
            if concept.name in concepts:
                raise M4BenchError(
                    f"{path}: concept {concept.name!r} is also defined in "
                    f"{concepts[concept.name].path}",
                    hint="concept names are file stems and must be unique across categories",
                )
            concepts[concept.name] = concept
        library = cls(dataset, concepts)
        library._check_references()
        library.order()
        return library

    @property
    def names(self) -> list[str]:
        return sorted(self.concepts)

    def get(self, name: str) -> Concept:
        try:
            return self.concepts[name]
        except KeyError as exc:
            raise M4BenchError(
                f"unknown concept {name!r}",
                hint="see `m4bench concepts list` for the concept names",
            ) from exc

    def edges(self) -> dict[str, tuple[str, ...]]:
        return {name: c.dependencies for name, c in self.concepts.items()}

    def order(self, names: Iterable[str] | None = None) -> list[Concept]:
        """Concepts in dependency order; ``names`` pulls in their transitive inputs."""
        edges = self.edges()
        wanted = set(edges) if names is None else transitive_closure(edges, _known(self, names))
        ordered = topological_order({n: edges[n] for n in wanted}, self._paths())
        return [self.concepts[name] for name in ordered]

    def dependents(self, name: str) -> list[str]:
        return sorted(n for n, c in self.concepts.items() if name in c.dependencies)

    def _paths(self) -> dict[str, str]:
        return {name: str(c.path) for name, c in self.concepts.items()}

    def _check_references(self) -> None:
        for concept in self.concepts.values():
            for dep in concept.dependencies:
                if dep not in self.concepts:
                    raise M4BenchError(
                        f"{concept.path}: reads {DERIVED_SCHEMA}.{dep}, which no concept defines",
                        hint=f"add {dep}.sql to the library or fix the table name",
                    )


def _known(library: ConceptLibrary, names: Iterable[str]) -> list[str]:
    return [library.get(name).name for name in names]


def parse_concept(path: Path, source_tables: set[str]) -> Concept:
    """Parse one concept file; errors name the file."""
    sql = path.read_text(encoding="utf-8")
    header = parse_header(path, sql)
    dependencies, sources = extract_tables(path, _strip_query(sql), source_tables)
    return Concept(
        name=path.stem,
        category=path.parent.name,
        path=path,
        sql=sql,
        header=header,
        dependencies=dependencies,
        source_tables=sources,
    )


def parse_header(path: Path, sql: str) -> Header:
    lines: list[str] = []
    for raw in sql.splitlines():
        stripped = raw.strip()
        if not stripped.startswith("--"):
            break
        lines.append(stripped.removeprefix("--").strip())
    prefix = f"{path.stem}:"
    if not lines or not lines[0].startswith(prefix):
        raise M4BenchError(
            f"{path}: the first line must be '-- {path.stem}: <what it computes>'",
            hint="every concept file starts with a header comment naming the concept",
        )
    grains = [line for line in lines[1:] if line.startswith("Grain:")]
    if len(grains) != 1:
        raise M4BenchError(
            f"{path}: the header needs exactly one '-- Grain: <one row per ...>' line",
            hint="state the grain of the table in the header",
        )
    notes = tuple(line for line in lines[1:] if not line.startswith("Grain:"))
    while notes and not notes[-1]:
        notes = notes[:-1]
    summary = lines[0].removeprefix(prefix).strip()
    return Header(summary, grains[0].removeprefix("Grain:").strip(), notes)


def extract_tables(
    path: Path, query: str, source_tables: Iterable[str]
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(derived dependencies, source tables) of a query; unknown tables are errors.

    The tables of a query are a function of its text alone, and parsing it is most of a
    library load: the library is loaded by setup, preflight, every catalog load and the
    audit, so one process parses each concept text once (errors are never remembered)."""
    return _tables_of(path, query, frozenset(source_tables))


@lru_cache(maxsize=1024)
def _tables_of(
    path: Path, query: str, source_tables: frozenset[str]
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    try:
        statements = [s for s in sqlglot.parse(query, read="duckdb") if s is not None]
    except ParseError as exc:
        raise M4BenchError(f"{path}: cannot parse the SQL: {exc}") from exc
    if len(statements) != 1 or not isinstance(statements[0], exp.Query):
        raise M4BenchError(
            f"{path}: a concept file must hold exactly one SELECT query",
            hint="no CREATE and no further statements; the framework creates the table",
        )
    tree = statements[0]
    ctes = {cte.alias_or_name.lower() for cte in tree.find_all(exp.CTE)}
    derived: set[str] = set()
    sources: set[str] = set()
    for table in tree.find_all(exp.Table):
        if not isinstance(table.this, exp.Identifier):
            continue
        schema_name, name = table.db.lower(), table.name.lower()
        if not schema_name:
            if name in ctes:
                continue
            raise M4BenchError(
                f"{path}: table {table.name!r} is neither a CTE nor schema-qualified",
                hint="write source tables as mimiciv_hosp.<t> / mimiciv_icu.<t>, "
                f"concepts as {DERIVED_SCHEMA}.<name>",
            )
        if schema_name == DERIVED_SCHEMA:
            derived.add(name)
        elif f"{schema_name}.{name}" in source_tables:
            sources.add(f"{schema_name}.{name}")
        else:
            raise M4BenchError(
                f"{path}: reads {schema_name}.{name}, which is not a table of the dataset",
                hint="check the schema and table name against the official schema",
            )
    return tuple(sorted(derived)), tuple(sorted(sources))


def _strip_query(sql: str) -> str:
    body = sql.strip()
    while body.endswith(";"):
        body = body[:-1].rstrip()
    return body


def concept_files(dataset: str) -> dict[str, Path]:
    """``{concept name: its SQL file}`` of ``dataset``'s library, without parsing it."""
    return {path.stem: path for path in sorted(_dataset_dir(dataset).glob("*/*.sql"))}


def _dataset_dir(dataset: str) -> Path:
    try:
        return SQL_ROOT / _DATASET_DIRS[dataset]
    except KeyError as exc:
        raise M4BenchError(
            f"no concept library for dataset {dataset!r}",
            hint=f"known: {', '.join(sorted(_DATASET_DIRS))}",
        ) from exc


def _schema_tables(dataset: str) -> set[str]:
    from m4bench.sources.schema import dataset_schema

    return {table.qualified for table in dataset_schema(dataset).tables}
