"""Freeze the stable codes table: codes are never renumbered, renamed or reused.

Adding a code means adding it to tests/frozen_codes/<engine>.txt too (that is the review
step). Changing or removing an existing frozen line is a breaking change and must not happen.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from cotaudit import codes

FROZEN_DIR = Path(__file__).resolve().parent / "frozen_codes"


def _frozen() -> dict[str, tuple[str, str]]:
    """Every engine's frozen codes (tests/frozen_codes/<engine>.txt: ``CODE name severity``)."""
    table: dict[str, tuple[str, str]] = {}
    for path in sorted(FROZEN_DIR.glob("*.txt")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip() and not line.startswith("#"):
                code, name, severity = line.split()
                assert code not in table, f"{code} frozen twice"
                table[code] = (name, severity)
    return table


FROZEN = _frozen()

DOCS = Path(__file__).resolve().parent.parent / "docs" / "codes.md"


def _all_entries() -> list[codes.Code]:
    """Every Code of every engine module (CODES, a dict, would hide duplicates)."""
    return list(codes.ALL)


def test_table_is_frozen() -> None:
    assert {c: (e.name, e.severity) for c, e in codes.CODES.items()} == FROZEN


def test_codes_unique() -> None:
    entries = _all_entries()
    assert len(entries) == len(codes.CODES)
    assert len({e.code for e in entries}) == len(entries)
    assert all(key == entry.code for key, entry in codes.CODES.items())


def test_names_unique_per_engine() -> None:
    seen: set[tuple[str, str]] = set()
    for entry in codes.CODES.values():
        assert (entry.engine, entry.name) not in seen, entry
        seen.add((entry.engine, entry.name))


@pytest.mark.parametrize("entry", list(codes.CODES.values()), ids=lambda e: e.code)
def test_entry_shape(entry: codes.Code) -> None:
    match = re.fullmatch(r"[A-Z][A-Z0-9]*_([EWIX])\d{3}", entry.code)
    assert match, entry.code
    expected = {"E": "error", "W": "warning", "I": "info", "X": "error"}[match.group(1)]
    assert entry.severity == expected
    assert re.fullmatch(r"[a-z][a-z0-9-]*", entry.name)
    assert entry.summary.endswith(".") and entry.layer


def test_lookup() -> None:
    assert codes.lookup("TE_E006").name == "numeric-mismatch"
    with pytest.raises(KeyError):
        codes.lookup("TE_E999")


def test_docs_are_generated() -> None:
    assert DOCS.read_text(encoding="utf-8") == codes.render_markdown(), (
        "docs/codes.md is stale: run `python -m cotaudit.codes > docs/codes.md`"
    )
