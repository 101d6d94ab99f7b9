"""The ``card-drop-tables`` lint rule: each ``drop_tables`` entry names a real table.

A typo in ``drop_tables`` removes nothing, so the answer table would reach the agent.
Source tables are checked against the dataset's official schema (the one the synthetic
generator and the ingest follow), derived tables against the concept library's concepts.
A standard task drops at least its answer table.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator, Sequence

from m4bench.sources.datasets import DERIVED_SCHEMAS
from m4bench.sources.schema import dataset_schema
from m4bench.tasks.card import line_of
from m4bench.tasks.catalog import Task
from m4bench.tasks.finding import Finding

RULE = "card-drop-tables"


def known_tables(dataset: str, derived: Sequence[str] | None) -> dict[str, set[str]]:
    """``{schema: its table names}`` of ``dataset``; the derived schema holds the
    library's ``derived`` concepts, and is left out when the library did not load."""
    tables: dict[str, set[str]] = {}
    for table in dataset_schema(dataset).tables:
        tables.setdefault(table.schema_name, set()).add(table.name)
    schema = DERIVED_SCHEMAS[dataset]
    if schema is not None:
        tables[schema] = set(derived or ())
    return tables


def names_no_table(name: str, tables: dict[str, set[str]]) -> bool:
    """Whether ``name`` (``schema.table``) names no table of ``tables`` (as
    :func:`known_tables` gives them). A schema with no known table, the derived one when
    the concept library did not load, is not judged."""
    schema, table = name.split(".", 1)
    known = tables.get(schema)
    return known is None or (bool(known) and table not in known)


def drop_table_findings(task: Task, derived: Sequence[str] | None) -> Iterator[Finding]:
    """Findings for the card's ``drop_tables``: entries naming no table of the dataset
    (with the closest real name), and a standard task that drops nothing.

    ``derived``: the concept library's concept names; None or empty when it did not load
    (derived entries are then not checked: the ``concept-library`` warning says why).
    """
    card, path = task.card, task.card_path
    text = path.read_text(encoding="utf-8")
    tables = known_tables(card.dataset, derived)
    derived_schema = DERIVED_SCHEMAS[card.dataset]
    for name in card.database.drop_tables:
        if not names_no_table(name, tables):
            continue
        schema = name.split(".", 1)[0]
        if schema not in tables:
            schemas = ", ".join(sorted(tables))
            message = f"{name} is not in a {card.dataset} schema ({schemas})"
        else:
            why = " (the concept library has no such concept)" if schema == derived_schema else ""
            message = f"{name} is not a table of {schema}{why}, so it would drop nothing"
        yield Finding(RULE, path, _entry_line(text, name), message + closest_table(name, tables))
    if card.mode == "standard" and not card.database.drop_tables:
        message = "a standard task drops at least its answer table"
        yield Finding(RULE, path, line_of(text, "drop_tables"), message)


def closest_table(name: str, tables: dict[str, set[str]]) -> str:
    """``; did you mean <closest>?``: the table part compared, same schema first (a
    table of the right name in another schema counts as closest)."""
    schema, table = name.split(".", 1)
    own = sorted(tables.get(schema, ()))
    close = difflib.get_close_matches(table, own, n=1, cutoff=0.7)
    if close:
        return f"; did you mean {schema}.{close[0]}?"
    others = sorted(f"{s}.{t}" for s, names in tables.items() for t in names if t == table)
    if others:
        return f"; did you mean {others[0]}?"
    return f"; no table of {schema} has a similar name" if schema in tables else ""


def _entry_line(text: str, name: str) -> int:
    """The card line of the quoted ``drop_tables`` entry ``name``."""
    for quoted in (f'"{name}"', f"'{name}'"):
        if quoted in text:
            return line_of(text, quoted)
    return line_of(text, "drop_tables")
