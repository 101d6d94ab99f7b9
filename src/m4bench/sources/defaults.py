"""The source each dataset is read from when a command names none, and the check that
a task and a source are of the same dataset (the facts live in :mod:`.datasets`)."""

from __future__ import annotations

from m4bench.errors import M4BenchError
from m4bench.sources.datasets import DATASET_NAMES
from m4bench.sources.datasets import DEFAULT_SOURCES as DEFAULT_SOURCES


def default_source(dataset: str) -> str:
    """The synthetic source of ``dataset`` (``mimic-iv`` or ``eicu``)."""
    try:
        return DEFAULT_SOURCES[dataset]
    except KeyError:
        raise M4BenchError(
            f"no default source for dataset {dataset!r}",
            hint=f"known datasets: {', '.join(DATASET_NAMES)}",
        ) from None


def check_same_dataset(task: str, task_dataset: str, source: str, source_dataset: str) -> None:
    """Raise a user error when ``task`` reads another dataset than ``source`` holds."""
    if task_dataset != source_dataset:
        raise M4BenchError(
            f"task {task} reads {task_dataset} data, but source {source!r} holds {source_dataset}",
            hint=f"pick a {task_dataset} source with --source "
            f"(the synthetic one is {DEFAULT_SOURCES.get(task_dataset, 'not built in')})",
        )
