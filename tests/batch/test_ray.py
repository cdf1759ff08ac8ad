"""The Ray backend: the same reports as the local pool, time limits, dead workers (slow: starts Ray)."""

from __future__ import annotations

import importlib.util
import json
import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from cotaudit import api
from cotaudit.batch.pool import LocalPool
from cotaudit.batch.ray_backend import LOOPBACK_ONLY_ENV, RayPool
from cotaudit.batch.runner import Backend, BatchOptions, run_batch
from cotaudit.report import Report, read_run_log

pytestmark = [pytest.mark.slow, pytest.mark.ray]
# what RayPool sets when it is first to import ray: the local instance stays on 127.0.0.1
os.environ.setdefault(LOOPBACK_ONLY_ENV, "0")
ray = pytest.importorskip("ray", reason="the 'ray' extra is not installed")

ROOT = Path(__file__).resolve().parents[2]
TESTS = ROOT / "tests"


@pytest.fixture
def slow_engine_by_name(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The slow engine under an importable name, so Ray's fresh worker processes can load it."""
    monkeypatch.setenv("PYTHONPATH", f"{TESTS}:{ROOT / 'src'}")
    monkeypatch.syspath_prepend(str(TESTS))
    api.register_engine("slow", "batch.slow_engine:slow_check", (".slow",))
    yield


def _write(path: Path, rows: list[dict[str, str]]) -> list[str]:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return [r["id"] for r in rows]


def _run(tmp_path: Path, name: str, backend: Backend, tag: str) -> list[Report]:
    out = tmp_path / f"{name}.{tag}.jsonl"
    options = BatchOptions(input=str(tmp_path / f"{name}.jsonl"), output=str(out), timing=False)
    run_batch(options, backend=backend)
    return list(read_run_log(out).reports)


def test_ray_and_local_give_the_same_reports(tmp_path: Path, slow_engine_by_name: None) -> None:
    examples = (
        sorted((ROOT / "examples" / "te").glob("*.te"))
        + sorted((ROOT / "examples" / "type6").glob("*.t6"))[:6]
    )
    engines = {".te": "te", ".t6": "type6"}
    ids = _write(
        tmp_path / "traces.jsonl",
        [
            {"id": p.stem, "engine": engines[p.suffix], "text": p.read_text(encoding="utf-8")}
            for p in examples
        ],
    )
    bad_ids = _write(
        tmp_path / "bad.jsonl",
        [
            {"id": "hang", "engine": "slow", "text": "HANG"},
            {"id": "exit", "engine": "slow", "text": "EXIT"},
            {"id": "crash", "engine": "slow", "text": "CRASH"},
            {"id": "slow-ok", "engine": "slow", "text": "SLEEP 0.1"},
            {"id": "nope", "engine": "nope", "text": "x"},
            {"id": "closure", "engine": "closure", "text": "x"},
            {"id": "private", "engine": "private", "text": "BAD"},
        ],
    )
    # engines registered at run time with callables: one that cannot travel (a lambda), and one
    # from a module Ray's workers cannot import by name (loaded from its file there)
    api.register_engine("closure", lambda text, **kw: None, (".closure",))
    (tmp_path / "private_engine.py").write_text("from batch.slow_engine import slow_check as check\n")
    spec = importlib.util.spec_from_file_location("cotaudit_test_private_ray", tmp_path / "private_engine.py")
    assert spec is not None and spec.loader is not None
    private = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(private)
    api.register_engine("private", private.check, (".private",))
    ray_pool = RayPool(2, timeout=120.0)
    try:
        on_ray = _run(tmp_path, "traces", ray_pool, "ray")
        assert ray.util.get_node_ip_address() == "127.0.0.1"  # nothing but loopback
        ray_pool.timeout = 2.0
        bad = {r.input.id: r for r in _run(tmp_path, "bad", ray_pool, "ray")}
    finally:
        ray_pool.close()
    assert not ray.is_initialized()  # the backend shut down the Ray instance it started
    with LocalPool(2, timeout=120.0) as local_pool:
        local = _run(tmp_path, "traces", local_pool, "local")

    assert [r.input.id for r in on_ray] == ids
    assert [r.to_dict() for r in on_ray] == [r.to_dict() for r in local]
    assert list(bad) == bad_ids
    assert bad["hang"].verdict == "abstain" and bad["hang"].details["reason"] == "timeout"
    assert bad["exit"].verdict == "invalid" and bad["exit"].details["reason"] == "worker_died"
    assert bad["crash"].verdict == "invalid" and "RuntimeError" in bad["crash"].details["error"]
    assert bad["slow-ok"].verdict == "pass"
    assert bad["nope"].verdict == "invalid" and "unknown engine" in bad["nope"].details["error"]
    assert bad["closure"].verdict == "invalid" and bad["closure"].details["reason"] == "engine_not_loadable"
    assert bad["private"].verdict == "fail" and bad["private"].engine == "slow"
