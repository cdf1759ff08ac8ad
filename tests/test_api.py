"""The composition point: registry, R-3 detection, check / check_file / audit (with the fake engine)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import cotaudit
from cotaudit import api
from cotaudit.errors import (
    CotauditError,
    EngineUnavailable,
    InputError,
    MissingDependency,
    UnknownEngine,
    UnsupportedInput,
    UsageError,
    install_hint,
)
from cotaudit.report import InputRef, Report


@pytest.fixture(autouse=True)
def _unavailable_engine(fake_engine: str) -> None:
    """A made-up engine that is known but not implemented (``.ng.json``): the example of an
    unavailable engine now that vericot exists. conftest's ``fake_engine`` undoes it."""
    api.register_engine("nextgen", None, (".ng.json",))


# --------------------------------------------------------------------------- registry and detection


@pytest.mark.parametrize(
    ("name", "engine"),
    [
        ("janet.te", "te"),
        ("dir/x.t6", "type6"),
        ("a.vcot.json", "vericot"),
        ("a.ng.json", "nextgen"),
        ("kb/rules.kb", "certify"),
        ("q.cert.json", "certify"),
        ("x.fake", "fake"),
        ("x.json", None),
        ("x.jsonl", None),
        ("vcot.json", None),
        (".te", None),
        ("README.md", None),
        ("x.TE", None),
    ],
)
def test_engine_for_path(name: str, engine: str | None) -> None:
    assert api.engine_for_path(name) == engine


def test_builtin_registry() -> None:
    specs = {s.name: s for s in api.engines()}
    assert specs["te"].entry_point == "cotaudit.te:check" and specs["te"].extensions == (".te",)
    assert specs["vericot"].extensions == (".vcot.json",)
    assert specs["certify"].extensions == (".kb", ".cert.json")
    assert specs["vericot"].implemented
    assert not specs["nextgen"].implemented
    assert [s.name for s in api.engines()] == sorted(specs)


def test_is_jsonl() -> None:
    assert api.is_jsonl("a/items.jsonl") and not api.is_jsonl(".jsonl") and not api.is_jsonl("a.json")


def test_detect_unknown_extension() -> None:
    with pytest.raises(UnsupportedInput, match=r"notes\.md: cannot tell the engine .*give --engine"):
        api.detect_engine("notes.md")


@pytest.mark.parametrize(
    ("name", "entry", "exts", "message"),
    [
        ("x", "mod:fn", (".te",), "already belongs to engine 'te'"),
        ("x", "mod:fn", (".jsonl",), "invalid extension"),
        ("x", "mod:fn", ("te",), "invalid extension"),
        ("x-y", "mod:fn", (), "alphanumeric"),
        ("x", "mod.fn", (), "module:function"),
    ],
)
def test_register_rejects(name: str, entry: str, exts: tuple[str, ...], message: str) -> None:
    with pytest.raises(UsageError, match=message):
        api.register_engine(name, entry, exts)


def test_unknown_and_unavailable_engines() -> None:
    with pytest.raises(UnknownEngine, match="unknown engine 'nope'"):
        api.check("x", engine="nope")
    with pytest.raises(EngineUnavailable) as info:
        api.check("x", engine="nextgen")
    assert str(info.value) == "engine 'nextgen' is not available in this version of cotaudit"
    assert isinstance(info.value, CotauditError) and info.value.exit_code == 2


def _write_module(root: Path, name: str, source: str) -> None:
    (root / f"{name}.py").write_text(source, encoding="utf-8")


def test_string_entry_point_is_imported_lazily(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = (
        "from cotaudit.report import InputRef, Report\n"
        "def run(text, *, path=None, item_id=None):\n"
        "    return Report('lazy', 'lazy/1', InputRef.for_text(text, path, item_id), 'pass')\n"
    )
    _write_module(tmp_path, "cotaudit_test_lazy_engine", source)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "cotaudit_test_lazy_engine", raising=False)
    api.register_engine("lazy", "cotaudit_test_lazy_engine:run", (".lazy",))
    assert "cotaudit_test_lazy_engine" not in sys.modules
    report = api.check("hello", engine="lazy")
    assert "cotaudit_test_lazy_engine" in sys.modules
    assert report.engine == "lazy" and report.verdict == "pass"
    monkeypatch.delitem(sys.modules, "cotaudit_test_lazy_engine")


