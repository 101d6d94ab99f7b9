"""How many rows of a source reach each scoring bin of the task catalog.

The bins are the families' ``coverage.toml`` (see ``coverage``); counting them needs the
ground truth of every reference of the source's dataset (and, for MIMIC-IV, the derived
concepts), built as ``m4bench setup`` builds them when they are not current. On a
synthetic source each bin also names the engineered states placed for it (the
generator's coverage needs, ``m4bench.sources.synth.coverage_needs``).
"""

from __future__ import annotations

from collections.abc import Callable

from m4bench.concepts.build import build_concepts
from m4bench.home import DataHome
from m4bench.provision.ground_truth import build_ground_truth, task_key
from m4bench.sources.layout import Source
from m4bench.sources.profile import BinReach
from m4bench.sources.synth.coverage_needs import dataset_needs
from m4bench.tasks.catalog import Catalog, Task, load_catalog
from m4bench.validity.audit import select_audit_tasks
from m4bench.validity.coverage import task_bins


def reached_bins(
    source: Source,
    *,
    home: DataHome,
    catalog: Catalog | None = None,
    on_step: Callable[[str], None] | None = None,
) -> list[BinReach]:
    """Every bin of the source's dataset with the rows reaching it, in catalog order."""
    dataset = source.manifest.dataset
    tasks = select_audit_tasks(catalog or load_catalog(), dataset, None)
    if dataset == "mimic-iv":
        build_concepts(source, progress=False)
    groups: dict[str, Task] = {}
    for task in tasks:
        groups.setdefault(task_key(task), task)
    engineered = _engineered(source)
    out: list[BinReach] = []
    con = source.connect(read_only=True)
    try:
        for key in sorted(groups):
            if on_step is not None:
                on_step(key)
            truth = build_ground_truth(home, source, groups[key]).path
            for b in task_bins(groups[key], truth, con):
                out.append(
                    BinReach(
                        family=b.family,
                        name=b.name,
                        reference=b.reference,
                        rows=b.rows,
                        engineered=engineered.get(f"{b.family}/{b.name}", []),
                        error=b.error,
                    )
                )
    finally:
        con.close()
    return out


def _engineered(source: Source) -> dict[str, list[str]]:
    """Per bin, the coverage needs a synthetic source placed for it (none elsewhere)."""
    parameters = source.manifest.parameters
    if source.manifest.kind != "synthetic" or "coverage_needs" not in parameters:
        return {}
    left_out = set(str(parameters.get("coverage_unplaced") or "").split(","))
    dataset = source.manifest.dataset
    by_bin: dict[str, list[str]] = {}
    for need in dataset_needs("eicu" if dataset == "eicu" else "mimic-iv"):
        if need.name not in left_out:
            for name in need.bins:
                by_bin.setdefault(name, []).append(need.name)
    return by_bin
