"""The ``provenance`` lint rule: each family's PROVENANCE.yaml is valid, names the
family, lists exactly its tasks, and claims a review only with a review entry."""

from __future__ import annotations

from collections.abc import Iterator

from m4bench.errors import M4BenchError
from m4bench.tasks.card import line_of
from m4bench.tasks.catalog import Catalog, load_provenance
from m4bench.tasks.finding import Finding


def lint_provenance(catalog: Catalog) -> Iterator[Finding]:
    """Provenance findings of every family of ``catalog``."""
    for family in catalog.families:
        tasks = catalog.family(family)
        path = tasks[0].provenance_path
        try:
            prov = load_provenance(path)
        except M4BenchError as exc:
            yield Finding("provenance", path, 1, exc.message)
            continue
        text = path.read_text(encoding="utf-8")
        if prov.family != family:
            yield Finding(
                "provenance",
                path,
                line_of(text, "family"),
                f"family {prov.family!r} differs from the folder {family!r}",
            )
        names = sorted(t.name for t in tasks)
        if sorted(prov.applies_to) != names:
            yield Finding(
                "provenance", path, line_of(text, "applies_to"), f"applies_to must list {names}"
            )
        if prov.review_status == "reviewed" and not prov.reviews:
            yield Finding(
                "provenance",
                path,
                line_of(text, "review_status"),
                "review_status 'reviewed' needs at least one review entry",
            )
