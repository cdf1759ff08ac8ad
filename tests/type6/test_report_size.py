"""Result documents and R-1 reports are bounded and linear in the input (issue 14).

The reports used to be 28–470× their input: every event listed twice (event and finding),
S05/D02 path-id lists as long as the path set, 200 listed paths each as long as the trace, and
every per-statement record listed however many. Now the listings are cut (listing.py) and the
cut is stated in ``truncated``, while the analysis still covers everything.

Sizes are the R-1 JSON as ``cotaudit check --format json --no-timing`` writes it. The bound
the data justify is ``10 × input + 576 KiB``: a document always has a fixed part (config,
coherence criteria, summary) and lists small traces completely (the 512 KiB floor: every
golden, a 300-statement trace of ordinary lines), so the ratio is large only for small inputs
and stays below 10 from 256 KiB on (5–9× at 0.3–3 MB).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cotaudit import type6
from cotaudit.report.jsonout import render_json
from cotaudit.type6 import listing, sizes
from cotaudit.type6.paths import enumerate_paths
from cotaudit.type6.projection import PathView, project
from cotaudit.type6.result import finding_record, path_record
from cotaudit.type6.signals import run_sequential

from .strategies import statement_line

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "type6"
KIB = 1024
FIXED = 576 * KIB
FACTOR = 10


def alternating(size: int) -> str:
    """The issue's input: ``T  K p0 : f`` / ``T  K NOT p0 : f``, one T6_H01 per line."""
    lines, total, k = [], 0, 0
    while total < size:
        line = "T  K p0 : f\n" if k % 2 == 0 else "T  K NOT p0 : f\n"
        lines.append(line)
        total += len(line)
        k += 1
    return "".join(lines)


def scaled(name: str, size: int) -> str:
    """A bundled example's body repeated (propositions renamed per copy) up to ``size`` bytes."""
    lines = [ln for ln in (EXAMPLES / f"{name}.t6").read_text().splitlines() if ln.strip() and ln[0] != "#"]
    head, body, tail = lines[0], lines[1:-1], lines[-1]
    out, total, j = [head], len(head) + len(tail) + 2, 0
    while total < size:
        for ln in body:
            copy = re.sub(r"\bp(\d+)\b", lambda m, j=j: f"p{m.group(1)}_{j}", ln)
            out.append(copy)
            total += len(copy) + 1
        j += 1
    return "\n".join([*out, tail]) + "\n"


def report_bytes(text: str, **options: Any) -> tuple[int, dict[str, Any]]:
    report = type6.check(text, path="trace.t6", item_id="trace", **options)
    out = render_json([report], single=True, timing=False)
    return len(out.encode("utf-8")), dict(report.details)


SIZES = [1 * KIB, 16 * KIB, 256 * KIB]


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s // KIB}KiB")
@pytest.mark.parametrize("make", ["alternating", "chinese_nation", "memories"])
def test_report_bytes_are_linear_in_the_input(make: str, size: int) -> None:
    text = alternating(size) if make == "alternating" else scaled(make, size)
    n = len(text.encode("utf-8"))
    produced, details = report_bytes(text)
    assert produced <= FACTOR * n + FIXED, (n, produced)
    if n >= 256 * KIB:
        assert produced <= FACTOR * n
    assert details["status"] == "ok"


@pytest.mark.slow
@pytest.mark.parametrize("make", ["alternating", "chinese_nation", "memories"])
def test_three_megabyte_inputs(make: str) -> None:
    # 100,000 statements is the Y-13 cap: the alternating lines carry longer text to reach 3 MB
    text = alternating(1_400_000).replace(": f\n", ": " + "f" * 15 + "\n") if make == "alternating" else None
    text = text if text is not None else scaled(make, 3_000_000 if make == "chinese_nation" else 1_700_000)
    n = len(text.encode("utf-8"))
    produced, details = report_bytes(text)
    assert produced <= FACTOR * n, (n, produced)
    assert details["truncated"]


