"""Building the obfuscated and restructured variants of a MIMIC-IV source, once.

*obfuscated*: every table of the source, derived tables included, rewritten to
``obfuscated/parquet/<ds_id>/<t_id>.parquet`` with every column renamed through the
mapping. The derived tables are the native concept outputs renamed, not the concept
SQL re-run on renamed inputs: the concepts are the same SQL either way, so renaming
their outputs gives the same data without a second, rewritten copy of the library to
keep in step, and task equivalence checks the renaming end to end.

*restructured*: the obfuscated variant with the tables of each
:data:`~m4bench.provision.mapping.MERGES` plan stacked into one table, a
discriminator column first (NULL where a part lacks a column). Every other table is
the obfuscated file itself, not a copy.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from pathlib import Path

import duckdb
from pydantic import BaseModel

from m4bench.errors import M4BenchError
from m4bench.fileio import read_model, sha256_file, write_model
from m4bench.home import DataHome
from m4bench.provision.layout import (
    PERTURBED_MANIFEST,
    PerturbedVariant,
    mapping_path,
    perturbed_dir,
    perturbed_root,
)
from m4bench.provision.mapping import MergedTable, SchemaMapping, build_mapping
from m4bench.provision.progress import progress_bar
from m4bench.provision.relations import SchemaView
from m4bench.sources.layout import FileEntry, write_parquet
from m4bench.sql import quote_ident, quote_literal

PERTURBED_FORMAT_VERSION = 1
DEFAULT_SEED = 0


class PerturbedManifest(BaseModel):
    """``perturbed.json``: the files of one perturbed variant (opaque names only)."""

    format_version: int = PERTURBED_FORMAT_VERSION
    variant: PerturbedVariant
    source: str
    native_fingerprint: str
    mapping_sha256: str
    derived_schema: str | None
    tables: dict[str, FileEntry]

    def fingerprint(self) -> str:
        digest = hashlib.sha256(f"{self.variant}:{self.mapping_sha256}\n".encode())
        for name, entry in sorted(self.tables.items()):
            digest.update(f"{name}={entry.sha256}\n".encode())
        return digest.hexdigest()


def describe_files(files: Mapping[str, Path]) -> dict[str, list[tuple[str, str]]]:
    """``{qualified: [(column, DuckDB type), ...]}`` read from each Parquet footer."""
    con = duckdb.connect()
    try:
        described = {}
        for name, path in sorted(files.items()):
            rows = con.execute(
                f"DESCRIBE SELECT * FROM read_parquet({quote_literal(path)})"
            ).fetchall()
            described[name] = [(str(row[0]), str(row[1])) for row in rows]
        return described
    finally:
        con.close()


def ensure_mapping(
    home: DataHome, source: str, view: SchemaView, seed: int = DEFAULT_SEED
) -> SchemaMapping:
    """The stored mapping when it matches this data and seed, else a new one (saved)."""
    path = mapping_path(home, source)
    if path.exists():
        stored = read_model(path, SchemaMapping)
        if stored.seed == seed and stored.native_fingerprint == view.fingerprint:
            return stored
    mapping = build_mapping(describe_files(view.files), seed, view.fingerprint)
    write_model(path, mapping)
    return mapping


def load_perturbed(home: DataHome, source: str, variant: PerturbedVariant) -> PerturbedManifest:
    path = perturbed_dir(home, source, variant) / PERTURBED_MANIFEST
    if not path.exists():
        raise M4BenchError(
            f"{path}: the {variant} schema of {source!r} is not built",
            hint=f"build it with `m4bench setup --source {source} --schema {variant}`",
        )
    return read_model(path, PerturbedManifest)


def is_current(home: DataHome, manifest: PerturbedManifest, view: SchemaView) -> bool:
    root = perturbed_root(home, manifest.source)
    return (
        manifest.native_fingerprint == view.fingerprint
        and manifest.mapping_sha256 == sha256_file(mapping_path(home, manifest.source))
        and all((root / entry.path).exists() for entry in manifest.tables.values())
    )


def build_obfuscated(
    home: DataHome, source: str, view: SchemaView, mapping: SchemaMapping, progress: bool = True
) -> PerturbedManifest:
    """Rewrite every table with opaque schema, table and column names."""
    root = perturbed_root(home, source)
    target_dir = perturbed_dir(home, source, "obfuscated")
    tables: dict[str, FileEntry] = {}
    con = duckdb.connect()
    try:
        with progress_bar(progress, "obfuscated", len(view.files)) as advance:
            for native, path in sorted(view.files.items()):
                opaque = mapping.table(native)
                renamed = ", ".join(
                    f"{quote_ident(column)} AS {quote_ident(mapping.column(column))}"
                    for column in mapping.table_columns[native]
                )
                target = _table_file(target_dir, opaque)
                write_parquet(
                    con, f"SELECT {renamed} FROM read_parquet({quote_literal(path)})", target
                )
                tables[opaque] = _entry(root, target)
                advance(opaque)
    finally:
        con.close()
    return _save(home, source, "obfuscated", view, mapping, tables)


def build_restructured(
    home: DataHome,
    source: str,
    view: SchemaView,
    mapping: SchemaMapping,
    obfuscated: PerturbedManifest,
    progress: bool = True,
) -> PerturbedManifest:
    """Stack each merge plan's obfuscated tables into one table; keep the rest as is."""
    root = perturbed_root(home, source)
    target_dir = perturbed_dir(home, source, "restructured")
    merged_away = {
        mapping.table(part) for merged in mapping.merged.values() for part in merged.values
    }
    tables = {name: entry for name, entry in obfuscated.tables.items() if name not in merged_away}
    con = duckdb.connect()
    try:
        with progress_bar(progress, "restructured", len(mapping.merged)) as advance:
            for name, merged in sorted(mapping.merged.items()):
                target = _table_file(target_dir, merged.table)
                query = merged_table_query(merged, mapping, obfuscated, root)
                write_parquet(con, query, target)
                tables[merged.table] = _entry(root, target)
                advance(name)
    finally:
        con.close()
    return _save(home, source, "restructured", view, mapping, tables)


