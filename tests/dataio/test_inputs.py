"""Items from .jsonl.gz, Parquet, a saved Hugging Face dataset and stdin, for check, audit and
batch (issue 17), with --text-field / --id-field / --engine-field mapping columns."""

from __future__ import annotations

import gzip
import json
import lzma
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from tests.rewards.completions import GOOD, WRONG

from cotaudit import api, cli, dataio
from cotaudit.batch.items import count_items, iter_items
from cotaudit.dataio import FieldMap, open_records, using_fields
from cotaudit.errors import InputError, MissingDependency
from cotaudit.report.runlog import read_run_log

os.environ.setdefault("HF_DATASETS_OFFLINE", "1")  # never reach for the hub, before datasets loads
RunCli = Callable[..., subprocess.CompletedProcess[bytes]]
ITEMS = [
    {"id": "good", "engine": "te", "text": GOOD},
    {"id": "wrong", "engine": "te", "text": WRONG},
    {"id": "fake", "engine": "fake", "text": "fine"},
]
# The same items as a table with other column names, as datasets write them.
ROWS = {
    "qid": ["good", "wrong", "fake"],
    "completion": [GOOD, WRONG, "fine"],
    "checker": ["te", "te", "fake"],
    "gold": ["18", "18", "x"],
}
MAP = ["--text-field", "completion", "--id-field", "qid", "--engine-field", "checker"]


def _jsonl(items: list[dict[str, Any]]) -> bytes:
    return "".join(json.dumps(i) + "\n" for i in items).encode("utf-8")


def _verdicts(run: Path) -> dict[str, str]:
    return {r.input.id or "": r.verdict for r in read_run_log(run).reports}


def _batch(*args: str) -> int:
    return cli.main(["batch", *args, "--quiet", "--no-timing"])


def test_jsonl_gz_is_read_and_a_gzip_file_is_never_n_broken_items(tmp_path: Path) -> None:
    gz = tmp_path / "data.jsonl.gz"
    gz.write_bytes(gzip.compress(_jsonl(ITEMS)))
    assert count_items(gz) == 3
    assert _batch(str(gz), "-o", str(tmp_path / "run.jsonl")) == 1
    assert _verdicts(tmp_path / "run.jsonl") == {"good": "pass", "wrong": "fail", "fake": "pass"}
    # a gzip file under another name is still read as gzip (its bytes say so)
    misnamed = tmp_path / "data.jsonl"
    misnamed.write_bytes(gz.read_bytes())
    assert [i.item_id for i in iter_items(misnamed)] == ["good", "wrong", "fake"]
    assert [i.error for i in iter_items(misnamed)] == [None, None, None]
    # near miss: the plain file gives the same items
    plain = tmp_path / "plain.jsonl"
    plain.write_bytes(_jsonl(ITEMS))
    assert list(iter_items(plain)) == [i._replace(path=plain.as_posix()) for i in iter_items(misnamed)]


