"""Status of a results directory: per cell, how many trials are done, failed, missing.

A run the model provider ended (an infrastructure outcome: rate limit, 5xx, refused
credentials, exhausted quota, no connection) is missing, not failed: it is tried again
on ``--resume``. Its cell counts it by kind, and the last attempt's cause, in words with
what to do, is among the missing runs' infrastructure errors.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from m4bench.campaign.error_text import error_headline, error_hint
from m4bench.campaign.provider_outcomes import attempt_result, complete_result
from m4bench.campaign.store import ResultsDir
from m4bench.errors import M4BenchError
from m4bench.results.campaign_files import CampaignManifest, RunSettings
from m4bench.results.identity import Cell
from m4bench.results.read import read_result
from m4bench.results.record import INFRASTRUCTURE
from m4bench.results.reward import counted_reward


@dataclass
class CellStatus:
    cell: Cell
    done: int = 0
    failed: int = 0
    missing: int = 0
    running: int = 0
    failure_reasons: dict[str, int] = field(default_factory=dict)
    rewards: list[float] = field(default_factory=list)
    """The rewards of the cell's complete runs, failed ones included."""
    infrastructure: dict[str, int] = field(default_factory=dict)
    """Missing runs whose last attempt the provider ended, by its kind (``rate_limited``,
    ``auth_error``, ...): not failures of the model, tried again on ``--resume``."""

    @property
    def planned(self) -> int:
        return self.done + self.failed + self.missing

    @property
    def mean_reward(self) -> float | None:
        """Mean reward of the complete runs (None before one is complete): a failed run
        counts with the reward the reward rule gives it, as in the analysis."""
        return sum(self.rewards) / len(self.rewards) if self.rewards else None


@dataclass(frozen=True)
class CampaignStatus:
    profile: str
    cells: list[CellStatus]
    unplanned: list[str]
    """Run directories under ``runs/`` that the manifest does not plan."""
    mixed_truths: dict[str, dict[str, list[str]]] = field(default_factory=dict)
    """Tasks whose recorded runs were scored against different ground truths (the
    truth was rebuilt mid-campaign): task -> truth sha256 -> run ids, all sorted."""
    infra_errors: dict[str, int] = field(default_factory=dict)
    """Missing runs whose last attempt ended in an infrastructure error, by the first
    line of that error."""
    infra_hints: dict[str, str] = field(default_factory=dict)
    """What to do about an error of ``infra_errors`` (its hint), by the same first line."""
    settings: RunSettings | None = None
    """What the runs are executed with, as recorded (None: recorded before settings were)."""

    def total(self, attribute: str) -> int:
        return sum(int(getattr(cell, attribute)) for cell in self.cells)


def campaign_status(results: ResultsDir) -> CampaignStatus:
    manifest = _manifest(results)
    cells: dict[str, CellStatus] = {}
    truths: dict[str, dict[str, list[str]]] = {}
    infra: Counter[str] = Counter()
    hints: dict[str, str] = {}
    for run in manifest.runs:
        status = cells.setdefault(run.cell.key, CellStatus(cell=run.cell))
        result = complete_result(results, run.run_id)
        if result is not None and result.ground_truth is not None:
            sha = result.ground_truth.sha256
            truths.setdefault(run.cell.task, {}).setdefault(sha, []).append(run.run_id)
        if result is None:
            status.missing += 1
            running = results.is_running(run.run_id)
            status.running += int(running)
            if not running and (error := _last_infra_error(results, run.run_id)) is not None:
                if (kind := _provider_kind(results, run.run_id)) is not None:
                    status.infrastructure[kind] = status.infrastructure.get(kind, 0) + 1
                headline = error_headline(error)
                infra[headline] += 1
                if (hint := error_hint(error)) is not None:
                    hints.setdefault(headline, hint)
        else:
            _count(status, result.failure_reason, counted_reward(result))
    planned = {run.run_id for run in manifest.runs}
    runs_dir = results.folder.runs
    present = sorted(p.name for p in runs_dir.iterdir()) if runs_dir.is_dir() else []
    unplanned = [name for name in present if name not in planned]
    # By field, so mimic-kdigo-48h comes before mimic-kdigo-48h-raw ('-' sorts before '|').
    ordered = [cells[key] for key in sorted(cells, key=lambda key: key.split("|"))]
    mixed = {
        task: {sha: sorted(ids) for sha, ids in sorted(by_sha.items())}
        for task, by_sha in sorted(truths.items())
        if len(by_sha) > 1
    }
    reasons = dict(sorted(infra.items(), key=lambda item: (-item[1], item[0])))
    return CampaignStatus(
        manifest.profile, ordered, unplanned, mixed, reasons, hints, manifest.settings
    )


def _count(status: CellStatus, failure: str | None, reward: float | None) -> None:
    if failure is None:
        status.done += 1
    else:
        status.failed += 1
        status.failure_reasons[failure] = status.failure_reasons.get(failure, 0) + 1
    if reward is not None:
        status.rewards.append(reward)


def _last_infra_error(results: ResultsDir, run_id: str) -> str | None:
    attempts = results.attempts(run_id)
    if attempts and attempts[-1].state == "infrastructure-error":
        return attempts[-1].error or ""
    return None


def _provider_kind(results: ResultsDir, run_id: str) -> str | None:
    """The infrastructure outcome of the run's last attempt, when the provider ended it
    (its record is kept beside the run)."""
    attempts = results.attempts(run_id)
    if not attempts:
        return None
    kept = attempt_result(results, run_id, attempts[-1].attempt)
    if not kept.is_file():
        return None
    status = read_result(kept).status
    return status if status in INFRASTRUCTURE else None


def status_document(status: CampaignStatus) -> dict[str, object]:
    """The status as plain data (for ``--json``)."""
    cells = [
        {
            **cell.cell.model_dump(mode="json"),
            "done": cell.done,
            "failed": cell.failed,
            "missing": cell.missing,
            "running": cell.running,
            "failure_reasons": dict(sorted(cell.failure_reasons.items())),
            "infrastructure_outcomes": dict(sorted(cell.infrastructure.items())),
            "mean_reward": cell.mean_reward,
        }
        for cell in status.cells
    ]
    totals = {key: status.total(key) for key in ("done", "failed", "missing", "running")}
    return {
        "profile": status.profile,
        "settings": None if status.settings is None else status.settings.model_dump(mode="json"),
        "totals": totals,
        "cells": cells,
        "unplanned": status.unplanned,
        "mixed_ground_truths": status.mixed_truths,
        "last_infrastructure_errors": status.infra_errors,
        "last_infrastructure_error_hints": dict(sorted(status.infra_hints.items())),
    }


def _manifest(results: ResultsDir) -> CampaignManifest:
    manifest = results.read_manifest()
    if manifest is None:
        raise M4BenchError(
            f"{results.root}: no campaign here (no {results.manifest_path.name})",
            hint="give the --results directory of `m4bench campaign run`",
        )
    return manifest