def merged_table_query(
    merged: MergedTable, mapping: SchemaMapping, obfuscated: PerturbedManifest, root: Path
) -> str:
    """``SELECT`` stacking the parts: discriminator, then the union of their columns."""
    selects = []
    for part, value in sorted(merged.values.items(), key=lambda item: item[1]):
        own = {mapping.column(c) for c in mapping.table_columns[part]}
        file = root / obfuscated.tables[mapping.table(part)].path
        cells = [f"{quote_literal(value)} AS {quote_ident(merged.discriminator)}"]
        cells += [
            quote_ident(c) if c in own else f"NULL AS {quote_ident(c)}" for c in merged.columns
        ]
        selects.append(f"SELECT {', '.join(cells)} FROM read_parquet({quote_literal(file)})")
    return " UNION ALL BY NAME ".join(selects)


def perturbed_view(home: DataHome, source: str, variant: PerturbedVariant) -> SchemaView:
    manifest = load_perturbed(home, source, variant)
    root = perturbed_root(home, source)
    return SchemaView(
        variant=variant,
        files={name: root / entry.path for name, entry in manifest.tables.items()},
        derived_schema=manifest.derived_schema,
        fingerprint=manifest.fingerprint(),
    )


def _save(
    home: DataHome,
    source: str,
    variant: PerturbedVariant,
    view: SchemaView,
    mapping: SchemaMapping,
    tables: dict[str, FileEntry],
) -> PerturbedManifest:
    derived = view.derived_schema
    manifest = PerturbedManifest(
        variant=variant,
        source=source,
        native_fingerprint=view.fingerprint,
        mapping_sha256=sha256_file(mapping_path(home, source)),
        derived_schema=mapping.schemas.get(derived) if derived else None,
        tables=dict(sorted(tables.items())),
    )
    write_model(perturbed_dir(home, source, variant) / PERTURBED_MANIFEST, manifest)
    return manifest


def _table_file(variant_dir: Path, opaque: str) -> Path:
    schema_name, table = opaque.split(".", 1)
    return variant_dir / "parquet" / schema_name / f"{table}.parquet"


def _entry(root: Path, path: Path) -> FileEntry:
    return FileEntry(
        path=str(path.relative_to(root)), sha256=sha256_file(path), bytes=path.stat().st_size
    )
