"""Token usage and cost: the one usage model, from an agent's trace to the result record.

Import-light on purpose (pydantic only): the built-in react agent reads it inside the
sandbox.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

NOT_REPORTED = "not reported"


class Usage(BaseModel):
    """Disjoint token buckets (no token is counted twice), turns, tool calls and cost.

    ``input_uncached`` + ``input_cache_read`` + ``input_cache_write`` is every input
    token the provider processed; ``output`` includes reasoning tokens. ``cost_source``
    says where ``cost_usd`` came from (the agent's own report, a profile's prices).
    """

    input_uncached: int = Field(default=0, ge=0)
    input_cache_read: int = Field(default=0, ge=0)
    input_cache_write: int = Field(default=0, ge=0)
    output: int = Field(default=0, ge=0)
    turns: int = Field(default=0, ge=0)
    tool_calls: int = Field(default=0, ge=0)
    cost_usd: float | None = Field(default=None, ge=0)
    cost_source: str = NOT_REPORTED

    @property
    def input_total(self) -> int:
        return self.input_uncached + self.input_cache_read + self.input_cache_write

    @property
    def total_tokens(self) -> int:
        """Every input token plus every output token."""
        return self.input_total + self.output

    def plus(self, other: Usage) -> Usage:
        """Both summed: tokens, turns and tool calls; the costs that are known."""
        costs = [c for c in (self.cost_usd, other.cost_usd) if c is not None]
        return Usage(
            input_uncached=self.input_uncached + other.input_uncached,
            input_cache_read=self.input_cache_read + other.input_cache_read,
            input_cache_write=self.input_cache_write + other.input_cache_write,
            output=self.output + other.output,
            turns=self.turns + other.turns,
            tool_calls=self.tool_calls + other.tool_calls,
            cost_usd=sum(costs) if costs else None,
            cost_source=self.cost_source if self.cost_usd is not None else other.cost_source,
        )

    def with_tokens_of(self, other: Usage) -> Usage:
        """These turns, tool calls and cost with ``other``'s token buckets."""
        return self.model_copy(
            update={
                "input_uncached": other.input_uncached,
                "input_cache_read": other.input_cache_read,
                "input_cache_write": other.input_cache_write,
                "output": other.output,
            }
        )
