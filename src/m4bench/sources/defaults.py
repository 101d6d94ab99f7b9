"""The source each dataset is read from when a command names none, and the check that
a task and a source are of the same dataset (the facts live in :mod:`.datasets`).

:func:`choose_source` is what every command reads when ``--source`` is left out: the
dataset's synthetic source when it is built, else the dataset's only source in the data
home (``m4bench demo --small`` builds ``demo-small-mimic-iv``, an ingest names its own);
with none or several it refuses, naming the sources it found.
"""

from __future__ import annotations

from m4bench.errors import M4BenchError
from m4bench.home import DataHome
from m4bench.sources.datasets import DATASET_NAMES, dataset_facts
from m4bench.sources.datasets import DEFAULT_SOURCES as DEFAULT_SOURCES
from m4bench.sources.layout import list_source_names, load_source


def default_source(dataset: str) -> str:
    """The synthetic source of ``dataset`` (``mimic-iv`` or ``eicu``)."""
    try:
        return DEFAULT_SOURCES[dataset]
    except KeyError:
        raise M4BenchError(
            f"no default source for dataset {dataset!r}",
            hint=f"known datasets: {', '.join(DATASET_NAMES)}",
        ) from None


def sources_of(home: DataHome, dataset: str) -> list[str]:
    """The names of the sources in ``home`` that hold ``dataset``, sorted; a source
    whose manifest cannot be read is left out (``m4bench data list`` reports it)."""
    found = []
    for name in list_source_names(home):
        try:
            if load_source(home, name).manifest.dataset == dataset:
                found.append(name)
        except M4BenchError:
            continue
    return found


def choose_source(home: DataHome, dataset: str) -> str:
    """The source a command reads for ``dataset`` when ``--source`` was left out: the
    synthetic one when built, else the only one; a user error naming what exists else."""
    facts = dataset_facts(dataset)
    names = sources_of(home, dataset)
    if facts.default_source in names:
        return facts.default_source
    if len(names) == 1:
        return names[0]
    if names:
        raise M4BenchError(
            f"{len(names)} {facts.label} sources in {home.sources} ({', '.join(names)}): "
            "which one to read?",
            hint=f"name one with --source (e.g. --source {names[0]})",
        )
    others = ", ".join(list_source_names(home)) or "none"
    raise M4BenchError(
        f"no {facts.label} source in {home.sources} (found: {others})",
        hint=f"build one with `m4bench data synth {dataset}` (or `m4bench demo --small`), "
        f"or bring real data with `m4bench data ingest {dataset} PATH`"
        + (", then `m4bench concepts build`" if facts.derived_schema else ""),
    )


def check_same_dataset(task: str, task_dataset: str, source: str, source_dataset: str) -> None:
    """Raise a user error when ``task`` reads another dataset than ``source`` holds."""
    if task_dataset != source_dataset:
        raise M4BenchError(
            f"task {task} reads {task_dataset} data, but source {source!r} holds {source_dataset}",
            hint=f"pick a {task_dataset} source with --source "
            f"(the synthetic one is {DEFAULT_SOURCES.get(task_dataset, 'not built in')})",
        )