def test_entry_point_failures(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(tmp_path))
    _write_module(tmp_path, "cotaudit_test_needs_dep", "import z3_not_installed_xyz\n")
    _write_module(tmp_path, "cotaudit_test_broken", "raise ValueError('broken on import')\n")
    _write_module(tmp_path, "cotaudit_test_empty", "")
    for mod in ("cotaudit_test_needs_dep", "cotaudit_test_broken", "cotaudit_test_empty"):
        monkeypatch.delitem(sys.modules, mod, raising=False)
    api.register_engine("gone", "cotaudit_test_no_such_module:check")
    api.register_engine("needsdep", "cotaudit_test_needs_dep:check")
    api.register_engine("broken", "cotaudit_test_broken:check")
    api.register_engine("empty", "cotaudit_test_empty:check")
    with pytest.raises(EngineUnavailable, match="engine 'gone' is not available"):
        api.get_engine("gone")
    with pytest.raises(MissingDependency) as dep:
        api.get_engine("needsdep")
    assert dep.value.exit_code == 3 and dep.value.module == "z3_not_installed_xyz"
    with pytest.raises(EngineUnavailable, match="ValueError: broken on import"):
        api.get_engine("broken")
    with pytest.raises(EngineUnavailable, match="cotaudit_test_empty:check is missing"):
        api.get_engine("empty")


def test_install_hints() -> None:
    assert install_hint("z3", None) == "pip install 'cotaudit[z3]'"
    assert install_hint("openai.types", None) == "pip install 'cotaudit[llm]'"
    assert install_hint("lark") == "pip install lark"
    err = MissingDependency.from_import_error(ModuleNotFoundError("x", name="ray.util"))
    assert str(err) == f"missing optional dependency 'ray': {install_hint('ray')}"


def test_install_hints_fit_a_source_checkout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # issue 18: in a source checkout the hint is an editable install of that checkout
    from cotaudit.errors import source_checkout

    root = source_checkout()
    assert root is not None and (root / "src" / "cotaudit").is_dir()  # these tests run from one
    monkeypatch.chdir(root)
    assert install_hint("z3") == "pip install -e '.[z3]'"
    monkeypatch.chdir(tmp_path)
    assert install_hint("ray") == f"pip install -e '{root.as_posix()}[ray]'"
    assert install_hint("ray", None) == "pip install 'cotaudit[ray]'"  # near miss: an installed wheel


# --------------------------------------------------------------------------- check


def test_check_pass_and_fail() -> None:
    ok = api.check("fine\n", engine="fake", path="a.fake", item_id="a")
    assert ok.verdict == "pass" and ok.findings == ()
    assert ok.input == InputRef.for_text("fine\n", "a.fake", "a")
    assert isinstance(ok.timing_ms, float) and ok.timing_ms >= 0
    bad = api.check("ok\nxx BAD\n", engine="fake")
    assert bad.verdict == "fail"
    assert [(f.code, f.location.line, f.evidence["column"]) for f in bad.findings] == [("FAKE_E001", 2, 4)]


def test_check_passes_options_and_rejects_unknown_ones() -> None:
    assert api.check("WARN", engine="fake").verdict == "pass"
    assert api.check("WARN", engine="fake", strict=True).verdict == "fail"
    with pytest.raises(UsageError, match=r"engine 'fake'.*colour"):
        api.check("x", engine="fake", colour=True)


def test_engine_crash_becomes_invalid_report() -> None:
    report = api.check("a\nCRASH\n", engine="fake", path="c.fake", item_id="c")
    assert report.verdict == "invalid" and report.findings == ()
    assert report.details["error"] == (
        "internal error in engine 'fake': RuntimeError: fake engine crashed on line 2"
    )
    assert report.details["exception"] == "RuntimeError"
    assert report.engine == "fake" and report.engine_version == f"cotaudit/{cotaudit.__version__}"
    assert report.input == InputRef.for_text("a\nCRASH\n", "c.fake", "c")


def test_missing_dependency_inside_engine() -> None:
    with pytest.raises(MissingDependency) as caught:
        api.check("NEEDZ3", engine="fake")
    assert caught.value.hint == install_hint("z3") and "[z3]'" in caught.value.hint


def test_an_engines_own_error_is_an_invalid_report_not_an_escape() -> None:
    # the fuzzer found certify's StoreError leaving api.check: the CLI then stopped the whole
    # run. Only the caller's errors (a bad option, a missing extra) are raised.
    class StoreBroke(CotauditError):
        pass

    def broken(text: str, **options: Any) -> Any:
        if text == "usage":
            raise UsageError("engine 'picky': no such option")  # the near miss: still raised
        raise StoreBroke("query id 'q3' was already answered")

    api.register_engine("picky", broken)
    report = api.check("x", engine="picky")
    assert report.verdict == "invalid" and report.details["exception"] == "StoreBroke"
    assert "internal error in engine 'picky'" in report.details["error"]
    with pytest.raises(UsageError, match="no such option"):
        api.check("usage", engine="picky")


