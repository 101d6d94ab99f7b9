"""Kill -9 the campaign process at random points; resuming reaches exactly the planned set."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

from campaign_support import write_small_profile

from m4bench.campaign import PlanOptions, load_profile, plan_campaign
from m4bench.results import read_attempts, read_result
from m4bench.results.layout import CampaignFolder
from m4bench.results.read import read_attempt

# 48 runs of 0.2-0.8 s on 4 slots is about 6 s of work; six kills at most 0.6 s after a
# run starts always leave work behind, so every kill lands on a live campaign.
SIMULATION = "seconds=0.2:0.8,fail=0.25,transient=0.1,infra=0.1,seed=11"
KILLS = 6
# A campaign process: the library's driver and local executor over a simulated agent
# (the CLI package imports every command group, which would make each start slow).
ENTRY = """
import sys
from pathlib import Path
from m4bench.campaign import (
    DriverSettings, LocalExecutor, ResultsDir, RetryPolicy, load_profile, plan_campaign,
    run_campaign,
)
from m4bench.campaign.simulate_spec import parse_simulation
profile = load_profile(sys.argv[1])
policy = RetryPolicy(base_delay_seconds=0.01, max_delay_seconds=0.05)
executor = LocalExecutor(parse_simulation(sys.argv[3]), 4, policy)
settings = DriverSettings(profile.name, resume=True)
report = run_campaign(ResultsDir(Path(sys.argv[2])), plan_campaign(profile), executor, settings)
sys.exit(1 if report.missing else 0)
"""


def _campaign(profile: Path, results: Path) -> subprocess.Popen[bytes]:
    command = [sys.executable, "-c", ENTRY, str(profile), str(results), SIMULATION]
    return subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def _attempts(results: Path) -> int:
    return len(list(results.glob("runs/*/attempts/*.json")))


def _wait_for_new_attempt(results: Path, before: int, process: subprocess.Popen[bytes]) -> None:
    """Until the campaign process has started a run (past its start-up)."""
    deadline = time.monotonic() + 60
    while _attempts(results) <= before:
        assert process.poll() is None, process.stderr.read().decode() if process.stderr else ""
        assert time.monotonic() < deadline, "campaign did not start within 60 s"
        time.sleep(0.05)


def _check_records(results: Path, planned: set[str]) -> set[str]:
    """Every result.json is complete and valid, for a planned run, once."""
    seen: list[str] = []
    for path in (results / "runs").glob("*/result.json"):
        record = read_result(path)
        assert record.run_id == path.parent.name
        assert record.run_id in planned
        seen.append(record.run_id)
    assert len(seen) == len(set(seen))
    return set(seen)


def test_sigkill_at_random_points_then_resume(tmp_path: Path) -> None:
    profile = write_small_profile(tmp_path, trials=4, jobs=4, openai=4)
    planned = {run.run_id for run in plan_campaign(load_profile(str(profile)), PlanOptions())}
    assert len(planned) == 48
    results = tmp_path / "results"
    rng = random.Random(20261129)
    complete_after_kill: list[int] = []
    for _ in range(KILLS):
        started = _attempts(results)
        process = _campaign(profile, results)
        _wait_for_new_attempt(results, started, process)
        time.sleep(rng.uniform(0.0, 0.6))
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
        assert process.returncode == -signal.SIGKILL, "the campaign ended before the kill"
        complete_after_kill.append(len(_check_records(results, planned)))
    assert complete_after_kill[-1] > 0
    for _ in range(5):
        finished = subprocess.run(
            _campaign(profile, results).args, capture_output=True, check=False
        )
        if finished.returncode == 0:
            break
        assert finished.returncode == 1, finished.stderr.decode()
    assert finished.returncode == 0, finished.stderr.decode()
    assert _check_records(results, planned) == planned
    attempts = Counter(
        path.parent.parent.name for path in (results / "runs").glob("*/attempts/*.json")
    )
    assert sum(attempts.values()) >= len(planned)
    for run_id in planned:
        states = [a.state for a in read_attempts(CampaignFolder(results), run_id)]
        assert states.count("finished") <= 1, f"{run_id} executed to the end twice"
    leftovers = [p for p in results.rglob("*.tmp")]
    assert leftovers == [] or all(p.parent.name == "attempts" for p in leftovers)


def test_interrupt_lets_running_runs_finish_and_be_recorded(tmp_path: Path) -> None:
    profile = write_small_profile(tmp_path, trials=4, jobs=4, openai=4)
    results = tmp_path / "results"
    process = subprocess.Popen(
        [sys.executable, "-c", ENTRY, str(profile), str(results), "seconds=0.3:0.8,seed=3"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    _wait_for_new_attempt(results, 0, process)
    time.sleep(0.5)
    process.send_signal(signal.SIGINT)
    assert process.wait(timeout=60) == 1, "stopped early, some runs missing"
    states = [read_attempt(path).state for path in results.glob("runs/*/attempts/*.json")]
    assert states and set(states) == {"finished"}
    assert len(list(results.glob("runs/*/result.json"))) == len(states) < 48
