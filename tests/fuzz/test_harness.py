"""The fuzz harness itself: deterministic inputs, bounded mutators, and a guard that catches
every failure kind (driven by the probe engine of :mod:`tests.fuzz.probe`)."""

from __future__ import annotations

import hashlib
import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from .__main__ import main as fuzz_main
from .guard import GuardSettings
from .mutators import MAX_INPUT_CHARS, TEXT_MUTATORS, Context, json_mutate, mutate
from .runner import RunConfig, RunResult, decode_input, diff_path, encode_input, run
from .targets import REPO, TARGETS, FuzzInput, context, load_plugin, make_input, seeds

PLUGIN = "tests.fuzz.probe"
load_plugin(f"{__package__}.probe", worker=False)  # the probe target, not its engine
PROBE_TEXTS = (
    "OK",
    "HANG",
    "OK after a hang",
    "ALLOC",
    "SEGV",
    "ESCAPE",
    "BOOM",
    "SURROGATE",
    "BADWRITE",
    "HASHSEED",
    "FLIP",
    "SLOWWRITE",
    "OK at the end",
)
PROBE_GUARD = GuardSettings(budget_s=1.0, slack_s=4.0, memory_mb=64, memory_slack_mb=192)


def _digests(seed: int, indexes: range) -> list[str]:
    return [
        hashlib.sha256(encode_input(make_input(t.name, seed, i).text)).hexdigest()
        for t in TARGETS
        for i in indexes
    ]


DIGEST_SCRIPT = """
import hashlib, json, sys
from tests.fuzz.targets import TARGETS, make_input
from tests.fuzz.runner import encode_input
order = [(t.name, i) for t in TARGETS for i in range(40)]
got = {f"{n}/{i}": hashlib.sha256(encode_input(make_input(n, 7, i).text)).hexdigest() for n, i in reversed(order)}
print(json.dumps([got[f"{n}/{i}"] for n, i in order]))
"""


def test_inputs_are_the_same_in_every_process_and_order() -> None:
    here = _digests(7, range(40))
    for hash_seed in ("1", "4242"):
        env = {**os.environ, "PYTHONHASHSEED": hash_seed}
        out = subprocess.run(
            [sys.executable, "-c", DIGEST_SCRIPT],
            cwd=REPO,
            env=env,
            capture_output=True,
            timeout=300,
            check=True,
        )
        assert json.loads(out.stdout) == here  # later inputs computed first, another hash seed
    assert _digests(8, range(40)) != here  # near miss: another run seed gives other inputs


def test_the_first_inputs_of_a_target_are_its_seeds_unchanged() -> None:
    for t in TARGETS:
        pool = seeds(t.name)
        assert [make_input(t.name, 3, i).text for i in range(len(pool))] == [text for _, text in pool]
        assert make_input(t.name, 3, len(pool)).mutators  # and after them, mutants


@pytest.mark.parametrize("name", [t.name for t in TARGETS])
def test_every_mutator_returns_bounded_text_for_every_seed(name: str) -> None:
    ctx = context(name)
    for n, (_, text) in enumerate(seeds(name)):
        for fn, _, _ in [*TEXT_MUTATORS, (json_mutate, 1, False)]:
            rng = random.Random(f"{name}/{n}/{fn.__name__}")
            out = fn(rng, text, ctx)
            assert isinstance(out, str)
            assert len(out) <= MAX_INPUT_CHARS