def test_engine_returning_garbage_is_invalid() -> None:
    def garbage(text: str, **options: Any) -> Any:
        return {"verdict": "pass"}

    api.register_engine("garbage", garbage)
    report = api.check("x", engine="garbage")
    assert report.verdict == "invalid" and "returned dict, not a Report" in report.details["error"]


def test_engine_timing_is_kept_when_given() -> None:
    def timed(text: str, *, path: str | None = None, item_id: str | None = None) -> Report:
        return Report("timed", "t/1", InputRef.for_text(text), "pass", timing_ms=7.0)

    api.register_engine("timed", timed)
    assert api.check("x", engine="timed").timing_ms == 7.0


# --------------------------------------------------------------------------- check_file


def test_check_file_trace(tmp_path: Path) -> None:
    f = tmp_path / "janet.fake"
    f.write_bytes(b"ok\r\nBAD\n")
    (report,) = api.check_file(f)
    assert report.input.id == "janet" and report.input.path == f.as_posix()
    assert report.verdict == "fail" and report.findings[0].location.line == 2


def test_check_file_engine_override(tmp_path: Path) -> None:
    f = tmp_path / "notes.md"
    f.write_text("BAD", encoding="utf-8")
    with pytest.raises(UnsupportedInput):
        api.check_file(f)
    (report,) = api.check_file(f, engine="fake")
    assert report.verdict == "fail" and report.input.id == "notes"


def test_check_file_unreadable(tmp_path: Path) -> None:
    with pytest.raises(InputError, match=r"missing\.fake: no such file$"):
        api.check_file(tmp_path / "missing.fake")
    with pytest.raises(InputError, match="is a directory"):
        api.check_file(tmp_path)
    bad = tmp_path / "latin.fake"
    bad.write_bytes(b"caf\xe9 ok\n")
    with pytest.raises(InputError) as info:
        api.check_file(bad)
    assert str(info.value) == f"{bad.as_posix()}: not UTF-8 text (byte 0xe9 at offset 3)"


def test_check_file_unavailable_engine(tmp_path: Path) -> None:
    f = tmp_path / "x.ng.json"
    f.write_text("x", encoding="utf-8")
    with pytest.raises(
        EngineUnavailable, match="engine 'nextgen' is not available in this version of cotaudit"
    ):
        api.check_file(f)


JSONL = """\
{"id": "a", "engine": "fake", "text": "fine"}
{"id": 7, "engine": "fake", "text": "BAD"}

{"engine": "fake", "text": "no id"}
{"id": "noengine", "text": "BAD"}
this is not json
[1, 2]
{"id": "t6", "engine": "nextgen", "text": "x"}
{"id": "zz", "engine": "zz", "text": "x"}
{"id": "notext", "engine": "fake", "text": 3}
{"id": ["x"], "engine": "fake", "text": "x"}
{"id": "crash", "engine": "fake", "text": "CRASH"}
"""


def test_jsonl_items(tmp_path: Path) -> None:
    f = tmp_path / "items.jsonl"
    f.write_text(JSONL, encoding="utf-8")
    reports = api.check_file(f)
    got = [(r.input.id, r.engine, r.verdict, r.details.get("error")) for r in reports]
    assert got == [
        ("a", "fake", "pass", None),
        ("7", "fake", "fail", None),
        ("line-4", "fake", "pass", None),
        ("noengine", "unknown", "invalid", "line 5: no 'engine' field (give --engine)"),
        ("line-6", "unknown", "invalid", "line 6: not JSON (Expecting value)"),
        ("line-7", "unknown", "invalid", "line 7: not a JSON object"),
        ("t6", "nextgen", "invalid", "line 8: engine 'nextgen' is not available in this version of cotaudit"),
        ("zz", "zz", "invalid", got[7][3]),
        ("notext", "fake", "invalid", "line 10: 'text' must be a string"),
        ("line-11", "fake", "invalid", "line 11: 'id' must be a string or an integer"),
        (
            "crash",
            "fake",
            "invalid",
            "internal error in engine 'fake': RuntimeError: fake engine crashed on line 1",
        ),
    ]
    assert str(got[7][3]).startswith("line 9: unknown engine 'zz'")
    assert all(r.input.path == f.as_posix() for r in reports)
    assert all(r.findings == () for r in reports if r.verdict == "invalid")


