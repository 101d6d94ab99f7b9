"""Where everything of a results folder lives: every file name, in one place.

A folder of runs (``m4bench run --results DIR``)::

    <results>/<run_id>/result.json            the run's record (written last, atomically)
    <results>/<run_id>/attempt-<n>/           one start of the run: workdir/, logs/ and
                                              the kept artifacts (instruction.md,
                                              output.csv, trace.jsonl, ...)
    <results>/<run_id>/attempt-<n>/attempt-result.json
                                              the record of a start that did not become
                                              the run's: a complete result.json is never
                                              replaced (an incomplete one is)

A campaign's folder (``m4bench campaign run --results DIR``)::

    <results>/campaign.json                   the planned set (CampaignManifest)
    <results>/runs/<run_id>/result.json       the run's record, once complete
    <results>/runs/<run_id>/attempts/<n>.json one start of the run (AttemptRecord)
    <results>/runs/<run_id>/attempts/<n>.result.json
                                              the record of a start that found the run
                                              complete already (kept beside, not over it)
    <results>/runs/<run_id>/.claim            lock held while the run executes
    <results>/work/<run_id>/                  the runner's folder of the run (as above),
                                              its result.json only until the campaign
                                              has recorded it
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

RESULT_FILE = "result.json"
ATTEMPT_RESULT_FILE = "attempt-result.json"
"""An attempt's own record, in its folder, when the run's ``result.json`` stays."""
CAMPAIGN_FILE = "campaign.json"
RUNS_DIR = "runs"
ATTEMPTS_DIR = "attempts"
CLAIM_FILE = ".claim"
WORK_DIR = "work"
FORMAT1_RUNNER_COPY = "runner-result.json"
"""Where campaigns of format 1 set the runner's record aside under ``work/<run_id>/``."""

INSTRUCTION_FILE = "instruction.md"
OUTPUT_FILE = "output.csv"
TRACE_FILE = "trace.jsonl"
STDERR_FILE = "stderr.log"
TRAJECTORY_FILE = "trajectory.json"
EGRESS_FILE = "egress.jsonl"
DIFF_FILE = "diff.parquet"
ARTIFACTS: tuple[str, ...] = (
    INSTRUCTION_FILE,
    OUTPUT_FILE,
    TRACE_FILE,
    STDERR_FILE,
    TRAJECTORY_FILE,
    EGRESS_FILE,
    DIFF_FILE,
)
"""The files a run keeps of its attempt, in the order the record lists them."""

_ATTEMPT = re.compile(r"^attempt-(\d+)$")


@dataclass(frozen=True)
class RunFolder:
    """The runner's folder of one run: its record and one folder per attempt."""

    path: Path

    @property
    def result(self) -> Path:
        return self.path / RESULT_FILE

    def attempt(self, number: int) -> Path:
        return self.path / f"attempt-{number}"

    def attempt_result(self, number: int) -> Path:
        """Where attempt ``number`` keeps its record when it is not the run's."""
        return self.attempt(number) / ATTEMPT_RESULT_FILE

    def attempt_numbers(self) -> list[int]:
        """The attempts started so far, in order."""
        if not self.path.is_dir():
            return []
        found = (_ATTEMPT.match(child.name) for child in self.path.iterdir())
        return sorted(int(match.group(1)) for match in found if match)


@dataclass(frozen=True)
class CampaignFolder:
    """A campaign's results folder."""

    root: Path

    @property
    def manifest(self) -> Path:
        return self.root / CAMPAIGN_FILE

    @property
    def runs(self) -> Path:
        return self.root / RUNS_DIR

    def run_dir(self, run_id: str) -> Path:
        return self.runs / run_id

    def result(self, run_id: str) -> Path:
        return self.run_dir(run_id) / RESULT_FILE

    def attempts_dir(self, run_id: str) -> Path:
        return self.run_dir(run_id) / ATTEMPTS_DIR

    def attempt_file(self, run_id: str, attempt: int) -> Path:
        return self.attempts_dir(run_id) / f"{attempt}.json"

    def attempt_result(self, run_id: str, attempt: int) -> Path:
        """Where a start's record goes when the run's record stays (it was complete)."""
        return self.attempts_dir(run_id) / f"{attempt}.{RESULT_FILE}"

    def claim(self, run_id: str) -> Path:
        return self.run_dir(run_id) / CLAIM_FILE

    @property
    def work(self) -> Path:
        """Where the runner keeps its folder of each run."""
        return self.root / WORK_DIR

    def runner_folder(self, run_id: str) -> RunFolder:
        return RunFolder(self.work / run_id)


def is_campaign_folder(path: Path) -> bool:
    """A campaign's results folder: it has a manifest or a ``runs/`` folder."""
    return (path / CAMPAIGN_FILE).is_file() or (path / RUNS_DIR).is_dir()


def artifact_root(results: Path, run_id: str) -> Path:
    """The folder a run's ``artifacts`` paths are relative to: the runner's folder of
    the run, in a campaign's folder or in a folder of runs."""
    if is_campaign_folder(results):
        return CampaignFolder(results).runner_folder(run_id).path
    return RunFolder(results / run_id).path
