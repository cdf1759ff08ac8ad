"""``cotaudit batch`` honours rule selection exactly as ``cotaudit check`` does.

The run log holds, line for line, the report ``check`` gives for the item under the same
selection (flags or ``[tool.cotaudit]``); ``--fail-on`` decides the exit code over every item of
the log; the header records the selection and ``--resume`` under another one is refused; a bad
selector stops the run before anything is read or written.
"""

from __future__ import annotations

import json
import pickle
from collections.abc import Iterator
from pathlib import Path

import pytest

from cotaudit import api, cli
from cotaudit.batch.jobs import SELECTION, Payload, execute
from cotaudit.batch.runner import BatchOptions, run_batch
from cotaudit.report.encoded import encode_report
from cotaudit.report.encoding import json_bytes
from cotaudit.selection import Selection, apply_selection

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
# one item or more of every engine: te fail (TE_E006) / pass with a warning / clean pass,
# certify fail with an abstention left beside its error, type6, vericot and cot fails
ITEMS = [
    ("te", "te/C_arithmetic_slip.te"),
    ("te", "te/O_parametric.te"),
    ("te", "te/A_janet.te"),
    ("certify", "certify/legal_injected.kb"),
    ("type6", "type6/G06_modal_mismatch.t6"),
    ("vericot", "vericot/C_sara_ungrounded.vcot.json"),
    ("cot", "cot/bakery_slip.txt"),
]
SELECTIONS = {
    "default": [],
    # C_arithmetic_slip: its one error ignored, fail -> pass; legal_injected: fail -> abstain
    "ignore": ["--ignore", "TE_E006,CERTIFY_E009"],
    "select": ["--select", "TE_E,T6", "--extend-select", "VC_W", "--ignore", "T6_W2"],
}


