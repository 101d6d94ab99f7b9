"""A campaign's results folder and its crash-safe protocol.

The layout is the results layer's (:class:`m4bench.results.layout.CampaignFolder`): the
planned set in ``campaign.json``, each run's result record in ``runs/<run_id>/result.json``
and the campaign's bookkeeping of each start of it in ``runs/<run_id>/attempts/<n>.json``.

Protocol, per run: take an exclusive ``flock`` on ``.claim`` (the kernel releases it
when the holder dies, even by SIGKILL, so a crash never leaves a stale claim); skip
the run if ``result.json`` holds a complete record; number the attempt and record it
``started``;
execute; write the run's result record as ``result.json`` by temp file + rename. The
rename is the commit point:
before it the run is missing and will be executed again, after it the run is complete
and never executed again. Exactly one ``result.json`` can exist per run id, so a run
is never duplicated, and readers never see a half-written one. A complete record is
never replaced (a record found complete at the commit point, written without the
claim, stays, and the attempt's goes beside it); an incomplete one is.
"""

from __future__ import annotations

import fcntl
import hashlib
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

from m4bench.errors import M4BenchError
from m4bench.fileio import canonical_json, write_model
from m4bench.results.campaign_files import (
    AttemptRecord,
    CampaignManifest,
    PlannedRun,
    RunSettings,
)
from m4bench.results.layout import CampaignFolder
from m4bench.results.read import is_complete, read_attempts, read_manifest, read_result
from m4bench.results.record import ResultRecord

_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def plan_sha256(runs: Iterable[PlannedRun]) -> str:
    """Hash of the planned set: ids plus everything that shapes execution."""
    payload = [run.model_dump(mode="json", by_alias=True) for run in runs]
    return hashlib.sha256(canonical_json(payload).encode("utf-8")).hexdigest()


@dataclass
class Claim:
    """An exclusive hold on one run; release it (or die) to let others take it."""

    run: PlannedRun
    attempt: int
    handle: IO[bytes] = field(repr=False)

    def release(self) -> None:
        if not self.handle.closed:
            fcntl.flock(self.handle.fileno(), fcntl.LOCK_UN)
            self.handle.close()


