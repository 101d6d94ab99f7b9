"""Lint: the shipped catalog passes; every rule rejects a card, file or reference built
to break it, and names the file and line."""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable
from pathlib import Path

import duckdb
import pytest
from user_tasks import local_family

from m4bench.tasks.catalog import CATALOG_ROOT
from m4bench.tasks.facts_lint import FACTS_RULES
from m4bench.tasks.lint import RULES, Finding, lint_catalog

MELD = "meld/mimic-meld-24h"
MELD_RAW = "meld/mimic-meld-24h-raw"


def test_shipped_catalog_has_no_errors(catalog_findings: list[Finding]) -> None:
    findings = catalog_findings
    errors = [str(f) for f in findings if f.severity == "error"]
    assert errors == []
    # warnings only mark decoys whose family is not in the catalog yet
    assert {f.rule for f in findings} <= {"control-decoy"}


@pytest.fixture
def mini(tmp_path: Path) -> Path:
    """A two-family copy of the catalog (meld and kdigo decoy each other)."""
    root = tmp_path / "catalog"
    for family in ("meld", "kdigo"):
        shutil.copytree(CATALOG_ROOT / family, root / family)
    return root


def edit(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def findings_of(root: Path, rule: str, **options: object) -> list[Finding]:
    found = lint_catalog(root, run_references=False, **options)  # type: ignore[arg-type]
    return [f for f in found if f.rule == rule]


def test_the_copy_is_clean(mini: Path) -> None:
    assert lint_catalog(mini) == []


Breaker = Callable[[Path], None]
CASES: dict[str, tuple[Breaker, str, str | None]] = {  # rule: (break it, file, text on the line)
    "card-valid": (
        lambda r: edit(r / MELD / "task.toml", 'difficulty = "medium"', 'difficulty = "trivial"'),
        f"{MELD}/task.toml",
        '"trivial"',
    ),
    "card-depends-on": (
        lambda r: edit(r / MELD / "task.toml", "tags =", 'depends_on = ["first_day_lab"]\ntags ='),
        f"{MELD}/task.toml",
        "depends_on",
    ),
    "card-name": (
        lambda r: edit(r / MELD / "task.toml", 'mode = "standard"', 'mode = "raw"'),
        f"{MELD}/task.toml",
        "name =",
    ),
    "card-family": (
        lambda r: edit(r / MELD / "task.toml", 'family = "meld"', 'family = "liver"'),
        f"{MELD}/task.toml",
        "family =",
    ),
    "card-scored-rule": (
        lambda r: edit(
            r / MELD / "task.toml",
            'scored_columns = ["meld"]',
            'scored_columns = ["meld", "hadm_id"]',
        ),
        f"{MELD}/task.toml",
        "scored_columns",
    ),
    "card-drop-tables": (
        lambda r: edit(r / MELD / "task.toml", '"mimiciv_derived.meld"', '"mimic_derived.meld"'),
        f"{MELD}/task.toml",
        "mimic_derived.meld",
    ),
    "instruction-placeholder": (
        lambda r: edit(r / MELD / "instruction.md", "{output_path}", "{out}"),
        f"{MELD}/instruction.md",
        None,
    ),
    "instruction-sparse": (
        lambda r: edit(
            r / MELD / "instruction.md", "first 24 hours,", "first 24 hours (item 50912),"
        ),
        f"{MELD}/instruction.md",
        "50912",
    ),
    "instruction-contract": (
        lambda r: edit(r / MELD / "instruction.md", "stay_id, meld", "meld, stay_id"),
        f"{MELD}/instruction.md",
        None,
    ),
    "skill-present": (
        lambda r: (r / MELD / "skills" / "meld-score" / "notes.txt").write_text("x"),
        f"{MELD}/skills/meld-score/notes.txt",
        None,
    ),
    "skill-front-matter": (
        lambda r: edit(r / MELD / "skills/meld-score/SKILL.md", 'version: "1.0"\n', ""),
        f"{MELD}/skills/meld-score/SKILL.md",
        None,
    ),
    "skill-no-sql": (
        lambda r: edit(
            r / MELD / "skills/meld-score/SKILL.md",
            "## Inputs",
            "## Inputs\nselect meld from the table",
        ),
        f"{MELD}/skills/meld-score/SKILL.md",
        "select meld",
    ),
    "skill-table-unavailable": (
        lambda r: edit(
            r / MELD_RAW / "skills/meld-score/SKILL.md",
            "## Inputs",
            "## Inputs\n- `first_day_lab` has the worst values.",
        ),
        f"{MELD_RAW}/skills/meld-score/SKILL.md",
        "`first_day_lab`",
    ),
    "opspec-present": (
        lambda r: edit(r / MELD / "task.toml", "sentinel = false", "sentinel = true"),
        f"{MELD}/operational-spec.md",
        None,
    ),
    "opspec-forbidden": (
        lambda r: (
            edit(r / MELD / "task.toml", "sentinel = false", "sentinel = true"),
            (r / MELD / "operational-spec.md").write_text("# Spec\n\nUse item 50912.\n"),
        ),
        f"{MELD}/operational-spec.md",
        "50912",
    ),
    "reference-file": (
        lambda r: (r / "meld" / "reference.sql").write_text("SELECT * FROM mimiciv_icu.icustays"),
        "meld/reference.sql",
        None,
    ),
    "reference-columns": (
        lambda r: edit(
            r / "meld" / "reference.sql", "END AS DOUBLE) AS meld", "END AS DOUBLE) AS meld_na"
        ),
        f"{MELD}/task.toml",
        "required_columns",
    ),
    "control-rawsql": (
        lambda r: edit(r / "meld" / "reference.sql", "-- MELD-Na", "-- ``` MELD-Na"),
        "meld/reference.sql",
        None,
    ),
    "control-decoy": (
        lambda r: edit(
            r / MELD / "task.toml",
            'decoy_skill = "kdigo-aki-staging"',
            'decoy_skill = "meld-score"',
        ),
        f"{MELD}/task.toml",
        "decoy_skill",
    ),
    "cases-valid": (
        lambda r: edit(r / MELD / "cases.toml", "meld = 6.0", "meld_na = 6.0"),
        f"{MELD}/cases.toml",
        None,
    ),
    "cases-tables": (
        lambda r: edit(
            r / MELD / "cases.toml",
            'table = "mimiciv_icu.icustays"',
            'table = "mimiciv_icu.icustay"',
        ),
        f"{MELD}/cases.toml",
        'table = "mimiciv_icu.icustay"',
    ),
    "provenance": (
        lambda r: edit(
            r / "meld" / "PROVENANCE.yaml", "review_status: pending", "review_status: reviewed"
        ),
        "meld/PROVENANCE.yaml",
        "review_status",
    ),
}


@pytest.mark.parametrize("rule", sorted(CASES))
def test_each_rule_rejects_a_broken_catalog(mini: Path, rule: str) -> None:
    breaker, file, marker = CASES[rule]
    breaker(mini)
    found = findings_of(mini, rule)
    assert found, f"{rule} did not fire"
    assert any(f.path == mini / file for f in found), [str(f) for f in found]
    if marker is not None:
        lines = (mini / file).read_text(encoding="utf-8").splitlines()
        expected = next(n for n, text in enumerate(lines, start=1) if marker in text)
        assert expected in {f.line for f in found if f.path == mini / file}, [str(f) for f in found]
    assert all(f.severity == "error" for f in found)
    assert all(re.match(rf"{re.escape(str(f.path))}:\d+: \[{rule}\] ", str(f)) for f in found)


def test_reference_runs_reports_a_failing_query(mini: Path) -> None:
    edit(mini / "meld" / "reference.sql", "lab.sodium_min", "lab.sodium_lowest")
    found = [f for f in lint_catalog(mini) if f.rule == "reference-runs"]
    assert {f.path for f in found} == {mini / "meld" / "reference.sql"}
    assert all("sodium_lowest" in f.message and f.severity == "error" for f in found)


def test_reference_runs_on_a_given_database(mini: Path) -> None:
    found = lint_catalog(mini, database=lambda task: duckdb.connect())
    assert {f.rule for f in found} == {"reference-runs"}
    assert all("do not exist" in f.message for f in found)


def test_unavailable_decoy_is_a_warning(mini: Path) -> None:
    shutil.rmtree(mini / "kdigo")
    found = findings_of(mini, "control-decoy")
    assert found and all(f.severity == "warning" for f in found)


def test_a_decoy_from_naming_no_carrier_is_an_error(mini: Path) -> None:
    card = mini / MELD / "task.toml"
    edit(card, 'decoy_from = "mimic-kdigo-48h-raw"', 'decoy_from = "mimic-kdigo-72h"')
    found = findings_of(mini, "control-decoy")
    line = (
        card.read_text(encoding="utf-8")
        .splitlines()
        .index('decoy_from = "mimic-kdigo-72h"  # the paper\'s decoy is this variant')
    )
    assert [(f.severity, f.line) for f in found] == [("error", line + 1)]
    assert "decoy_from 'mimic-kdigo-72h' is no task of another family" in found[0].message


def test_a_broken_concept_library_is_reported(mini: Path, tmp_path: Path) -> None:
    concepts = tmp_path / "concepts" / "demographics"
    concepts.mkdir(parents=True)
    (concepts / "broken.sql").write_text(
        "-- broken: reads a concept nobody defines\n"
        "-- Grain: none\n"
        "SELECT * FROM mimiciv_derived.nowhere\n"
    )
    found = findings_of(mini, "concept-library", concepts_root=tmp_path / "concepts")
    assert len(found) == 1 and "nowhere" in found[0].message


def test_catalog_unique_names_clashes_across_folders(mini: Path, tmp_path: Path) -> None:
    ours = tmp_path / "ours"
    local_family(ours, family="meld", task="mimic-meld-local-24h")
    local_family(ours, family="meld-local", task="mimic-kdigo-48h")
    found = findings_of(mini, "catalog-unique", extra_roots=[ours])
    by_path = {f.path: f.message for f in found}
    assert set(by_path) == {ours / "meld", ours / "meld-local" / "mimic-kdigo-48h" / "task.toml"}
    assert str(mini / "meld") in by_path[ours / "meld"]
    assert (
        str(mini / "kdigo" / "mimic-kdigo-48h")
        in by_path[ours / "meld-local" / "mimic-kdigo-48h" / "task.toml"]
    )
    assert all(f.severity == "error" for f in found)
    assert findings_of(mini, "catalog-unique") == []


def test_every_rule_is_exercised() -> None:
    tested = set(CASES) | {"reference-runs", "concept-library", "catalog-unique", "catalog-folder"}
    # the facts rules are exercised in test_task_facts.py
    assert tested | set(FACTS_RULES) == set(RULES)


def test_the_docs_list_every_rule() -> None:
    docs = (Path(__file__).parents[2] / "docs" / "tasks.md").read_text(encoding="utf-8")
    assert [rule for rule in RULES if f"| `{rule}` |" not in docs] == []


def test_instruction_naming_a_derived_table_is_rejected(mini: Path) -> None:
    edit(
        mini / MELD / "instruction.md",
        "One row per ICU stay.",
        "One row per ICU stay, from the highest creatinine_max of first_day_lab.",
    )
    found = findings_of(mini, "instruction-sparse")
    assert [f.message for f in found] == ["instruction names the table 'first_day_lab'"]


@pytest.mark.parametrize(
    ("typo", "said"),
    [
        (
            "mimiciv_derived.meldx",
            "mimiciv_derived.meldx is not a table of mimiciv_derived (the concept library has "
            "no such concept), so it would drop nothing; did you mean mimiciv_derived.meld?",
        ),
        (
            "mimiciv_hosp.nosuch",
            "mimiciv_hosp.nosuch is not a table of mimiciv_hosp, so it would drop nothing; "
            "no table of mimiciv_hosp has a similar name",
        ),
        (
            "mimiciv_hosp.icustays",
            "mimiciv_hosp.icustays is not a table of mimiciv_hosp, so it would drop nothing; "
            "did you mean mimiciv_icu.icustays?",
        ),
    ],
)
def test_a_drop_table_naming_no_table_is_an_error(mini: Path, typo: str, said: str) -> None:
    card = mini / MELD / "task.toml"
    edit(card, '"mimiciv_derived.meld"', f'"mimiciv_derived.meld", "{typo}"')
    line = (
        card.read_text(encoding="utf-8")
        .splitlines()
        .index(f'drop_tables = ["mimiciv_derived.meld", "{typo}"]')
    )
    found = findings_of(mini, "card-drop-tables")
    assert [(f.path, f.line, f.message) for f in found] == [(card, line + 1, said)]


def test_reference_runs_names_the_line_of_the_file(mini: Path) -> None:
    reference = mini / "meld" / "reference.sql"
    lines = reference.read_text(encoding="utf-8").splitlines()
    number = next(n for n, text in enumerate(lines, start=1) if "lab.sodium_min," in text)
    edit(reference, "lab.sodium_min,", "lab.sodium_lowest,")
    found = [f for f in lint_catalog(mini) if f.rule == "reference-runs"]
    assert {f.line for f in found} == {number}
    assert all(f"LINE {number}:" in f.message for f in found)


def test_a_family_clash_is_reported_alone(mini: Path, tmp_path: Path) -> None:
    """A user folder reusing a shipped family name yields the clash, not the provenance
    and mutant errors of mixing two folders' tasks."""
    ours = tmp_path / "ours"
    local_family(ours, family="meld", task="mimic-meld-local-24h")
    found = lint_catalog(mini, run_references=False, extra_roots=[ours])
    assert [(f.rule, f.path) for f in found] == [("catalog-unique", ours / "meld")]


def test_a_reference_that_does_not_parse_is_located_at_its_line(mini: Path) -> None:
    reference = mini / "meld" / "reference.sql"
    lines = reference.read_text(encoding="utf-8").splitlines()
    number = next(n for n, text in enumerate(lines, start=1) if "lab.sodium_min," in text)
    edit(reference, "lab.sodium_min,", "lab.sodium_min b c,")
    found = findings_of(mini, "reference-file")
    assert {(f.path, f.line) for f in found} == {(reference, number)}


def test_case_tables_and_rebuilds_are_checked_with_suggestions(mini: Path) -> None:
    cases = mini / MELD / "cases.toml"
    edit(
        cases, 'table = "mimiciv_derived.first_day_lab"', 'table = "mimiciv_derived.first_day_labs"'
    )
    edit(cases, 'rebuild = ["first_day_lab"]', 'rebuild = ["first_day_labz"]')
    messages = sorted(f.message for f in findings_of(mini, "cases-tables"))
    assert len(messages) == 2, messages
    assert (
        "mimiciv_derived.first_day_labs is not a table of mimiciv_derived; did you mean "
        "mimiciv_derived.first_day_lab?" in messages[0]
    )
    assert (
        "rebuild names 'first_day_labz', which is not a concept; did you mean "
        "first_day_lab?" in messages[1]
    )


def test_a_task_folder_whose_card_is_misnamed_is_a_warning(mini: Path) -> None:
    card = mini / MELD / "task.toml"
    card.rename(card.with_name("Task.toml"))
    found = findings_of(mini, "catalog-folder")
    assert [(f.path, f.severity) for f in found] == [(mini / MELD, "warning")]
    assert "no task.toml here" in found[0].message
    card.with_name("Task.toml").rename(card)
    assert findings_of(mini, "catalog-folder") == []


def test_a_card_that_is_not_toml_is_located_at_its_line(mini: Path) -> None:
    card = mini / MELD / "task.toml"
    edit(card, 'difficulty = "medium"', 'difficulty = "medium')
    expected = next(
        n for n, text in enumerate(card.read_text().splitlines(), 1) if "difficulty" in text
    )
    (found,) = findings_of(mini, "card-valid")
    assert (found.path, found.line) == (card, expected)
    assert found.message.startswith("not valid TOML:") and str(card) not in found.message
