"""The react agent's tools: SQL on the task database, shell, read file, write file.

Each tool returns text for the model. Relative paths are relative to the workdir; the
sandbox, not this module, decides what is reachable.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import duckdb

MAX_OUTPUT_CHARS = 12_000
MAX_SQL_ROWS = 50


def _schema(name: str, description: str, **params: str) -> dict[str, Any]:
    properties = {key: {"type": "string", "description": text} for key, text in params.items()}
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {
                "type": "object",
                "properties": properties,
                "required": sorted(params),
            },
        },
    }


TOOL_DEFINITIONS: list[dict[str, Any]] = [
    _schema(
        "run_sql",
        "Run one DuckDB SQL statement on the task database; returns up to 50 rows. "
        "COPY (...) TO 'output.csv' (HEADER) writes a result file.",
        query="the SQL statement",
    ),
    _schema(
        "run_shell",
        "Run a shell command (sh -c) in the working directory; returns exit code and output.",
        command="the command line",
    ),
    _schema("read_file", "Read a text file.", path="file path"),
    _schema("write_file", "Write (replace) a text file.", path="file path", content="file text"),
]


def _clip(text: str) -> str:
    if len(text) <= MAX_OUTPUT_CHARS:
        return text
    return text[:MAX_OUTPUT_CHARS] + f"\n[... {len(text) - MAX_OUTPUT_CHARS} more characters]"


@dataclass(frozen=True)
class Toolbox:
    """Tool implementations bound to one workdir and database."""

    workdir: Path
    database: Path | None
    shell_timeout: float = 300.0

    def call(self, name: str, raw_arguments: str) -> str:
        handlers: dict[str, Callable[[dict[str, Any]], str]] = {
            "run_sql": self.run_sql,
            "run_shell": self.run_shell,
            "read_file": self.read_file,
            "write_file": self.write_file,
        }
        handler = handlers.get(name)
        if handler is None:
            return f"error: unknown tool {name!r}; tools are {', '.join(sorted(handlers))}"
        try:
            arguments = json.loads(raw_arguments or "{}")
        except json.JSONDecodeError as exc:
            return f"error: arguments are not JSON ({exc}); send a JSON object"
        if not isinstance(arguments, dict):
            return "error: arguments must be a JSON object"
        try:
            return _clip(handler(arguments))
        except KeyError as exc:
            return f"error: missing argument {exc}"

    def _path(self, raw: Any) -> Path:
        path = Path(str(raw))
        return path if path.is_absolute() else self.workdir / path

    def run_sql(self, arguments: dict[str, Any]) -> str:
        if self.database is None:
            return "error: no database was given to this agent"
        try:
            with duckdb.connect(str(self.database), read_only=True) as con:
                relation = con.sql(str(arguments["query"]))
                if relation is None:
                    return "ok"
                columns = relation.columns
                rows = relation.fetchmany(MAX_SQL_ROWS + 1)
        except duckdb.Error as exc:
            return f"error: {exc}"
        lines = ["\t".join(columns)]
        lines += [
            "\t".join("" if v is None else str(v) for v in row) for row in rows[:MAX_SQL_ROWS]
        ]
        if len(rows) > MAX_SQL_ROWS:
            lines.append(f"[more than {MAX_SQL_ROWS} rows; showing the first {MAX_SQL_ROWS}]")
        return "\n".join(lines)

    def run_shell(self, arguments: dict[str, Any]) -> str:
        try:
            done = subprocess.run(
                ["sh", "-c", str(arguments["command"])],
                cwd=self.workdir,
                capture_output=True,
                text=True,
                timeout=self.shell_timeout,
                check=False,
            )
        except subprocess.TimeoutExpired:
            return f"error: command timed out after {self.shell_timeout:.0f} s"
        return f"exit code {done.returncode}\n{done.stdout}{done.stderr}"

    def read_file(self, arguments: dict[str, Any]) -> str:
        try:
            return self._path(arguments["path"]).read_text(encoding="utf-8", errors="replace")
        except OSError as exc:
            return f"error: {exc}"

    def write_file(self, arguments: dict[str, Any]) -> str:
        path = self._path(arguments["path"])
        content = str(arguments["content"])
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(content, encoding="utf-8")
        except OSError as exc:
            return f"error: {exc}"
        return f"wrote {len(content)} characters to {path}"
