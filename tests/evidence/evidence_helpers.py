"""A campaign results directory built by hand, with every kind of sensitive content a
real run can leave behind planted in it, for the sanitization and verification tests."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from result_records import isolated_sandbox, record, score

from m4bench.campaign.store import plan_sha256
from m4bench.fileio import sha256_file, write_model
from m4bench.results import Cell, PlannedRun, ResultRecord
from m4bench.results.campaign_files import AttemptRecord, CampaignManifest
from m4bench.results.record import Artifact, Timings
from m4bench.results.verdicts import CanaryVerdict

TASK = "mimic-sofa-24h"
SECRET = "sk-ant-api03-THISISASECRETVALUE1234567890"
EMAIL = "jane.doe@hospital.example.org"
SUBJECTS = ["10000032", "10000980", "10001217"]
STAYS = ["30000001", "30000002", "30000003"]
CHARTTIME = "2180-07-23 14:05:00"
EPOCH = 1777716001


@dataclass(frozen=True)
class Planted:
    """What a test must never find in a package built from this directory."""

    secrets: list[str]
    identifiers: list[str]
    timestamps: list[str]
    paths: list[str]


def _planned(trial: int) -> PlannedRun:
    cell = Cell.model_validate(
        {"task": TASK, "condition": "no-skill", "schema": "native", "agent": "oracle",
         "model": "reference"}
    )  # fmt: skip
    return PlannedRun(
        cell=cell, trial=trial, timeout_seconds=60, provider="builtin", prior_seconds=1
    )


def _output() -> str:
    header = (
        "subject_id,hadm_id,stay_id,sofa,respiration,coagulation,liver,cardiovascular,cns,renal"
    )
    pairs = enumerate(zip(SUBJECTS, STAYS, strict=True))
    rows = [f"{s},2{s[1:]},{t},{i + 2},0,1,0,{i},0,1" for i, (s, t) in pairs]
    return "\n".join([header, *rows]) + "\n"


def _trace(home: Path) -> str:
    pairs = zip(SUBJECTS, STAYS, strict=True)
    table = "\n".join(f"{s} | {t} | {CHARTTIME} | 97.5" for s, t in pairs)
    events = [
        {"type": "message", "text": f"Using key {SECRET}; contact {EMAIL}"},
        {"type": "tool", "command": f"cat {home}/notes.txt", "timestamp": "2026-05-02T10:00:00Z"},
        {"type": "tool_result", "output": f"subject_id | stay_id | charttime | temp\n{table}"},
        {"type": "message", "text": f"stay {STAYS[0]} looks odd at {CHARTTIME}"},
        {"type": "response", "created": EPOCH, "row": {"stay_id": int(STAYS[1]), "sofa": 3}},
    ]
    return "\n".join(json.dumps(e) for e in events) + "\n"


def build_campaign(root: Path, home: Path, runs: int = 2) -> Planted:
    """``runs`` planned runs of which all but the last are complete; the first has an
    earlier, superseded attempt."""
    planned = [_planned(trial) for trial in range(1, runs + 2)]
    write_model(
        root / "campaign.json",
        CampaignManifest(profile="hand-built", plan_sha256=plan_sha256(planned), runs=planned),
    )
    for index, run in enumerate(planned[:runs]):
        _write_run(root, home, run, superseded=index == 0)
    return Planted(
        secrets=[SECRET, EMAIL],
        identifiers=[*SUBJECTS, *STAYS],
        timestamps=[CHARTTIME, "2026-05-02T10:00:00Z", "2180-07-23", str(EPOCH), "1777716000"],
        paths=[str(home), str(root)],
    )


def _write_run(root: Path, home: Path, run: PlannedRun, superseded: bool) -> None:
    attempt = 2 if superseded else 1
    work = root / "work" / run.run_id / f"attempt-{attempt}"
    work.mkdir(parents=True)
    files = {
        "output.csv": _output(),
        "trace.jsonl": _trace(home),
        "instruction.md": f"Write {TASK} to output.csv. Your files are in {home}/work.\n",
        "egress.jsonl": json.dumps(
            {"ts": 1777716000.25, "method": "CONNECT", "host": "api.example.com", "port": 443,
             "allowed": True, "reason": "allowlisted"}
        ) + "\n",
        "diff.parquet": "not really parquet",
    }  # fmt: skip
    artifacts = {}
    for name, text in files.items():
        (work / name).write_text(text, encoding="utf-8")
        artifacts[name] = Artifact(
            path=f"attempt-{attempt}/{name}",
            sha256=sha256_file(work / name),
            bytes=(work / name).stat().st_size,
        )
    write_model(root / "runs" / run.run_id / "result.json", _record(run, artifacts, home))
    attempts = root / "runs" / run.run_id / "attempts"
    if superseded:
        error = f"disk full under {home}"
        failed = AttemptRecord(
            run_id=run.run_id, attempt=1, state="infrastructure-error", error=error
        )
        write_model(attempts / "1.json", failed)
    done = AttemptRecord(run_id=run.run_id, attempt=attempt, state="finished")
    write_model(attempts / f"{attempt}.json", done)


def _record(run: PlannedRun, artifacts: dict[str, Artifact], home: Path) -> ResultRecord:
    """The runner's record of the run, with a home path in its canary verdict and
    identifiers in the scorer's samples."""
    mismatch = {"key": {"stay_id": STAYS[1]}, "truth": "3", "agent": "2", "reason": "value"}
    column = {
        "column": "sofa", "truth_type": "INTEGER", "comparison": "numeric",
        "tolerance": {}, "present": True, "matched": 2, "mismatched": 1, "missing": 0,
        "extra": 0, "duplicate": 0, "uncastable": 0, "denominator": 3, "match_rate": 0.9,
        "passed": False,
        "mismatch_sample": [mismatch],
    }  # fmt: skip
    scored = score(0.9, failed_checks=0, checks=1, truth_rows=3, columns=[column])
    keys = scored.keys.model_copy(update={"missing_key_sample": [{"stay_id": STAYS[2]}]})
    canary = CanaryVerdict(
        ran=True, passed=True, enforced=True, probed=[str(home), f"{home}/tasks"]
    )
    return record(
        run,
        scored=scored.model_copy(update={"keys": keys}),
        sandbox=isolated_sandbox(canary=canary),
        artifacts=artifacts,
        timings=Timings(agent=1.5, total=2.0),
    ).model_copy(update={"source": "a-credentialed-source", "attempt": 1})
