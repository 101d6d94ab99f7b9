"""The eICU tasks' rules (GCS, OASIS) give varied, coherent answers on synthetic data.

The two queries below restate the rules of the eICU GCS and OASIS tasks; they run on
a synthetic source and the tests check that every component takes several values and
that the answers move with the stay's outcome the way they do in real ICUs.
"""

from __future__ import annotations

import duckdb
import pytest

from m4bench.home import DataHome
from m4bench.sources.synth import eicu_vocab as v
from m4bench.sources.synth.eicu import synthesize_eicu

GCS_SQL = """
WITH raw AS (
  SELECT patientunitstayid AS stay, nursingchartoffset AS off,
    MIN(CASE WHEN (nursingchartcelltypevallabel = 'Glasgow coma score'
                   AND nursingchartcelltypevalname = 'GCS Total')
              OR (nursingchartcelltypevallabel = 'Score (Glasgow Coma Scale)'
                   AND nursingchartcelltypevalname = 'Value')
         THEN TRY_CAST(nursingchartvalue AS NUMERIC) END) AS total,
    MIN(CASE WHEN nursingchartcelltypevallabel = 'Glasgow coma score'
              AND nursingchartcelltypevalname = 'Motor'
         THEN TRY_CAST(nursingchartvalue AS NUMERIC) END) AS motor,
    MIN(CASE WHEN nursingchartcelltypevallabel = 'Glasgow coma score'
              AND nursingchartcelltypevalname = 'Verbal'
         THEN TRY_CAST(nursingchartvalue AS NUMERIC) END) AS verbal,
    MIN(CASE WHEN nursingchartcelltypevallabel = 'Glasgow coma score'
              AND nursingchartcelltypevalname = 'Eyes'
         THEN TRY_CAST(nursingchartvalue AS NUMERIC) END) AS eyes
  FROM eicu_crd.nursecharting
  WHERE nursingchartcelltypecat IN ('Scores', 'Other Vital Signs and Infusions')
  GROUP BY 1, 2
), kept AS (
  SELECT stay, off, motor, verbal, eyes,
    CASE WHEN total > 2 AND total < 16 THEN total END AS vtotal
  FROM raw
  WHERE (total IS NOT NULL OR motor IS NOT NULL OR verbal IS NOT NULL OR eyes IS NOT NULL)
    AND off BETWEEN -360 AND 1440
), scored AS (
  SELECT *, COALESCE(vtotal, COALESCE(eyes, 4) + COALESCE(motor, 6) + COALESCE(verbal, 5)) AS g
  FROM kept
), ranked AS (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY stay ORDER BY g, off) AS rn FROM scored
)
SELECT p.patientunitstayid, p.hospitaldischargestatus AS status,
  COALESCE(r.g, 15) AS gcs_min, COALESCE(r.motor, 6) AS gcs_motor,
  COALESCE(r.verbal, 5) AS gcs_verbal, COALESCE(r.eyes, 4) AS gcs_eyes
FROM eicu_crd.patient p LEFT JOIN ranked r ON r.stay = p.patientunitstayid AND r.rn = 1
"""

_IN = "nursingchartcelltypevallabel = '{}' AND nursingchartcelltypevalname = '{}'"
_MAP = " OR ".join(f"({_IN.format(a, b)})" for a, b in (v.IBP_MEAN, v.MAP_VALUE, v.ART_MAP_VALUE))
_TAIL = f"SUBSTR(cellpath, {len(v.IO_OUTPUT) + 1})"


def _range(pair: tuple[str, str], low: str, high: str, agg: str) -> str:
    return f"{agg}(CASE WHEN {_IN.format(*pair)} AND x BETWEEN {low} AND {high} THEN x END)"


