"""Calculators (certify.md §13.3, C-102 … C-105; X-16) and the MedCalc-Bench reference rows."""

from __future__ import annotations

import csv
import os
from decimal import Decimal
from pathlib import Path

import pytest

from cotaudit.certify.adapters import medcalc as m
from cotaudit.certify.adapters import medcalc_serving as ms
from cotaudit.certify.lang import calculators
from cotaudit.certify.lang.syntax import num
from cotaudit.certify.proof.recheck import recheck
from cotaudit.certify.state.query import AbstainReason, AnswerKind, ServeStatus

DATA = (
    Path(os.environ.get("COTAUDIT_DATA", Path(__file__).resolve().parents[4] / "shared" / "data")) / "medcalc"
)


def run(fn: str, *args: object) -> str:
    return calculators.run(fn, "1", [num(str(a)) for a in args]).output.value


def test_c104_function_vectors() -> None:
    assert run("bmi", 70, 175) == "22.85714"
    assert run("map", 120, 80) == "93.33333"
    assert run("crcl", 87, 0, 48, 163, "1.4") == "25.2381"  # underweight
    out = calculators.run("crcl", "1", [num("83"), num("0"), num("67.2"), num("173"), num("1.4")])
    assert out.output.value == "38" and out.intermediates["weight_class"] == "normal"
    assert out.intermediates["ibw"] == "68.65354"
    out = calculators.run("crcl", "1", [num("60"), num("0"), num("80"), num("175"), num("1.2")])
    assert out.output.value == "68.77661" and out.intermediates["adjusted_weight"] == "74.27874"
    assert run("chads_vasc", 78, 1, 0, 1, 0, 0, 0, 0, 1) == "5"
    assert run("ca_corr", "8.0", "2.5") == "9.2"
    assert run("ca_corr", "8.4168", "2.5") == "9.6168"  # 2.1 mmol/L unrounded: the spec's 9.61680
    with pytest.raises(calculators.CalcDomainError):
        run("chads_vasc", 78, 2, 0, 1, 0, 0, 0, 0, 1)  # near miss: sex must be 0/1


def test_normalisation_c102() -> None:
    assert m.normalise_value("weight", [154, "lb"]) == Decimal("69.9")
    assert m.normalise_value("height", [1.75, "m"]) == Decimal("175.0")
    assert m.normalise_value("height", [[5, 9], "ft in"]) == Decimal("175.3")
    assert m.normalise_value("creatinine", [123.8, "µmol/L"]) == Decimal("1.40")
    assert m.normalise_value("calcium", [2.1, "mmol/L"]) == Decimal("8.42")  # places 2 (see docs)
    assert m.normalise_value("albumin", [25, "g/L"]) == Decimal("2.50")
    assert m.normalise_value("sys_bp", [120, "mmHg"]) == Decimal("120")
    assert m.normalise({"Stroke": True, "sex": "Female", "age": [70, "years"]}, 4)["chf"] == 0
    for attr, value in [
        ("weight", [70, "stone"]),
        ("weight", [9000, "kg"]),
        ("weight", "70"),
        ("chf", "yes"),
        ("female", "x"),
        ("weight", [True, "kg"]),
        ("nope", 1),
    ]:
        with pytest.raises(m.EntityError):
            m.normalise_value(attr, value)


def test_x16_bmi_agreement_and_abstentions() -> None:
    state = ms.calc_state()
    r = ms.serve_maps(
        state,
        "bmi1",
        6,
        [{"weight": [70, "kg"], "height": [175, "cm"]}, {"weight": [70, "kg"], "height": [1.75, "m"]}],
    )
    assert (r.status, r.answer, r.answer_kind) == (ServeStatus.CERTIFIED, "22.85714", AnswerKind.COMPUTED)
    cert = r.certificate
    assert cert["depth"] == 1 and sum(1 for n in cert["nodes"] if "edge" not in n) == 2
    edge = next(n["edge"] for n in cert["nodes"] if "edge" in n)
    assert (edge["kind"], edge["fn"], edge["version"], edge["inputs"]) == ("calc", "bmi", "1", ["70", "175"])
    assert recheck(cert, state.kernel_view(), overlay=r.overlay).ok
    r = ms.serve_maps(
        state,
        "bmi2",
        6,
        [{"weight": [70, "kg"], "height": [175, "cm"]}, {"weight": [154, "lb"], "height": [175, "cm"]}],
    )
    assert r.abstain_reason is AbstainReason.NO_AGREEMENT  # 69.9 ≠ 70
    r = ms.serve_maps(state, "bmi3", 6, [{"weight": [70, "kg"]}, {"weight": [70, "kg"]}])
    assert r.abstain_reason is AbstainReason.MISSING_ATTRIBUTE
    r = ms.serve_maps(
        state,
        "crcl1",
        2,
        [
            {
                "sex": "Male",
                "age": [87, "years"],
                "weight": [48.0, "kg"],
                "height": [163.0, "cm"],
                "creatinine": [1.4, "mg/dL"],
            }
        ]
        * 2,
    )
    assert r.answer == "25.2381" and m.score(r.answer, "25.238", "23.976", "26.5", False)
    r = ms.serve_maps(state, "bad", 6, [{"weight": [70, "stone"], "height": [175, "cm"]}] * 2)
    assert r.abstain_reason is AbstainReason.ALL_VOTES_INVALID


@pytest.mark.skipif(
    not (DATA / "one_shot_data_verified.csv").is_file(), reason=f"MedCalc-Bench not found at {DATA}"
)
def test_verified_one_shot_rows_reproduce_gold_from_gold_entities() -> None:
    rows = [
        r
        for r in csv.DictReader((DATA / "one_shot_data_verified.csv").open(encoding="utf-8"))
        if r["Calculator ID"] in ("2", "4", "5", "6", "7")
    ]
    assert len(rows) == 5
    state = ms.calc_state()
    for r in rows:
        cid = int(r["Calculator ID"])
        ents = m.parse_entities(r["Relevant Entities"])
        res = ms.serve_maps(state, f"oneshot-{cid}", cid, [ents, ents])
        assert res.status is ServeStatus.CERTIFIED, (cid, res.detail)
        assert m.score(
            res.answer, r["Ground Truth Answer"], r["Lower Limit"], r["Upper Limit"], m.CALCS[cid].integer
        )
        assert recheck(res.certificate, state.kernel_view(), overlay=res.overlay).ok


def test_entity_literal_parser_is_strict() -> None:
    assert m.parse_entities("{'a': [1, 'kg'], 'b': True}") == {"a": [1, "kg"], "b": True}
    for bad in ("__import__('os')", "[1]", "{1: 2}", "{'a': f(1)}", "x" * 30_000):
        with pytest.raises(m.EntityError):
            m.parse_entities(bad)
