"""TE's curated unit vocabulary (te.md TE-37) and each name's exact unit vector, without pint.

``data/units.txt`` is the only vocabulary, in pint's definition syntax: pint, given the file in
an empty registry (no prefixes), supplies every physical factor and dimensionality, exactly. What
pint makes of it is precomputed in ``data/units.tsv`` (name, factor to base units, dimensions),
which this module reads with the stdlib only, so a check never imports pint (pint's import
alone costs more than a whole lint).

* The table is generated from pint and units.txt by ``scripts/unit-table --write`` (:func:`main`;
  without ``--write`` it only compares). tests/te/test_unittable.py regenerates it the same way
  and requires the committed file byte for byte, so it cannot drift from either.
* The table's header holds units.txt's SHA-256. If units.txt was edited and the table not
  regenerated, or the table is missing or unreadable, the table is not used and every name is
  asked of pint instead, as before the table existed; so is a name the table lacks. That
  fallback is slower, never different. Nothing else needs pint: count nouns and TE's own
  aliases (``1``, ``$``, ``%``) never reach this module's vectors.
* Only names units.txt defines are ever looked up in pint, as containers (never pint's string
  parser, TE-18).
"""

from __future__ import annotations

import functools
import hashlib
import re
import threading
from collections.abc import Mapping, Sequence
from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from cotaudit.te.unitvec import UnitVec, exact_text

if TYPE_CHECKING:
    from pint import UnitRegistry

__all__ = ["IDENTITY", "TABLE_FILE", "UNITS_FILE", "alias_table", "defined_names", "render_table", "vector"]

_DATA: Final = Path(__file__).with_name("data")
UNITS_FILE: Final = _DATA / "units.txt"
TABLE_FILE: Final = _DATA / "units.tsv"
IDENTITY: Final = "1"  # TE's dimensionless identity; never needs pint
_ALIAS_DIRECTIVE: Final = "#@alias"
_DIGEST_LINE: Final = "# units.txt sha256: "
_HEADER: Final = (
    "# Exact unit vectors of units.txt as pint computes them (te.md TE-37), one name per line:\n"
    "# NAME<TAB>factor to base units (exact: a decimal or a ratio)<TAB>dimensions.\n"
    "# Generated with pint by `scripts/unit-table --write`; do not edit by hand.\n"
    "# tests/te/test_unittable.py regenerates it and requires this file byte for byte.\n"
)


# ---- the curated file and its alias table ---------------------------------------------------


@functools.cache
def _units_bytes() -> bytes:
    return UNITS_FILE.read_bytes()


@functools.cache
def definition_lines() -> tuple[str, ...]:
    return tuple(_units_bytes().decode("utf-8").splitlines())


@functools.cache
def alias_table() -> Mapping[str, str]:
    """Every name units.txt defines -> the name it stands for: itself, or (``#@alias``) another
    name or ``1``.

    Mirrors pint's definition syntax ``name = definition [= symbol] [= alias ...]``; a test checks
    that pint, given the same file, defines exactly the names that stand for themselves.
    """
    table = {IDENTITY: IDENTITY}
    directives: dict[str, str] = {}
    for raw in definition_lines():
        line = raw.strip()
        if line.startswith(_ALIAS_DIRECTIVE):
            name, _, target = line[len(_ALIAS_DIRECTIVE) :].partition("=")
            directives[name.strip()] = target.strip()
            continue
        line = line.partition("#")[0].strip()
        if not line:
            continue
        parts = [p.strip() for p in line.split("=")]
        for name in [parts[0], *parts[2:]]:
            if name != "_":
                table[name] = name
    for name, target in directives.items():
        if table.get(target) != target:
            raise RuntimeError(f"units.txt: alias {name!r} targets undefined unit {target!r}")
        table[name] = target
    return table


def defined_names() -> list[str]:
    """The names pint defines from units.txt (each stands for itself), in file order."""
    return [name for name, target in alias_table().items() if target == name and name != IDENTITY]


def _units_digest() -> str:
    return hashlib.sha256(_units_bytes()).hexdigest()


# ---- the table: text form and lookup ---------------------------------------------------------

# One term of UnitVec.dimensionality(): ``[length]``, ``*[mass]``, ``/[time]**2``, ``[x]**(1/2)``.
_DIM_TERM: Final = re.compile(r"([*/]?)\[([A-Za-z_]+)\](?:\*\*(-?[0-9]+|\(-?[0-9]+/[0-9]+\)))?")


def _value(vec: UnitVec) -> str:
    return f"{exact_text(vec.factor)}\t{vec.dimensionality()}"


