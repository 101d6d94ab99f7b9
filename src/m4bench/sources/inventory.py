"""What sources the data home holds, and what each one contains."""

from __future__ import annotations

from dataclasses import dataclass

from m4bench.errors import M4BenchError
from m4bench.home import DataHome
from m4bench.sources.layout import Source, list_source_names, load_source


@dataclass(frozen=True)
class SourceSummary:
    """One line of ``m4bench data list``; ``problem`` is set when the manifest is damaged."""

    name: str
    dataset: str = ""
    dataset_version: str = ""
    kind: str = ""
    public: bool = False
    tables: int = 0
    rows: int = 0
    bytes: int = 0
    problem: str | None = None


@dataclass(frozen=True)
class TableInfo:
    qualified: str
    rows: int
    bytes: int
    path: str
    sha256: str


def summarize(source: Source) -> SourceSummary:
    manifest = source.manifest
    entries = manifest.tables.values()
    return SourceSummary(
        name=manifest.name,
        dataset=manifest.dataset,
        dataset_version=manifest.dataset_version,
        kind=manifest.kind,
        public=manifest.public,
        tables=len(manifest.tables),
        rows=sum(entry.rows for entry in entries),
        bytes=sum(entry.file.bytes for entry in entries),
    )


def list_sources(home: DataHome) -> list[SourceSummary]:
    """Every source in the home, by name; a damaged one is listed with its problem."""
    summaries = []
    for name in list_source_names(home):
        try:
            summaries.append(summarize(load_source(home, name)))
        except M4BenchError as exc:
            summaries.append(SourceSummary(name=name, problem=exc.message))
    return summaries


def table_infos(source: Source) -> list[TableInfo]:
    """Per-table rows, size and file, in schema.table order."""
    return [
        TableInfo(
            qualified=qualified,
            rows=entry.rows,
            bytes=entry.file.bytes,
            path=str(source.layout.resolve(entry.file)),
            sha256=entry.file.sha256,
        )
        for qualified, entry in sorted(source.manifest.tables.items())
    ]
