"""Patient cases (cases.toml): hand-built rows and the answer the reference must give."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner
from user_tasks import local_family, replace_in

from m4bench.cli import app
from m4bench.concepts.library import ConceptLibrary
from m4bench.errors import M4BenchError
from m4bench.tasks.case_errors import CasesFileError
from m4bench.tasks.case_run import run_cases, task_cases
from m4bench.tasks.catalog import CATALOG_ROOT, Catalog, Task, load_catalog
from m4bench.tasks.reference import empty_reference_database, run_reference

MELD_CASES = "meld/mimic-meld-24h/cases.toml"


@pytest.fixture
def meld_root(tmp_path: Path) -> Path:
    root = tmp_path / "catalog"
    shutil.copytree(CATALOG_ROOT / "meld", root / "meld")
    return root


def meld(root: Path) -> Task:
    return load_catalog(root, extra_roots=()).task("mimic-meld-24h")


def add_case(root: Path, text: str) -> None:
    path = root / MELD_CASES
    path.write_text(path.read_text(encoding="utf-8") + "\n" + text, encoding="utf-8")


ONE_STAY = """
[[case.rows]]
table = "mimiciv_icu.icustays"
rows = [{ subject_id = 9, hadm_id = 90, stay_id = 900, intime = 2150-01-01T08:00:00 }]
"""


# Every shipped task with patient cases, and how many it has.
SHIPPED_CASES = [
    ("mimic-meld-24h", 5),
    ("eicu-gcs", 4),
    ("mimic-kdigo-48h", 7),
    ("mimic-sirs-24h-raw", 4),
    ("mimic-charlson-raw", 5),
    ("mimic-apsiii-24h", 6),
    ("mimic-creatinine-baseline", 5),
    ("eicu-oasis", 5),
    ("mimic-oasis-24h", 5),
    ("mimic-sapsii-24h", 6),
    ("mimic-sepsis3-raw", 5),
    ("mimic-sofa-24h", 6),
    ("mimic-suspicion-infection", 5),
    ("mimic-urine-output-rate", 5),
    ("mimic-vasopressor-equivalents", 5),
    ("mimic-ventilation", 5),
]


def test_every_task_with_cases_is_listed(catalog: Catalog) -> None:
    with_cases = {task.name for task in catalog.tasks if task_cases(task)}
    assert with_cases == {task for task, _ in SHIPPED_CASES}


@pytest.mark.parametrize(("task", "count"), SHIPPED_CASES)
def test_the_shipped_cases_pass(
    task: str, count: int, catalog: Catalog, library: ConceptLibrary
) -> None:
    dataset = catalog.task(task).card.dataset
    results = run_cases(catalog.task(task), library if dataset == "mimic-iv" else None)
    assert len(results) == count
    assert [r.problems for r in results if not r.passed] == []


# (family, file, text, changed to, task, the case that must fail, its problem)
MISTAKES = [
    ("meld", "reference.sql", "THEN 12", "THEN 10", "mimic-meld-24h",
     "sodium-correction-above-eleven", "stay_id=400: meld is 26.6, expected 27.92"),
    ("gcs", "reference-eicu.sql", "<= 1440", "< 1440", "eicu-gcs",
     "charting-outside-the-window-ignored", "patientunitstayid=2: gcs_min is 15, expected 14"),
    ("sirs", "reference.sql", "> 90.0", ">= 90.0", "mimic-sirs-24h-raw",
     "values-on-the-thresholds-score-zero", "stay_id=200: heart_rate_score is 1, expected 0"),
    ("kdigo", "reference.sql", ">= ie.intime", ">= ie.intime - INTERVAL 2 HOUR", "mimic-kdigo-48h",
     "only-the-first-48-hours-count", "stay_id=400: aki_stage is 2, expected 1"),
    ("charlson", "reference.sql", "WHEN ag.age <= 50", "WHEN ag.age < 50", "mimic-charlson-raw",
     "age-bands-without-diagnoses", "hadm_id=10: age_score is 1, expected 0"),
]  # fmt: skip


@pytest.mark.parametrize(("family", "file", "text", "changed", "task", "case", "problem"), MISTAKES)
def test_a_changed_rule_fails_the_case_that_pins_it(
    tmp_path: Path, library: ConceptLibrary, family: str, file: str, text: str, changed: str,
    task: str, case: str, problem: str,
) -> None:  # fmt: skip
    shutil.copytree(CATALOG_ROOT / family, tmp_path / family)
    replace_in(tmp_path / family / file, text, changed)
    changed_task = load_catalog(tmp_path, extra_roots=()).task(task)
    results = run_cases(changed_task, library if changed_task.card.dataset == "mimic-iv" else None)
    failed = {r.case: r.problems for r in results if not r.passed}
    assert list(failed) == [case]
    assert problem in failed[case]


def test_the_window_case_needs_its_rebuild(meld_root: Path, library: ConceptLibrary) -> None:
    replace_in(meld_root / MELD_CASES, 'rebuild = ["first_day_lab"]\n', "")
    failed = [r for r in run_cases(meld(meld_root), library) if not r.passed]
    assert [(r.case, r.problems) for r in failed] == [
        ("labs-outside-the-first-day-ignored", ("stay_id=700: meld is 6, expected 13",))
    ]


def test_nulls_absent_keys_and_only_expected(meld_root: Path, library: ConceptLibrary) -> None:
    add_case(
        meld_root,
        '[[case]]\nname = "nulls"\nrule = "a NULL subject id is passed through"\n'
        "only_expected = true\n"
        '[[case.rows]]\ntable = "mimiciv_icu.icustays"\nrows = [\n'
        '  { subject_id = "<null>", hadm_id = 80, stay_id = 800 },\n'
        "  { subject_id = 8, hadm_id = 81, stay_id = 801 },\n]\n"
        '[[case.expect]]\nstay_id = 800\nsubject_id = "<null>"\nmeld = 6.0\n'
        "[[case.absent]]\nstay_id = 801\n",
    )
    result = run_cases(meld(meld_root), library)[-1]
    assert result.case == "nulls"
    assert result.problems == (
        "stay_id=801: in the output, expected absent",
        "1 output rows not expected, first stay_id=801",
    )


def test_a_row_that_does_not_insert_fails_its_case_only(
    meld_root: Path, library: ConceptLibrary
) -> None:
    add_case(
        meld_root,
        '[[case]]\nname = "typo"\nrule = "a column name with a typo"\n'
        + ONE_STAY
        + '[[case.rows]]\ntable = "mimiciv_derived.first_day_lab"\n'
        "rows = [{ stay_id = 900, creatinine_maximum = 2.0 }]\n"
        "[[case.expect]]\nstay_id = 900\nmeld = 6.0\n",
    )
    results = run_cases(meld(meld_root), library)
    assert [r.passed for r in results] == [True] * 5 + [False]
    (problem,) = results[-1].problems
    assert problem.startswith("rows of mimiciv_derived.first_day_lab, row 1:")
    assert "creatinine_maximum" in problem


@pytest.mark.parametrize(
    ("expectation", "message"),
    [
        ("[[case.expect]]\nmeld = 6.0\n", "expect block 1: no key column stay_id"),
        ("[[case.expect]]\nstay_id = 900\nmeld_na = 6.0\n", "meld_na is not an output column"),
        ("[[case.absent]]\nstay_id = 900\nmeld = 6.0\n", "names the key columns only"),
        ("", "expects nothing"),
    ],
)
def test_cases_that_cannot_be_checked_are_refused(
    meld_root: Path, expectation: str, message: str
) -> None:
    add_case(
        meld_root,
        '[[case]]\nname = "bad"\nrule = "a broken expectation"\n' + ONE_STAY + expectation,
    )
    with pytest.raises(M4BenchError, match=message) as caught:
        task_cases(meld(meld_root))
    assert str(meld_root / MELD_CASES) in caught.value.message


@pytest.mark.heavy
def test_the_cli_runs_every_shipped_case() -> None:
    """``tasks test`` without names: every task's cases (each also runs above)."""
    ok = CliRunner().invoke(app, ["tasks", "test"], env={"COLUMNS": "200"})
    assert ok.exit_code == 0, ok.output
    total = sum(count for _, count in SHIPPED_CASES)
    assert f"{total} cases in {len(SHIPPED_CASES)} tasks: {total} passed, 0 failed" in ok.output


