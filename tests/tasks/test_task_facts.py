"""Task facts: each text of a task carries its facts (facts.toml) and no more, and every
facts rule rejects a text or a facts file built to break it."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from console_entry import m4bench
from typer.testing import CliRunner
from user_tasks import LOCAL_TASK, local_family

from m4bench.cli import app
from m4bench.errors import M4BenchError
from m4bench.tasks.card import load_card
from m4bench.tasks.catalog import CATALOG_ROOT, TASKS_ENV, Task, load_catalog
from m4bench.tasks.facts import (
    FACTS_FILE,
    Fact,
    codes_in,
    load_facts,
    mentions,
    missing_tokens,
    numbers_in,
    words,
)
from m4bench.tasks.facts_lint import (
    FACTS_RULES,
    INSTRUCTION_MAX_RATIO,
    SKILL_RATIO_BAND,
    facts_findings,
)
from m4bench.tasks.lint import lint_catalog

INSTRUCTION = """# Task: MELD score in the first ICU day

For every ICU stay, compute the MELD score (Kamath et al., Hepatology 2001) from the
first 24 hours of the stay.

Output a CSV file to `{output_path}` with these exact columns:
subject_id, hadm_id, stay_id, meld

One row per ICU stay.
"""

SKILL = """---
name: meld-score
description: First-day MELD per ICU stay.
version: "1.0"
category: clinical
---
# MELD

Read creatinine and cap it at 4.0 mg/dL before taking its logarithm. Bound sodium to
125 to 137 mmol/L; the lab item for sodium is 50983.
"""

SPEC = """# Operational specification: MELD

- Bilirubin below 1.0 mg/dL counts as 1.0.
- One row per ICU stay, key stay_id.
"""

FACTS = """format_version = 1
instruction_excludes = ["dialysis"]

[lengths]
instruction = {instruction}
skill = {skill}
operational_spec = {spec}

[[instruction]]
fact = "MELD per ICU stay over the first 24 hours"
numbers = ["24"]
terms = ["MELD", "ICU stay"]

[[instruction]]
fact = "Citation"
numbers = ["2001"]
terms = ["Kamath"]

[[skill]]
fact = "Creatinine is capped at 4.0 mg/dL"
numbers = ["4.0"]
terms = ["creatinine"]

[[skill]]
fact = "Sodium is bounded to 125-137; its lab item"
numbers = ["125", "137"]
ids = ["50983"]
terms = ["sodium"]