def test_truncation_is_stated_and_the_analysis_is_whole() -> None:
    text = alternating(64 * KIB)
    n = text.count("\n")
    _, cut_doc = report_bytes(text)
    _, whole = report_bytes(text, report_bytes_per_input_byte=1_000, max_events_per_code=10**6)
    assert whole["truncated"] == {}  # near miss: a large enough allowance lists everything
    cut = cut_doc["truncated"]
    # the verdict, scores and counts never depend on what is listed
    assert cut_doc["summary"] == {**whole["summary"], "chain": cut_doc["summary"]["chain"]}
    assert cut_doc["summary"]["event_counts"]["T6_H01"] == n - 1
    events = cut_doc["sequential"]["events"]
    assert [e["code"] for e in events] == ["T6_H01"] * 100 + ["T6_W03", "T6_W08", "T6_H05"]
    assert cut["sequential.events"] == {"T6_H01": n - 101}
    # the listed statements are a prefix, with exactly the graph they built
    listed = len(cut_doc["sequential"]["statements"])
    assert 0 < listed < n and cut["sequential.statements"] == n - listed
    assert [s["index"] for s in cut_doc["sequential"]["statements"]] == list(range(1, listed + 1))
    nodes = {node["id"] for node in cut_doc["graph"]["nodes"]}
    edges = cut_doc["graph"]["edges"]
    assert all(e["src"] in nodes and e["dst"] in nodes and e["stmt"] <= listed for e in edges)
    assert len(edges) + cut["graph.edges"] == len(whole["graph"]["edges"])
    assert len(nodes) + cut["graph.nodes"] == len(whole["graph"]["nodes"])


def test_findings_follow_the_listed_events_and_keep_every_kind() -> None:
    report = type6.check(alternating(64 * KIB))
    assert report.verdict == "fail"
    codes = [f.code for f in report.findings]
    assert codes.count("T6_E101") == 100 and len(codes) == len(report.details["sequential"]["events"])
    # the first event of each code is listed whatever the allowance, so a hard one keeps its finding
    tight = type6.check(alternating(64 * KIB), report_floor_bytes=0, report_bytes_per_input_byte=0)
    assert tight.verdict == "fail" and "T6_E101" in [f.code for f in tight.findings]
    assert tight.details["truncated"]["sequential.statements"] > 0


def test_path_id_lists_are_capped() -> None:
    lines = (EXAMPLES / "G15_disagreement.t6").read_text().strip().split("\n")
    text = "\n".join([*lines[:-1], "T p3 : again", "T p2 : again", "T p3 : again", lines[-1]])
    doc = type6.verify(text, type6.Config(max_listed_path_ids=1)).document
    (s05,) = [e for e in doc["sequential"]["events"] if e["code"] == "T6_S05"]
    assert s05["data"]["values"] == {"T": [6], "F": [1]}
    assert s05["data"]["omitted"] == {"T": 6, "F": 4} and doc["truncated"] == {"path_ids": 10}
    assert doc["per_path"]["disagreements"][0]["omitted"] == {"T": 6, "F": 4}
    # near miss: under the default cap nothing is cut and there is no "omitted"
    whole = type6.verify(text).document
    (s05,) = [e for e in whole["sequential"]["events"] if e["code"] == "T6_S05"]
    assert "omitted" not in s05["data"] and len(s05["data"]["values"]["T"]) == 7


def test_listed_paths_fit_the_allowance() -> None:
    lines = ["T q : Q", "T p1 : x"]
    for _ in range(12):
        lines += ["T p2 : y", "T p1 : x"]
    text = "\n".join([*lines, "T THEN a : A"])
    doc = type6.verify(text).document
    per_path = doc["per_path"]
    assert per_path["count"] > per_path["listed"] > 0
    assert doc["truncated"]["per_path.paths"] == per_path["count"] - per_path["listed"]


def test_many_invalid_lines_list_a_bounded_number_of_diagnostics() -> None:
    text = "no colon here\n" * 20_000
    produced, details = report_bytes(text)
    assert details["status"] == "invalid" and len(details["diagnostics"]) == 100
    assert details["truncated"] == {"diagnostics": {"T6_E02": 19_900}}
    assert produced <= FACTOR * len(text) + FIXED