@pytest.fixture(autouse=True)
def here(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    monkeypatch.chdir(tmp_path)
    yield tmp_path


def _items(path: Path, rows: list[tuple[str, str]]) -> None:
    with path.open("w", encoding="utf-8") as fh:
        for engine, name in rows:
            item_id = Path(name).name.split(".")[0]
            text = (EXAMPLES / name).read_text(encoding="utf-8")
            fh.write(json.dumps({"id": item_id, "engine": engine, "text": text}) + "\n")


def _main(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _batch(capsys: pytest.CaptureFixture[str], *argv: str, out: str = "out.jsonl") -> tuple[int, str]:
    code, _, err = _main(capsys, "batch", "items.jsonl", "-o", out, "--no-timing", "--quiet", *argv)
    return code, err


def _log(path: str = "out.jsonl") -> tuple[dict[str, object], list[bytes]]:
    header, *lines = Path(path).read_bytes().splitlines()
    return json.loads(header), lines


@pytest.mark.parametrize("name", list(SELECTIONS))
def test_the_run_log_holds_what_check_gives(capsys: pytest.CaptureFixture[str], name: str) -> None:
    _items(Path("items.jsonl"), ITEMS)
    argv = SELECTIONS[name]
    check_code, as_json, _ = _main(capsys, "check", "items.jsonl", "--no-timing", "--format", "json", *argv)
    _, as_jsonl, _ = _main(capsys, "check", "items.jsonl", "--no-timing", "--format", "jsonl", *argv)
    batch_code, _ = _batch(capsys, *argv)
    header, lines = _log()
    expected = json.loads(as_json)
    assert [json.loads(line) for line in lines] == expected
    assert lines == [json_bytes(report) for report in expected]  # byte for byte, key order too
    assert lines == [line.encode() for line in as_jsonl.splitlines()[1:]]
    assert batch_code == check_code == 1
    reports = {r["input"]["id"]: r for r in expected}
    config = header["config"]
    assert isinstance(config, dict)
    if name == "default":  # nothing hidden, nothing recorded: the header reads as before
        assert "selection" not in config
        assert not any("selection" in r["details"] for r in expected)
    if name == "ignore":
        assert config["selection"] == {
            "select": ["ALL"],
            "extend-select": [],
            "ignore": ["CERTIFY_E009", "TE_E006"],
        }
        slip, injected = reports["C_arithmetic_slip"], reports["legal_injected"]
        assert (slip["verdict"], slip["details"]["selection"]) == (
            "pass",
            {"ignored": {"TE_E006": 1}, "verdict_before": "fail"},
        )
        assert (injected["verdict"], injected["details"]["selection"]["verdict_before"]) == (
            "abstain",
            "fail",
        )
        assert reports["bakery_slip"]["verdict"] == "fail"  # near miss: nothing of it ignored
    if name == "select":
        assert not any(
            f["code"].startswith(("CERTIFY", "COT", "T6_W2")) for r in expected for f in r["findings"]
        )


def test_the_selection_comes_from_the_configuration_as_for_check(capsys: pytest.CaptureFixture[str]) -> None:
    _items(Path("items.jsonl"), ITEMS[:3])
    Path("pyproject.toml").write_text('[tool.cotaudit]\nignore = ["TE_E006"]\n', encoding="utf-8")
    check_code, as_json, _ = _main(capsys, "check", "items.jsonl", "--no-timing", "--format", "json")
    assert _batch(capsys)[0] == check_code == 0  # the one error ignored: every item passes
    header, lines = _log()
    assert [json.loads(line) for line in lines] == json.loads(as_json)
    assert header["config"]["selection"]["ignore"] == ["TE_E006"]  # type: ignore[index]
    # near miss: --isolated reads no file, so every finding is reported and the errors fail
    assert _batch(capsys, "--isolated", out="isolated.jsonl")[0] == 1
    assert "selection" not in _log("isolated.jsonl")[0]["config"]  # type: ignore[operator]


@pytest.mark.parametrize(
    ("argv", "table", "code"),
    [
        ([], "", 0),  # O_parametric passes with a warning
        (["--fail-on", "warning"], "", 1),
        ([], 'fail-on = "warning"', 1),
        (["--fail-on", "error"], 'fail-on = "warning"', 0),  # the command line wins
        (["--fail-on", "warning", "--ignore", "TE_W001"], "", 0),  # near miss: the warning deselected
    ],
)
def test_fail_on_decides_the_exit_code_as_in_check(
    capsys: pytest.CaptureFixture[str], argv: list[str], table: str, code: int
) -> None:
    _items(Path("items.jsonl"), [("te", "te/O_parametric.te"), ("te", "te/A_janet.te")])
    Path("pyproject.toml").write_text(f"[tool.cotaudit]\n{table}\n", encoding="utf-8")
    assert _main(capsys, "check", "items.jsonl", *argv)[0] == code
    assert _batch(capsys, *argv)[0] == code


def test_fail_on_warning_counts_the_items_of_earlier_runs(capsys: pytest.CaptureFixture[str]) -> None:
    _items(Path("items.jsonl"), [("te", "te/O_parametric.te")])
    assert _batch(capsys)[0] == 0
    _items(Path("items.jsonl"), [("te", "te/O_parametric.te"), ("te", "te/A_janet.te")])
    code, err = _batch(capsys, "--resume", "--fail-on", "warning")
    assert (code, err) == (1, "")  # the warning is in the line the first run wrote
    assert len(_log()[1]) == 2
    # near miss: the same resume without the warning item in the log
    _items(Path("items.jsonl"), [("te", "te/A_janet.te")])
    assert _batch(capsys, out="clean.jsonl")[0] == 0
    _items(Path("items.jsonl"), [("te", "te/A_janet.te"), ("te", "te/P_value_shorthand.te")])
    assert _batch(capsys, "--resume", "--fail-on", "warning", out="clean.jsonl")[0] == 0


def test_resume_under_another_selection_is_refused_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    _items(Path("items.jsonl"), ITEMS[:2])
    assert _batch(capsys, "--ignore", "TE_E006")[0] == 0
    before = Path("out.jsonl").read_bytes()
    for argv, written, wanted in [
        (["--ignore", "TE_E012"], "--ignore TE_E006", "--ignore TE_E012"),
        ([], "--ignore TE_E006", "--ignore none"),
        (["--select", "TE", "--ignore", "TE_E006"], "--select ALL", "--select TE"),
    ]:
        code, err = _batch(capsys, "--resume", *argv)
        assert code == 2
        assert err == (
            f"cotaudit: out.jsonl was written with {written}, not with {wanted}; resume with the same "
            "selection (--select, --extend-select, --ignore, [tool.cotaudit])\n"
        )
    assert Path("out.jsonl").read_bytes() == before  # nothing appended by a refused resume


def test_near_miss_the_same_selection_resumes(capsys: pytest.CaptureFixture[str]) -> None:
    _items(Path("items.jsonl"), ITEMS[:1])
    assert _batch(capsys, "--ignore", "TE_W001,TE_E006")[0] == 0
    _items(Path("items.jsonl"), ITEMS[:2])
    # the same selection spelled otherwise: another order, a repeat, from the configuration file
    assert _batch(capsys, "--resume", "--ignore", "TE_E006", "--ignore", "TE_W001,TE_E006")[0] == 0
    _items(Path("items.jsonl"), ITEMS[:3])
    Path("pyproject.toml").write_text('[tool.cotaudit]\nignore = ["TE_E006", "TE_W001"]\n', encoding="utf-8")
    code, _, err = _main(capsys, "batch", "items.jsonl", "-o", "out.jsonl", "--no-timing", "--resume")
    assert code == 0 and "batch: 1 item checked, 2 already done" in err
    _, lines = _log()
    assert [json.loads(line)["input"]["id"] for line in lines] == [
        "C_arithmetic_slip",
        "O_parametric",
        "A_janet",
    ]
    assert json.loads(lines[1])["findings"] == []  # TE_W001 ignored in the resumed part too


def test_a_log_without_a_selection_resumes_only_without_one(capsys: pytest.CaptureFixture[str]) -> None:
    _items(Path("items.jsonl"), ITEMS[:1])
    assert _batch(capsys)[0] == 1  # also what a log from before selections were recorded says
    code, err = _batch(capsys, "--resume", "--ignore", "TE_E006")
    assert code == 2 and "was written with --ignore none, not with --ignore TE_E006" in err
    assert _batch(capsys, "--resume")[0] == 1  # near miss


@pytest.mark.parametrize(
    ("argv", "table", "message"),
    [
        (["--select", "TE_Q9"], "", "unknown code or prefix 'TE_Q9' (see 'cotaudit codes'); did you mean"),
        (["--ignore", "TE_E006,XX_E1"], "", "unknown code or prefix 'XX_E1'"),
        (
            [],
            'extend-select = ["TE_W0001"]',
            "unknown code or prefix 'TE_W0001' (see 'cotaudit codes'); did you mean",
        ),
    ],
)
def test_a_bad_selector_stops_the_run_before_any_work(
    capsys: pytest.CaptureFixture[str], argv: list[str], table: str, message: str
) -> None:
    _items(Path("items.jsonl"), ITEMS[:1])
    Path("pyproject.toml").write_text(f"[tool.cotaudit]\n{table}\n", encoding="utf-8")
    code, out, err = _main(capsys, "batch", "items.jsonl", "-o", "out.jsonl", *argv)
    assert code == 2 and out == ""
    assert err.startswith("cotaudit: ") and err.endswith("\n") and err.count("\n") == 1 and message in err
    assert not Path("out.jsonl").exists()


def test_the_selection_travels_to_the_worker_and_is_applied_there() -> None:
    selection = Selection.of(None, (), ["TE_E0"])
    assert pickle.loads(pickle.dumps(selection)) == selection
    text = (EXAMPLES / "te/C_arithmetic_slip.te").read_text(encoding="utf-8")
    payload = Payload("te", text, None, "slip")
    report = api.check(text, "te", item_id="slip")
    selected = execute(payload, {SELECTION: selection})
    assert selected.line(timing=False) == encode_report(apply_selection(report, selection)).line(timing=False)
    assert selected.verdict == "pass" and execute(payload).verdict == "fail"  # near miss: none given


def test_run_batch_records_the_selection_sorted(tmp_path: Path) -> None:
    _items(tmp_path / "items.jsonl", ITEMS[:2])
    selection = Selection.of(["TE", "ALL"], ["TE_W"], ["TE_W001", "TE_E006", "TE_W001"])
    options = BatchOptions(input="items.jsonl", output="out.jsonl", timing=False, selection=selection)
    result = run_batch(options)
    assert result.verdicts == {"pass": 2} and result.warned == 0 and not result.exceeds("warning")
    config = _log()[0]["config"]
    assert config["selection"] == {  # type: ignore[index]
        "select": ["ALL", "TE"],
        "extend-select": ["TE_W"],
        "ignore": ["TE_E006", "TE_W001"],
    }
    # near miss: the same run without the selection fails on TE_E006 and warns on TE_W001
    plain = run_batch(options._replace(output="plain.jsonl", selection=Selection()))
    assert plain.verdicts == {"pass": 1, "fail": 1} and plain.warned == 1 and plain.exceeds("error")
