"""The generators' coverage needs, held to the task catalog so the two cannot drift apart.

Every scoring bin of the catalog must be reachable on a synthetic source without an
excuse: the rare ones by an engineered state (``coverage_needs.toml``), the others by the
ordinary population (checked on whole sources by the audit tests). A need must name bins
and mutants that exist, of its own dataset.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from m4bench.errors import M4BenchError
from m4bench.sources.synth.coverage_needs import all_needs, read_needs
from m4bench.sources.synth.mimic_latent import CONDITION_INDEX
from m4bench.tasks.catalog import load_catalog
from m4bench.tasks.mutants import family_mutants
from m4bench.validity.coverage import load_coverage

SOURCES = Path(__file__).resolve().parents[2] / "src" / "m4bench" / "sources"


def _catalog_bins() -> dict[str, set[str]]:
    """Each bin of the catalog as 'family/bin', with the datasets of the tasks it scores."""
    catalog = load_catalog()
    bins: dict[str, set[str]] = {}
    for family in catalog.families:
        tasks = catalog.family(family)
        for spec in load_coverage(tasks[0].family_dir):
            datasets = {t.card.dataset for t in tasks if t.card.reference.file == spec.reference}
            bins[f"{family}/{spec.name}"] = datasets
    return bins


def test_every_need_names_bins_and_mutants_of_its_dataset() -> None:
    bins = _catalog_bins()
    catalog = load_catalog()
    mutants = {
        f"{family}/{m.name}"
        for family in catalog.families
        for m in family_mutants(catalog.family(family)[0].family_dir)
    }
    for need in all_needs():
        for name in need.bins:
            assert name in bins, f"need {need.name}: no bin {name} in the catalog"
            assert need.dataset in bins[name], f"need {need.name}: {name} is not {need.dataset}"
        for name in need.mutants:
            assert name in mutants, f"need {need.name}: no mutant {name} in the catalog"


def test_no_bin_of_the_catalog_is_excused() -> None:
    """A bin the synthetic data could not reach would need an exception; none may have one:
    a new task's rare bins get a need instead."""
    catalog = load_catalog()
    excused = [
        f"{family}/{spec.name}"
        for family in catalog.families
        for spec in load_coverage(catalog.family(family)[0].family_dir)
        if spec.exception is not None
    ]
    assert excused == []


def test_the_bins_the_generators_cannot_leave_to_chance_are_served() -> None:
    """The bins that once needed exceptions, and those a default-size source left empty at
    some seed, are each served by a need."""
    served = {name for need in all_needs() for name in need.bins}
    rare = {
        "apsiii/uo-1", "apsiii/acidbase-4", "apsiii/pao2-aado2-2", "apsiii/pao2-aado2-15",
        "meld/meld-all-normal", "sofa/coagulation-3", "apsiii/resp-rate-9", "apsiii/hr-8",
        "apsiii/temp-20", "sofa/coagulation-4", "ventilation/status-none",
        "gcs/gcs-no-charting-in-window", "kdigo/aki-stage-3-by-rrt-only",
    }  # fmt: skip
    assert rare <= served, sorted(rare - served)
    mutants = {name for need in all_needs() for name in need.mutants}
    assert {"apsiii/polyuria-not-scored", "kdigo/overall-stage-ignores-rrt"} <= mutants


def test_conditions_are_the_generators_conditions() -> None:
    for need in all_needs():
        for name in need.conditions:
            assert name in CONDITION_INDEX, f"need {need.name}: no condition {name}"


def test_the_sources_layer_imports_neither_tasks_nor_validity() -> None:
    """The generators read their needs as data; the catalog is checked here, not there."""
    for path in SOURCES.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = (
                [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else []
            )
            for name in names:
                assert not name.startswith(("m4bench.tasks", "m4bench.validity")), (path, name)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('[[need]]\nname = "a"\ndataset = "eicu"\nstate = "a state in words"\nbins = ["x/y"]\n'
         'values = { sodium = [1, 2] }', "no signal 'sodium' in eicu"),
        ('[[need]]\nname = "a"\ndataset = "mimic-iv"\nstate = "a state in words"\n'
         'bins = ["x/y"]\nvalues = { sodium = [150, 120] }', "reversed"),
        ('[[need]]\nname = "a"\ndataset = "mimic-iv"\nstate = "a state in words"\n'
         'bins = ["nobin"]', "not 'family/name'"),
        ('[[need]]\nname = "a"\ndataset = "eicu"\nstate = "a state in words"\nbins = ["x/y"]\n'
         "rrt = true", "value bands and age only"),
        ('[[need]]\nname = "a"\ndataset = "eicu"\nstate = "a state in words"\nbins = ["x/y"]\n'
         '[[need]]\nname = "a"\ndataset = "eicu"\nstate = "a state in words"\nbins = ["x/z"]\n',
         "appears twice"),
    ],
)  # fmt: skip
def test_a_bad_needs_file_is_refused_naming_what_is_wrong(text: str, message: str) -> None:
    with pytest.raises(M4BenchError, match=message):
        read_needs(text)