def test_other_compressions_are_refused_with_a_hint(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    xz = tmp_path / "data.jsonl.xz"
    xz.write_bytes(lzma.compress(_jsonl(ITEMS)))
    assert _batch(str(xz), "-o", str(tmp_path / "run.jsonl")) == 2
    err = capsys.readouterr().err
    assert "xz-compressed input is not read" in err and "Traceback" not in err
    assert not (tmp_path / "run.jsonl").exists()
    cut = tmp_path / "cut.jsonl.gz"
    cut.write_bytes(gzip.compress(_jsonl(ITEMS))[:-12])
    with pytest.raises(InputError, match="cannot decompress"):
        list(iter_items(cut))


def test_parquet_with_mapped_columns(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pa = pytest.importorskip("pyarrow", reason="pyarrow is not installed (pip install 'cotaudit[data]')")
    import pyarrow.parquet as pq

    path = tmp_path / "data.parquet"
    pq.write_table(pa.table(ROWS), path)
    assert _batch(str(path), "-o", str(tmp_path / "run.jsonl"), *MAP) == 1
    assert _verdicts(tmp_path / "run.jsonl") == {"good": "pass", "wrong": "fail", "fake": "pass"}
    header = read_run_log(tmp_path / "run.jsonl").header
    assert header["config"]["fields"] == {"text": "completion", "id": "qid", "engine": "checker"}
    # the form: only the text column mapped, the engine given once
    assert (
        _batch(str(path), "-o", str(tmp_path / "te.jsonl"), "--text-field", "completion", "--engine", "te")
        == 1
    )
    assert [r.verdict for r in read_run_log(tmp_path / "te.jsonl").reports] == ["pass", "fail", "fail"]
    # near miss: without the map there is no 'text' column, and each item says so
    assert _batch(str(path), "-o", str(tmp_path / "raw.jsonl"), "--engine", "te") == 1
    raw = read_run_log(tmp_path / "raw.jsonl").reports
    assert {r.verdict for r in raw} == {"invalid"} and "'text' must be a string" in raw[0].details["error"]
    capsys.readouterr()


def test_resume_needs_the_same_field_map(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pa = pytest.importorskip("pyarrow", reason="pyarrow is not installed (pip install 'cotaudit[data]')")
    import pyarrow.parquet as pq

    path = tmp_path / "data.parquet"
    pq.write_table(pa.table(ROWS), path)
    run = tmp_path / "run.jsonl"
    assert _batch(str(path), "-o", str(run), *MAP) == 1
    assert _batch(str(path), "-o", str(run), *MAP, "--resume") == 1
    assert len(read_run_log(run).reports) == 3
    assert _batch(str(path), "-o", str(run), "--text-field", "completion", "--resume") == 2
    assert "field map" in capsys.readouterr().err


def _save_dataset(tmp_path: Path, splits: bool) -> Path:
    datasets = pytest.importorskip(
        "datasets", reason="datasets is not installed (pip install 'cotaudit[data]')"
    )
    ds = datasets.Dataset.from_dict(ROWS)
    target = tmp_path / ("dict" if splits else "flat")
    if splits:
        datasets.DatasetDict({"train": ds.select([0, 1]), "test": ds.select([2])}).save_to_disk(str(target))
    else:
        ds.save_to_disk(str(target))
    return target


def test_a_saved_dataset_directory(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for splits in (False, True):
        target = _save_dataset(tmp_path, splits)
        assert dataio.is_dataset_dir(target)
        run = tmp_path / f"run-{splits}.jsonl"
        assert _batch(str(target), "-o", str(run), *MAP) == 1
        assert _verdicts(run) == {"good": "pass", "wrong": "fail", "fake": "pass"}
    # check and audit read it too
    assert cli.main(["check", str(target), *MAP, "--format", "json", "--no-timing"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert [r["verdict"] for r in out] == ["pass", "fail", "pass"]
    assert cli.main(["audit", str(target), *MAP, "--no-html", "--no-timing", "--format", "json"]) == 0
    assert [r["input"]["id"] for r in json.loads(capsys.readouterr().out)] == ["good", "wrong", "fake"]
    # near miss: a directory that is not a saved dataset
    with pytest.raises(InputError, match="is a directory"):
        count_items(tmp_path)


def test_check_and_audit_read_jsonl_gz_and_field_maps(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    gz = tmp_path / "data.jsonl.gz"
    gz.write_bytes(gzip.compress(_jsonl(ITEMS)))
    assert cli.main(["check", str(gz), "--format", "json", "--no-timing"]) == 1
    assert [r["input"]["id"] for r in json.loads(capsys.readouterr().out)] == ["good", "wrong", "fake"]
    renamed = tmp_path / "renamed.jsonl"
    renamed.write_bytes(
        _jsonl([{"qid": i["id"], "checker": i["engine"], "completion": i["text"]} for i in ITEMS])
    )
    assert cli.main(["check", str(renamed), *MAP, "--format", "json", "--no-timing"]) == 1
    assert [r["verdict"] for r in json.loads(capsys.readouterr().out)] == ["pass", "fail", "pass"]
    assert cli.main(["audit", str(gz), "--no-html", "--no-timing", "--format", "json"]) == 0
    assert len(json.loads(capsys.readouterr().out)) == 3
    # the Python API takes a field map as a context
    with using_fields(FieldMap("completion", "qid", "checker")):
        assert [i.item_id for i in api.load_inputs(renamed)] == ["good", "wrong", "fake"]
    assert {i.error is not None for i in api.load_inputs(renamed, "te")} == {True}  # no 'text' field


def test_stdin_for_batch_and_audit(tmp_path: Path, run_cli: RunCli) -> None:
    done = run_cli(
        ["batch", "-", "-o", "run.jsonl", "--quiet", "--no-timing"], cwd=tmp_path, stdin=_jsonl(ITEMS)
    )
    assert done.returncode == 1, done.stderr
    assert _verdicts(tmp_path / "run.jsonl") == {"good": "pass", "wrong": "fail", "fake": "pass"}
    assert read_run_log(tmp_path / "run.jsonl").header["config"]["input"] == "-"
    gz = run_cli(
        ["batch", "-", "-o", "gz.jsonl", "--quiet"], cwd=tmp_path, stdin=gzip.compress(_jsonl(ITEMS))
    )
    assert gz.returncode == 1 and len(read_run_log(tmp_path / "gz.jsonl").reports) == 3
    audit = run_cli(["audit", "-", "--no-html", "--format", "json"], cwd=tmp_path, stdin=_jsonl(ITEMS))
    assert audit.returncode == 0, audit.stderr
    assert [r["input"]["path"] for r in json.loads(audit.stdout)] == ["<stdin>"] * 3
    # check - stays one trace read with --engine
    one = run_cli(["check", "-", "--engine", "te", "--format", "json"], cwd=tmp_path, stdin=GOOD.encode())
    assert one.returncode == 0 and json.loads(one.stdout)["verdict"] == "pass"


def test_missing_pyarrow_is_a_one_line_hint(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "data.parquet"
    path.write_bytes(b"PAR1" + b"\0" * 16 + b"PAR1")
    monkeypatch.setitem(sys.modules, "pyarrow", None)
    monkeypatch.setitem(sys.modules, "pyarrow.parquet", None)
    with pytest.raises(MissingDependency, match=r"pip install 'cotaudit\[data\]'"):
        count_items(path)
    assert cli.main(["batch", str(path), "-o", str(tmp_path / "r.jsonl"), "--quiet"]) == 3


def test_records_keep_surrogates_and_odd_cells(tmp_path: Path) -> None:
    pa = pytest.importorskip("pyarrow", reason="pyarrow is not installed (pip install 'cotaudit[data]')")
    import pyarrow.parquet as pq

    path = tmp_path / "odd.parquet"
    pq.write_table(
        pa.table(
            {
                "text": ["a\ud800b".encode("utf-8", "surrogatepass").decode("utf-8", "replace")],
                "blob": [b"\x00\x01"],
            }
        ),
        path,
    )
    with open_records(path, FieldMap()) as records:
        ((n, raw),) = list(records.lines())
    assert n == 1 and json.loads(raw)["blob"] == "\x00\x01"
