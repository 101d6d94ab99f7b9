"""hosp.labevents: chemistry, blood count, differential, coagulation, liver panel, blood gases.

One specimen (``specimen_id``) per drawn panel; every item of a panel shares its
charttime and storetime. Values follow the stay's latent state (creatinine along the
AKI course, platelets and bilirubin with organ failure, lactate and pH with shock).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from m4bench.sources.synth.core import QuirkRates, scrambled_ids
from m4bench.sources.synth.mimic_cohort import HOUR
from m4bench.sources.synth.mimic_events import Timeline, as_text, pick
from m4bench.sources.synth.mimic_vocab import LAB_TEXT_VALUES, lab_unit

PRIORITIES = pa.array(["STAT", "ROUTINE", "ROUTINE"], pa.string())
# out-of-range replacements beyond the concepts' validity filters
OUT_OF_RANGE = {
    50912: 200.0,
    51006: 350.0,
    50971: 40.0,
    50983: 250.0,
    50862: 12.0,
    50931: 12000.0,
    51221: 120.0,
}


@dataclass
class LabRows:
    """Specimens and their item rows for one chunk."""

    owner: list[np.ndarray] = field(default_factory=list)  # index of the owning stay/admission
    time: list[np.ndarray] = field(default_factory=list)
    specimen: list[np.ndarray] = field(default_factory=list)
    null_hadm: list[np.ndarray] = field(default_factory=list)
    itemid: list[np.ndarray] = field(default_factory=list)
    value: list[pa.Array] = field(default_factory=list)
    valuenum: list[np.ndarray] = field(default_factory=list)
    next_specimen: int = 0

    def panel(
        self,
        rng: np.random.Generator,
        tl: Timeline,
        items: dict[int, np.ndarray],
        null_hadm: np.ndarray,
        q: QuirkRates,
    ) -> np.ndarray:
        """One specimen per timeline entry holding every item of ``items``; its specimen ids."""
        n = len(tl)
        spec = self.next_specimen + np.arange(n, dtype=np.int64)
        self.next_specimen += n
        self.add_items(rng, tl, spec, null_hadm, items, q)
        return spec

    def specimens_with(self, itemid: int) -> tuple[Timeline, np.ndarray, np.ndarray]:
        """(timeline, specimen, null_hadm) of the specimens holding a row of ``itemid``."""
        hits = [i for i, items in enumerate(self.itemid) if len(items) and items[0] == itemid]
        if not hits:
            empty = np.zeros(0, dtype=np.int64)
            return Timeline(empty, np.zeros(0), empty), empty, np.zeros(0, dtype=bool)
        owner = np.concatenate([self.owner[i] for i in hits])
        time = np.concatenate([self.time[i] for i in hits])
        spec = np.concatenate([self.specimen[i] for i in hits])
        null_hadm = np.concatenate([self.null_hadm[i] for i in hits])
        return Timeline(owner, np.zeros(len(owner)), time), spec, null_hadm

    def value_of(self, itemid: int, spec: np.ndarray) -> np.ndarray:
        """The numeric value of ``itemid`` in each specimen of ``spec`` (NaN where absent)."""
        hits = [i for i, items in enumerate(self.itemid) if len(items) and items[0] == itemid]
        out = np.full(len(spec), np.nan)
        if not hits:
            return out
        have = np.concatenate([self.specimen[i] for i in hits])
        num = np.concatenate([self.valuenum[i] for i in hits])
        order = np.argsort(have, kind="stable")
        at = np.clip(np.searchsorted(have[order], spec), 0, len(have) - 1)
        found = have[order][at] == spec
        out[found] = num[order][at][found]
        return out

    def add_items(
        self,
        rng: np.random.Generator,
        tl: Timeline,
        spec: np.ndarray,
        null_hadm: np.ndarray,
        items: dict[int, np.ndarray],
        q: QuirkRates,
    ) -> None:
        """More items in existing specimens (NaN values are left out)."""
        for itemid, values in items.items():
            present = ~np.isnan(values)
            self._rows(
                rng,
                tl.stay[present],
                tl.time[present],
                spec[present],
                null_hadm[present],
                itemid,
                values[present],
                q,
            )

    def text_item(
        self, tl: Timeline, spec: np.ndarray, null_hadm: np.ndarray, itemid: int, text: np.ndarray
    ) -> None:
        self._append(
            tl.stay,
            tl.time,
            spec,
            null_hadm,
            itemid,
            pa.array(text, pa.string()),
            np.full(len(tl), np.nan),
        )

    def _rows(
        self,
        rng: np.random.Generator,
        owner: np.ndarray,
        time: np.ndarray,
        spec: np.ndarray,
        null_hadm: np.ndarray,
        itemid: int,
        values: np.ndarray,
        q: QuirkRates,
    ) -> None:
        if len(values) == 0:
            return
        decimals = 2 if np.nanmedian(values) < 10 else (1 if np.nanmedian(values) < 100 else 0)
        values = np.round(values, decimals)
        draw = rng.random(len(values))
        if itemid in OUT_OF_RANGE:
            values = np.where(draw < q.lab_out_of_range, OUT_OF_RANGE[itemid], values)
        text = as_text(values, decimals)
        is_text = draw > 1 - q.lab_text_value
        if is_text.any():
            typed = pa.array(pick(rng, LAB_TEXT_VALUES, int(is_text.sum())), pa.string())
            text = pc.replace_with_mask(text, pa.array(is_text), typed)
        num = np.where(is_text, np.nan, values)
        self._append(owner, time, spec, null_hadm, itemid, text, num)

    def _append(
        self,
        owner: np.ndarray,
        time: np.ndarray,
        spec: np.ndarray,
        null_hadm: np.ndarray,
        itemid: int,
        value: pa.Array,
        valuenum: np.ndarray,
    ) -> None:
        self.owner.append(owner)
        self.time.append(time)
        self.specimen.append(spec)
        self.null_hadm.append(null_hadm)
        self.itemid.append(np.full(len(owner), itemid, dtype=np.int64))
        self.value.append(value)
        self.valuenum.append(valuenum)

    def finish(
        self,
        rng: np.random.Generator,
        first_id: int,
        first_specimen: int,
        ids: dict[str, np.ndarray],
    ) -> dict[str, Any]:
        """labevents columns; ``ids`` maps owner index to subject_id and hadm_id.

        Row ids continue from ``first_id``; specimen serials (one per panel of this
        chunk) continue from ``first_specimen`` and are scrambled into 8-digit ids.
        """
        owner = np.concatenate(self.owner) if self.owner else np.zeros(0, np.int64)
        if len(owner) == 0:
            return {"labevent_id": np.zeros(0, np.int64)}
        time = np.concatenate(self.time)
        spec = np.concatenate(self.specimen)
        itemid = np.concatenate(self.itemid)
        order = np.lexsort((itemid, spec, time, owner))
        take = pa.array(order)
        n = len(order)
        spec = spec[order]
        delay = (rng.uniform(0.5, 6, n) * HOUR).astype(np.int64) // 60 * 60
        first_of_spec = np.r_[True, spec[1:] != spec[:-1]]
        delay = delay[np.maximum.accumulate(np.where(first_of_spec, np.arange(n), 0))]
        num = np.concatenate(self.valuenum)[order]
        items = np.unique(itemid)
        units = pa.array([lab_unit(int(i)) for i in items], pa.string())
        unit = units.take(pa.array(np.searchsorted(items, itemid[order])))
        hadm = ids["hadm_id"][owner[order]].astype(float)
        hadm[np.concatenate(self.null_hadm)[order]] = np.nan
        return {
            "labevent_id": np.arange(first_id, first_id + n),
            "subject_id": ids["subject_id"][owner[order]],
            "hadm_id": pa.array(hadm, from_pandas=True).cast(pa.int64()),
            "specimen_id": scrambled_ids(first_specimen + spec, 7_919_311),
            "itemid": itemid[order],
            "order_provider_id": None,
            "charttime": (time[order] * 1_000_000).astype("datetime64[us]"),
            "storetime": ((time[order] + delay) * 1_000_000).astype("datetime64[us]"),
            "value": pa.concat_arrays(self.value).take(take),
            "valuenum": pa.array(num, from_pandas=True),
            "valueuom": unit,
            "flag": None,
            "priority": PRIORITIES.take(pa.array(rng.integers(0, len(PRIORITIES), n))),
            "comments": None,
        }


def creatinine_course(
    base: np.ndarray, stage: np.ndarray, peak_h: np.ndarray, hours: np.ndarray
) -> np.ndarray:
    """Creatinine along the AKI course: baseline at intime, the stage's ratio at the peak."""
    ratio = np.select([stage == 3, stage == 2, stage == 1], [3.4, 2.4, 1.6], 1.0)
    rise = np.clip(hours / np.maximum(peak_h, 1.0), 0.0, 1.0)
    fall = np.clip((hours - peak_h) / 120.0, 0.0, 0.5)
    course: np.ndarray = base * (1 + (ratio - 1) * (rise - fall * (rise >= 1)))
    return course