OASIS_SQL = f"""
WITH nc AS (
  SELECT patientunitstayid AS stay, nursingchartcelltypevallabel, nursingchartcelltypevalname,
    TRY_CAST(nursingchartvalue AS NUMERIC) AS x
  FROM eicu_crd.nursecharting
  WHERE nursingchartcelltypecat IN ('Vital Signs', 'Scores', 'Other Vital Signs and Infusions')
    AND nursingchartoffset > 0 AND nursingchartoffset <= 1440
), vit AS (
  SELECT stay,
    {_range(v.HR, "25", "225", "MIN")} AS hr_min, {_range(v.HR, "25", "225", "MAX")} AS hr_max,
    MIN(CASE WHEN {_IN.format(*v.RR)} AND x > 0 AND x <= 60 THEN x END) AS rr_min,
    {_range(v.RR, "0", "60", "MAX")} AS rr_max,
    {_range(v.TEMP_C, "25", "46", "MIN")} AS t_min, {_range(v.TEMP_C, "25", "46", "MAX")} AS t_max,
    MIN(CASE WHEN ({_MAP}) AND x BETWEEN 1 AND 250 THEN x END) AS ibp_min,
    MAX(CASE WHEN ({_MAP}) AND x BETWEEN 1 AND 250 THEN x END) AS ibp_max,
    {_range(v.NIBP_MEAN, "1", "250", "MIN")} AS nibp_min,
    {_range(v.NIBP_MEAN, "1", "250", "MAX")} AS nibp_max
  FROM nc GROUP BY stay
), gcs_off AS (
  SELECT patientunitstayid AS stay, nursingchartoffset AS off,
    MIN(TRY_CAST(nursingchartvalue AS NUMERIC)) AS t
  FROM eicu_crd.nursecharting
  WHERE nursingchartcelltypecat IN ('Scores', 'Other Vital Signs and Infusions')
    AND (({_IN.format(v.GCS_LABEL, v.GCS_TOTAL)}) OR ({_IN.format(v.GCS_SCORE_LABEL, v.VALUE)}))
  GROUP BY 1, 2
), gcs_nc AS (
  SELECT stay, MIN(CASE WHEN t > 2 AND t < 16 THEN t END) AS g FROM gcs_off
  WHERE off > 0 AND off <= 1440 GROUP BY stay
), gcs_pe AS (
  SELECT patientunitstayid AS stay, MIN(TRY_CAST(physicalexamvalue AS NUMERIC)) AS g
  FROM eicu_crd.physicalexam
  WHERE (physicalexampath LIKE '{v.PE_GCS}/_' OR physicalexampath LIKE '{v.PE_GCS}/__')
    AND physicalexamoffset > 0 AND physicalexamoffset <= 1440 AND physicalexamvalue IS NOT NULL
  GROUP BY 1
), uo AS (
  SELECT patientunitstayid AS stay, SUM(cellvaluenumeric) AS uo FROM eicu_crd.intakeoutput
  WHERE cellpath LIKE '{v.IO_OUTPUT}%' AND (
      {_TAIL} IN (SELECT tail FROM urine_tails)
      OR (LOWER(cellpath) LIKE '{v.IO_OUTPUT.lower()}foley%' AND LOWER(cellpath) NOT LIKE '%pacu%'
          AND LOWER(cellpath) NOT LIKE '%or%' AND LOWER(cellpath) NOT LIKE '%ir%')
      OR {_TAIL} LIKE 'Output%Urinary Catheter%' OR {_TAIL} LIKE 'Output%Urethral Catheter%'
      OR {_TAIL} LIKE 'Urine Output (mL)%' OR {_TAIL} LIKE 'Output%External Urethral%'
      OR {_TAIL} LIKE 'Urinary Catheter Output%')
    AND cellvaluenumeric IS NOT NULL AND intakeoutputoffset > 0 AND intakeoutputoffset <= 1440
  GROUP BY 1
), airway AS (
  SELECT DISTINCT patientunitstayid AS stay FROM eicu_crd.respiratorycare
  WHERE respcarestatusoffset > 0 AND respcarestatusoffset <= 1440 AND (airwaytype IS NOT NULL
    OR airwaysize IS NOT NULL OR airwayposition IS NOT NULL OR cuffpressure IS NOT NULL
    OR setapneatv IS NOT NULL)
), base AS (
  SELECT p.patientunitstayid, p.hospitaldischargestatus AS status, p.hospitaladmitoffset AS los,
    CASE WHEN p.age = '> 89' THEN 91 ELSE TRY_CAST(p.age AS INTEGER) END AS age,
    COALESCE(gn.g, gp.g) AS gcs, vit.*,
    COALESCE(u.uo, CASE WHEN a.urine > 0 THEN a.urine END) AS uo,
    u.uo IS NULL AND a.urine > 0 AS uo_from_apache,
    gn.g IS NULL AND gp.g IS NOT NULL AS gcs_from_exam,
    (a.intubated = 1 OR pv.oobintubday1 = 1 OR aw.stay IS NOT NULL) AS vent,
    pv.electivesurgery AS el, p.unitadmitsource AS src
  FROM eicu_crd.patient p
  LEFT JOIN vit ON vit.stay = p.patientunitstayid
  LEFT JOIN gcs_nc gn ON gn.stay = p.patientunitstayid
  LEFT JOIN gcs_pe gp ON gp.stay = p.patientunitstayid
  LEFT JOIN uo u ON u.stay = p.patientunitstayid
  LEFT JOIN eicu_crd.apacheapsvar a ON a.patientunitstayid = p.patientunitstayid
  LEFT JOIN eicu_crd.apachepredvar pv ON pv.patientunitstayid = p.patientunitstayid
  LEFT JOIN airway aw ON aw.stay = p.patientunitstayid
), scored AS (
  SELECT patientunitstayid, status, uo_from_apache, gcs_from_exam,
    COALESCE(CASE WHEN los > -10.2 THEN 5 WHEN los BETWEEN -296.4 AND -10.2 THEN 3
      WHEN los BETWEEN -1440 AND -296.4 THEN 0 WHEN los BETWEEN -18708 AND -1440 THEN 2
      WHEN los < -18708 THEN 1 END, 0) AS preiculos_score,
    COALESCE(CASE WHEN age < 24 THEN 0 WHEN age BETWEEN 24 AND 53 THEN 3
      WHEN age BETWEEN 54 AND 77 THEN 6 WHEN age BETWEEN 78 AND 89 THEN 9 WHEN age > 89 THEN 7
      END, 0) AS age_score,
    COALESCE(CASE WHEN gcs < 8 THEN 10 WHEN gcs BETWEEN 8 AND 13 THEN 4 WHEN gcs = 14 THEN 3
      WHEN gcs = 15 THEN 0 END, 0) AS gcs_score,
    COALESCE(CASE WHEN hr_min < 33 THEN 4 WHEN hr_max BETWEEN 33 AND 88 THEN 0
      WHEN hr_max BETWEEN 89 AND 106 THEN 1 WHEN hr_max BETWEEN 107 AND 125 THEN 3
      WHEN hr_max > 125 THEN 6 END, 0) AS heart_rate_score,
    COALESCE(CASE WHEN ibp_min < 20.65 THEN 4 WHEN ibp_min BETWEEN 20.65 AND 50.99 THEN 3
      WHEN ibp_min BETWEEN 51 AND 61.32 THEN 2 WHEN ibp_min BETWEEN 61.33 AND 143.44 THEN 0
      WHEN ibp_max > 143.44 THEN 3 WHEN nibp_min < 20.65 THEN 4
      WHEN nibp_min BETWEEN 20.65 AND 50.99 THEN 3 WHEN nibp_min BETWEEN 51 AND 61.32 THEN 2
      WHEN nibp_min BETWEEN 61.33 AND 143.44 THEN 0 WHEN nibp_max > 143.44 THEN 3 END, 0)
      AS mbp_score,
    COALESCE(CASE WHEN rr_min < 6 THEN 10 WHEN rr_min BETWEEN 6 AND 12 THEN 1
      WHEN rr_min BETWEEN 13 AND 22 THEN 0 WHEN rr_max BETWEEN 23 AND 30 THEN 1
      WHEN rr_max BETWEEN 31 AND 44 THEN 6 WHEN rr_max > 44 THEN 9 END, 0) AS resp_rate_score,
    COALESCE(CASE WHEN t_min < 33.22 THEN 3 WHEN t_min BETWEEN 33.22 AND 35.93 THEN 4
      WHEN t_max BETWEEN 33.22 AND 35.93 THEN 4 WHEN t_min BETWEEN 35.94 AND 36.39 THEN 2
      WHEN t_max BETWEEN 36.40 AND 36.88 THEN 0 WHEN t_max BETWEEN 36.89 AND 39.88 THEN 2
      WHEN t_max > 39.88 THEN 6 END, 0) AS temp_score,
    COALESCE(CASE WHEN uo < 671 THEN 10 WHEN uo BETWEEN 671 AND 1426.99 THEN 5
      WHEN uo BETWEEN 1427 AND 2543.99 THEN 1 WHEN uo BETWEEN 2544 AND 6896 THEN 0
      WHEN uo > 6896 THEN 8 END, 0) AS urineoutput_score,
    CASE WHEN vent THEN 9 ELSE 0 END AS mechvent_score,
    CASE WHEN el = 0 OR el IS NULL OR src = 'Emergency Department' THEN 6 ELSE 0 END
      AS electivesurgery_score
  FROM base
)
SELECT *, preiculos_score + age_score + gcs_score + heart_rate_score + mbp_score
  + resp_rate_score + temp_score + urineoutput_score + mechvent_score
  + electivesurgery_score AS oasis
FROM scored
"""

