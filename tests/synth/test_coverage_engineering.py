"""Engineered stays: every coverage need is placed, and its stay's raw data show the state.

Built at the smallest size that holds every need (a non-default seed), the sources are
read back table by table: each band's signal spans the band in the need's window, and
ventilation, renal replacement, vasoactive agents, GCS and the patient facts are as the
need asks. Below that size the source says which needs and bins it lacks.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterator

import duckdb
import numpy as np
import pytest
from console_entry import m4bench

from m4bench.home import DataHome
from m4bench.sources.layout import Source
from m4bench.sources.synth import synthesize_mimic_iv
from m4bench.sources.synth.coverage_needs import Need, dataset_needs
from m4bench.sources.synth.coverage_plan import (
    MAX_SHARE,
    NO_NEED,
    block_edges,
    coverage_note,
    minimum_stays,
    place,
)
from m4bench.sources.synth.eicu import synthesize_eicu
from m4bench.sources.synth.engineered_stays import engineered_stays
from m4bench.sources.synth.mimic_engineered import AGENT_ITEMS
from m4bench.sources.synth.mimic_labs import OUT_OF_RANGE as LAB_OUT_OF_RANGE

pytestmark = pytest.mark.xdist_group("coverage-engineering")  # one worker builds them once
MIMIC_NEEDS = dataset_needs("mimic-iv")
EICU_NEEDS = dataset_needs("eicu")
# MIMIC-IV signal -> (table, item ids); the value is valuenum in the signal's unit
CHART = "mimiciv_icu.chartevents"
LAB = "mimiciv_hosp.labevents"
MIMIC_ITEMS: dict[str, tuple[str, tuple[int, ...]]] = {
    "heart_rate": (CHART, (220045,)), "resp_rate": (CHART, (220210,)),
    "mbp": (CHART, (220181, 220052, 225312)), "sbp": (CHART, (220179, 220050, 225309)),
    "glucose": (CHART, (225664, 220621, 226537)), "sodium": (LAB, (50983, 50824)),
    "potassium": (LAB, (50971, 50822)), "bicarbonate": (LAB, (50882,)),
    "hematocrit": (LAB, (51221, 50810)), "wbc": (LAB, (51301,)), "platelets": (LAB, (51265,)),
    "creatinine": (LAB, (50912,)), "bun": (LAB, (51006,)), "albumin": (LAB, (50862,)),
    "bilirubin": (LAB, (50885,)), "inr": (LAB, (51237,)), "bands": (LAB, (51144,)),
    "ph": (LAB, (50820,)), "pco2": (LAB, (50818,)), "po2": (LAB, (50821,)),
    "aado2": (LAB, (50801,)),
}  # fmt: skip
# rows the lab quirk writes beyond the concepts' filters (mimic_labs.OUT_OF_RANGE)
OUT_OF_RANGE = "NOT " + " OR ".join(
    f"(itemid = {item} AND valuenum = {value})" for item, value in LAB_OUT_OF_RANGE.items()
).join("()")


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> DataHome:
    return DataHome(tmp_path_factory.mktemp("engineered-home"))


@pytest.fixture(scope="module")
def mimic(home: DataHome) -> Source:
    return synthesize_mimic_iv(home, stays=minimum_stays(MIMIC_NEEDS), seed=5, progress=False)


@pytest.fixture(scope="module")
def eicu(home: DataHome) -> Source:
    return synthesize_eicu(home, stays=minimum_stays(EICU_NEEDS), seed=5, progress=False)


@pytest.fixture(scope="module")
def con(mimic: Source) -> Iterator[duckdb.DuckDBPyConnection]:
    connection = mimic.connect(read_only=True)
    yield connection
    connection.close()


def _hosts(source: Source) -> dict[str, int]:
    hosts = {name: stay for stay, name in engineered_stays(source).items()}
    return hosts


def _span(con: duckdb.DuckDBPyConnection, sql: str) -> tuple[float, float, float]:
    """(min, max, rounding tolerance) of the value rows ``sql`` selects (value, valuenum)."""
    rows = con.execute(sql).fetchall()
    assert rows, sql
    values = np.array([r[1] for r in rows], dtype=float)
    decimals = max(len(str(r[0]).partition(".")[2]) for r in rows)
    return float(values.min()), float(values.max()), 0.5 * 10.0**-decimals + 1e-9


def test_every_need_has_its_own_stay_at_the_minimum_size(mimic: Source, eicu: Source) -> None:
    for source, needs in ((mimic, MIMIC_NEEDS), (eicu, EICU_NEEDS)):
        hosts = engineered_stays(source)
        assert sorted(hosts.values()) == sorted(n.name for n in needs)
        assert len(set(hosts)) == len(needs)
        assert source.manifest.parameters["coverage_unplaced"] == ""
        assert source.manifest.parameters["coverage_needs"] == len(needs)


@pytest.mark.parametrize("need", [n for n in MIMIC_NEEDS if n.values], ids=lambda n: n.name)
def test_each_band_spans_its_signal_in_the_window(
    mimic: Source, con: duckdb.DuckDBPyConnection, need: Need
) -> None:
    stay = _hosts(mimic)[need.name]
    start, end = need.hours
    for signal, (low, high) in need.values.items():
        if signal in ("urine_24h", "urine_rate", "temperature", "fio2"):
            continue  # checked in their own units below
        table, items = MIMIC_ITEMS[signal]
        where = f"itemid IN ({', '.join(map(str, items))}) AND valuenum IS NOT NULL"
        if table == LAB:
            where += f" AND {OUT_OF_RANGE}"
        window = (
            f"e.charttime BETWEEN ie.intime + INTERVAL ({start} * 60) MINUTE "
            f"AND ie.intime + INTERVAL ({end} * 60) MINUTE"
        )
        sql = (
            f"SELECT e.value, valuenum FROM {table} AS e "
            "JOIN mimiciv_icu.icustays AS ie ON ie.subject_id = e.subject_id "
            f"WHERE ie.stay_id = {stay} AND {where} AND {window}"
        )
        lo, hi, tol = _span(con, sql)
        assert math.isclose(lo, low, abs_tol=tol) or (low <= lo and len({lo, hi}) == 1), signal
        assert math.isclose(hi, high, abs_tol=tol) or (hi <= high and len({lo, hi}) == 1), signal


def test_fio2_bands_hold_in_charted_and_gas_fio2(
    mimic: Source, con: duckdb.DuckDBPyConnection
) -> None:
    """Charted FiO2 (percent, some as fractions, typed flows left out) and the gases' FiO2
    lie in the band; a stay off the ventilator may have neither."""
    hosts = _hosts(mimic)
    for need in (n for n in MIMIC_NEEDS if "fio2" in n.values):
        low, high = need.values["fio2"]
        span = con.execute(
            "SELECT MIN(f), MAX(f) FROM (SELECT CASE WHEN valuenum <= 1 THEN valuenum * 100 "
            "ELSE valuenum END AS f FROM (SELECT subject_id, charttime, itemid, valuenum FROM "
            "mimiciv_icu.chartevents UNION ALL SELECT subject_id, charttime, itemid, valuenum "
            "FROM mimiciv_hosp.labevents) AS e JOIN mimiciv_icu.icustays AS ie USING "
            "(subject_id) WHERE ie.stay_id = ? AND itemid IN (223835, 50816) AND "
            "(valuenum <= 1 OR valuenum >= 20) AND e.charttime BETWEEN ie.intime - "
            "INTERVAL 6 HOUR AND ie.intime + INTERVAL 24 HOUR)",
            [hosts[need.name]],
        ).fetchone()
        assert span is not None
        if need.ventilated:
            assert span[0] is not None, need.name
        if span[0] is not None:
            assert low - 1 <= span[0] and span[1] <= high + 1, (need.name, span)


def test_temperature_and_urine_bands_hold_in_their_own_units(
    mimic: Source, con: duckdb.DuckDBPyConnection
) -> None:
    hosts = _hosts(mimic)
    for need in MIMIC_NEEDS:
        stay = hosts[need.name]
        if "temperature" in need.values:
            celsius = con.execute(
                "SELECT MIN(c), MAX(c) FROM (SELECT CASE WHEN itemid = 223761 "
                "THEN (valuenum - 32) / 1.8 ELSE valuenum END AS c FROM mimiciv_icu.chartevents "
                f"AS e JOIN mimiciv_icu.icustays AS ie USING (stay_id) WHERE stay_id = {stay} AND "
                "itemid IN (223761, 223762) AND e.charttime BETWEEN ie.intime - INTERVAL 6 HOUR "
                "AND ie.intime + INTERVAL 24 HOUR) WHERE c BETWEEN 25 AND 45"
            ).fetchone()
            low, high = need.values["temperature"]
            assert celsius is not None
            assert abs(celsius[0] - low) < 0.1 and abs(celsius[1] - high) < 0.1, need.name
        if "urine_24h" in need.values:
            total = con.execute(
                "SELECT SUM(value) FROM mimiciv_icu.outputevents AS o JOIN "
                f"mimiciv_icu.icustays AS ie USING (stay_id) WHERE stay_id = {stay} AND "
                "o.charttime BETWEEN ie.intime AND ie.intime + INTERVAL 24 HOUR"
            ).fetchone()
            low, high = need.values["urine_24h"]
            assert total is not None and low <= total[0] <= high, need.name


def _window_count(con: duckdb.DuckDBPyConnection, stay: int, table: str, where: str) -> int:
    time = "starttime" if table.endswith(("inputevents", "procedureevents")) else "charttime"
    row = con.execute(
        f"SELECT COUNT(*) FROM {table} AS e JOIN mimiciv_icu.icustays AS ie USING (stay_id) "
        f"WHERE stay_id = {stay} AND {where} AND e.{time} BETWEEN ie.intime "
        "AND ie.intime + INTERVAL 24 HOUR"
    ).fetchone()
    return int(row[0]) if row else 0


def test_support_and_treatments_are_as_the_needs_ask(
    mimic: Source, con: duckdb.DuckDBPyConnection
) -> None:
    hosts = _hosts(mimic)
    tube = "itemid = 226732 AND value = 'Endotracheal tube'"
    crrt = "itemid IN (227290, 224149, 224144)"
    mask = "itemid = 226732 AND value IN ('Bipap mask ', 'CPAP mask ')"
    for need in MIMIC_NEEDS:
        stay = hosts[need.name]
        if need.ventilated is not None:
            assert (_window_count(con, stay, CHART, tube) > 0) == need.ventilated, need.name
        if need.rrt is not None:
            assert (_window_count(con, stay, CHART, crrt) > 0) == need.rrt, need.name
        if need.niv:
            assert _window_count(con, stay, CHART, mask) >= 10, need.name
        if need.vasoactive is not None:
            given = con.execute(
                "SELECT DISTINCT itemid FROM mimiciv_icu.inputevents WHERE stay_id = ? AND "
                f"itemid IN ({', '.join(map(str, AGENT_ITEMS.values()))})",
                [stay],
            ).fetchall()
            assert {i for (i,) in given} == {AGENT_ITEMS[a] for a in need.vasoactive}
        if need.room_air_flow:
            both = con.execute(
                "SELECT COUNT(*) FROM mimiciv_icu.chartevents AS d JOIN mimiciv_icu.chartevents "
                "AS f USING (stay_id, charttime) WHERE d.stay_id = ? AND d.itemid = 226732 AND "
                "d.value = 'None' AND f.itemid = 223834",
                [stay],
            ).fetchone()
            assert both is not None and both[0] >= 2


def test_gcs_and_patient_facts_are_as_the_needs_ask(
    mimic: Source, con: duckdb.DuckDBPyConnection
) -> None:
    hosts = _hosts(mimic)
    gcs_items = "itemid IN (220739, 223900, 223901)"
    for need in MIMIC_NEEDS:
        stay = hosts[need.name]
        if need.gcs is not None:
            trios = con.execute(
                "SELECT itemid, MIN(valuenum), MAX(valuenum) FROM mimiciv_icu.chartevents AS e "
                "JOIN mimiciv_icu.icustays AS ie USING (stay_id) WHERE stay_id = ? AND "
                f"{gcs_items} AND e.charttime <= ie.intime + INTERVAL 24 HOUR GROUP BY itemid "
                "ORDER BY itemid",
                [stay],
            ).fetchall()
            wanted = dict(zip((220739, 223900, 223901), need.gcs, strict=True))
            assert {i: (lo, hi) for i, lo, hi in trios} == {i: (v, v) for i, v in wanted.items()}
        if need.gcs_charting == "none":
            assert _window_count(con, stay, CHART, gcs_items) == 0
        if need.gcs_charting == "before-icu":
            before = con.execute(
                "SELECT COUNT(*) FROM mimiciv_icu.chartevents AS e JOIN mimiciv_icu.icustays "
                f"AS ie USING (stay_id) WHERE stay_id = ? AND {gcs_items} AND "
                "e.charttime < ie.intime",
                [stay],
            ).fetchone()
            assert before is not None and before[0] > 0
        if need.age is not None:
            age = con.execute(
                "SELECT p.anchor_age FROM mimiciv_hosp.patients AS p JOIN mimiciv_icu.icustays "
                "USING (subject_id) WHERE stay_id = ?",
                [stay],
            ).fetchone()
            assert age == (need.age,)
        if need.pre_icu_days is not None:
            days = con.execute(
                "SELECT date_diff('minute', a.admittime, ie.intime) / 1440 FROM "
                "mimiciv_icu.icustays AS ie JOIN mimiciv_hosp.admissions AS a USING (hadm_id) "
                "WHERE stay_id = ?",
                [stay],
            ).fetchone()
            assert days is not None and days[0] >= need.pre_icu_days


# signal -> (rows, valid range as the eICU OASIS reference reads them)
EICU_LABELS = {
    "heart_rate": ("nursingchartcelltypevallabel = 'Heart Rate'", (25, 225)),
    "resp_rate": ("nursingchartcelltypevallabel = 'Respiratory Rate'", (1, 60)),
    "mbp": (
        "nursingchartcelltypevalname IN ('Non-Invasive BP Mean', 'Invasive BP Mean')",
        (1, 250),
    ),
    "temperature": ("nursingchartcelltypevalname = 'Temperature (C)'", (25, 46)),
}


def test_eicu_bands_hold_in_the_first_day(eicu: Source) -> None:
    hosts = _hosts(eicu)
    con = eicu.connect(read_only=True)
    try:
        for need in EICU_NEEDS:
            stay = hosts[need.name]
            for signal, (low, high) in need.values.items():
                if signal == "urine_24h":
                    total = con.execute(
                        "SELECT SUM(cellvaluenumeric) FROM eicu_crd.intakeoutput WHERE "
                        "patientunitstayid = ? AND cellpath LIKE '%Output (ml)|%' AND "
                        "intakeoutputoffset > 0 AND intakeoutputoffset <= 1440",
                        [stay],
                    ).fetchone()
                    assert total is not None and total[0] > low - 1000, need.name
                    continue
                rows, (valid_low, valid_high) = EICU_LABELS[signal]
                span = con.execute(
                    "SELECT MIN(v), MAX(v) FROM (SELECT TRY_CAST(nursingchartvalue AS DOUBLE) "
                    "AS v FROM eicu_crd.nursecharting WHERE patientunitstayid = ? AND "
                    f"{rows} AND nursingchartoffset BETWEEN 0 AND 1440) WHERE v BETWEEN ? AND ?",
                    [stay, valid_low, valid_high],
                ).fetchone()
                assert span is not None
                assert low - 0.51 <= span[0] <= low + 0.51, (need.name, span)
                assert high - 0.51 <= span[1] <= high + 0.51, (need.name, span)
            if need.age is not None:
                age = con.execute(
                    "SELECT age FROM eicu_crd.patient WHERE patientunitstayid = ?", [stay]
                ).fetchone()
                assert age == (str(need.age),)
    finally:
        con.close()


def test_a_block_holds_each_need_once_and_at_most_one_stay_in_ten() -> None:
    rng = np.random.default_rng(3)
    n = 2_500
    placement = place(MIMIC_NEEDS, rng, rng.beta(1.5, 3, n), rng.uniform(10, 200, n))
    edges = block_edges(n)
    assert len(edges) == 3  # two blocks of 1,250
    for start, end in itertools.pairwise(edges):
        hosted = placement.host_need[start:end]
        assert sorted(hosted[hosted != NO_NEED]) == list(range(len(MIMIC_NEEDS)))
        assert (hosted != NO_NEED).mean() <= MAX_SHARE
    assert placement.unplaced == ()


def test_the_same_seed_and_stays_give_the_same_hosts() -> None:
    draws = np.random.default_rng(3)
    severity, length = draws.beta(1.5, 3, 1_000), draws.uniform(10, 200, 1_000)
    first = place(MIMIC_NEEDS, np.random.default_rng(8), severity, length)
    again = place(MIMIC_NEEDS, np.random.default_rng(8), severity, length)
    other = place(MIMIC_NEEDS, np.random.default_rng(9), severity, length)
    assert np.array_equal(first.host_need, again.host_need)
    assert not np.array_equal(first.host_need, other.host_need)


def test_a_host_is_long_enough_and_as_severe_as_its_need_asks() -> None:
    rng = np.random.default_rng(4)
    n = 1_000
    severity, length = rng.beta(1.5, 3, n), rng.uniform(5, 100, n)
    room = rng.uniform(0, 30 * 24, n)
    placement = place(MIMIC_NEEDS, rng, severity, length, room)
    for stay, index in zip(*placement.hosts(np.arange(n)), strict=True):
        need = MIMIC_NEEDS[int(index)]
        assert length[stay] >= need.span_hours, need.name
        if need.pre_icu_days is not None:
            assert room[stay] >= 24 * need.pre_icu_days, need.name
    shock = MIMIC_NEEDS.index(next(n for n in MIMIC_NEEDS if n.name == "profound-shock"))
    host = int(np.flatnonzero(placement.host_need == shock)[0])
    assert severity[host] >= 0.6


def test_a_need_no_stay_can_hold_is_left_out_not_forced() -> None:
    rng = np.random.default_rng(5)
    n = 1_000
    short = np.full(n, 20.0)  # no stay lasts the 30 hours a first-day window needs
    placement = place(MIMIC_NEEDS, rng, rng.beta(1.5, 3, n), short)
    assert (placement.host_need == NO_NEED).all()
    assert placement.unplaced == MIMIC_NEEDS


def test_a_source_too_small_for_every_need_says_which_bins_it_lacks(
    home: DataHome, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["data", "synth", "mimic-iv", "--stays", "120", "--seed", "4", "--name", "small"]
    code, err = m4bench([*args, "--quiet", "--home", str(home.root)], monkeypatch, capsys)
    assert code == 0, err
    fits = int(120 * MAX_SHARE)
    assert f"engineer {fits} of the {len(MIMIC_NEEDS)} rare MIMIC-IV states" in err
    assert f"all fit from {minimum_stays(MIMIC_NEEDS):,} stays" in err
    left_out = MIMIC_NEEDS[fits:]
    assert all(n.name in err for n in left_out)
    assert "apsiii/pao2-aado2-14" in err  # a bin only a left-out need serves
    assert "apsiii/uo-1" not in err  # served by the first need, which fits
    parameters = {"coverage_unplaced": ",".join(n.name for n in left_out), "stays": 120}
    assert " ".join(coverage_note("mimic-iv", parameters).split()) in err