[[operational_spec]]
fact = "Bilirubin has a floor of 1.0"
numbers = ["1.0"]
terms = ["bilirubin"]
"""


@pytest.fixture
def task_dir(tmp_path: Path) -> Path:
    """A task of one's own (the MELD task, renamed) with texts and facts written here,
    made a sentinel so it carries an operational spec."""
    folder = local_family(tmp_path / "ours")
    (folder / "instruction.md").write_text(INSTRUCTION, encoding="utf-8")
    (folder / "skills" / "meld-score" / "SKILL.md").write_text(SKILL, encoding="utf-8")
    (folder / "operational-spec.md").write_text(SPEC, encoding="utf-8")
    replace(folder / "task.toml", "sentinel = false", "sentinel = true")
    lengths = {"instruction": words(INSTRUCTION), "skill": words(SKILL), "spec": words(SPEC)}
    (folder / FACTS_FILE).write_text(FACTS.format(**lengths), encoding="utf-8")
    return folder


def findings(folder: Path) -> list[tuple[str, str, int, str]]:
    task = Task(card=load_card(folder / "task.toml"), dir=folder)
    return [(f.rule, f.path.name, f.line, f.message) for f in facts_findings(task)]


def rules(folder: Path) -> set[str]:
    return {rule for rule, *_ in findings(folder)}


def replace(path: Path, old: str, new: str) -> None:
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def test_texts_that_carry_their_facts_pass(task_dir: Path) -> None:
    assert findings(task_dir) == []


def test_an_instruction_threshold_beyond_its_facts_is_named_at_its_line(task_dir: Path) -> None:
    replace(
        task_dir / "instruction.md", "first 24 hours", "first 24 hours, creatinine capped at 4.0"
    )
    assert findings(task_dir) == [
        (
            "facts-instruction-extra",
            "instruction.md",
            4,
            "names the number 4.0, which no instruction fact names: procedure belongs in the "
            "skill (or add the fact, if the paper's instruction states it)",
        )
    ]


@pytest.mark.parametrize(
    ("planted", "token"), [("code E10.6", "E10.6"), ("item 220045", "220045"), ("1,000 mL", "1000")]
)
def test_an_instruction_code_or_item_id_beyond_its_facts_fails(
    task_dir: Path, planted: str, token: str
) -> None:
    replace(
        task_dir / "instruction.md", "One row per ICU stay.", f"One row per ICU stay; {planted}."
    )
    extra = [msg for rule, _, _, msg in findings(task_dir) if rule == "facts-instruction-extra"]
    assert len(extra) == 1 and f" {token}," in extra[0]


def test_an_instruction_number_that_a_fact_names_is_allowed(task_dir: Path) -> None:
    replace(task_dir / "instruction.md", "first 24 hours", "first 24 hours (not 2001)")
    assert findings(task_dir) == []


def test_an_instruction_missing_a_fact_fails(task_dir: Path) -> None:
    replace(task_dir / "instruction.md", "(Kamath et al., Hepatology 2001)", "")
    found = [msg for rule, _, _, msg in findings(task_dir) if rule == "facts-instruction-missing"]
    assert found == ["does not convey 'Citation': lacks '2001', 'Kamath'"]


def test_an_excluded_procedure_term_in_the_instruction_fails(task_dir: Path) -> None:
    replace(task_dir / "instruction.md", "of the stay.", "of the stay, counting Dialysis.")
    assert findings(task_dir) == [
        (
            "facts-instruction-excluded",
            "instruction.md",
            4,
            "uses 'dialysis', which the facts keep out of the instruction",
        )
    ]


@pytest.mark.parametrize(
    ("old", "new", "lacking"),
    [
        ("cap it at 4.0", "cap it at 4", "'4.0'"),  # 4 is not 4.0: a bin edge is exact
        ("item for sodium is 50983", "item for sodium is 50984", "'50983'"),
        ("Read creatinine and", "Read it and", "'creatinine'"),
    ],
)
def test_a_skill_missing_a_number_id_or_term_fails(
    task_dir: Path, old: str, new: str, lacking: str
) -> None:
    replace(task_dir / "skills" / "meld-score" / "SKILL.md", old, new)
    found = findings(task_dir)
    assert [(rule, name) for rule, name, *_ in found] == [("facts-skill-missing", "SKILL.md")]
    assert found[0][3].endswith(f"lacks {lacking}")


def test_an_operational_spec_missing_a_fact_fails(task_dir: Path) -> None:
    replace(task_dir / "operational-spec.md", "below 1.0 mg/dL counts as 1.0", "is floored")
    assert findings(task_dir) == [
        (
            "facts-opspec-missing",
            "operational-spec.md",
            1,
            "does not convey 'Bilirubin has a floor of 1.0': lacks '1.0'",
        )
    ]


Planter = Callable[[Path], None]
FILE_CASES: dict[str, tuple[Planter, str]] = {
    "missing": (lambda d: (d / FACTS_FILE).unlink(), "no facts.toml"),
    "bad number": (
        lambda d: replace(d / FACTS_FILE, 'numbers = ["24"]', 'numbers = ["24 h"]'),
        "is not a plain number",
    ),
    "unknown skill": (
        lambda d: replace(
            d / FACTS_FILE, '[[skill]]\nfact = "C', '[[skill]]\nskill = "x"\nfact = "C'
        ),
        "names 'x', not a skill of the task",
    ),
    "spec without facts": (
        lambda d: replace(d / FACTS_FILE, "[[operational_spec]]", "[[skill]]"),
        "the task has an operational spec: state its facts",
    ),
    "facts without spec": (
        lambda d: (d / "operational-spec.md").unlink(),
        "operational-spec facts, but no operational spec",
    ),
    "not toml": (lambda d: replace(d / FACTS_FILE, "[lengths]", "[lengths"), "facts.toml"),
}


@pytest.mark.parametrize("case", sorted(FILE_CASES))
def test_a_broken_facts_file_is_named(task_dir: Path, case: str) -> None:
    plant, said = FILE_CASES[case]
    plant(task_dir)
    found = findings(task_dir)
    assert [rule for rule, *_ in found if rule == "facts-file"] == ["facts-file"]
    assert any(said in message for rule, _, _, message in found if rule == "facts-file")


def test_a_facts_file_error_names_its_line(task_dir: Path) -> None:
    replace(task_dir / FACTS_FILE, 'numbers = ["2001"]', 'numbers = ["MMI"]')
    (rule, name, line, message), *_ = findings(task_dir)
    text = (task_dir / FACTS_FILE).read_text().splitlines()
    assert (rule, name) == ("facts-file", FACTS_FILE)
    assert text[line - 1].startswith("numbers") and "instruction.1.numbers" in message
    with pytest.raises(M4BenchError, match="is not a plain number"):
        load_facts(task_dir / FACTS_FILE)


@pytest.mark.parametrize(
    ("key", "paper", "file"),
    [
        ("instruction", lambda n: int(n / INSTRUCTION_MAX_RATIO) - 1, "instruction.md"),
        ("skill", lambda n: int(n / SKILL_RATIO_BAND[1]) - 1, FACTS_FILE),
        ("skill", lambda n: int(n / SKILL_RATIO_BAND[0]) + 2, FACTS_FILE),
        ("operational_spec", lambda n: int(n / SKILL_RATIO_BAND[0]) + 2, "operational-spec.md"),
    ],
)
def test_texts_far_from_the_paper_length_fail(
    task_dir: Path, key: str, paper: Callable[[int], int], file: str
) -> None:
    ours = {"instruction": INSTRUCTION, "skill": SKILL, "operational_spec": SPEC}[key]
    text = (task_dir / FACTS_FILE).read_text()
    line = next(row for row in text.splitlines() if row.startswith(f"{key} = "))
    replace(task_dir / FACTS_FILE, line, f"{key} = {paper(words(ours))}")
    assert [(rule, name) for rule, name, *_ in findings(task_dir)] == [("facts-length", file)]


def test_a_task_with_several_skills_names_each_facts_skill(task_dir: Path) -> None:
    second = task_dir / "skills" / "other-skill"
    second.mkdir()
    (second / "SKILL.md").write_text(SKILL.replace("meld-score", "other-skill"))
    said = [m for rule, _, _, m in findings(task_dir) if rule == "facts-file"]
    assert len(said) == 2 and all("name its skill" in message for message in said)


def test_the_catalog_lint_runs_the_facts_rules(task_dir: Path) -> None:
    replace(task_dir / "instruction.md", "One row per ICU stay.", "One row per ICU stay, 7 days.")
    found = lint_catalog(task_dir.parent.parent, run_references=False)
    assert [(f.rule, f.path) for f in found if f.rule.startswith("facts-")] == [
        ("facts-instruction-extra", task_dir / "instruction.md")
    ]


def test_show_prints_the_facts_and_the_lengths(
    task_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(TASKS_ENV, str(task_dir.parent.parent))
    result = CliRunner().invoke(app, ["tasks", "show", LOCAL_TASK, "--facts"])
    assert result.exit_code == 0, result.output
    out = result.output
    for said in ("Citation", "2001, Kamath", "skill meld-score", "Bilirubin has a floor"):
        assert said in out
    assert "kept out of the instruction: dialysis" in out
    assert f"instruction: {words(INSTRUCTION)} / paper {words(INSTRUCTION)} (1.00x)" in out


def test_show_facts_of_a_task_without_them_says_what_to_write(
    task_dir: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    (task_dir / FACTS_FILE).unlink()
    monkeypatch.setenv(TASKS_ENV, str(task_dir.parent.parent))
    code, err = m4bench(["tasks", "show", LOCAL_TASK, "--facts"], monkeypatch, capsys)
    assert code == 2
    assert f"{LOCAL_TASK} states no facts" in err and "hint: write a facts.toml" in err


def test_every_facts_rule_is_exercised() -> None:
    exercised = {
        "facts-file",
        "facts-instruction-extra",
        "facts-instruction-excluded",
        "facts-instruction-missing",
        "facts-skill-missing",
        "facts-opspec-missing",
        "facts-length",
    }
    assert exercised == set(FACTS_RULES)


@pytest.mark.parametrize(
    ("text", "numbers"),
    [
        ("ICD-9 and ICD-10 codes, Sepsis-3, PaO2/FiO2, v2.0, x10^9/L", []),
        ("from 6 hours before to 24 h after; 0-4 points", ["6", "24", "0", "4"]),
        ("1. first step\n2) second step at 1.2 mg/dL", ["1.2"]),
        ("above 1,000 mL and item 220045", ["1000", "220045"]),
    ],
)
def test_numbers_in_a_text(text: str, numbers: list[str]) -> None:
    assert [value for value, _ in numbers_in(text)] == numbers


def test_codes_in_a_text() -> None:
    assert codes_in("E10.6, I21 and B20 but not PaO2 or ICD-10") == [
        ("E10.6", 1),
        ("I21", 1),
        ("B20", 1),
    ]


def test_mentions_matches_numbers_at_digit_boundaries() -> None:
    assert mentions("a ratio below 100", "100", "number")
    assert not mentions("a ratio below 1000", "100", "number")
    assert not mentions("at 12.0 mg/dL", "12", "number")
    assert mentions("urine over 1,000 mL", "1000", "number")
    assert mentions("code E10.6 only", "E10.6", "id")
    assert not mentions("code E10.61", "E10.6", "id")
    assert mentions("Invasive\n  Ventilation", "invasive ventilation", "term")


def test_missing_tokens_lists_what_a_text_lacks() -> None:
    fact = Fact(fact="a fact", numbers=["4", "5"], ids=["E10.6"], terms=["dialysis"])
    assert list(missing_tokens("score 4 on dialysis", fact)) == ["5", "E10.6"]


def test_every_shipped_task_carries_its_facts() -> None:
    """Walk the facts data of the shipped catalog: each instruction states its facts and
    no number beyond them, each skill and spec every fact of theirs, lengths near the
    paper's."""
    for task in load_catalog(CATALOG_ROOT, extra_roots=()).tasks:
        facts = load_facts(task.dir / FACTS_FILE)
        assert facts.lengths is not None, task.name
        allowed = {t for fact in facts.instruction for t in (*fact.numbers, *fact.ids)}
        named = {value for value, _ in numbers_in(task.instruction) + codes_in(task.instruction)}
        assert named <= allowed, (task.name, named - allowed)
        for fact in facts.instruction:
            assert not list(missing_tokens(task.instruction, fact)), (task.name, fact.fact)
        skills = {name: path.read_text() for name, path in task.skill_paths.items()}
        for fact in facts.skill:
            text = skills[fact.skill or next(iter(skills))]
            assert not list(missing_tokens(text, fact)), (task.name, fact.fact)
        for fact in facts.operational_spec:
            assert not list(missing_tokens(task.operational_spec or "", fact)), task.name
        assert words(task.instruction) <= INSTRUCTION_MAX_RATIO * facts.lengths.instruction
        total = sum(words(text) for text in skills.values())
        low, high = SKILL_RATIO_BAND
        assert low * facts.lengths.skill <= total <= high * facts.lengths.skill, task.name
