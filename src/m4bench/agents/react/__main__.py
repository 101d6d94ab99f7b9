"""``python -m m4bench.agents.react``: run the built-in agent (inside the sandbox)."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from m4bench.agents.react.loop import EXIT_CODES, EXIT_LIMIT, ReactConfig, run_react

API_KEY_ENV = "M4BENCH_REACT_API_KEY"


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m m4bench.agents.react", description=__doc__)
    parser.add_argument("--endpoint", required=True, help="base URL, e.g. http://host:11434/v1")
    parser.add_argument("--model", required=True)
    parser.add_argument("--instruction", required=True, type=Path, help="instruction file")
    parser.add_argument("--workdir", required=True, type=Path)
    parser.add_argument("--database", type=Path, help="DuckDB file for the run_sql tool")
    parser.add_argument("--trajectory", type=Path, help="where to write the ATIF trajectory")
    parser.add_argument("--max-steps", type=int, default=50)
    parser.add_argument("--max-tokens", type=int, default=2_000_000)
    parser.add_argument("--wall-seconds", type=float, default=1800.0)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    try:
        instruction = args.instruction.read_text(encoding="utf-8")
    except OSError as exc:
        print(f"react: cannot read the instruction {args.instruction}: {exc}", file=sys.stderr)
        return 2
    if not args.workdir.is_dir():
        print(f"react: workdir {args.workdir} is not a directory", file=sys.stderr)
        return 2
    os.chdir(args.workdir)
    config = ReactConfig(
        endpoint=args.endpoint,
        model=args.model,
        instruction=instruction,
        workdir=args.workdir,
        database=args.database,
        api_key=os.environ.get(API_KEY_ENV) or os.environ.get("OPENAI_API_KEY"),
        max_steps=args.max_steps,
        max_tokens=args.max_tokens,
        wall_seconds=args.wall_seconds,
        trajectory_path=args.trajectory,
    )
    trajectory = run_react(config)
    # 0: the model finished; 3: a step, token or time limit stopped it; 4: the endpoint
    # refused a request as malformed or answered no chat completion; 5: the provider or
    # the endpoint failed (rate limit, 5xx, credentials, quota, no connection).
    return EXIT_CODES.get(str((trajectory.extra or {}).get("stop_reason")), EXIT_LIMIT)


if __name__ == "__main__":
    sys.exit(main())
