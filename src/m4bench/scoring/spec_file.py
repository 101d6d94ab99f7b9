"""Reading an evaluation spec from a JSON file or a task.toml (its ``[evaluation]``)."""

from __future__ import annotations

import json
import tomllib
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from m4bench.errors import M4BenchError
from m4bench.tasks.card import load_card
from m4bench.tasks.evaluation import EvaluationSpec

_HINT = "pass a JSON evaluation spec, or a task.toml that has an evaluation table"
# The spec's lists of column names: each names a column at most once.
NAME_LISTS = (
    "key_columns",
    "value_columns",
    "required_columns",
    "scored_columns",
    "ordered_columns",
)


def load_evaluation_spec(path: Path) -> EvaluationSpec:
    """A whole task card, a TOML with ``[evaluation]``, or a JSON spec object, with
    every column named at most once in each list."""
    spec = _read_spec(path)
    check_unique_names(spec, str(path))
    return spec


def repeated_name(spec: EvaluationSpec) -> tuple[str, str] | None:
    """The first list of column names that names a column twice, and that name."""
    for field in NAME_LISTS:
        names: list[str] | None = getattr(spec, field)
        seen: set[str] = set()
        for name in names or []:
            if name in seen:
                return field, name
            seen.add(name)
    return None


def check_unique_names(spec: EvaluationSpec, source: str | None = None) -> None:
    """Raise ``M4BenchError`` when a list of ``spec`` (read from the file ``source``)
    repeats a name. Scored as it stands, a repeated key column stops the comparison
    (reward 0, every column "not compared") and a repeated scored column weighs twice
    in the reward."""
    repeated = repeated_name(spec)
    if repeated is not None:
        field, name = repeated
        where = f"{source}: " if source else ""
        raise M4BenchError(
            f"{where}invalid evaluation spec at '{field}': '{name}' repeated",
            hint=f"name each column once in {field}",
        )


def _read_spec(path: Path) -> EvaluationSpec:
    try:
        text = path.read_text(encoding="utf-8")
    except (FileNotFoundError, IsADirectoryError) as exc:
        raise M4BenchError(f"{path}: spec file not found", hint=_HINT) from exc
    except (OSError, UnicodeDecodeError) as exc:
        raise M4BenchError(f"{path}: spec file cannot be read: {exc}", hint=_HINT) from exc
    if path.suffix == ".json":
        return _validate(path, _parse_json(path, text))
    try:
        table = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise M4BenchError(f"{path}: not valid TOML: {exc}", hint=_HINT) from exc
    if "metadata" in table:
        return load_card(path).evaluation
    section = table.get("evaluation", table)
    return _validate(path, section)


def _parse_json(path: Path, text: str) -> Any:
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise M4BenchError(f"{path}: not valid JSON: {exc}", hint=_HINT) from exc


def _validate(path: Path, data: Any) -> EvaluationSpec:
    try:
        return EvaluationSpec.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "(spec)"
        raise M4BenchError(
            f"{path}: invalid evaluation spec at '{where}': {first['msg']}", hint=_HINT
        ) from exc
