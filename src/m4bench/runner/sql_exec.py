"""Run a list of SQL statements on the run's database (inside the sandbox).

Standard library and duckdb only: this file is mounted into the sandbox on its own and
run with the harness's interpreter::

    python -I sql_exec.py PLAN.json

``PLAN.json`` holds ``{"database": "agent.duckdb", "statements": ["...", ...]}``. Each
statement is reported on stdout as one JSON line; the first failing statement stops
the run with exit status 1.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path


def run_plan(plan_path: Path) -> int:
    import duckdb

    plan = json.loads(plan_path.read_text(encoding="utf-8"))
    con = duckdb.connect(str(plan["database"]))
    try:
        for index, statement in enumerate(plan["statements"]):
            started = time.monotonic()
            event = {"type": "sql", "index": index, "statement": statement}
            try:
                con.execute(statement)
            except duckdb.Error as exc:
                event.update(ok=False, error=str(exc), seconds=time.monotonic() - started)
                print(json.dumps(event, sort_keys=True), flush=True)
                return 1
            event.update(ok=True, seconds=round(time.monotonic() - started, 3))
            print(json.dumps(event, sort_keys=True), flush=True)
    finally:
        con.close()
    return 0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        print("usage: sql_exec.py PLAN.json", file=sys.stderr)
        sys.exit(2)
    sys.exit(run_plan(Path(sys.argv[1])))
