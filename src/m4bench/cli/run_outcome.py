"""What ``m4bench run`` says, and exits with, when its run did not happen as the model's.

A run the model provider ended (``rate_limited``, ``provider_error``, ``auth_error``,
``quota_exhausted``, ``endpoint_unreachable``) or the harness could not carry out
(``harness_error``) is an infrastructure outcome (:func:`m4bench.results.record.owner`):
no score, no reward, not complete. The command says whose it is, the cause and what to
do, and exits with :data:`INFRASTRUCTURE_EXIT`, so a script tells it from the model's
own failures (``timeout``, ``nonzero_exit``, ...: a scored run, exit 0) and from a
mistake refused before anything ran (exit 2).
"""

from __future__ import annotations

from rich.console import Console
from rich.markup import escape

from m4bench.campaign.provider_outcomes import cause, what_to_do
from m4bench.results.record import INFRASTRUCTURE, ResultRecord, Status

INFRASTRUCTURE_EXIT = 3
"""The exit status of ``m4bench run`` when its run ended in an infrastructure outcome."""
AGAIN = "then run the same command again"


def whose(status: Status) -> str | None:
    """Whose an outcome is, in words, when it is not the model's nor the agent's:
    the provider's or the harness's; None for the model's and the agent's outcomes (and
    ``interrupted``, the user's, which the command reports on its own)."""
    if status in INFRASTRUCTURE:
        return "the model provider's"
    if status == "harness_error":
        return "the harness's"
    return None


def infrastructure_exit(record: ResultRecord, console: Console) -> int | None:
    """Print whose the outcome is, its cause and what to do, and hand back the exit
    status, when the run ended in an infrastructure outcome; None otherwise."""
    owner_words = whose(record.status)
    if owner_words is None:
        return None
    console.print(
        f"[red]{record.status}[/] is {owner_words} failure, not the model's: the run did "
        "not happen (no score, no reward; a campaign would run it again)",
        highlight=False,
        soft_wrap=True,
    )
    if record.status == "harness_error":
        console.print(f"cause: {escape(record.error or record.status_detail)}", highlight=False)
        todo = f"fix what the cause names (the record has it in `error`), {AGAIN}"
    else:
        console.print(f"cause: {escape(cause(record))}", highlight=False, soft_wrap=True)
        todo = what_to_do(record, AGAIN)
    console.print(f"what to do: {escape(todo)}", highlight=False, soft_wrap=True)
    return INFRASTRUCTURE_EXIT
