"""Every front end, offline, on recordings of a real model (tests/fixtures/llm/, made by
scripts/record-llm-fixtures with SmolLM2-135M-Instruct on llama-cpp-python's server).

A replay that needs a request nobody recorded fails with ReplayMiss, so these tests also prove
the front ends send exactly the requests that were recorded. What the front ends made of the
answers must equal what they made of them at record time (``<set>.expected.json``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cotaudit.cli import main
from llm.fixture_sets import FIXTURES, MODEL, SETS, expected_path, replay_client, subset_path, without_calls

RECORDED = [name for name in SETS if expected_path(name).is_file()]


def _normalised(summary: dict[str, object]) -> object:
    return json.loads(json.dumps(without_calls(summary), sort_keys=True, ensure_ascii=False, default=str))


@pytest.mark.parametrize("name", list(SETS))
def test_replay_reproduces_the_recording(name: str) -> None:
    if name == "type6":
        pytest.importorskip("cotaudit.type6")
    assert name in RECORDED, f"no recording for {name}: run scripts/record-llm-fixtures"
    client = replay_client(name)
    summary = SETS[name](client, False)
    assert _normalised(summary) == json.loads(expected_path(name).read_text(encoding="utf-8"))
    calls = client.log.summary()
    assert calls["calls"] > 0 and calls["backend_calls"] == 0 and calls["cache_hits"] == calls["calls"]


def test_recordings_hold_no_secret_and_name_the_model() -> None:
    for path in FIXTURES.glob("*/*.json"):
        entry = json.loads(path.read_text(encoding="utf-8"))
        assert entry["request"]["model"] == MODEL
        assert "api_key" not in path.read_text(encoding="utf-8").lower()
        assert entry["key"] == path.stem


def test_eval_te_runs_end_to_end_in_replay_mode(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out_json, log = tmp_path / "report.json", tmp_path / "run.jsonl"
    code = main(
        [
            "eval", "te", "--corpus", str(subset_path()), "--methods", "M1,M2,M3,M4",
            "--no-ablation", "--no-determinism", "--iterations", "1000",
            "--llm-mode", "replay", "--llm-cache", str(FIXTURES / "eval_te"), "--llm-model", MODEL,
            "--json", str(out_json), "--log", str(log),
        ]
    )  # fmt: skip
    text = capsys.readouterr().out
    assert code == 0
    report = json.loads(out_json.read_text())
    for name in ("M3", "M4"):
        assert report["methods"][name]["available"] is True
        assert f"| {name} | " in text and "not configured" not in text
    assert "## LLM baselines (M3, M4)" in text and MODEL in text
    kinds = [json.loads(line).get("kind") for line in log.read_text().splitlines()]
    assert "llm_call" in kinds and "outcome" in kinds
    assert {c["pair"] for c in report["comparisons"]} >= {"M2-M3", "M2-M4"}


def test_te_emit_command_replays(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    first = json.loads((FIXTURES / "te_emit.problems.jsonl").read_text().splitlines()[0])
    problem = tmp_path / "problem.txt"
    problem.write_text(first["question"])
    code = main(
        [
            "te",
            "emit",
            str(problem),
            "--llm-mode",
            "replay",
            "--llm-cache",
            str(FIXTURES / "te_emit"),
            "--llm-model",
            MODEL,
            "--prompt-version",
            "1",  # the recordings answer te_emit@v1 (the default is v2, issue 19)
        ]
    )
    captured = capsys.readouterr()
    expected = json.loads(expected_path("te_emit").read_text())["items"][0]
    assert code == (0 if expected["status"] == "compliant" else 1)
    assert captured.err.startswith(f"cotaudit: {expected['status']}")


def test_type6_annotate_command_replays(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import argparse

    from cotaudit.cli.type6 import add_type6_annotate

    pytest.importorskip("cotaudit.type6")
    parser = argparse.ArgumentParser()
    add_type6_annotate(parser.add_subparsers())
    raw = sorted((FIXTURES / "type6_raw").glob("*.txt"))[0]
    out = tmp_path / "out.t6"
    args = parser.parse_args(
        [
            "annotate",
            str(raw),
            "-o",
            str(out),
            "--llm-mode",
            "replay",
            "--llm-cache",
            str(FIXTURES / "type6"),
            "--llm-model",
            MODEL,
        ]
    )
    code = args.handler(args)
    expected = json.loads(expected_path("type6").read_text())["items"][0]["annotation"]
    assert code == (0 if expected["status"] == "ok" else 1)
    assert out.read_text() == expected["t6"]
    assert capsys.readouterr().err.startswith(f"cotaudit: {expected['status']}")


def test_eval_te_emit_command_replays(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from cotaudit.cli.io import data_dir as default_data_dir

    if not (default_data_dir() / "gsm8k" / "test.jsonl").is_file():
        pytest.skip("../shared/data is not beside the repository")
    out_json = tmp_path / "emit.json"
    code = main(
        [
            "eval", "te-emit", "--datasets", "gsm8k", "--limit", "6", "--json", str(out_json),
            "--llm-mode", "replay", "--llm-cache", str(FIXTURES / "te_emit"), "--llm-model", MODEL,
            "--prompt-version", "1",  # the recordings answer te_emit@v1
        ]
    )  # fmt: skip
    assert code == 0
    report = json.loads(out_json.read_text())
    assert report["prompt"] == "te_emit@v1"
    expected = json.loads(expected_path("te_emit").read_text())
    assert report["datasets"]["gsm8k"] == expected["datasets"]["gsm8k"]
    assert "| gsm8k | 6 |" in capsys.readouterr().out


def test_the_default_prompt_is_not_replayed_from_v1_recordings() -> None:
    """Issue 19, 6 (a): te_emit@v2 is the default; its requests have other keys, so the v1
    recordings are never passed off as answers to it (a replay miss, not a made-up answer)."""
    from cotaudit.frontends.te_emit import emission_request
    from cotaudit.llm.types import ReplayMiss

    client = replay_client("te_emit")
    first = json.loads((FIXTURES / "te_emit.problems.jsonl").read_text().splitlines()[0])
    request = emission_request(first["question"], tag="gsm8k-0")
    assert request.prompt == "te_emit@v2"
    with pytest.raises(ReplayMiss):
        client.complete(request)
    assert client.complete(emission_request(first["question"], tag="gsm8k-0", prompt_version=1)).text


def test_eval_type6_comparison_replays_end_to_end(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("cotaudit.type6")
    out = tmp_path / "type6.json"
    code = main(
        [
            "eval", "type6", str(FIXTURES / "type6_raw"), "--json", str(out),
            "--llm-mode", "replay", "--llm-cache", str(FIXTURES / "type6"), "--llm-model", MODEL,
        ]
    )  # fmt: skip
    text = capsys.readouterr().out
    assert code == 0
    report = json.loads(out.read_text())
    expected = json.loads(expected_path("type6").read_text())
    for key in ("traces", "annotation", "methods", "agreement", "items"):
        assert report[key] == expected[key], key
    assert report["calls"]["backend_calls"] == 0
    assert "| type6-llm_judge |" in text and MODEL in text


def test_eval_type6_without_a_model_runs_trivial_only_and_says_so(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("COTAUDIT_LLM_MODEL", "COTAUDIT_LLM_BASE_URL", "COTAUDIT_LLM_MODE", "COTAUDIT_LLM_CACHE"):
        monkeypatch.delenv(name, raising=False)
    out = tmp_path / "type6.json"
    assert main(["eval", "type6", str(FIXTURES / "type6_raw"), "--json", str(out)]) == 0
    text = capsys.readouterr().out
    report = json.loads(out.read_text())
    assert "Not configured" in text and "| type6 | not run |" in text
    assert report["methods"]["type6"] == report["methods"]["llm_judge"]
    assert "no model configured" in report["methods"]["type6"]["not_run"]
    assert report["methods"]["trivial"]["decided"] == 5 and report["agreement"] == []


def test_eval_type6_bad_input_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": "a", "text": "fine"}\n{"id": "b"}\n')
    assert main(["eval", "type6", str(bad)]) == 2
    err = capsys.readouterr().err
    assert f"{bad}:2" in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_eval_certify_contractnli_replays_end_to_end(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Grounding votes and the source recheck (issue 6) through the command, in replay mode."""
    import shutil

    from llm.fixture_sets import CNLI_CLAUSES, CNLI_SPLIT

    shutil.copy(CNLI_SPLIT, tmp_path / "dev.json")
    out = tmp_path / "r.json"
    code = main(
        [
            "eval", "certify", "contractnli", "--data", str(tmp_path), "--clauses", str(CNLI_CLAUSES),
            "--llm-mode", "replay", "--llm-cache", str(FIXTURES / "certify_cnli"), "--llm-model", MODEL,
            "--json", str(out),
        ]
    )  # fmt: skip
    text = capsys.readouterr().out
    assert code == 0
    doc = json.loads(out.read_text(encoding="utf-8"))
    policies = [c["policy"] for c in doc["counts"]]
    assert policies == [
        "gold spans (k=2)", "solver_1vote", "agreement_only", "agreement+match", "agreement+match+recheck"
    ]  # fmt: skip
    assert all(c["N"] == doc["pairs"] == 34 for c in doc["counts"])
    assert doc["calls"]["backend_calls"] == 0 and "not run" not in text and MODEL in text
    assert "agreement+match+recheck vs agreement+match: withholds" in text


def test_vericot_set_runs_without_a_trace_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    """A recording against a slow model must not be cut by vericot's 60 s default trace budget
    (the instant replay would decide steps the recording left unknown): the set passes None."""
    from cotaudit import vericot

    budgets: list[object] = []
    real = vericot.verify

    def spy(trace: object, config: object = None, **options: object) -> object:
        budgets.append(getattr(config, "trace_budget_ms", "unset"))
        return real(trace, config, **options)  # type: ignore[arg-type]

    monkeypatch.setattr(vericot, "verify", spy)
    SETS["vericot"](replay_client("vericot"), False)
    assert budgets and all(b is None for b in budgets), budgets