def test_small_traces_are_listed_completely() -> None:
    for path in sorted(EXAMPLES.glob("*.t6")):
        assert type6.verify(path.read_text()).document["truncated"] == {}, path.name
    lines = ["T q : Q"] + [f"T  K p{k} : A statement of ordinary length, number {k}." for k in range(300)]
    doc = type6.verify("\n".join([*lines, "T THEN a : A"]), type6.Config(path_mode="off")).document
    assert doc["truncated"] == {} and len(doc["sequential"]["statements"]) == 302


# -- the size bounds the listing relies on are sound -------------------------------------------

ODD_TEXT = st.text(
    alphabet=st.sampled_from(['"', "\\", "\x00", "é", "\U0001f600", "\ud800", "a", " "]), max_size=80
)


def _views(text: str) -> tuple[Any, Any, list[PathView]]:
    trace = type6.parse_t6(text)
    run = run_sequential(trace.statements)
    if run.source is None:
        return trace, run, []
    found = enumerate_paths(
        run.graph.edges, run.source, run.sink, max_paths=50, max_loopbacks=1, max_expansions=10**5
    )
    return trace, run, project(run, found.paths, list(run.seq.events), None)


@given(st.lists(st.tuples(statement_line(), ODD_TEXT), max_size=14))
@settings(max_examples=150, deadline=None)
def test_the_size_bounds_are_upper_bounds(body: list[tuple[str, str]]) -> None:
    """Every bound the listing trusts is at least the R-1 JSON it stands for, whatever the
    text holds (quotes, backslashes, control characters, astral characters, lone surrogates)."""
    lines = ["T q : Q", *(line.replace(": text", ": " + text) for line, text in body)]
    text = "\n".join([*lines, "T THEN a : A"]) + "\n"
    doc = type6.verify(text, type6.Config(path_mode="off")).document
    if doc["status"] != "ok":
        return
    trace, run, views = _views(text)
    exact = sum(
        sizes.exact(x, 4) + 10
        for key in ("statements", "constraints", "final_state")
        for x in doc["sequential"][key]
    )
    exact += sum(sizes.exact(x, 4) + 10 for key in ("nodes", "edges") for x in doc["graph"][key])
    exact += sum(sizes.exact(p, 5) + 12 for p in doc["summary"]["chain"]["propositions"])
    n = len(trace.statements)
    size = listing.trace_size(trace.statements, trace.meta, trace.id)
    assert listing._Records(trace, run).bound(1, n + 1) >= exact
    assert sizes.rough_listing_bound(run, n, size) >= exact
    events = doc["sequential"]["events"]
    exact_events = sum(sizes.exact(e, 4) + 10 + sizes.exact(finding_record(e), 2) + 6 for e in events)
    assert sizes.events_bound(events) >= exact_events
    for v in views:
        assert sizes.paths_bound([v], run) >= sizes.exact(path_record(v), 4) + 10


@pytest.mark.parametrize("chars", ['"\\\x00', "é\U0001f600\ud800", "plain text, no escapes "])
def test_the_statement_bound_is_sound_and_tight(chars: str) -> None:
    body = [f"T  K p{k} : {chars * 30}" for k in range(60)]
    text = "\n".join(["T q : Q", *body, "T THEN a : A"]) + "\n"
    doc = type6.verify(text, type6.Config(path_mode="off")).document
    trace, run, _ = _views(text)
    exact = sum(
        sizes.exact(x, 4) + 10
        for key in ("statements", "constraints", "final_state")
        for x in doc["sequential"][key]
    )
    exact += sum(sizes.exact(x, 4) + 10 for key in ("nodes", "edges") for x in doc["graph"][key])
    exact += sum(sizes.exact(p, 5) + 12 for p in doc["summary"]["chain"]["propositions"])
    bound = listing._Records(trace, run).bound(1, len(trace.statements) + 1)
    assert exact <= bound <= 1.25 * exact
