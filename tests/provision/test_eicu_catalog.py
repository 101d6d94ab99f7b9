"""An eICU task's catalog exposes ``eicu_crd`` (minus any listed table) and nothing else."""

from __future__ import annotations

from pathlib import Path

import pytest
from synthetic_sources import SyntheticSources

from m4bench.home import DataHome
from m4bench.provision.agent_catalog import build_agent_catalog
from m4bench.provision.layout import task_catalog_paths
from m4bench.provision.leaks import leaked_in_bytes, leaked_in_views, read_listing
from m4bench.provision.relations import native_view
from m4bench.tasks.card import load_card
from m4bench.tasks.catalog import CATALOG_ROOT, Task

CARD = CATALOG_ROOT / "gcs" / "mimic-gcs-24h-raw" / "task.toml"


def eicu_task(tmp_path: Path, mode: str, drop: list[str]) -> Task:
    """The GCS card turned into an eICU task (only the fields the catalog reads change)."""
    text = CARD.read_text(encoding="utf-8")
    text = text.replace('database = "mimic-iv"', 'database = "eicu"')
    text = text.replace('name = "mimic-gcs-24h-raw"', 'name = "eicu-gcs-probe"')
    text = text.replace('mode = "raw"', f'mode = "{mode}"')
    start = text.index("drop_tables = [")
    end = text.index("]", start) + 1
    text = text[:start] + "drop_tables = [" + ", ".join(f'"{d}"' for d in drop) + "]" + text[end:]
    folder = tmp_path / "gcs" / "eicu-gcs-probe"
    folder.mkdir(parents=True)
    (folder / "task.toml").write_text(text, encoding="utf-8")
    return Task(card=load_card(folder / "task.toml"), dir=folder)


@pytest.mark.parametrize("mode", ["standard", "raw"])
def test_eicu_catalog_keeps_eicu_crd_minus_listed_tables(
    tmp_path: Path, mode: str, synthetic_sources: SyntheticSources
) -> None:
    home = DataHome(tmp_path / "home")
    source = synthetic_sources.copy(home, "prov-eicu", "eicu", 80, 5)
    view = native_view(source)
    assert view.derived_schema is None
    dropped = "eicu_crd.apacheapsvar"
    assert dropped in source.manifest.tables
    task = eicu_task(tmp_path, mode, [dropped])
    assert task.card.dataset == "eicu" and task.card.mode == mode
    build_agent_catalog(home, source.name, task, view)
    catalog = task_catalog_paths(home, source.name, "native", task.name).catalog
    listing = read_listing(catalog)
    assert set(listing.names) == set(source.manifest.tables) - {dropped}
    assert all(name.startswith("eicu_crd.") for name in listing.names)
    assert leaked_in_views(listing, [dropped]) == []
    assert leaked_in_bytes(catalog, [dropped], listing.columns) == []
