"""Results: the record every run ends in, the folders records live in, and their readers.

This layer owns the on-disk format of results, apart from whatever produces them (the
runner, a campaign) and whatever reads them (campaign status, the analysis, the
evidence package). Public API::

    RunSpec(task=..., agent=...).run_id          # the one run id (identity.run_id)
    ResultRecord                                 # the one record (format 2), Usage inside
    read_result(path) -> ResultRecord            # format 1 or 2, checked
    read_results(root) -> list[StoredResult]     # a campaign's or a folder of runs
    reward_for(score), counted_reward(record)    # the reward rule
    row_of(record) -> RunRow                     # a run as one flat row
    load_runs_csv(path) -> list[RunRow]          # the paper's released per-run CSV

See ``docs/architecture.md`` and ``docs/running.md`` (the result record).
"""

from m4bench.agents.usage import Usage
from m4bench.results.campaign_files import (
    AttemptRecord,
    CampaignManifest,
    PlannedRun,
    RunSettings,
)
from m4bench.results.identity import (
    CONDITIONS,
    SCHEMAS,
    Cell,
    Condition,
    RunSpec,
    SchemaName,
    run_id,
    spec_of,
)
from m4bench.results.layout import CampaignFolder, RunFolder, artifact_root
from m4bench.results.read import (
    StoredResult,
    is_complete,
    parse_result,
    planned_run_ids,
    read_attempts,
    read_manifest,
    read_result,
    read_results,
    result_files,
)
from m4bench.results.record import (
    INFRASTRUCTURE,
    RESULT_FORMAT_VERSION,
    STATUSES,
    UNFINISHED,
    Owner,
    ResultRecord,
    Status,
    owner,
)
from m4bench.results.release import load_runs_csv
from m4bench.results.reward import counted_reward, reward_for
from m4bench.results.rows import RunRow, row_of

__all__ = [
    "CONDITIONS",
    "INFRASTRUCTURE",
    "RESULT_FORMAT_VERSION",
    "SCHEMAS",
    "STATUSES",
    "UNFINISHED",
    "AttemptRecord",
    "CampaignFolder",
    "CampaignManifest",
    "Cell",
    "Condition",
    "Owner",
    "PlannedRun",
    "ResultRecord",
    "RunFolder",
    "RunRow",
    "RunSettings",
    "RunSpec",
    "SchemaName",
    "Status",
    "StoredResult",
    "Usage",
    "artifact_root",
    "counted_reward",
    "is_complete",
    "load_runs_csv",
    "owner",
    "parse_result",
    "planned_run_ids",
    "read_attempts",
    "read_manifest",
    "read_result",
    "read_results",
    "result_files",
    "reward_for",
    "row_of",
    "run_id",
    "spec_of",
]
