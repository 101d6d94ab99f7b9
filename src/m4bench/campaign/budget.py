"""The budget guard: once tokens, cost or wall-clock time pass a limit, no new run starts.

Runs already executing finish and are recorded. Tokens and cost count every complete
record of the campaign (earlier invocations included); wall-clock time counts this
invocation only.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from m4bench.campaign.profile import Budget, Price
from m4bench.campaign.records import RunOutcome, RunResult


def run_cost(outcome: RunOutcome, model: str, prices: dict[str, Price]) -> float:
    """The cost the run reported, else its tokens at the profile's price, else 0."""
    usage = outcome.usage
    if usage.cost_usd is not None:
        return usage.cost_usd
    price = prices.get(model)
    if price is None:
        return 0.0
    uncached = max(usage.input_tokens - usage.cached_input_tokens, 0)
    dollars = (
        uncached * price.input
        + usage.cached_input_tokens * price.cached_input
        + usage.output_tokens * price.output
    )
    return dollars / 1_000_000


@dataclass
class BudgetGuard:
    budget: Budget
    clock: Callable[[], float] = time.monotonic
    tokens: int = 0
    cost_usd: float = 0.0
    started: float = field(init=False)

    def __post_init__(self) -> None:
        self.started = self.clock()

    def add(self, result: RunResult) -> None:
        usage = result.token_usage
        self.tokens += usage.input_tokens + usage.output_tokens
        self.cost_usd += usage.cost_usd

    def exceeded(self) -> str | None:
        """Why no new run may start, or None while within budget."""
        limit = self.budget
        if limit.max_tokens is not None and self.tokens >= limit.max_tokens:
            return f"token budget reached ({self.tokens:,} of {limit.max_tokens:,})"
        if limit.max_cost_usd is not None and self.cost_usd >= limit.max_cost_usd:
            return f"cost budget reached (${self.cost_usd:,.2f} of ${limit.max_cost_usd:,.2f})"
        elapsed = self.clock() - self.started
        if limit.max_wall_seconds is not None and elapsed >= limit.max_wall_seconds:
            seconds = limit.max_wall_seconds
            return f"wall-clock budget reached ({elapsed:,.0f} s of {seconds:,.0f} s)"
        return None
