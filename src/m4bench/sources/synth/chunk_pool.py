"""Build chunks in worker processes and hand them back in chunk order.

A chunk's content depends only on its arguments (each chunk draws from its own seeded
streams), so building chunks in parallel and consuming them in order gives the same
bytes as building them one after another.
"""

from __future__ import annotations

import multiprocessing
import os
import sys
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from itertools import islice
from typing import TypeVar

from m4bench.errors import M4BenchError

T = TypeVar("T")
R = TypeVar("R")


def check_workers(workers: object) -> int:
    """Worker counts are positive integers."""
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise M4BenchError(
            f"--workers must be a positive integer, got {workers!r}",
            hint="use e.g. --workers 2 (one process per CPU core)",
        )
    return workers


def can_spawn() -> bool:
    """Whether worker processes can start: a main script read from stdin cannot be re-run."""
    main_file = getattr(sys.modules.get("__main__"), "__file__", None)
    return main_file is None or os.path.exists(main_file)


def ordered_map(build: Callable[[T], R], specs: Iterable[T], workers: int) -> Iterator[R]:
    """``build(spec)`` for each spec, in order; by ``workers`` processes when > 1.

    At most ``workers + 1`` results are in flight, so memory stays bounded whatever the
    number of chunks. ``build`` must be a module-level function (it is pickled).
    """
    if workers <= 1 or not can_spawn():
        for spec in specs:
            yield build(spec)
        return
    context = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
        remaining = iter(specs)
        pending: deque[Future[R]] = deque(
            pool.submit(build, spec) for spec in islice(remaining, workers + 1)
        )
        while pending:
            done = pending.popleft().result()
            following = next(remaining, None)
            if following is not None:
                pending.append(pool.submit(build, following))
            yield done