def panel_values(
    rng: np.random.Generator,
    sev: np.ndarray,
    cr: np.ndarray,
    platelets: np.ndarray,
    infection: np.ndarray,
    hct_base: np.ndarray,
) -> tuple[dict[int, np.ndarray], dict[int, np.ndarray]]:
    """(chemistry, blood count) of draws with severity ``sev`` and creatinine ``cr``."""
    n = len(sev)
    na = rng.normal(139, 4, n)
    hco3 = np.clip(rng.normal(25 - 9 * sev, 2.5), 5, 45)
    cl = rng.normal(104, 4, n)
    hct = np.clip(rng.normal(hct_base - 7 * sev, 1.5), 15, 60)
    wbc = rng.lognormal(np.log(8.5), 0.35, n) * (1 + 1.3 * infection * sev)
    low = rng.random(n) < 0.04
    wbc[low] = rng.uniform(0.5, 3.9, int(low.sum()))
    chem = {
        50912: cr,
        51006: np.clip(cr * rng.uniform(10, 22, n), 3, 250),
        50983: na,
        50971: np.clip(rng.normal(4.1 + 0.25 * cr / 2, 0.5), 2.3, 8),
        50882: hco3,
        50902: cl,
        50868: np.round(na - cl - hco3),
        50931: np.clip(rng.lognormal(np.log(130), 0.3, n), 40, 900),
        50893: rng.normal(8.6, 0.6, n),
    }
    cbc = {
        51221: hct,
        51222: hct / 3.0,
        51248: rng.normal(30, 2, n),
        51249: rng.normal(33, 1.2, n),
        51250: rng.normal(90, 5, n),
        51265: np.clip(platelets * rng.normal(1, 0.1, n), 5, 900),
        51279: hct / 9.5,
        51277: rng.normal(14.5, 1.5, n),
        51301: wbc,
    }
    return chem, cbc
