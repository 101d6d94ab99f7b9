"""Load Harbor task folders with Harbor's own task model; exit 1 naming the first refused.

Run with an interpreter that has Harbor installed (``$M4BENCH_HARBOR_PYTHON``)::

    python harbor_check.py FOLDER ...
"""

from __future__ import annotations

import sys

from harbor.models.task.task import Task


def main(folders: list[str]) -> int:
    for folder in folders:
        task = Task(folder)
        if not Task.is_valid_dir(folder):
            print(f"{folder}: Harbor does not accept this task folder", file=sys.stderr)
            return 1
        print(f"{folder}: {task.name}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
