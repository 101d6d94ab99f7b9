"""Preflight checks of the provisioning layer, as results rather than exceptions.

Checks cover what the task cards ask for: each agent catalog exists, was built from
the current card and data, holds exactly the allowed relations, and shows no dropped
name; each ground truth manifest is valid and current. Only the schema variants asked
for are checked, so a native-only user never needs the perturbed schemas.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from m4bench.errors import M4BenchError
from m4bench.fileio import sha256_file
from m4bench.home import DataHome
from m4bench.provision.agent_catalog import card_sha256, load_catalog_manifest
from m4bench.provision.equivalence import load_mapping
from m4bench.provision.ground_truth import ground_truth_path, representatives, stale_reason
from m4bench.provision.layout import SchemaVariant, task_catalog_paths
from m4bench.provision.leaks import leaked_in_bytes, leaked_in_views, read_listing
from m4bench.provision.perturb import perturbed_view
from m4bench.provision.relations import (
    SchemaView,
    allowed_relations,
    dropped_relations,
    native_view,
)
from m4bench.sources.datasets import PERTURBED_DATASETS
from m4bench.sources.layout import Source
from m4bench.tasks.catalog import Task


@dataclass(frozen=True)
class CheckResult:
    name: str
    ok: bool
    detail: str


def check_agent_catalog(
    home: DataHome,
    source: str,
    task: Task,
    view: SchemaView,
    rename: Callable[[str], str] = lambda name: name,
) -> CheckResult:
    """One task's catalog for ``view``: present, current, exact, leak-free."""
    name = f"agent catalog {view.variant}/{task.name}"
    paths = task_catalog_paths(home, source, view.variant, task.name)
    try:
        manifest = load_catalog_manifest(paths)
    except M4BenchError as exc:
        return CheckResult(name, False, exc.message)
    problems = []
    if manifest.card_sha256 != card_sha256(task):
        problems.append("the task card changed since the catalog was built")
    if manifest.data_fingerprint != view.fingerprint:
        problems.append("the source data changed since the catalog was built")
    if not paths.catalog.exists() or sha256_file(paths.catalog) != manifest.catalog_sha256:
        return CheckResult(name, False, f"{paths.catalog} is missing or differs from its manifest")
    expected = allowed_relations(task.card, view, rename)
    listing = read_listing(paths.catalog)
    present = listing.names
    if present != expected or sorted(manifest.relations) != expected:
        extra = sorted(set(present) - set(expected))
        absent = sorted(set(expected) - set(present))
        problems.append(f"relations differ from the card (extra {extra}, missing {absent})")
    dropped = dropped_relations(task.card, view, rename)
    legit = listing.columns | {q.split(".", 1)[1] for q in present}
    leaked = sorted(
        set(leaked_in_views(listing, dropped)) | set(leaked_in_bytes(paths.catalog, dropped, legit))
    )
    if leaked:
        problems.append(f"dropped names present: {leaked}")
    return CheckResult(name, not problems, "; ".join(problems) or f"{len(present)} relations")


def check_ground_truths(home: DataHome, source: Source, tasks: Iterable[Task]) -> list[CheckResult]:
    """Every reference's ground truth exists and its manifest matches its inputs."""
    results = []
    for task in representatives(tasks):
        truth = ground_truth_path(home, source.name, task)
        try:
            reason = stale_reason(task, source, truth)
        except M4BenchError as exc:
            reason = exc.message
        name = f"ground truth {truth.stem}"
        results.append(CheckResult(name, reason is None, reason or str(truth)))
    return results


def provisioning_checks(
    home: DataHome,
    source: Source,
    tasks: Sequence[Task],
    variants: Sequence[SchemaVariant] = ("native",),
) -> list[CheckResult]:
    """Ground truth of every task, and its agent catalog for each of ``variants`` only
    (the default checks the native schema alone)."""
    results = check_ground_truths(home, source, tasks)
    for variant in variants:
        if variant == "native":
            view = native_view(source)
            results += [check_agent_catalog(home, source.name, t, view) for t in tasks]
            continue
        try:
            view = perturbed_view(home, source.name, variant)
            mapping = load_mapping(home, source.name)
        except M4BenchError as exc:
            results.append(CheckResult(f"{variant} schema", False, exc.message))
            continue
        mimic = [t for t in tasks if t.card.dataset in PERTURBED_DATASETS]
        rename = mapping.opaque_or_same
        results += [check_agent_catalog(home, source.name, t, view, rename) for t in mimic]
    return results
