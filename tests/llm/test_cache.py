"""Cache keys hash exactly what changes the answer; entries are atomic, readable JSON files."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from cotaudit.llm.cache import CacheStore, cache_key, key_material
from cotaudit.llm.types import Completion, Message, Request, Usage

BASE = Request((Message("system", "be brief"), Message("user", "2+2?")), prompt="demo@v1")


def key(request: Request = BASE, model: str = "m", json_mode: str = "json_object") -> str:
    return cache_key(request, model, json_mode)  # type: ignore[arg-type]


def test_key_is_stable_and_hex() -> None:
    assert key() == key()
    assert len(key()) == 64 and int(key(), 16) >= 0


@pytest.mark.parametrize(
    "changed",
    [
        replace(BASE, messages=(Message("system", "be brief"), Message("user", "2+3?"))),
        replace(BASE, messages=(Message("user", "2+2?"),)),
        replace(BASE, prompt="demo@v2"),
        replace(BASE, temperature=0.7),
        replace(BASE, max_tokens=64),
        replace(BASE, sample=1),
        replace(BASE, schema={"type": "object"}),
    ],
)
def test_every_output_relevant_field_changes_the_key(changed: Request) -> None:
    assert key(changed) != key()


def test_model_and_json_mode_change_the_key_only_when_they_matter() -> None:
    assert key(model="other") != key()
    # Without a schema no JSON constraint is sent, so the JSON mode cannot change the answer.
    assert key(json_mode="none") == key()
    with_schema = replace(BASE, schema={"type": "object"})
    assert key(with_schema, json_mode="none") != key(with_schema)
    assert key(replace(with_schema, schema_name="other")) != key(with_schema)


def test_tag_is_not_part_of_the_key() -> None:
    assert key(replace(BASE, tag="item 7")) == key()


def test_store_round_trip_is_atomic_and_readable(tmp_path: Path) -> None:
    store = CacheStore(tmp_path / "c")
    k = key()
    assert store.get(k) is None
    completion = Completion("4", Usage(10, 1), "stop")
    store.put(k, key_material(BASE, "m", "json_object"), completion, 0.25)
    assert store.get(k) == completion
    files = list((tmp_path / "c").iterdir())
    assert [f.name for f in files] == [f"{k}.json"]  # no temporary file left behind
    entry = json.loads(files[0].read_text())
    assert entry["key"] == k and entry["request"]["model"] == "m" and entry["response"]["text"] == "4"
    assert store.keys() == [k]


def test_a_corrupt_entry_is_a_miss(tmp_path: Path) -> None:
    store = CacheStore(tmp_path)
    (tmp_path / f"{key()}.json").write_text("{not json")
    assert store.get(key()) is None


def test_keys_cannot_name_paths_outside_the_cache(tmp_path: Path) -> None:
    with pytest.raises(ValueError):
        CacheStore(tmp_path).path("../../etc/passwd")