BIG_TEXTS = {
    "one 4 MiB line": "x" * MAX_INPUT_CHARS,
    "2M short lines": "a\n" * (MAX_INPUT_CHARS // 2),
    "4 MiB of JSON": json.dumps([[["b" * 100] * 100] * 400]),
}


@pytest.mark.parametrize("shape", list(BIG_TEXTS))
def test_mutators_stay_bounded_on_an_input_that_is_already_at_the_cap(shape: str) -> None:
    text = BIG_TEXTS[shape]  # what an earlier mutator of the same input may have made
    for fn, _, _ in [*TEXT_MUTATORS, (json_mutate, 1, False)]:
        for i in range(3):
            out = fn(random.Random(f"{shape}/{fn.__name__}/{i}"), text, context("vericot"))
            # mutate() cuts every result back to the cap; one mutator at most doubles its
            # input and adds one piece of at most 1 MiB
            assert len(out) <= 2 * MAX_INPUT_CHARS + 2**20, fn.__name__


def test_confusables_on_a_big_text_never_swaps_a_place_twice() -> None:
    # the 30-minute run stopped on KeyError: a random probe of a 100k+ text found one place
    # twice, and its second swap looked up the lookalike the first had put there
    from .mutators import confusables

    class SamePlace(random.Random):  # every probe lands on the same place
        def randrange(self, *args: Any, **kwargs: Any) -> int:
            return 7

    text = "i" * 150_000
    for seed in range(20):
        out = confusables(SamePlace(seed), text, Context())
        changed = sum(a != b for a, b in zip(out, text, strict=True))
        assert changed in (1, len(text))  # the one place probed, or every "i" (the every-branch)
    assert confusables(SamePlace(0), "z" * 150_000, Context()) == "z" * 150_000  # near miss


def test_structure_aware_mutation_mostly_stays_json_and_changes_it() -> None:
    text = seeds("vericot")[0][1]
    parsed = changed = 0
    for i in range(200):
        out = json_mutate(random.Random(i), text, Context())
        changed += out != text
        try:
            json.loads(out)
        except (ValueError, RecursionError):
            continue
        parsed += 1
    assert changed >= 190
    assert parsed >= 100  # it reaches the engine past the JSON parser (huge ints and deep nests do not)


def test_mutate_reaches_every_mutator_and_applies_at_most_one_big_one() -> None:
    seen: set[str] = set()
    text = seeds("te")[0][1]
    ctx = context("te")
    for i in range(1500):
        _, names = mutate(random.Random(i), text, ctx, json_aware=i % 2 == 0)
        seen.update(names)
        assert sum(n in ("many_lines", "long_line") for n in names) <= 1
    assert seen == {fn.__name__ for fn, _, _ in TEXT_MUTATORS} | {"json_mutate"}


def test_reproducer_bytes_keep_lone_surrogates() -> None:
    text = "a\ud800b\udfff\x00\u2028"
    assert decode_input(encode_input(text)) == text


def test_diff_path_names_the_first_difference() -> None:
    a = json.dumps({"details": {"order": ["a", "b"], "x": 1}, "verdict": "pass"})
    b = json.dumps({"details": {"order": ["b", "a"], "x": 1}, "verdict": "pass"})
    assert diff_path(a, b) == "details.order[0]"
    assert diff_path(a, a) == "(root)"
    assert diff_path(a, a[:-3]).startswith("?")


# --------------------------------------------------------------------------- the guard, with the probe


@pytest.fixture(scope="module")
def probe_run(tmp_path_factory: pytest.TempPathFactory) -> tuple[RunResult, Path]:
    crash_dir = tmp_path_factory.mktemp("crashes")
    inputs = [FuzzInput("probe", 0, i, "-", (), t) for i, t in enumerate(PROBE_TEXTS)]
    config = RunConfig(
        targets=("probe",), det_every=1, guard=PROBE_GUARD, crash_dir=crash_dir, plugins=(PLUGIN,)
    )
    return run(config, inputs), crash_dir


def _outcome(result: RunResult, text: str) -> list[tuple[str, str]]:
    return result.outcomes.get(("probe", PROBE_TEXTS.index(text)), [])


def test_guard_kills_a_hang_and_the_next_input_still_runs(probe_run: tuple[RunResult, Path]) -> None:
    result, _ = probe_run
    [(kind, sig)] = _outcome(result, "HANG")
    assert kind == "over_budget" and sig.startswith("time: killed") and "in the check" in sig
    assert _outcome(result, "OK after a hang") == []
    assert result.verdicts[("probe", PROBE_TEXTS.index("OK after a hang"))] == "pass"


def test_guard_kills_on_memory(probe_run: tuple[RunResult, Path]) -> None:
    [(kind, sig)] = _outcome(probe_run[0], "ALLOC")
    assert kind == "over_budget" and sig.startswith("memory: killed")


def test_a_dead_worker_is_an_escape(probe_run: tuple[RunResult, Path]) -> None:
    [(kind, sig)] = _outcome(probe_run[0], "SEGV")
    assert kind == "escaped" and "SIGSEGV" in sig


def test_an_exception_out_of_check_is_an_escape(probe_run: tuple[RunResult, Path]) -> None:
    assert _outcome(probe_run[0], "ESCAPE") == [("escaped", "UsageError at cotaudit/api.py:check")]


def test_an_internal_error_report_is_caught_with_the_engine_frame(probe_run: tuple[RunResult, Path]) -> None:
    assert _outcome(probe_run[0], "BOOM") == [("internal", "RuntimeError at probe.py:probe_check")]


def test_a_writer_that_cannot_write_its_output_is_an_escape(probe_run: tuple[RunResult, Path]) -> None:
    [(kind, sig)] = _outcome(probe_run[0], "BADWRITE")
    assert kind == "escaped" and sig.startswith("writer text:") and "RuntimeError" in sig, sig


def test_a_lone_surrogate_in_a_finding_is_written_by_every_writer(probe_run: tuple[RunResult, Path]) -> None:
    result, _ = probe_run
    assert _outcome(result, "SURROGATE") == []  # near miss of the above: escaped as \\ud800
    assert result.verdicts[("probe", PROBE_TEXTS.index("SURROGATE"))] == "fail"


def test_a_hanging_writer_is_over_budget(probe_run: tuple[RunResult, Path]) -> None:
    [(kind, sig)] = _outcome(probe_run[0], "SLOWWRITE")
    assert kind == "over_budget" and "text writer" in sig


def test_output_that_follows_the_hash_seed_is_nondeterministic(probe_run: tuple[RunResult, Path]) -> None:
    [(kind, sig)] = _outcome(probe_run[0], "HASHSEED")
    assert kind == "nondeterministic" and sig.startswith("report differs at details.order")


def test_a_budget_abstain_in_one_process_only_is_not_counted(probe_run: tuple[RunResult, Path]) -> None:
    result, _ = probe_run
    assert _outcome(result, "FLIP") == []
    assert result.summary.stats["probe"].budget_dependent == 1


def test_clean_inputs_pass_and_the_summary_counts_each_kind(probe_run: tuple[RunResult, Path]) -> None:
    result, _ = probe_run
    for text in ("OK", "OK at the end"):
        assert _outcome(result, text) == []
    s = result.summary.stats["probe"]
    assert (s.inputs, s.escaped, s.internal, s.over_budget, s.nondeterministic) == (13, 3, 1, 3, 1)
    assert s.det_checked >= 6
    assert not result.summary.ok
    table = result.summary.render()
    assert "probe" in table and "FAIL: 8 failure(s)" in table


def test_failures_are_saved_as_replayable_reproducers(probe_run: tuple[RunResult, Path]) -> None:
    _, crash_dir = probe_run
    bins = sorted((crash_dir / "probe").glob("*.bin"))
    texts = {decode_input(p.read_bytes()) for p in bins}
    assert texts == {"HANG", "ALLOC", "SEGV", "ESCAPE", "BOOM", "BADWRITE", "HASHSEED", "SLOWWRITE"}
    boom = next(p for p in bins if p.read_bytes() == b"BOOM")
    meta = json.loads(boom.with_suffix(".json").read_text(encoding="utf-8"))
    assert meta["target"] == "probe" and meta["failures"][0]["kind"] == "internal"
    assert meta["replay"].startswith("python -m tests.fuzz --replay ")

    replay = [sys.executable, "-m", "tests.fuzz", "--plugin", PLUGIN, "--replay"]
    failed = subprocess.run([*replay, str(boom)], cwd=REPO, capture_output=True, text=True, timeout=600)
    assert failed.returncode == 1
    assert "RuntimeError at probe.py:probe_check" in failed.stdout and "probe exploded" in failed.stdout
    ok = crash_dir / "probe" / "clean.bin"
    ok.write_bytes(b"OK")
    passed = subprocess.run([*replay, str(ok)], cwd=REPO, capture_output=True, text=True, timeout=600)
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "PASS: no failures" in passed.stdout


def test_cli_refuses_an_unknown_target() -> None:
    with pytest.raises(SystemExit, match="unknown target"):
        fuzz_main(["--inputs", "1", "--targets", "te,nope"])


def test_the_probe_engine_exists_only_in_the_workers() -> None:
    from cotaudit import api

    assert "probe" not in {s.name for s in api.engines()}  # other tests never see it