def test_jsonl_default_engine_fills_only_missing_fields(tmp_path: Path) -> None:
    f = tmp_path / "items.jsonl"
    f.write_text(
        '{"id": "x", "text": "BAD"}\n{"id": "y", "engine": "nextgen", "text": "BAD"}\n', encoding="utf-8"
    )
    x, y = api.check_file(f, engine="fake")
    assert (x.engine, x.verdict) == ("fake", "fail")
    assert (y.engine, y.verdict) == ("nextgen", "invalid")


def test_iter_reports_reads_everything_first(tmp_path: Path) -> None:
    good = tmp_path / "a.fake"
    good.write_text("CRASH", encoding="utf-8")
    with pytest.raises(InputError):
        list(api.iter_reports([good, tmp_path / "missing.fake"]))
    assert [r.verdict for r in api.iter_reports([good, good])] == ["invalid", "invalid"]


# --------------------------------------------------------------------------- audit


def _tree(root: Path) -> None:
    files = {
        "b.fake": "BAD here\n",
        "a.fake": "fine\n",
        "sub/deeper/c.fake": "WARN\n",
        "sub/d.fake": "UNSURE\n",
        "sub/notes.md": "BAD\n",
        "sub/x.ng.json": "x\n",
        "sub/log.jsonl": '{"id": "z", "engine": "fake", "text": "BAD"}\n',
        ".hidden/e.fake": "BAD\n",
        "sub/.git/f.fake": "BAD\n",
    }
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    (root / "sub" / "latin.fake").write_bytes(b"\xff\n")


def test_audit_tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _tree(tmp_path)
    monkeypatch.chdir(tmp_path)
    result = api.audit(["."])
    assert [(r.input.path, r.verdict) for r in result.reports] == [
        ("a.fake", "pass"),
        ("b.fake", "fail"),
        ("sub/d.fake", "abstain"),
        ("sub/deeper/c.fake", "pass"),
        ("sub/latin.fake", "invalid"),
    ]
    latin = result.reports[-1]
    assert latin.details["error"] == "not UTF-8 text (byte 0xff at offset 0)"
    assert latin.engine == "fake" and len(latin.input.sha256) == 64
    assert [(s.path, s.kind) for s in result.skipped] == [
        ("sub/log.jsonl", "jsonl"),
        ("sub/notes.md", "unsupported"),
        ("sub/x.ng.json", "unavailable"),
    ]
    assert result.skipped[2].reason == "engine 'nextgen' is not available in this version of cotaudit"


def test_audit_explicit_files_and_dedupe(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    _tree(tmp_path)
    monkeypatch.chdir(tmp_path)
    result = api.audit(["sub/log.jsonl", "b.fake", "./b.fake", "sub/notes.md"])
    assert [(r.input.path, r.input.id, r.verdict) for r in result.reports] == [
        ("sub/log.jsonl", "z", "fail"),
        ("b.fake", "b", "fail"),
    ]
    assert [s.path for s in result.skipped] == ["sub/notes.md"]


def test_audit_empty_and_missing(tmp_path: Path) -> None:
    assert api.audit([tmp_path]) == api.AuditResult((), ())
    with pytest.raises(InputError, match="no such file or directory"):
        api.audit([tmp_path / "nope"])


# --------------------------------------------------------------------------- the package


def test_package_exports() -> None:
    assert (
        cotaudit.check is api.check and cotaudit.check_file is api.check_file and cotaudit.audit is api.audit
    )
    assert cotaudit.Report is Report
    assert isinstance(cotaudit.__version__, str)
    assert cotaudit.check("BAD", engine="fake").verdict == "fail"


def test_missing_engine_package_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        _ = cotaudit.nothing


def test_engine_subpackages_are_lazy() -> None:
    code = (
        "import sys, cotaudit\n"
        "assert 'cotaudit.te' not in sys.modules, 'te imported eagerly'\n"
        "heavy = [m for m in ('sympy', 'pint', 'z3') if m in sys.modules]\n"
        "assert not heavy, heavy\n"
        "assert cotaudit.te.__name__ == 'cotaudit.te'\n"
        "try:\n"
        "    cotaudit.type6\n"
        "except AttributeError as exc:\n"
        "    assert 'not available' in str(exc)\n"
        "else:\n"
        "    assert 'cotaudit.type6' in sys.modules\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )
    assert proc.returncode == 0, proc.stderr