COMPONENTS = (
    "preiculos_score", "age_score", "gcs_score", "heart_rate_score", "mbp_score",
    "resp_rate_score", "temp_score", "urineoutput_score", "mechvent_score",
    "electivesurgery_score",
)  # fmt: skip


@pytest.fixture(scope="module")
def con(tmp_path_factory: pytest.TempPathFactory) -> duckdb.DuckDBPyConnection:
    home = DataHome(tmp_path_factory.mktemp("eicu-tasks"))
    source = synthesize_eicu(home, stays=600, seed=11, progress=False)
    connection = source.connect()
    connection.execute("CREATE TEMP TABLE urine_tails (tail VARCHAR)")
    connection.executemany("INSERT INTO urine_tails VALUES (?)", [(t,) for t in v.urine_tails()])
    connection.execute(f"CREATE TEMP TABLE gcs AS {GCS_SQL}")
    connection.execute(f"CREATE TEMP TABLE oasis AS {OASIS_SQL}")
    return connection


def _share(con: duckdb.DuckDBPyConnection, table: str, condition: str) -> float:
    row = con.execute(f"SELECT AVG(CASE WHEN {condition} THEN 1.0 ELSE 0 END) FROM {table}")
    return float(row.fetchone()[0])  # type: ignore[index]


def _distinct(con: duckdb.DuckDBPyConnection, table: str, column: str) -> set[float]:
    return {float(r[0]) for r in con.execute(f"SELECT DISTINCT {column} FROM {table}").fetchall()}