@functools.lru_cache(maxsize=256)
def _parse_value(value: str) -> UnitVec | None:
    """``FACTOR<TAB>DIMENSIONS`` of a row, or None unless it is exactly what :func:`_value` writes."""
    factor_text, tab, dims = value.partition("\t")
    exps: list[tuple[str, Fraction]] = []
    terms = dims.removeprefix("1") if dims.startswith("1/") else dims
    pos = 0
    while tab and dims != "dimensionless" and pos < len(terms):
        match = _DIM_TERM.match(terms, pos)
        if match is None or match.end() == pos:
            return None
        exp = Fraction(match[3].strip("()")) if match[3] else Fraction(1)
        exps.append((match[2], -exp if match[1] == "/" else exp))
        pos = match.end()
    try:
        vec = UnitVec(Fraction(factor_text), tuple(exps))
    except (ValueError, ZeroDivisionError):
        return None
    return vec if _value(vec) == value else None


@functools.cache
def _table() -> Mapping[str, str]:
    """Name -> ``FACTOR<TAB>DIMENSIONS`` from the committed table; empty if the table is missing,
    unreadable or made from another units.txt. Values are parsed on first use."""
    try:
        text = TABLE_FILE.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return {}
    digest = None
    rows: dict[str, str] = {}
    for line in text.splitlines():
        if line.startswith(_DIGEST_LINE):
            digest = line.removeprefix(_DIGEST_LINE)
        elif line and not line.startswith("#"):
            name, _, value = line.partition("\t")
            rows[name] = value
    return rows if digest == _units_digest() else {}


def vector(name: str) -> UnitVec:
    """Factor and dimensions of ``name``, a unit units.txt defines (``alias_table()[name] == name``):
    from the table, or from pint when the table cannot answer (see the module docstring)."""
    value = _table().get(name)
    vec = _parse_value(value) if value is not None else None
    return vec if vec is not None else _pint_vector(name)


# ---- pint: the generator and the fallback (lazy, once per process) ---------------------------

_LOCK: Final = threading.Lock()
_registry_holder: list[UnitRegistry[Any]] = []


def _import_pint() -> Any:
    """pint, imported without numpy unless numpy is loaded already.

    Most of pint's import time is its optional numpy support, which te never uses (factors are
    Fractions). ``None`` in ``sys.modules`` makes pint's ``import numpy`` fail as if numpy were not
    installed; the entry is removed again straight after, so anyone else can still import numpy.
    """
    import sys

    if "numpy" in sys.modules:
        import pint

        return pint
    sys.modules["numpy"] = None  # type: ignore[assignment]
    try:
        import pint
    finally:
        if sys.modules.get("numpy", 0) is None:
            del sys.modules["numpy"]
    return pint


def _registry() -> UnitRegistry[Any]:
    if not _registry_holder:
        with _LOCK:
            if not _registry_holder:
                pint = _import_pint()
                registry: UnitRegistry[Any] = pint.UnitRegistry(None, non_int_type=Fraction)
                registry.load_definitions(list(definition_lines()))
                _registry_holder.append(registry)
    return _registry_holder[0]


def _exact(value: object) -> Fraction:
    if isinstance(value, int | Fraction):
        return Fraction(value)
    if isinstance(value, float):  # not expected with non_int_type=Fraction; keep the decimal
        return Fraction(repr(value))
    raise TypeError(f"unexpected pint factor {value!r}")


@functools.cache
def _pint_vector(name: str) -> UnitVec:
    """Factor and dimensions of a name that is verified to be defined in units.txt, from pint."""
    registry = _registry()
    from pint.util import UnitsContainer

    ref = UnitsContainer({name: 1})  # a container, not text: nothing here is parsed
    with _LOCK:  # pint fills internal caches on lookup
        factor, _root = registry.get_root_units(ref)
        dims = registry.get_dimensionality(ref)
    exps = tuple((str(d).strip("[]"), _exact(e)) for d, e in dims.items())
    return UnitVec(_exact(factor), exps)


def render_table() -> str:
    """The table's text, computed by pint from units.txt now (what ``data/units.tsv`` must hold)."""
    rows = [f"{name}\t{_value(_pint_vector(name))}\n" for name in defined_names()]
    return _HEADER + f"{_DIGEST_LINE}{_units_digest()}\n" + "".join(rows)


def main(argv: Sequence[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(
        prog="scripts/unit-table",
        description="Regenerate te's unit table (data/units.tsv) from data/units.txt with pint.",
    )
    parser.add_argument("--write", action="store_true", help="rewrite the table (default: only compare)")
    args = parser.parse_args(argv)
    text = render_table()
    current = TABLE_FILE.read_text(encoding="utf-8") if TABLE_FILE.exists() else None
    if current == text:
        print(f"{TABLE_FILE}: up to date")
        return 0
    if args.write:
        TABLE_FILE.write_text(text, encoding="utf-8", newline="\n")
        print(f"{TABLE_FILE}: written")
        return 0
    print(f"{TABLE_FILE}: out of date; run scripts/unit-table --write")
    return 1
