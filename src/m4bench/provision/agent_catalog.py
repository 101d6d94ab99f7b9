"""Per-task agent catalogs and per-run databases.

An agent catalog is a small DuckDB file holding one view per allowed relation, and
nothing else. Each view reads its Parquet file through a path *relative to the
agent's working directory*: ``m4data/<schema>/<table>.parquet``. DuckDB resolves a
relative path against the process's working directory (or ``file_search_path``), so
the same file works

* in development: the run's workdir gets a ``m4data`` link to the task's directory
  of links, which points only at the allowed files;
* in a sandbox: the runner binds each file of :func:`agent_mounts` read-only at
  ``<workdir>/m4data/...`` and creates no link.

The catalog is built in a fresh file from the allowed relations only, so a dropped
name never appears in its bytes, its views or their SQL text. A run copies the file
(tens of kilobytes) into its workdir: the agent may create tables in its copy while
the shared catalog and Parquet files stay untouched.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Mapping
from pathlib import Path

import duckdb
from pydantic import BaseModel, Field

from m4bench.errors import M4BenchError
from m4bench.fileio import atomic_path, read_model, sha256_file, write_model
from m4bench.home import DataHome
from m4bench.provision.layout import (
    CATALOG_FILE,
    DATA_DIR,
    SchemaVariant,
    TaskCatalogPaths,
    task_catalog_paths,
)
from m4bench.provision.relations import (
    SchemaView,
    allowed_relations,
    data_relative_path,
)
from m4bench.sql import create_parquet_views, quote_literal
from m4bench.tasks.catalog import Task

CATALOG_FORMAT_VERSION = 1
# Small blocks keep a catalog of ~100 views near 80 KB instead of ~270 KB.
CATALOG_BLOCK_SIZE = 16_384


class AgentCatalogManifest(BaseModel):
    """``catalog.json``: what one task's agent catalog holds and what it was built from."""

    format_version: int = CATALOG_FORMAT_VERSION
    task: str
    schema_variant: SchemaVariant
    source: str
    data_fingerprint: str = Field(description="identity of the source data and concepts")
    card_sha256: str = Field(description="hash of the task card the drop rules came from")
    relations: dict[str, str] = Field(
        description="allowed relation -> file path relative to the agent's workdir"
    )
    catalog_sha256: str
    catalog_bytes: int


def card_sha256(task: Task) -> str:
    return sha256_file(task.card_path)


def build_agent_catalog(
    home: DataHome,
    source_name: str,
    task: Task,
    view: SchemaView,
    rename: Callable[[str], str] = lambda name: name,
) -> AgentCatalogManifest:
    """(Re)build the task's catalog for ``view``: links, catalog file, manifest."""
    paths = task_catalog_paths(home, source_name, view.variant, task.name)
    allowed = allowed_relations(task.card, view, rename)
    relations = {name: data_relative_path(name) for name in allowed}
    _link_data(paths, {relations[name]: view.files[name] for name in allowed})
    with atomic_path(paths.catalog) as tmp:
        tmp.unlink()
        write_catalog_file(tmp, relations, search_path=paths.root)
        os.chmod(tmp, 0o444)  # shared by every run of the task: never opened for writing
    manifest = AgentCatalogManifest(
        task=task.name,
        schema_variant=view.variant,
        source=source_name,
        data_fingerprint=view.fingerprint,
        card_sha256=card_sha256(task),
        relations=relations,
        catalog_sha256=sha256_file(paths.catalog),
        catalog_bytes=paths.catalog.stat().st_size,
    )
    write_model(paths.manifest, manifest)
    return manifest


def write_catalog_file(target: Path, relations: Mapping[str, str], search_path: Path) -> None:
    """Create a fresh DuckDB file with one view per relation over its relative path."""
    con = duckdb.connect()
    try:
        con.execute(f"SET file_search_path = {quote_literal(search_path)}")
        con.execute(f"ATTACH {quote_literal(target)} AS agent (BLOCK_SIZE {CATALOG_BLOCK_SIZE})")
        con.execute("USE agent")
        create_parquet_views(con, sorted(relations.items()))
        con.execute("CHECKPOINT")
        con.execute("USE memory")
        con.execute("DETACH agent")
    except duckdb.Error as exc:
        raise M4BenchError(
            f"{target}: building the agent catalog failed: {exc}",
            hint="check that the source and its concepts are built (`m4bench concepts build`)",
        ) from exc
    finally:
        con.close()


def _link_data(paths: TaskCatalogPaths, files: Mapping[str, Path]) -> None:
    """Replace the task's ``m4data`` tree by links to exactly ``files``."""
    fresh = paths.root / f".{DATA_DIR}.new"
    if fresh.exists():
        shutil.rmtree(fresh)
    for relative, target in sorted(files.items()):
        link = fresh / Path(relative).relative_to(DATA_DIR)
        link.parent.mkdir(parents=True, exist_ok=True)
        link.symlink_to(target.resolve())
    if not files:
        fresh.mkdir(parents=True)
    if paths.data.exists():
        shutil.rmtree(paths.data)
    fresh.rename(paths.data)


def load_catalog_manifest(paths: TaskCatalogPaths) -> AgentCatalogManifest:
    if not paths.manifest.exists():
        raise M4BenchError(
            f"{paths.root}: no agent catalog",
            hint="build it with `m4bench setup --task <name>`",
        )
    return read_model(paths.manifest, AgentCatalogManifest)


def agent_mounts(
    home: DataHome, source: str, schema: SchemaVariant, task: str
) -> list[tuple[Path, str]]:
    """``(host file, path relative to the agent's workdir)`` of every file the task's
    catalog reads: exactly what a sandbox mounts read-only."""
    paths = task_catalog_paths(home, source, schema, task)
    manifest = load_catalog_manifest(paths)
    mounts = []
    for name, relative in sorted(manifest.relations.items()):
        link = paths.root / relative
        if not link.exists():
            raise M4BenchError(
                f"{link}: the file behind {name} is missing",
                hint="rebuild the source or re-run `m4bench setup`",
            )
        mounts.append((link.resolve(), relative))
    return mounts


def provision_run_database(task_catalog: Path, workdir: Path, link_data: bool = True) -> Path:
    """Give one run its own database: a copy of the task catalog in ``workdir``.

    ``task_catalog`` is the catalog file or its directory. With ``link_data`` (no
    sandbox) ``workdir/m4data`` links to the task's allowed files; a sandbox passes
    False and mounts :func:`agent_mounts` there instead. Returns the run's database.
    """
    source_file = task_catalog / CATALOG_FILE if task_catalog.is_dir() else task_catalog
    if not source_file.is_file():
        raise M4BenchError(
            f"{source_file}: no agent catalog", hint="build it with `m4bench setup --task <name>`"
        )
    workdir.mkdir(parents=True, exist_ok=True)
    target = workdir / CATALOG_FILE
    if target.exists():
        raise M4BenchError(f"{target}: the run already has a database", hint="use a fresh workdir")
    shutil.copyfile(source_file, target)
    os.chmod(target, 0o644)
    if link_data:
        link = workdir / DATA_DIR
        if link.exists() or link.is_symlink():
            raise M4BenchError(f"{link}: already exists", hint="use a fresh workdir")
        link.symlink_to((source_file.parent / DATA_DIR).resolve(), target_is_directory=True)
    return target
