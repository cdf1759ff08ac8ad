"""The unit table (te.md TE-37, issue 18): data/units.tsv is exactly what pint makes of units.txt,
te answers every curated name from it without importing pint, and falls back to pint, with the
same results, whenever the table cannot answer."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path

import pytest

from cotaudit.te import unittable
from cotaudit.te.unitvec import UnitVec

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def fresh_table() -> Iterator[None]:
    """Forget the table read so far, before and after a test that changes what is read."""
    unittable._table.cache_clear()
    unittable._parse_value.cache_clear()
    yield
    unittable._table.cache_clear()
    unittable._parse_value.cache_clear()


def _run(code: str, *argv: str) -> str:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    proc = subprocess.run(
        [sys.executable, "-c", code, *argv], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


# ---- the committed table is pint's, byte for byte --------------------------------------------


def test_the_committed_table_is_what_pint_makes_of_units_txt() -> None:
    # Fails after an edit of units.txt (or a pint that computes otherwise): run scripts/unit-table --write.
    assert unittable.TABLE_FILE.read_bytes() == unittable.render_table().encode("utf-8")


def test_the_table_has_a_row_for_every_name_pint_defines() -> None:
    rows = unittable._table()
    assert list(rows) == unittable.defined_names()
    assert set(rows) == set(unittable._registry()._units)
    for name, value in rows.items():
        vec = unittable._parse_value(value)
        assert vec == unittable._pint_vector(name), name
        assert type(vec.factor) is Fraction and all(type(e) is Fraction for _, e in vec.exps)


def test_the_package_ships_the_table() -> None:
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert '"te/data/*.tsv"' in pyproject


def test_no_curated_name_imports_pint() -> None:
    out = _run(
        "import sys\n"
        "from cotaudit.te import unittable\n"
        "from cotaudit.te.units import format_unit, parse_unit\n"
        "for name in unittable.alias_table():\n"
        "    format_unit(parse_unit(name))\n"
        "for text in ['m/s', 'km/h', 'mile per hour', 'kg*m/s^2', 'gallons/week', 'USD/h', 'N*m', 'ft^2']:\n"
        "    format_unit(parse_unit(text))\n"
        "print(len(unittable._table()), 'pint' in sys.modules)\n"
    )
    assert out.split() == [str(len(unittable.defined_names())), "False"]


# ---- reading the table -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("1609.344\t[length]", UnitVec(Fraction("1609.344"), (("length", Fraction(1)),))),
        (
            "5/18\t[length]/[time]",
            UnitVec(Fraction(5, 18), (("length", Fraction(1)), ("time", Fraction(-1)))),
        ),
        ("1\t1/[time]", UnitVec(Fraction(1), (("time", Fraction(-1)),))),
        ("1\t[mass]/[length]/[time]**2", UnitVec(Fraction(1), (("mass", 1), ("length", -1), ("time", -2)))),
        ("2\t[x]**(1/2)", UnitVec(Fraction(2), (("x", Fraction(1, 2)),))),
        ("1\tdimensionless", UnitVec(Fraction(1))),
    ],
)
def test_a_value_reads_back_exactly(value: str, expected: UnitVec) -> None:
    assert unittable._parse_value(value) == expected


@pytest.mark.parametrize(
    "value",
    [
        "1609.344",  # no dimensions
        "1609.3440\t[length]",  # not the canonical spelling
        "0.5e1\t[length]",
        "6/2\t[length]",
        "0\t[length]",
        "1/0\t[length]",
        "-1\t[length]",
        "x\t[length]",
        "1\t[length",
        "1\t[length]**",
        "1\t*[length]",
        "1\t[time]*[length]",  # not sorted: never written so
        "1\t[length]\textra",
        "1\t",
    ],
)
def test_a_value_not_written_by_the_generator_is_refused(value: str) -> None:
    assert unittable._parse_value(value) is None


# ---- pint answers whatever the table cannot ---------------------------------------------------


def test_a_table_made_from_another_units_txt_is_not_used(
    fresh_table: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(unittable, "_units_digest", lambda: "0" * 64)
    assert unittable._table() == {}
    assert unittable.vector("mile") == unittable._pint_vector("mile")


def test_a_missing_table_is_not_used(
    fresh_table: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(unittable, "TABLE_FILE", tmp_path / "units.tsv")
    assert unittable._table() == {}
    assert unittable.vector("kph") == UnitVec(Fraction(5, 18), (("length", 1), ("time", -1)))


def test_a_row_the_table_cannot_read_is_asked_of_pint(
    fresh_table: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    table = tmp_path / "units.tsv"
    text = unittable.TABLE_FILE.read_text(encoding="utf-8")
    table.write_text(text.replace("mile\t1609.344\t", "mile\t1609.3440\t"), encoding="utf-8")
    monkeypatch.setattr(unittable, "TABLE_FILE", table)
    assert unittable._table()["mile"] == "1609.3440\t[length]"  # the table is used ...
    assert unittable.vector("mile") == unittable._pint_vector("mile")  # ... but not this row
    assert unittable.vector("mi") == unittable._pint_vector("mile")


FALLBACK = """
import json, sys
from cotaudit import te
from cotaudit.report.jsonout import report_dict
from cotaudit.te import unittable
if sys.argv[1] == "pint":
    unittable._table = lambda: {}
