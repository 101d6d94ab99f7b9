"""A research group's own task folder, for the tests of $M4BENCH_TASKS."""

from __future__ import annotations

import shutil
from pathlib import Path

from m4bench.tasks.catalog import CATALOG_ROOT

LOCAL_FAMILY = "meld-local"
LOCAL_TASK = "mimic-meld-local-24h"


def replace_in(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new), encoding="utf-8")


def local_family(
    root: Path, family: str = LOCAL_FAMILY, task: str = LOCAL_TASK, source_family: str = "meld"
) -> Path:
    """A copy of the shipped MELD family as ``root/<family>/<task>``: its standard task
    only, renamed, with the card and provenance naming the new family and task."""
    family_dir = root / family
    shutil.copytree(CATALOG_ROOT / source_family, family_dir)
    shutil.rmtree(family_dir / "mimic-meld-24h-raw")
    if task != "mimic-meld-24h":
        (family_dir / "mimic-meld-24h").rename(family_dir / task)
    card = family_dir / task / "task.toml"
    replace_in(card, 'name = "mimic-meld-24h"', f'name = "{task}"')
    replace_in(card, 'family = "meld"', f'family = "{family}"')
    provenance = family_dir / "PROVENANCE.yaml"
    replace_in(provenance, "family: meld\n", f"family: {family}\n")
    replace_in(provenance, "- mimic-meld-24h\n- mimic-meld-24h-raw\n", f"- {task}\n")
    return family_dir / task
