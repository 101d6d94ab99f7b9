"""Agent catalogs: the drop rules per task, no leaked names, per-run databases, mounts."""

from __future__ import annotations

import os
from pathlib import Path

import duckdb
import pytest
from provision_helpers import SOURCE, Provisioned, mimic_tasks, sha

from m4bench.errors import M4BenchError
from m4bench.home import DataHome
from m4bench.provision.agent_catalog import (
    agent_mounts,
    load_catalog_manifest,
    provision_run_database,
    write_catalog_file,
)
from m4bench.provision.layout import task_catalog_paths
from m4bench.provision.leaks import leaked_in_bytes, leaked_in_views, read_listing
from m4bench.provision.preflight import check_agent_catalog, provisioning_checks
from m4bench.provision.provisioner import setup
from m4bench.provision.relations import data_relative_path, native_view
from m4bench.sources.layout import load_source
from m4bench.tasks.catalog import Catalog

pytestmark = pytest.mark.xdist_group("provision-synthetic")


def views_of(p: Provisioned, task: str) -> list[str]:
    paths = task_catalog_paths(p.home, SOURCE, "native", task)
    return read_listing(paths.catalog).names


def test_standard_catalog_drops_exactly_the_card_tables(
    provisioned: Provisioned, catalog: Catalog
) -> None:
    everything = set(native_view(provisioned.source).files)
    derived = {name for name in everything if name.startswith("mimiciv_derived.")}
    assert len(derived) > 40
    for name in mimic_tasks(catalog, "standard"):
        dropped = set(catalog.task(name).card.database.drop_tables)
        assert dropped and dropped <= derived, name
        assert set(views_of(provisioned, name)) == everything - dropped, name


def test_raw_catalog_has_no_derived_schema(provisioned: Provisioned, catalog: Catalog) -> None:
    base = set(provisioned.source.manifest.tables)
    for name in mimic_tasks(catalog, "raw"):
        views = set(views_of(provisioned, name))
        assert views == base, name
        assert not any(v.startswith("mimiciv_derived.") for v in views)


def test_no_dropped_name_in_bytes_or_view_text(provisioned: Provisioned, catalog: Catalog) -> None:
    view = native_view(provisioned.source)
    for name in mimic_tasks(catalog):
        paths = task_catalog_paths(provisioned.home, SOURCE, "native", name)
        listing = read_listing(paths.catalog)
        dropped = sorted(set(view.files) - set(listing.names))
        assert dropped, name
        legit = listing.columns | {v.split(".")[1] for v in listing.names}
        assert leaked_in_views(listing, dropped) == [], name
        assert leaked_in_bytes(paths.catalog, dropped, legit) == [], name


def test_preflight_accepts_the_built_catalogs(provisioned: Provisioned, catalog: Catalog) -> None:
    view = native_view(provisioned.source)
    for name in ("mimic-sofa-24h", "mimic-sofa-24h-raw", "mimic-charlson-raw"):
        check = check_agent_catalog(provisioned.home, SOURCE, catalog.task(name), view)
        assert check.ok, check.detail
    assert not provisioned.perturbed_built_by_native_setup


def test_the_leak_detector_finds_a_dropped_view(provisioned: Provisioned, tmp_path: Path) -> None:
    """A catalog that still holds the target view is caught in its views and its bytes."""
    paths = task_catalog_paths(provisioned.home, SOURCE, "native", "mimic-kdigo-48h")
    relations = load_catalog_manifest(paths).relations
    target = "mimiciv_derived.kdigo_stages"
    leaky = tmp_path / "leaky.duckdb"
    write_catalog_file(
        leaky,
        {**relations, target: data_relative_path(target)},
        search_path=native_data_root(provisioned),
    )
    assert leaked_in_views(read_listing(leaky), [target]) == [target]
    assert leaked_in_bytes(leaky, [target], set()) == [target]


def native_data_root(p: Provisioned) -> Path:
    """A directory whose ``m4data`` holds every native relation (the source's Parquet)."""
    root = p.home.root / "all-relations"
    if not root.exists():
        (root).mkdir()
        (root / "m4data").symlink_to(p.source.layout.parquet_dir)
    return root


