"""--select/--ignore/--extend-select/--fail-on, [tool.cotaudit] / cotaudit.toml, 'cotaudit config'
(issue 18), run on the bundled te examples."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from cotaudit import cli

ROOT = Path(__file__).resolve().parents[2]
SLIP = "C_arithmetic_slip.te"  # TE_E006 at 5:26
E006 = f"{SLIP}:5:26: TE_E006"
W001 = "O_parametric.te:6:20: TE_W001"
PARAM = "O_parametric.te"  # passes with TE_W001


@pytest.fixture
def proj(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for name in (SLIP, PARAM, "A_janet.te", "D_wrong_unit.te"):
        shutil.copy(ROOT / "examples" / "te" / name, tmp_path / name)
    monkeypatch.chdir(tmp_path)
    return tmp_path


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = cli.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_ignore_a_code(proj: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "check", SLIP)
    assert code == 1 and E006 in out
    code, out, _ = _run(capsys, "check", "--ignore", "TE_E006", SLIP)
    assert code == 0 and E006 not in out
    assert out.endswith("The item passed. 1 finding not reported by the selection (TE_E006).\n")


def test_ignore_a_prefix_and_its_near_miss(proj: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _run(capsys, "check", "--ignore", "TE_E0", SLIP)[0] == 0
    assert _run(capsys, "check", "--ignore", "TE_W", SLIP)[0] == 1  # near miss: TE_E006 is not TE_W..


def test_select_and_extend_select(proj: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _run(capsys, "check", "--select", "TE_W", SLIP, PARAM)
    assert code == 0 and E006 not in out and W001 in out
    code, out, _ = _run(capsys, "check", "--select", "TE_W", "--extend-select", "TE_E006", SLIP)
    assert code == 1 and E006 in out


def test_json_says_what_was_ignored(proj: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _, out, _ = _run(capsys, "check", "--format", "json", "--ignore", "TE_E006", SLIP)
    report = json.loads(out)
    assert report["verdict"] == "pass" and report["findings"] == []
    assert report["details"]["selection"] == {"ignored": {"TE_E006": 1}, "verdict_before": "fail"}
    assert report["details"]["verdict"] == "FLAG"  # te's own word stays


def test_fail_on_warning(proj: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert _run(capsys, "check", PARAM)[0] == 0
    assert _run(capsys, "check", "--fail-on", "warning", PARAM)[0] == 1
    assert _run(capsys, "check", "--fail-on", "warning", "--ignore", "TE_W001", PARAM)[0] == 0
    assert _run(capsys, "check", "--fail-on", "warning", "A_janet.te")[0] == 0  # near miss: no warning


def test_unknown_selector_is_a_usage_error(proj: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(capsys, "check", "--ignore", "TE_E06", SLIP)
    assert code == 2 and out == ""
    assert err.startswith("cotaudit: unknown code or prefix 'TE_E06'") and "did you mean" in err


def test_pyproject_table_is_found_upwards(proj: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (proj / "pyproject.toml").write_text('[tool.cotaudit]\nignore = ["TE_E006"]\n', encoding="utf-8")
    (proj / "deep" / "er").mkdir(parents=True)
    shutil.copy(proj / SLIP, proj / "deep" / "er" / SLIP)
    assert _run(capsys, "check", f"deep/er/{SLIP}")[0] == 0
    assert _run(capsys, "check", "--isolated", f"deep/er/{SLIP}")[0] == 1  # near miss: no file read


def test_pyproject_without_the_table_is_passed_over(proj: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (proj / "pyproject.toml").write_text('[tool.cotaudit]\nignore = ["TE_E006"]\n', encoding="utf-8")
    (proj / "sub").mkdir()
    (proj / "sub" / "pyproject.toml").write_text('[project]\nname = "x"\n', encoding="utf-8")
    shutil.copy(proj / SLIP, proj / "sub" / SLIP)
    assert _run(capsys, "check", f"sub/{SLIP}")[0] == 0  # the outer table applies


def test_cotaudit_toml_wins_over_pyproject_and_cli_wins_over_both(
    proj: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (proj / "pyproject.toml").write_text('[tool.cotaudit]\nignore = ["TE_E006"]\n', encoding="utf-8")
    (proj / "cotaudit.toml").write_text('select = ["TE_W"]\nfail-on = "warning"\n', encoding="utf-8")
    code, out, _ = _run(capsys, "check", SLIP, PARAM)
    assert code == 1 and E006 not in out and W001 in out  # cotaudit.toml: select TE_W, fail on it
    assert _run(capsys, "check", "--fail-on", "error", SLIP, PARAM)[0] == 0  # the flag beats the file
    assert _run(capsys, "check", "--select", "TE", "--fail-on", "error", SLIP)[0] == 1


def test_explicit_config_and_bad_files(proj: Path, capsys: pytest.CaptureFixture[str]) -> None:
    conf = proj / "ci.toml"
    conf.write_text('ignore = ["TE_E006"]\n', encoding="utf-8")
    assert _run(capsys, "check", "--config", "ci.toml", SLIP)[0] == 0
    conf.write_text('ignroe = ["TE_E006"]\n', encoding="utf-8")
    code, _, err = _run(capsys, "check", "--config", "ci.toml", SLIP)
    assert code == 2 and "unknown key 'ignroe'; did you mean 'ignore'?" in err
    conf.write_text("ignore = [\n", encoding="utf-8")
    assert "not valid TOML" in _run(capsys, "check", "--config", "ci.toml", SLIP)[2]
    conf.write_text('fail-on = "sometimes"\n', encoding="utf-8")
    assert "'fail-on' must be one of error, warning" in _run(capsys, "check", "--config", "ci.toml", SLIP)[2]


def test_per_engine_limits(proj: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # a budget no te check can meet makes te abstain (COTAUDIT_W001); other engines keep theirs
    _, out, _ = _run(capsys, "check", "--time-limit", "te=0.000001", "--format", "json", SLIP)
    assert json.loads(out)["verdict"] == "abstain"
    _, out, _ = _run(capsys, "check", "--time-limit", "type6=0.000001", "--format", "json", SLIP)
    assert json.loads(out)["verdict"] == "fail"  # near miss: another engine's limit
    (proj / "pyproject.toml").write_text(
        "[tool.cotaudit.engine.te]\ntime-limit = 0.000001\n", encoding="utf-8"
    )
    assert json.loads(_run(capsys, "check", "--format", "json", SLIP)[1])["verdict"] == "abstain"
    # a plain --time-limit on the command line replaces the file's limits for every engine
    assert (
        json.loads(_run(capsys, "check", "--time-limit", "60", "--format", "json", SLIP)[1])["verdict"]
        == "fail"
    )


def test_config_command_prints_the_resolved_configuration(
    proj: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (proj / "pyproject.toml").write_text(
        '[tool.cotaudit]\nignore = ["TE_W001"]\ntime-limit = 30\n[tool.cotaudit.engine.certify]\n'
        "time-limit = 120\n",
        encoding="utf-8",
    )
    code, out, _ = _run(capsys, "config", "--extend-select", "T6_W")
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == f"# configuration file: {(proj / 'pyproject.toml').resolve().as_posix()}"
    assert 'ignore = ["TE_W001"]' in lines and 'extend-select = ["T6_W"]' in lines
    assert "time-limit = 30" in lines and "[engine.certify]" in lines and "time-limit = 120" in lines
    assert "# not reported: TE_W001" in lines
    data = json.loads(_run(capsys, "config", "--format", "json", "--isolated")[1])
    assert data["file"] is None and data["ignore"] == [] and data["codes"]["not_reported"] == []


def test_inline_and_dotted_tables_are_found(proj: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (proj / "pyproject.toml").write_text('[tool]\ncotaudit = { ignore = ["TE_E006"] }\n', encoding="utf-8")
    assert _run(capsys, "check", SLIP)[0] == 0
    (proj / "pyproject.toml").write_text('tool.cotaudit.ignore = ["TE_E006"]\n', encoding="utf-8")
    assert _run(capsys, "check", SLIP)[0] == 0
    (proj / "pyproject.toml").write_text('[tool.other]\nignore = ["TE_E006"]\n', encoding="utf-8")
    assert _run(capsys, "check", SLIP)[0] == 1  # near miss: another tool's table


def test_batch_takes_its_limits_from_the_file(proj: Path, capsys: pytest.CaptureFixture[str]) -> None:
    items = proj / "in.jsonl"
    items.write_text(json.dumps({"id": "a", "engine": "te", "text": (proj / SLIP).read_text()}) + "\n")
    (proj / "pyproject.toml").write_text("[tool.cotaudit]\ntime-limit = 0.000001\n", encoding="utf-8")
    assert _run(capsys, "batch", str(items), "-o", str(proj / "out.jsonl"), "--quiet")[0] == 1
    header, report = (json.loads(line) for line in (proj / "out.jsonl").read_text().splitlines())
    assert header["config"]["time_limit"] == 0.000001 and report["verdict"] == "abstain"
    assert _run(capsys, "batch", str(items), "-o", str(proj / "o2.jsonl"), "--isolated", "--quiet")[0] == 1
    assert json.loads((proj / "o2.jsonl").read_text().splitlines()[1])["verdict"] == "fail"  # near miss