def test_the_cli_runs_cases_and_fails_on_a_failure(
    meld_root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    runner = CliRunner()
    named = ["mimic-meld-24h", "eicu-gcs"]
    ok = runner.invoke(app, ["tasks", "test", *named], env={"COLUMNS": "200"})
    assert ok.exit_code == 0, ok.output
    assert "pass mimic-meld-24h rrt-caps-creatinine" in ok.output
    total = sum(count for task, count in SHIPPED_CASES if task in named)
    assert f"{total} cases in 2 tasks: {total} passed, 0 failed" in ok.output
    shown = runner.invoke(app, ["tasks", "show", "mimic-meld-24h"], env={"COLUMNS": "200"})
    assert "patient cases     5 (m4bench tasks test mimic-meld-24h)" in shown.output
    uncovered = runner.invoke(app, ["tasks", "test", "mimic-sofa-24h-raw"], env={"COLUMNS": "200"})
    assert uncovered.exit_code == 1 and "no cases mimic-sofa-24h-raw" in uncovered.output
    # A user copy of the family under a new name, with one wrong expectation.
    ours = meld_root.parent / "ours"
    replace_in(local_family(ours) / "cases.toml", "meld = 40.0", "meld = 39.0")
    monkeypatch.setenv("M4BENCH_TASKS", str(ours))
    failing = runner.invoke(app, ["tasks", "test", "mimic-meld-local-24h"], env={"COLUMNS": "200"})
    assert failing.exit_code == 1, failing.output
    assert "FAIL mimic-meld-local-24h initial-score-capped-at-forty" in failing.output
    assert "     rule: an initial MELD above 40 counts as 40 before the sodium term\n" in (
        failing.output
    )
    assert "stay_id=600: meld is 40, expected 39" in failing.output


def test_a_broken_cases_file_stops_only_its_task(tmp_path: Path) -> None:
    """The other tasks' cases still run; the summary prints; the command exits 1."""
    task_dir = local_family(tmp_path / "ours")
    replace_in(task_dir / "cases.toml", "meld = 40.0", "meld = 40.0\nmeld_na = 1.0")
    env = {**os.environ, "M4BENCH_TASKS": str(tmp_path / "ours"), "COLUMNS": "300"}
    done = subprocess.run(
        [sys.executable, "-m", "m4bench", "tasks", "test", "mimic-meld-24h", task_dir.name],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert done.returncode == 1, done.stderr
    cases = task_dir / "cases.toml"
    line = cases.read_text(encoding="utf-8").splitlines().index("meld_na = 1.0") - 2
    assert done.stdout.count(str(cases)) == 1
    assert (
        f"ERROR {task_dir.name}\n     {cases}:{line}: case 4 ('initial-score-capped-at-forty'), "
        "expect block 1: meld_na is not an output column (the task returns subject_id, hadm_id, "
        "stay_id, meld)\n"
    ) in done.stdout
    assert "pass mimic-meld-24h rrt-caps-creatinine" in done.stdout
    assert done.stdout.endswith(
        "5 cases in 2 tasks: 5 passed, 0 failed; the cases of 1 task could not run\n"
    )


def test_a_reference_that_repeats_a_key_fails_its_cases(
    meld_root: Path, library: ConceptLibrary
) -> None:
    replace_in(
        meld_root / "meld" / "reference.sql",
        "FROM initial\n",
        "FROM initial, (SELECT 1 UNION ALL SELECT 2) AS dup(x)\n",
    )
    results = run_cases(meld(meld_root), library)
    assert len(results) == 5 and not any(r.passed for r in results)
    assert results[0].problems[0] == (
        "the reference of mimic-meld-24h returns 2 rows for stay_id=100; "
        "its key columns (stay_id) must name one row each"
    )


def test_a_reference_that_does_not_run_is_one_error_at_its_line(
    meld_root: Path, library: ConceptLibrary
) -> None:
    reference = meld_root / "meld" / "reference.sql"
    lines = reference.read_text(encoding="utf-8").splitlines()
    number = next(n for n, text in enumerate(lines, start=1) if "lab.sodium_min," in text)
    replace_in(reference, "lab.sodium_min,", "lab.sodium_mn,")
    (result,) = run_cases(meld(meld_root), library)
    assert result.error and not result.passed
    (problem,) = result.problems
    assert problem.startswith(f"{reference}:{number}: the reference failed: Binder Error")
    assert f"LINE {number}:" in problem
    con = empty_reference_database(meld(meld_root))
    with pytest.raises(M4BenchError) as caught:
        run_reference(meld(meld_root), con)
    assert caught.value.message.startswith(f"{reference}:{number}: the reference failed")
    assert f"LINE {number}:" in caught.value.message


def header_line(path: Path, number: int) -> int:
    """The line of the ``number``-th ``[[case]]`` header (1-based) of ``path``."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return [n for n, text in enumerate(lines, start=1) if text == "[[case]]"][number - 1]


# (what is changed in the 5th case, the line relative to its header, the problem)
CASE_MISTAKES = [
    ("tolerance = 0.005", "tolerance = -1", 3,
     "case 5 ('labs-outside-the-first-day-ignored'): tolerance must not be negative"),
    ("tolerance = 0.005", "expected = 1", 3,
     "case 5 ('labs-outside-the-first-day-ignored'): unknown field 'expected': did you mean "
     "'expect'? it takes name, rule, tolerance, rebuild, only_expected, rows, expect, absent"),
    ('name = "labs-outside-the-first-day-ignored"', 'name = "Labs Outside"', 1,
     "case 5 ('Labs Outside'): name 'Labs Outside' must be lower-case letters and digits in "
     "words joined by hyphens, e.g. 'rrt-caps-creatinine'"),
    ('name = "labs-outside-the-first-day-ignored"', 'name = "rrt-caps-creatinine"', 0,
     "case 5: case 2 is also named 'rrt-caps-creatinine'"),
    ('table = "mimiciv_derived.chemistry"', 'table = "chemistry"', 13,
     "case 5 ('labs-outside-the-first-day-ignored'), rows block 2: table 'chemistry' must be "
     "a lower-case 'schema.table', e.g. 'mimiciv_icu.icustays'"),
]  # fmt: skip


@pytest.mark.parametrize(("old", "new", "offset", "problem"), CASE_MISTAKES)
def test_case_errors_name_the_line_and_the_case(
    meld_root: Path, old: str, new: str, offset: int, problem: str
) -> None:
    path = meld_root / MELD_CASES
    start = header_line(path, 5)
    text = path.read_text(encoding="utf-8").splitlines()
    where = next(n for n in range(start, len(text)) if text[n].startswith(old))
    text[where] = text[where].replace(old, new)
    path.write_text("\n".join(text) + "\n", encoding="utf-8")
    with pytest.raises(CasesFileError) as caught:
        task_cases(meld(meld_root))
    assert (caught.value.path, caught.value.line, caught.value.problem) == (
        path, start + offset, problem,
    )  # fmt: skip
    assert caught.value.message == f"{path}:{start + offset}: {problem}"


@pytest.mark.parametrize(("relative", "passes"), [(0.1, True), (0.05, False)])
def test_a_case_without_its_own_tolerance_uses_the_cards_relative_one(
    meld_root: Path, library: ConceptLibrary, relative: float, passes: bool
) -> None:
    """rrt-caps-creatinine expects 20 for stay 200; 21.5 is 1.5 off: outside the card's
    absolute 1.0, inside 10 % of 21.5 but not 5 %."""
    card = meld_root / "meld" / "mimic-meld-24h" / "task.toml"
    replace_in(card, "meld = 1.0\n", f"meld = {{ absolute = 1.0, relative = {relative} }}\n")
    cases = meld_root / MELD_CASES
    replace_in(
        cases,
        'rule = "renal replacement in the window scores creatinine as 4.0 mg/dL (20 instead '
        'of 10 here)"\ntolerance = 0.005\n',
        'rule = "renal replacement in the window scores creatinine as 4.0 mg/dL (20 instead '
        'of 10 here)"\n',
    )
    replace_in(cases, "stay_id = 200\nmeld = 20.0\n", "stay_id = 200\nmeld = 21.5\n")
    result = next(r for r in run_cases(meld(meld_root), library) if r.case == "rrt-caps-creatinine")
    assert result.passed is passes, result.problems
