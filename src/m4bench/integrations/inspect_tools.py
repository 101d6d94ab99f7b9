"""The tool an Inspect model gets beside ``bash``: SQL on the task's DuckDB database.

The query runs in the sample's sandbox, in the working directory, through a small
script given to an interpreter that has ``duckdb`` (by default the one running Inspect,
which is what the ``local`` sandbox executes). The statement's rows come back as CSV, at
most ``max_rows`` of them; a statement without rows (``COPY ... TO 'output.csv'``,
``CREATE TABLE``) answers ``ok``.
"""

from __future__ import annotations

import sys

from inspect_ai.tool import Tool, tool
from inspect_ai.util import sandbox

from m4bench.integrations.bundle import DATABASE_FILE

SQL_SCRIPT = """
import csv, sys
import duckdb
database, query, limit = sys.argv[1], sys.argv[2], int(sys.argv[3])
con = duckdb.connect(database)
try:
    relation = con.sql(query)
    if relation is None:
        print("ok")
    else:
        rows = relation.fetchmany(limit + 1)
        out = csv.writer(sys.stdout, lineterminator="\\n")
        out.writerow(relation.columns)
        out.writerows(rows[:limit])
        if len(rows) > limit:
            print(f"... (only the first {limit} rows are shown)")
except duckdb.Error as exc:
    print(f"error: {exc}")
    sys.exit(1)
finally:
    con.close()
"""


@tool
def sql(timeout: int | None = 600, max_rows: int = 200, python: str | None = None) -> Tool:
    """SQL on ``agent.duckdb`` in the sandbox's working directory.

    Args:
      timeout: Seconds one statement may take.
      max_rows: Rows of a result shown to the model.
      python: Interpreter (with duckdb) that runs the statement in the sandbox;
        default: the one running Inspect.
    """
    interpreter = python or sys.executable

    async def execute(query: str) -> str:
        """Run one SQL statement on the task's DuckDB database (./agent.duckdb).

        Args:
          query: One DuckDB SQL statement. COPY (SELECT ...) TO 'output.csv'
            (FORMAT CSV, HEADER) writes the answer file.

        Returns:
          The result as CSV (header, then rows), "ok" for a statement without rows,
          or the database's error.
        """
        argv = [interpreter, "-c", SQL_SCRIPT, DATABASE_FILE, query, str(max_rows)]
        result = await sandbox().exec(argv, timeout=timeout)
        return (result.stdout + result.stderr).strip() or "ok"

    return execute
