"""Building a view: the index, one page per run, and ``view.json`` naming what was built.

A view is rebuilt in place: pages are written atomically, pages of runs no longer in
the folder are removed, and ``view.json`` is written last. A folder that holds other
files and no ``view.json`` is never written into.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field

from m4bench.errors import M4BenchError
from m4bench.fileio import atomic_write_text, read_model, write_model, write_shareable
from m4bench.results import planned_run_ids
from m4bench.viewer.collect import RunView, collect
from m4bench.viewer.index_page import IndexContext, IndexRow, index_page
from m4bench.viewer.links import INDEX_FILE, MANIFEST_FILE, RUN_PAGES_DIR, page_name
from m4bench.viewer.run_page import run_page

VIEW_FORMAT_VERSION: Literal[1] = 1


class ViewManifest(BaseModel):
    """What a build of the viewer wrote, so the next build replaces exactly that."""

    format_version: Literal[1] = VIEW_FORMAT_VERSION
    results: str = Field(description="the results folder the view was built from")
    with_truth: bool = Field(description="truth values are shown: not for sharing")
    runs: int
    pages: list[str] = Field(description=f"file names under {RUN_PAGES_DIR}/")


@dataclass(frozen=True)
class BuiltView:
    out: Path
    index: Path
    pages: list[Path]
    unreadable: int
    with_truth: bool


def check_out(out: Path) -> ViewManifest | None:
    """The manifest of the view already in ``out`` (None for a new or empty folder);
    refuses a file, and a folder of other things."""
    if out.exists() and not out.is_dir():
        raise M4BenchError(f"{out}: exists and is not a folder", hint="choose another --out")
    manifest = out / MANIFEST_FILE
    if manifest.is_file():
        return read_model(manifest, ViewManifest)
    if out.is_dir() and any(out.iterdir()):
        raise M4BenchError(
            f"{out}: the folder holds other files and no {MANIFEST_FILE}; the view is "
            "not written there",
            hint="choose an empty or new folder for --out",
        )
    return None


def _index_row(view: RunView, page: str) -> IndexRow:
    record, spec = view.record, view.record.identity
    return IndexRow(
        page=page,
        run_id=record.run_id,
        task=spec.task,
        condition=spec.condition,
        schema=spec.schema_name,
        agent=spec.agent,
        model=spec.model,
        trial=spec.trial,
        status=record.status,
        reward=record.reward,
        strict_pass=record.score.strict_pass if record.score else None,
        publishable=record.publishable,
        tokens=record.usage.total_tokens,
        cost_usd=record.usage.cost_usd,
        seconds=record.timings.total,
    )


def _page_names(views: list[RunView]) -> list[str]:
    names: list[str] = []
    taken: set[str] = set()
    for view in views:
        name = page_name(view.record.run_id)
        stem, number = name.removesuffix(".html"), 2
        while name in taken:  # the same run id twice in a folder of runs
            name, number = f"{stem}-{number}.html", number + 1
        taken.add(name)
        names.append(name)
    return names


def _planned(results: Path) -> int | None:
    try:
        planned, _profile = planned_run_ids(results)
    except M4BenchError:
        return None
    return len(planned) if planned is not None else None


def _remove_stale(out: Path, previous: ViewManifest | None, kept: set[str]) -> None:
    for name in previous.pages if previous else []:
        if name in kept or "/" in name or "\\" in name or not name.endswith(".html"):
            continue  # only pages this viewer named, under run/
        (out / RUN_PAGES_DIR / name).unlink(missing_ok=True)


def build_view(results: Path, out: Path, *, with_truth: bool = False) -> BuiltView:
    """Write the view of the runs under ``results`` into ``out``.

    Without ``with_truth`` no truth value reaches a page (see
    :mod:`m4bench.viewer.disagreements`), so the folder can be shared.
    """
    previous = check_out(out)
    found = collect(results, with_truth)
    views = sorted(found.runs, key=lambda v: (*v.record.identity.parts(), v.record.identity.trial))
    names = _page_names(views)
    # Pages without truth values are meant to be shared: readable as any new file is.
    write = atomic_write_text if with_truth else write_shareable
    pages = []
    for view, name in zip(views, names, strict=True):
        path = out / RUN_PAGES_DIR / name
        write(path, run_page(view).render())
        pages.append(path)
    context = IndexContext(
        title=f"m4bench runs — {results.resolve().name}",
        with_truth=with_truth,
        planned=_planned(results),
        unreadable=found.unreadable,
    )
    rows = [_index_row(view, name) for view, name in zip(views, names, strict=True)]
    index = out / INDEX_FILE
    write(index, index_page(rows, context).render())
    _remove_stale(out, previous, set(names))
    manifest = ViewManifest(
        results=str(results), with_truth=with_truth, runs=len(views), pages=names
    )
    write_model(out / MANIFEST_FILE, manifest)
    return BuiltView(out, index, pages, len(found.unreadable), with_truth)
