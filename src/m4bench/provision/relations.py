"""The relations a schema variant of a source offers, and which of them a task may see."""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from m4bench.concepts.build import derived_tables, read_build_manifest
from m4bench.provision.layout import DATA_DIR, SchemaVariant
from m4bench.sources.datasets import DERIVED_SCHEMAS
from m4bench.sources.layout import Source
from m4bench.tasks.card import TaskCard


@dataclass(frozen=True)
class SchemaView:
    """Every relation of one schema variant: ``{qualified name: Parquet file}``.

    ``derived_schema`` is the variant's name of the derived schema (None when the
    dataset has none); ``fingerprint`` identifies the data behind the files.
    """

    variant: SchemaVariant
    files: Mapping[str, Path]
    derived_schema: str | None
    fingerprint: str

    @property
    def names(self) -> list[str]:
        return sorted(self.files)

    def derived_names(self) -> list[str]:
        if self.derived_schema is None:
            return []
        prefix = f"{self.derived_schema}."
        return [name for name in self.names if name.startswith(prefix)]


def data_relative_path(qualified: str) -> str:
    """Where a relation's file sits relative to the agent's working directory."""
    schema_name, table = qualified.split(".", 1)
    return f"{DATA_DIR}/{schema_name}/{table}.parquet"


def native_view(source: Source) -> SchemaView:
    """The source tables plus its built derived concepts, under their official names."""
    files = {name: source.table_file(name) for name in source.manifest.tables}
    files.update(dict(derived_tables(source)))
    return SchemaView(
        variant="native",
        files=files,
        derived_schema=DERIVED_SCHEMAS[source.manifest.dataset],
        fingerprint=data_fingerprint(source),
    )


def data_fingerprint(source: Source) -> str:
    """Source fingerprint combined with every derived table's output hash (no re-hashing)."""
    digest = hashlib.sha256(source.manifest.fingerprint().encode())
    concepts = read_build_manifest(source)
    for name, entry in sorted(concepts.concepts.items() if concepts else []):
        digest.update(f"{name}={entry.file.sha256}\n".encode())
    return digest.hexdigest()


def dropped_relations(
    card: TaskCard, view: SchemaView, rename: Callable[[str], str] = lambda name: name
) -> list[str]:
    """Variant names of what the task's agent must not see.

    Standard: the card's ``drop_tables``; raw on a dataset with a derived schema: every
    derived relation. ``rename`` maps a native qualified name to the variant's name.
    """
    dropped = {rename(name) for name in card.database.drop_tables}
    if card.mode == "raw":
        dropped.update(view.derived_names())
    return sorted(dropped)


def allowed_relations(
    card: TaskCard, view: SchemaView, rename: Callable[[str], str] = lambda name: name
) -> list[str]:
    dropped = set(dropped_relations(card, view, rename))
    return [name for name in view.names if name not in dropped]


def absent_drop_tables(card: TaskCard, view: SchemaView) -> list[str]:
    """The card's ``drop_tables`` entries that name no relation of the native ``view``:
    a misspelt name drops nothing, so the table meant would reach the agent."""
    return [name for name in card.database.drop_tables if name not in view.files]
