"""'cotaudit codes' and 'cotaudit explain' (issue 18): every code in the table explains, and every
example that is an engine input produces its code while its near miss does not."""

from __future__ import annotations

import json

import pytest

from cotaudit import api, cli, codes
from cotaudit.codes.explain import explanations

EXPLAINED = explanations()


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_every_code_has_one_explanation() -> None:
    assert set(EXPLAINED) == set(codes.CODES)


@pytest.mark.parametrize("code", sorted(codes.CODES))
def test_every_code_explains(capsys: pytest.CaptureFixture[str], code: str) -> None:
    entry = EXPLAINED[code]
    assert all(part.strip() for part in (entry.meaning, entry.example, entry.near_miss, entry.fix))
    status, out, err = _run(capsys, "explain", code)
    assert status == 0 and err == ""
    assert out.startswith(f"{code} ({codes.CODES[code].name})")
    for heading in ("Example (produces the code):", "Near miss (does not):", "How to fix it:"):
        assert heading in out


RUNNABLE = sorted(code for code, e in EXPLAINED.items() if e.is_input)


@pytest.mark.parametrize("code", RUNNABLE)
def test_the_example_fires_and_the_near_miss_does_not(code: str) -> None:
    entry = EXPLAINED[code]
    engine = codes.CODES[code].engine
    fired = {f.code for f in api.check(entry.example, engine).findings}
    missed = {f.code for f in api.check(entry.near_miss, engine).findings}
    assert code in fired
    assert code not in missed


def test_runnable_examples_cover_te_and_most_of_type6() -> None:
    assert {c for c in codes.CODES if c.startswith("TE_") and c != "TE_X001"} <= set(RUNNABLE)
    assert sum(c.startswith("T6_") for c in RUNNABLE) >= 30


def test_explain_te_e006_prints_its_example(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = _run(capsys, "explain", "te_e006")  # any case
    assert status == 0
    assert "    EQ[e1]: sold = total - eaten - baked = 8\n" in out  # the example, indented
    assert "    EQ[e1]: sold = total - eaten - baked = 9\n" in out  # its near miss


def test_explain_an_unknown_code(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = _run(capsys, "explain", "TE_E060")
    assert status == 2 and out == ""
    assert err.startswith("cotaudit: unknown code 'TE_E060' (see 'cotaudit codes'); did you mean")


def test_codes_table(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = _run(capsys, "codes", "--engine", "te")
    lines = out.splitlines()
    assert status == 0 and lines[0].split() == ["code", "severity", "summary"]
    assert len(lines) == 1 + sum(c.engine == "te" for c in codes.ALL)
    assert lines[6].startswith("TE_E006  error     An equation's parts disagree")
    status, out, _ = _run(capsys, "codes")
    assert len(out.splitlines()) == 1 + len(codes.ALL)
    rows = json.loads(_run(capsys, "codes", "--format", "json", "--engine", "vericot")[1])
    assert [r["code"] for r in rows][:2] == ["VC_E001", "VC_E002"]
    status, _, err = _run(capsys, "codes", "--engine", "tee")
    assert status == 2 and "did you mean 'te'?" in err