out = {}
for name in ["D_wrong_unit", "N_composite_units"]:
    text = open(f"examples/te/{name}.te", encoding="utf-8").read()
    for variant in [text, text.replace("[miles]", "[m]"), text.replace("[m/s]", "[km/h]")]:
        out.setdefault(name, []).append(report_dict(te.check(variant), timing=False))
out["units"] = [repr(unittable.vector(n)) for n in unittable.defined_names()]
print(json.dumps({"out": out, "pint": "pint" in sys.modules}, sort_keys=True))
"""


def test_the_pint_fallback_gives_the_same_reports() -> None:
    table = json.loads(_run(FALLBACK, "table"))
    pint = json.loads(_run(FALLBACK, "pint"))
    assert (table["pint"], pint["pint"]) == (False, True)
    assert table["out"] == pint["out"]
    assert "TE_E005" in json.dumps(table["out"]["D_wrong_unit"][0])
    assert "TE_E009" in json.dumps(table["out"]["N_composite_units"][0])


def test_the_pint_fallback_is_thread_safe() -> None:
    _run(
        "from concurrent.futures import ThreadPoolExecutor\n"
        "from cotaudit.te import unittable, units\n"
        "unittable._table = lambda: {}\n"
        "names = ['mile', 'm', 'USD', 'kph', 'J', 'percent', 'L', 'cent'] * 8\n"
        "with ThreadPoolExecutor(16) as pool:\n"
        "    got = list(pool.map(units.parse_unit, names))\n"
        "assert got == [units.parse_unit(n) for n in names]\n"
        "assert len(unittable._registry_holder) == 1\n"
    )


# ---- the generator ---------------------------------------------------------------------------


def test_the_generator_compares_and_writes(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    table = tmp_path / "units.tsv"
    monkeypatch.setattr(unittable, "TABLE_FILE", table)
    assert unittable.main([]) == 1  # missing
    assert "out of date" in capsys.readouterr().out
    table.write_text("stale\n", encoding="utf-8")
    assert unittable.main([]) == 1
    assert table.read_text(encoding="utf-8") == "stale\n"  # only compared
    assert unittable.main(["--write"]) == 0
    assert table.read_bytes() == unittable.render_table().encode("utf-8")
    assert unittable.main([]) == 0
    assert "up to date" in capsys.readouterr().out


def test_the_script_runs_the_generator() -> None:
    proc = subprocess.run(
        [str(ROOT / "scripts" / "unit-table")], capture_output=True, text=True, timeout=120, check=False
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "up to date" in proc.stdout
