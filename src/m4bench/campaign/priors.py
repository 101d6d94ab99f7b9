"""Duration priors: how long a run is expected to take, for slowest-first scheduling.

The shipped priors (``duration-priors.toml``) are the minutes the paper's campaigns
observed per task, scaled by a per-condition factor; unknown tasks take the default.
A profile may carry its own ``[priors]`` table instead.
"""

from __future__ import annotations

import tomllib
from functools import cache
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from m4bench.errors import M4BenchError

PRIORS_FILE = Path(__file__).parent / "duration-priors.toml"


class DurationPriors(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    default_minutes: float = Field(4.0, gt=0)
    task_minutes: dict[str, float] = Field(default_factory=dict)
    condition_factor: dict[str, float] = Field(default_factory=dict)

    def seconds(self, task: str, condition: str) -> float:
        minutes = self.task_minutes.get(task, self.default_minutes)
        return 60.0 * minutes * self.condition_factor.get(condition, 1.0)


@cache
def shipped_priors() -> DurationPriors:
    return load_priors(PRIORS_FILE)


def load_priors(path: Path) -> DurationPriors:
    try:
        raw = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise M4BenchError(f"{path}: cannot read duration priors: {exc}") from exc
    try:
        return DurationPriors.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise M4BenchError(f"{path}: field {where!r}: {first['msg']}") from exc