def test_gcs_answers_are_varied(con: duckdb.DuckDBPyConnection) -> None:
    assert len(_distinct(con, "gcs", "gcs_min")) >= 10
    assert 0.3 <= _share(con, "gcs", "gcs_min = 15") <= 0.65
    assert 0.06 <= _share(con, "gcs", "gcs_min <= 8") <= 0.3
    assert _distinct(con, "gcs", "gcs_motor") == {float(x) for x in range(1, 7)}
    assert _distinct(con, "gcs", "gcs_verbal") == {float(x) for x in range(1, 6)}
    assert _distinct(con, "gcs", "gcs_eyes") == {float(x) for x in range(1, 5)}
    # stays without any charted GCS get the defaults
    defaults = "gcs_min = 15 AND gcs_motor = 6 AND gcs_verbal = 5 AND gcs_eyes = 4"
    assert _share(con, "gcs", defaults) > 0


def test_every_oasis_component_takes_several_values(con: duckdb.DuckDBPyConnection) -> None:
    for column in COMPONENTS:
        values = _distinct(con, "oasis", column)
        assert len(values) >= (2 if column in ("mechvent_score", "electivesurgery_score") else 4), (
            column,
            values,
        )
    median = con.execute("SELECT MEDIAN(oasis), MIN(oasis), MAX(oasis) FROM oasis").fetchone()
    assert median is not None
    assert 22 <= median[0] <= 40
    assert median[2] - median[1] >= 35


def test_oasis_fallbacks_are_exercised(con: duckdb.DuckDBPyConnection) -> None:
    assert _share(con, "oasis", "gcs_from_exam") > 0
    assert _share(con, "oasis", "uo_from_apache") > 0


def test_scores_follow_outcome(con: duckdb.DuckDBPyConnection) -> None:
    by_status = dict(
        con.execute(
            "SELECT status, AVG(oasis) FROM oasis WHERE status IS NOT NULL GROUP BY 1"
        ).fetchall()
    )
    assert by_status["Expired"] > by_status["Alive"] + 5
    gcs_by_status = dict(
        con.execute(
            "SELECT status, AVG(gcs_min) FROM gcs WHERE status IS NOT NULL GROUP BY 1"
        ).fetchall()
    )
    assert gcs_by_status["Expired"] < gcs_by_status["Alive"]


def test_window_edges_and_admission_rules_are_exercised(con: duckdb.DuckDBPyConnection) -> None:
    edges = {
        int(r[0])
        for r in con.execute(
            "SELECT DISTINCT nursingchartoffset FROM eicu_crd.nursecharting WHERE "
            "nursingchartcelltypevallabel = 'Glasgow coma score' AND nursingchartoffset IN "
            "(-361, -360, 0, 1440, 1441)"
        ).fetchall()
    }
    assert {0, 1440, 1441} <= edges
    assert edges & {-361, -360}
    elective_from_ed = con.execute(
        "SELECT COUNT(*) FROM eicu_crd.patient JOIN eicu_crd.apachepredvar "
        "USING (patientunitstayid) WHERE electivesurgery = 1 "
        "AND unitadmitsource = 'Emergency Department'"
    ).fetchone()
    assert elective_from_ed is not None and elective_from_ed[0] > 0
    bins = {int(r[0]) for r in con.execute("SELECT DISTINCT preiculos_score FROM oasis").fetchall()}
    assert bins == {0, 1, 2, 3, 5}
