"""Streaming JSONL input: the same items as ``cotaudit check items.jsonl``, ids made unique."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cotaudit import api, dataio
from cotaudit.batch.items import count_items, iter_items
from cotaudit.errors import InputError, UnknownEngine

LINES = [
    {"id": "a", "engine": "fake", "text": "fine"},
    {"engine": "fake", "text": "no id"},
    {"id": 7, "engine": "fake", "text": "int id"},
    {"id": "b", "text": "no engine"},
    {"id": "c", "engine": "nope", "text": "unknown engine"},
    {"id": "d", "engine": "planned", "text": "unavailable engine"},
    {"id": True, "engine": "fake", "text": "bool id"},
    {"id": "e", "engine": 3, "text": "engine not a string"},
    {"id": "f", "engine": "fake", "text": 5},
]


@pytest.fixture(autouse=True)
def planned_engine(fake_engine: str) -> str:
    """A known engine with no implementation (whatever real engines this checkout has); the
    registry is restored after each test by the ``fake_engine`` fixture."""
    api.register_engine("planned", None, (".planned",))
    return "planned"


def _write(path: Path, extra: str = "") -> Path:
    body = "\n".join(json.dumps(obj) for obj in LINES) + "\n\n  \n[1, 2]\nnot json\n" + extra
    path.write_text(body, encoding="utf-8")
    return path


@pytest.mark.parametrize("engine", [None, "fake"])
def test_items_match_check_jsonl(tmp_path: Path, engine: str | None) -> None:
    path = _write(tmp_path / "items.jsonl")
    expected = api.parse_jsonl_items(path.read_text(encoding="utf-8"), path=path.as_posix(), engine=engine)
    assert list(iter_items(path, engine)) == expected
    unavailable = next(i for i in expected if i.item_id == "d")
    assert unavailable.error is not None and "planned" in unavailable.error


def test_count_items_counts_non_blank_lines(tmp_path: Path) -> None:
    path = _write(tmp_path / "items.jsonl", extra='{"id": "last", "engine": "fake", "text": "x"}')
    assert count_items(path) == len(LINES) + 3


def test_chunk_boundaries_do_not_split_items(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _write(tmp_path / "items.jsonl", extra='{"id": "last", "engine": "fake", "text": "ü"}')
    whole = list(iter_items(path))
    monkeypatch.setattr(dataio, "CHUNK", 7)  # the reader batch uses (cotaudit.dataio)
    assert list(iter_items(path)) == whole
    assert count_items(path) == len(whole)
    assert whole[-1].item_id == "last" and whole[-1].text == "ü"


def test_repeated_ids_become_invalid_items_with_their_own_id(tmp_path: Path) -> None:
    path = tmp_path / "dups.jsonl"
    rows = [{"id": "x", "engine": "fake", "text": str(n)} for n in range(3)]
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    got = list(iter_items(path))
    assert [i.item_id for i in got] == ["x", "x@line-2", "x@line-3"]
    assert got[0].error is None
    assert got[1].error == "line 2: duplicate id 'x' (first used on line 1)"


def test_bad_utf8_line_is_an_invalid_item(tmp_path: Path) -> None:
    path = tmp_path / "bytes.jsonl"
    path.write_bytes(b'{"id": "ok", "engine": "fake", "text": "x"}\n{"id": "caf\xe9"}\n')
    first, second = iter_items(path)
    assert first.error is None
    assert second.item_id == "line-2" and second.error is not None and "not UTF-8" in second.error


def test_missing_file_and_unknown_engine(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such file"):
        list(iter_items(tmp_path / "missing.jsonl"))
    with pytest.raises(InputError, match="is a directory"):
        count_items(tmp_path)
    path = _write(tmp_path / "items.jsonl")
    with pytest.raises(UnknownEngine):
        list(iter_items(path, "nope"))
