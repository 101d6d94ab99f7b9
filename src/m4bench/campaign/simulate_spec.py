"""Parse a ``--simulate`` spec: ``seconds=0.1:0.5,fail=0.2,transient=0.05,infra=0.05,seed=3``."""

from __future__ import annotations

from pydantic import ValidationError

from m4bench.campaign.simulate import SimulatedRun
from m4bench.errors import M4BenchError

_KEYS = {
    "fail": "agent_failure_rate",
    "transient": "transient_rate",
    "infra": "infrastructure_rate",
    "seed": "seed",
    "tokens": "tokens_per_second",
}


def parse_simulation(spec: str) -> SimulatedRun:
    fields: dict[str, str] = {}
    for part in filter(None, (piece.strip() for piece in spec.split(","))):
        key, sep, value = part.partition("=")
        if not sep:
            raise M4BenchError(f"--simulate: {part!r} is not key=value")
        if key == "seconds":
            low, _, high = value.partition(":")
            fields["min_seconds"], fields["max_seconds"] = low, high or low
        elif key in _KEYS:
            fields[_KEYS[key]] = value
        else:
            raise M4BenchError(
                f"--simulate: unknown key {key!r}",
                hint=f"keys: seconds, {', '.join(_KEYS)}",
            )
    try:
        return SimulatedRun.model_validate(fields)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"])
        raise M4BenchError(f"--simulate: {where}: {first['msg']}") from exc
