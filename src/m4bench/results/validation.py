"""Turning a JSON file into a typed record, with errors that name the file and field."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from m4bench.errors import M4BenchError
from m4bench.fileio import read_user_text

ModelT = TypeVar("ModelT", bound=BaseModel)
DAMAGED = "the file is damaged or was changed by hand; restore it, or move the run out"


def read_json_object(path: Path) -> dict[str, Any]:
    """The JSON object in ``path``; errors name the file."""
    try:
        text = read_user_text(path, hint=DAMAGED)
    except FileNotFoundError as exc:
        raise M4BenchError(f"{path}: file not found") from exc
    except OSError as exc:
        raise M4BenchError(f"{path}: cannot read ({exc.strerror})") from exc
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise M4BenchError(f"{path}: not readable JSON ({exc})", hint=DAMAGED) from exc
    if not isinstance(value, dict):
        raise M4BenchError(f"{path}: expected a JSON object", hint=DAMAGED)
    return value


def validated(model: type[ModelT], data: Any, where: str) -> ModelT:
    """``data`` as ``model``; a bad field raises naming ``where`` and the field."""
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(part) for part in first["loc"]) or "(record)"
        raise M4BenchError(f"{where}: field '{field}': {first['msg']}", hint=DAMAGED) from exc
