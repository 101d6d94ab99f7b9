"""The budget guard: once tokens, cost or wall-clock time pass a limit, no new run starts.

Runs already executing finish and are recorded. Tokens and cost count every complete
record of the campaign and every attempt the model provider ended (its record kept
beside the run: the tokens were spent), earlier invocations included; wall-clock time
counts this invocation only. A run whose record reports no cost is priced at the profile's prices
(:func:`priced`), and its record says so.

A run whose trace is suspect (``record.trace.suspect``: the agent's own token counts
cannot be believed) counts its worst case: at least its token allowance, and at least
that allowance at the dearest of its model's prices when the profile has them.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from m4bench.agents.usage import Usage
from m4bench.campaign.profile import Budget, Price
from m4bench.results.record import ResultRecord

PRICED = "the profile's prices for {model}"


def priced(record: ResultRecord, prices: dict[str, Price]) -> ResultRecord:
    """``record`` with its cost, at the profile's price of its model when it reports
    none (and the profile has one); unchanged otherwise."""
    usage = record.usage
    model = record.identity.model
    price = prices.get(model)
    if usage.cost_usd is not None or price is None:
        return record
    cost = usage.model_copy(
        update={"cost_usd": _dollars(usage, price), "cost_source": PRICED.format(model=model)}
    )
    return record.model_copy(update={"usage": cost})


def _dollars(usage: Usage, price: Price) -> float:
    uncached = usage.input_uncached + usage.input_cache_write
    dollars = (
        uncached * price.input
        + usage.input_cache_read * price.cached_input
        + usage.output * price.output
    )
    return dollars / 1_000_000


def counted_tokens(record: ResultRecord) -> int:
    """The tokens a budget counts for ``record``: its usage, or for a suspect trace the
    larger of that and the run's token allowance."""
    tokens = record.usage.total_tokens
    verdict = record.trace
    if verdict is not None and verdict.suspect and verdict.token_allowance is not None:
        return max(tokens, verdict.token_allowance)
    return tokens


def counted_cost(record: ResultRecord, prices: Mapping[str, Price]) -> float:
    """The dollars a budget counts for ``record``: its cost, or for a suspect trace at
    least its allowance at the dearest price of its model (when the profile has one)."""
    cost = record.usage.cost_usd or 0.0
    verdict = record.trace
    price = prices.get(record.identity.model)
    if verdict is None or not verdict.suspect or price is None:
        return cost
    dearest = max(price.input, price.cached_input, price.output)
    return max(cost, counted_tokens(record) * dearest / 1_000_000)


@dataclass
class BudgetGuard:
    budget: Budget
    clock: Callable[[], float] = time.monotonic
    tokens: int = 0
    cost_usd: float = 0.0
    prices: Mapping[str, Price] = field(default_factory=dict)
    started: float = field(init=False)

    def __post_init__(self) -> None:
        self.started = self.clock()

    def add(self, record: ResultRecord) -> None:
        self.tokens += counted_tokens(record)
        self.cost_usd += counted_cost(record, self.prices)

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