def test_run_database_is_small_private_and_leaves_shared_files_alone(
    provisioned: Provisioned, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    paths = task_catalog_paths(provisioned.home, SOURCE, "native", "mimic-sofa-24h")
    manifest = load_catalog_manifest(paths)
    mounts = agent_mounts(provisioned.home, SOURCE, "native", "mimic-sofa-24h")
    before = {host: sha(host) for host, _ in mounts} | {paths.catalog: sha(paths.catalog)}
    workdir = tmp_path / "run"
    database = provision_run_database(paths.root, workdir)
    assert database.stat().st_size < 200_000
    monkeypatch.chdir(workdir)
    con = duckdb.connect(str(database))
    try:
        listed = con.execute(
            "SELECT table_schema || '.' || table_name FROM information_schema.tables "
            "WHERE table_schema LIKE 'mimiciv_%' ORDER BY 1"
        ).fetchall()
        assert [row[0] for row in listed] == sorted(manifest.relations)
        stays = con.execute("SELECT COUNT(*) FROM mimiciv_icu.icustays").fetchone()
        assert stays == (200,)
        con.execute("CREATE TABLE main.my_sofa AS SELECT stay_id FROM mimiciv_icu.icustays")
        with pytest.raises(duckdb.CatalogException):
            con.execute("SELECT * FROM mimiciv_derived.sofa")
    finally:
        con.close()
    assert {host: sha(host) for host in before} == before
    assert paths.catalog.stat().st_mode & 0o222 == 0
    assert database.stat().st_mode & 0o200
    with pytest.raises(M4BenchError, match="already has a database"):
        provision_run_database(paths.root, workdir)


def test_sandbox_style_mounts_serve_the_same_catalog(
    provisioned: Provisioned, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With no link, placing exactly the mounted files at their paths is enough."""
    task = "mimic-meld-24h"
    mounts = agent_mounts(provisioned.home, SOURCE, "native", task)
    paths = task_catalog_paths(provisioned.home, SOURCE, "native", task)
    relative = sorted(rel for _, rel in mounts)
    assert relative == sorted(load_catalog_manifest(paths).relations.values())
    assert not any(rel.endswith("/meld.parquet") for rel in relative)
    workdir = tmp_path / "sandbox"
    database = provision_run_database(paths.root, workdir, link_data=False)
    assert not (workdir / "m4data").exists()
    for host, rel in mounts:  # what a read-only bind does
        (workdir / rel).parent.mkdir(parents=True, exist_ok=True)
        os.symlink(host, workdir / rel)
    monkeypatch.chdir(workdir)
    con = duckdb.connect(str(database), read_only=True)
    try:
        rows = con.execute("SELECT COUNT(*) FROM mimiciv_derived.first_day_lab").fetchone()
    finally:
        con.close()
    assert rows is not None and rows[0] > 0


def test_native_preflight_needs_no_perturbed_schema(
    provisioned: Provisioned, catalog: Catalog, tmp_path: Path
) -> None:
    home = DataHome(tmp_path / "home")
    home.sources.mkdir(parents=True)
    (home.sources / SOURCE).symlink_to(provisioned.source.layout.root)
    names = ["mimic-meld-24h", "mimic-meld-24h-raw"]
    setup(home, SOURCE, names, "native", progress=False)
    source = load_source(home, SOURCE)
    tasks = [catalog.task(name) for name in names]
    checks = provisioning_checks(home, source, tasks)
    assert len(checks) == 3 and all(c.ok for c in checks), checks
    assert not (home.root / "perturbed").exists()
    missing = provisioning_checks(home, source, tasks, ["obfuscated"])
    assert [c.ok for c in missing] == [True, False]
    assert "not built" in missing[-1].detail
    leaky = task_catalog_paths(home, SOURCE, "native", names[0]).catalog
    leaky.unlink()
    write_catalog_file(
        leaky,
        {"mimiciv_derived.meld": data_relative_path("mimiciv_derived.meld")},
        search_path=native_data_root(provisioned),
    )
    broken = provisioning_checks(home, source, tasks[:1])
    assert not broken[-1].ok and "differs from its manifest" in broken[-1].detail