@dataclass(frozen=True)
class ResultsDir:
    root: Path

    @property
    def folder(self) -> CampaignFolder:
        return CampaignFolder(self.root)

    @property
    def manifest_path(self) -> Path:
        return self.folder.manifest

    def run_dir(self, run_id: str) -> Path:
        return self.folder.run_dir(run_id)

    def result_path(self, run_id: str) -> Path:
        return self.folder.result(run_id)

    def attempts_dir(self, run_id: str) -> Path:
        return self.folder.attempts_dir(run_id)

    # -- the planned set --------------------------------------------------------------

    def read_manifest(self) -> CampaignManifest | None:
        if not self.manifest_path.exists():
            return None
        return read_manifest(self.manifest_path)

    def check_campaign(
        self, runs: list[PlannedRun], resume: bool, settings: RunSettings | None = None
    ) -> bool:
        """Whether the planned set may run here; True when it is recorded already.

        Raises (writing nothing) when the directory holds something else, or holds a
        campaign that is not to be resumed, whose planned set differs, or whose runs
        were executed with other settings (``None`` on either side: not checked). The
        settings are fixed by the first run that completes: until then (no result, no
        runner record waiting to be adopted, no run executing), a resume may correct
        them, and :meth:`open_campaign` records the new ones. A corrected endpoint or
        replay path changes the ids of the runs that have them (they enter the runs'
        identity): the planned set is then recorded again.
        """
        existing = self.read_manifest()
        if existing is None:
            if not resume and self.root.exists() and any(self.root.iterdir()):
                raise M4BenchError(
                    f"{self.root}: directory is not empty and holds no campaign",
                    hint="choose an empty or new results directory",
                )
            return False
        if not resume:
            raise M4BenchError(
                f"{self.root}: already holds campaign {existing.profile!r}",
                hint="pass --resume to continue it, or choose a new results directory",
            )
        recorded = existing.settings
        if recorded is not None and settings is not None and self.holds_results(existing.runs):
            _check_settings(self.manifest_path, recorded, settings)
        if existing.plan_sha256 != plan_sha256(runs) and not _replanned(existing, settings):
            raise M4BenchError(
                f"{self.root}: the planned runs differ from the campaign recorded here "
                f"({existing.profile!r}, {len(existing.runs)} runs; now {len(runs)})",
                hint="resume with the same profile and options (left out, --resume takes "
                "the recorded ones), or use a new directory; a replay file that changed "
                "since also changes its runs",
            )
        return True

    def holds_results(self, runs: Iterable[PlannedRun]) -> bool:
        """Whether a run of ``runs`` is complete, has a runner record the next attempt
        would adopt, or is executing now: results the campaign's settings describe."""
        return any(
            self.result_path(run.run_id).exists()
            or is_complete(self.folder.runner_folder(run.run_id).result)
            or self.is_running(run.run_id)
            for run in runs
        )

    def open_campaign(
        self,
        profile: str,
        runs: list[PlannedRun],
        resume: bool,
        settings: RunSettings | None = None,
    ) -> None:
        """Record the planned set, or check it matches the one already recorded. A
        campaign recorded without settings gets these, so its next resume is checked;
        one whose settings may still change (no results yet) gets the new ones."""
        recorded = self.check_campaign(runs, resume, settings)
        existing = self.read_manifest()
        if not recorded or (existing is not None and existing.plan_sha256 != plan_sha256(runs)):
            manifest = CampaignManifest(
                profile=profile, plan_sha256=plan_sha256(runs), settings=settings, runs=runs
            )
            write_model(self.manifest_path, manifest)
            return
        if existing is not None and settings is not None and existing.settings != settings:
            write_model(self.manifest_path, existing.model_copy(update={"settings": settings}))

    # -- one run ----------------------------------------------------------------------

    def read_result(self, run_id: str) -> ResultRecord | None:
        """The run's result record (of any format read) if it is complete; None if it is
        missing or incomplete (a run that did not happen, which the campaign runs again
        and whose complete record then replaces it)."""
        path = self.result_path(run_id)
        if not path.exists():
            return None
        result = read_result(path)
        if result.run_id != run_id:
            raise M4BenchError(
                f"{path}: record is for run {result.run_id!r}, not {run_id!r}",
                hint="a run directory was renamed or copied; move it back",
            )
        return result if result.complete else None

    def try_claim(self, run: PlannedRun) -> Claim | None:
        """Hold the run for execution; None if it is complete or held elsewhere. A run
        whose record is incomplete (a status the record calls not complete) is run
        again, and its complete record replaces that one."""
        run_dir = self.run_dir(run.run_id)
        run_dir.mkdir(parents=True, exist_ok=True)
        handle = self.folder.claim(run.run_id).open("ab")
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.close()
            return None
        if _kept(self.result_path(run.run_id)):
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
            handle.close()
            return None
        _remove_stale_temporaries(run_dir)
        attempt = self.next_attempt(run.run_id)
        claim = Claim(run=run, attempt=attempt, handle=handle)
        self.write_attempt(AttemptRecord(run_id=run.run_id, attempt=attempt, state="started"))
        return claim

    def next_attempt(self, run_id: str) -> int:
        numbers = [int(p.stem) for p in self._attempt_files(run_id)]
        return max(numbers, default=0) + 1

    def attempts(self, run_id: str) -> list[AttemptRecord]:
        return read_attempts(self.folder, run_id)

    def write_attempt(self, record: AttemptRecord) -> None:
        write_model(self.folder.attempt_file(record.run_id, record.attempt), record)

    def commit(self, claim: Claim, result: ResultRecord) -> None:
        """Write the run's record (the commit point), then close the attempt.

        The runner's copy of the record under ``work/`` is removed once this one is
        written: the record under ``runs/`` is the run's only record. A complete record
        found there (written without the claim) is never replaced: this attempt's record
        goes beside it, to ``attempts/<n>.result.json``.
        """
        run_id = claim.run.run_id
        target = self.result_path(run_id)
        if _kept(target):
            target = self.folder.attempt_result(run_id, claim.attempt)
        write_model(target, result)
        self.folder.runner_folder(run_id).result.unlink(missing_ok=True)
        done = AttemptRecord(run_id=run_id, attempt=claim.attempt, state="finished")
        self.write_attempt(done)
        claim.release()

    def abandon(self, claim: Claim, error: str) -> None:
        """The run could not be executed (infrastructure): leave it missing."""
        failed = AttemptRecord(
            run_id=claim.run.run_id,
            attempt=claim.attempt,
            state="infrastructure-error",
            error=_ANSI.sub("", error)[-2000:],
        )
        self.write_attempt(failed)
        claim.release()

    def is_running(self, run_id: str) -> bool:
        """Whether some live process holds the run's claim right now."""
        path = self.folder.claim(run_id)
        if not path.exists():
            return False
        with path.open("ab") as handle:
            try:
                fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                return True
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
            return False

    def _attempt_files(self, run_id: str) -> list[Path]:
        directory = self.attempts_dir(run_id)
        if not directory.is_dir():
            return []
        return [p for p in directory.glob("*.json") if p.stem.isdigit()]


def _kept(result: Path) -> bool:
    """Whether the record at ``result`` stays: it is complete, or this m4bench cannot
    read it (a newer one's). A missing or incomplete record may be replaced."""
    if not result.exists():
        return False
    try:
        return read_result(result).complete
    except (M4BenchError, OSError):
        return True


def _replanned(existing: CampaignManifest, given: RunSettings | None) -> bool:
    """Whether a new planned set follows from a corrected setting that enters the runs'
    identity (endpoint, replay path); checked only once no run holds a result."""
    if existing.settings is None or given is None:
        return False
    changed = {option for option, _, _ in existing.settings.differences(given)}
    return bool(changed & {"--endpoint", "--replay"})


def _check_settings(manifest: Path, recorded: RunSettings, given: RunSettings) -> None:
    """Refuse to resume with options that would change the results of the runs to come."""
    differences = recorded.differences(given)
    if not differences:
        return
    lines = "; ".join(f"{option}: recorded {was}, given {now}" for option, was, now in differences)
    raise M4BenchError(
        f"{manifest}: the campaign recorded here ran with other settings ({lines}), so "
        "resuming it would mix results that do not compare",
        hint=f"leave those options out: --resume takes the recorded ones "
        f"({recorded.as_options()}); or run the campaign in a new results directory "
        "(settings may change on --resume only while no run is complete)",
    )


def _remove_stale_temporaries(run_dir: Path) -> None:
    """Temp files of writes cut short by a crash; safe to delete under the claim."""
    for stale in run_dir.rglob(".*.tmp"):
        stale.unlink(missing_ok=True)
