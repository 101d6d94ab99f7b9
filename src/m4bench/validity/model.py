"""The audit's records: what each mutant scored, which columns it moved, which bins rows reach."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, computed_field

AUDIT_FORMAT_VERSION: Literal[1] = 1


class _Record(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class MutantResult(_Record):
    """One mutant scored against one task's ground truth."""

    name: str
    rationale: str
    reward: float | None = Field(description="None when the mutant's SQL failed to run")
    strict_pass: bool = False
    moved_columns: list[str] = Field(
        default_factory=list, description="scored columns whose values differ on shared keys"
    )
    expected_moves: list[str] = Field(default_factory=list)
    missing_keys: int = 0
    extra_keys: int = 0
    duplicate_rows: int = 0
    error: str | None = None

    @computed_field  # type: ignore[prop-decorator]
    @property
    def caught(self) -> bool:
        """The scorer told this mutant from the reference."""
        return self.error is None and self.reward is not None and self.reward < 1.0


class TieAudit(_Record):
    """A task's tie points on the source: the cells with admissible alternatives, and
    the score of the reference run with every tie point in its other order."""

    tie_points: list[str]
    cells: dict[str, int] = Field(description="column -> truth cells with alternatives")
    added_keys: int = 0
    absent_keys: int = 0
    tie_break_order: str | None = Field(description="the orders of the tie-break output")
    tie_break_reward: float | None = None
    tie_break_strict_pass: bool = False
    error: str | None = None

    @computed_field  # type: ignore[prop-decorator]
    @property
    def total_cells(self) -> int:
        return sum(self.cells.values())

    @computed_field  # type: ignore[prop-decorator]
    @property
    def passed(self) -> bool:
        """The other tie-break scores 1.0 and passes strictly (or there is none)."""
        if self.tie_break_order is None:
            return True
        return self.error is None and self.tie_break_reward == 1.0 and self.tie_break_strict_pass


class TaskAudit(_Record):
    """Per task: the reference's own reward, every mutant's result, and the verdicts."""

    task: str
    family: str
    reference_reward: float | None
    reference_error: str | None = None
    scored_columns: list[str]
    mutants: list[MutantResult]
    unmoved_columns: list[str] = Field(description="scored columns no mutant moved, not exempt")
    exempt_columns: dict[str, str] = Field(
        default_factory=dict, description="scored columns no mutant needs to move, with why"
    )
    uncaught_mutants: list[str] = Field(description="mutants scoring 1.0 or failing to run")
    all_mutants_below_one: bool
    all_columns_moved: bool
    ties: TieAudit | None = Field(default=None, description="None: no tie point applies")

    @computed_field  # type: ignore[prop-decorator]
    @property
    def passed(self) -> bool:
        return (
            self.reference_reward == 1.0
            and self.all_mutants_below_one
            and self.all_columns_moved
            and (self.ties is None or self.ties.passed)
        )


class BinCoverage(_Record):
    """How many rows reach one named scoring bin or branch of a reference."""

    family: str
    name: str
    reference: str
    rows: int | None = Field(description="None when the predicate failed to run")
    exception: str | None = Field(default=None, description="why zero rows is accepted")
    error: str | None = None

    @computed_field  # type: ignore[prop-decorator]
    @property
    def reached(self) -> bool:
        return self.rows is not None and self.rows > 0

    @computed_field  # type: ignore[prop-decorator]
    @property
    def passed(self) -> bool:
        return self.error is None and (self.reached or self.exception is not None)


class AuditReport(_Record):
    """The whole audit of one source."""

    format_version: Literal[1] = AUDIT_FORMAT_VERSION
    source: str
    dataset: str
    tasks: list[TaskAudit]
    coverage: list[BinCoverage]

    @property
    def gaps(self) -> list[BinCoverage]:
        """Bins no row reaches and no exception explains, or whose predicate failed."""
        return [b for b in self.coverage if not b.passed]

    @computed_field  # type: ignore[prop-decorator]
    @property
    def mutants_passed(self) -> bool:
        return all(t.passed for t in self.tasks)

    @computed_field  # type: ignore[prop-decorator]
    @property
    def coverage_passed(self) -> bool:
        return not self.gaps

    @computed_field  # type: ignore[prop-decorator]
    @property
    def passed(self) -> bool:
        return self.mutants_passed and self.coverage_passed

    def failures(self) -> list[str]:
        """One line per failed verdict, naming the task, mutant, column or bin."""
        lines: list[str] = []
        for t in self.tasks:
            if t.reference_reward != 1.0:
                why = t.reference_error or f"reward {t.reference_reward}"
                lines.append(f"{t.task}: the reference itself does not score 1.0 ({why})")
            lines += [f"{t.task}: mutant {m} is not caught" for m in t.uncaught_mutants]
            lines += [f"{t.task}: no mutant moves column {c}" for c in t.unmoved_columns]
            if t.ties is not None and not t.ties.passed:
                why = t.ties.error or (
                    f"reward {t.ties.tie_break_reward}, strict pass {t.ties.tie_break_strict_pass}"
                )
                lines.append(f"{t.task}: the other tie-break does not score 1.0 ({why})")
        for b in self.gaps:
            detail = b.error or "no row reaches it"
            lines.append(f"{b.family}: bin {b.name} ({b.reference}): {detail}")
        return lines
