"""Property tests (hypothesis): robustness, determinism, round trips and the metatheory (Y-12, Y-40,
Y-41, Y-83, Y-94), and the path searches against straightforward reference implementations."""

from __future__ import annotations

import json
import random
from collections.abc import Sequence

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cotaudit import type6
from cotaudit.type6.constraints import CONFLICT, PIN, UNVERIFIABLE
from cotaudit.type6.graph import LOOPBACK, Edge, reenters
from cotaudit.type6.paths import enumerate_paths, sample_paths
from cotaudit.type6.sequential import Sequential
from cotaudit.type6.signals import run_sequential

from .strategies import TOKEN_SOUP, statement_line, trace_text

SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
OFF = type6.Config(path_mode="off")


@SETTINGS
@given(st.text(max_size=300))
def test_random_text_never_raises(text: str) -> None:
    result = type6.verify(text)
    assert result.status in ("ok", "invalid")
    type6.to_svg(result)
    type6.to_dot(result)
    assert type6.check(text).verdict in ("pass", "fail", "invalid")


@SETTINGS
@given(st.lists(TOKEN_SOUP, max_size=10))
def test_token_soup_never_raises(lines: list[str]) -> None:
    result = type6.verify("\n".join(lines))
    if result.status == "invalid":
        assert result.diagnostics and result.hard_fail is None and result.scores is None
    else:
        assert 0 <= result.score <= 5  # type: ignore[operator]


@SETTINGS
@given(trace_text())
def test_deterministic(text: str) -> None:
    assert type6.verify(text).model_dump_json() == type6.verify(text).model_dump_json()
    a = json.dumps(type6.check(text).to_dict(timing=False), sort_keys=True)
    assert a == json.dumps(type6.check(text).to_dict(timing=False), sort_keys=True)


@SETTINGS
@given(trace_text())
def test_round_trip(text: str) -> None:
    trace = type6.parse_t6(text, "rt")
    assert trace.valid
    assert type6.parse_t6(trace.to_t6()) == trace
    assert type6.parse_json(trace.to_json()) == trace
    assert type6.verify(trace.to_json()).model_dump_json() == type6.verify(trace).model_dump_json()


class NaiveSequential(Sequential):
    """Y-41's formulation: after every statement, pin the lowest-id pinnable constraint until none
    is left, then re-evaluate every constraint against its stored status."""

    def _needs_backpropagation(self, i: int, created: Sequence[int], pi: str | None) -> bool:
        return True

    def _backpropagate(self, i: int, created: Sequence[int], pi: str | None) -> None:
        pinned: set[str] = set()
        while True:
            pinnable = [
                (c, forced)
                for c in self.constraints
                for status, forced in [c.evaluate(self.tau)]
                if status == PIN and c.target not in pinned
            ]
            if not pinnable:
                break
            c, forced = pinnable[0]
            pinned.add(c.target)
            self._write(i, c.target, str(forced))
            self._emit("T6_I02", i, c.target, "I02", constraint_id=c.id, constraint=c.id, value=forced)
        for c in self.constraints:
            status, forced = c.evaluate(self.tau)
            if status != c.status:
                value = self.tau.get(c.target, "Uk")
                if status == CONFLICT:
                    self._emit(
                        "T6_H02",
                        i,
                        c.target,
                        "H02",
                        constraint_id=c.id,
                        constraint=c.id,
                        forced=forced,
                        value=value,
                    )
                elif status == UNVERIFIABLE:
                    self._emit(
                        "T6_Q04",
                        i,
                        c.target,
                        "Q04",
                        constraint_id=c.id,
                        constraint=c.id,
                        forced=forced,
                        value=value,
                    )
                c.status = status


def _events(seq: Sequential) -> list[tuple[object, ...]]:
    return [(e.code, e.stmt, e.prop, e.constraint, tuple(sorted(e.data.items()))) for e in seq.events]


@SETTINGS
@given(trace_text(max_size=16))
def test_incremental_equals_naive(text: str) -> None:
    """Y-41: identical event logs and final states."""
    from cotaudit.type6 import signals

    trace = type6.parse_t6(text)
    fast = run_sequential(trace.statements).seq
    original = signals.Sequential
    signals.Sequential = NaiveSequential  # type: ignore[misc]
    try:
        slow = run_sequential(trace.statements).seq
    finally:
        signals.Sequential = original  # type: ignore[misc]
    assert isinstance(slow, NaiveSequential)
    assert _events(fast) == _events(slow)
    assert fast.tau == slow.tau and fast.delta == slow.delta


RANK = {"Uc": 0, "Uk": 1, "T": 2, "F": 2}


@SETTINGS
@given(trace_text(max_size=16))
def test_resolution_is_lost_only_by_commitments(text: str) -> None:
    """Y-40: τ loses resolvedness (Uc ⊑ Uk ⊑ T, F) or flips only at a step committing on π; every
    other change is a pin from Uk."""
    run = run_sequential(type6.parse_t6(text).statements)
    before: dict[str, str] = {}
    for f in run.folded:
        after = {p: st[0] for p, st in run.seq.step_writes[f.stmt]}
        commits = f.prop is not None and (not f.value_ops or f.value_ops[-1] in ("K", "B"))
        for prop, tau in after.items():
            old = before.get(prop, "Uk")
            if tau != old and not (commits and prop == f.prop):
                assert old == "Uk" and tau in ("T", "F"), (f.stmt, prop, old, tau)
            if RANK[tau] < RANK[old]:
                assert commits and prop == f.prop
        before.update(after)


@SETTINGS
@given(
    st.lists(statement_line(("p1", "p2", "p3", "a")), max_size=8),
    st.lists(statement_line(("p1", "p2", "p3", "a")), max_size=8),
)
def test_paraconsistency(head: list[str], tail: list[str]) -> None:
    """A K-K contradiction on an unrelated z changes no sequential event and no state of another
    proposition. z is unrelated: each z statement is followed by a re-seeding statement."""
    reseed = "T p9 : reseed"

    def trace(second: str) -> str:
        return "\n".join(["T q : Q", *head, "T K z : z", reseed, *tail, second, reseed, "T THEN a : A"])

    same, contradiction = type6.verify(trace("T K z : z"), OFF), type6.verify(trace("F K z : not z"), OFF)
    assert "T6_H01" in {e["code"] for e in contradiction.events if e["prop"] == "z"}

    def others(r: type6.Type6Result) -> tuple[list[tuple[object, ...]], list[dict[str, object]]]:
        events = [(e["code"], e["stmt"], e["prop"], e["constraint"]) for e in r.events if e["prop"] != "z"]
        state = [s for s in r.document["sequential"]["final_state"] if s["prop"] != "z"]
        return events, state

    assert others(same) == others(contradiction)


@SETTINGS
@given(trace_text(), st.sampled_from(["hard", "soft", "quality", "structural"]))
def test_scores_never_rise_with_weights(text: str, severity: str) -> None:
    """Y-83: raising a weight never raises a scalar; all three stay on [0, 5]."""
    base = type6.verify(text)
    heavier = type6.verify(text, type6.Config(weights={severity: 3.0}))
    for name in ("graded", "strict", "proportional"):
        assert 0 <= heavier.scores[name] <= base.scores[name] <= 5  # type: ignore[index]


@SETTINGS
@given(trace_text())
def test_hard_fail_does_not_depend_on_paths(text: str) -> None:
    """Y-82: caps and sampling cannot change hard_fail; only path-derived events (S05, D02, W07,
    W08) differ, so graded differs at most by their weights (S05 counts in W, Y-83)."""
    a, b = type6.verify(text), type6.verify(text, type6.Config(path_mode="sample", samples=2, seed=7))
    assert a.hard_fail == b.hard_fail
    path_codes = {"T6_S05", "T6_D02", "T6_W07", "T6_W08"}
    assert [x for x in a.at() if x[:6] not in path_codes] == [x for x in b.at() if x[:6] not in path_codes]


# --------------------------------------------------------------------------- path search references


@st.composite
def graphs(draw: st.DrawFn) -> list[Edge]:
    nodes = ["s", "x", "y", "z", "t"]
    kinds = ["logical", "gap", "jump", "loopback", "meander", "unknown"]
    labels = {"logical": ["K", "AND", "NOT THEN"], "unknown": ["AND", "MAYBE"]}
    edges = []
    for k in range(1, draw(st.integers(1, 9)) + 1):
        kind = draw(st.sampled_from(kinds))
        label = draw(st.sampled_from(labels[kind])) if kind in labels else None
        revisit = draw(st.booleans()) and draw(st.booleans())
        src, dst = draw(st.sampled_from(nodes[:-1])), draw(st.sampled_from([*nodes[1:], "s"]))
        edges.append(Edge(k, src, dst, label, kind, k, revisit, reenters(kind, label, revisit)))
    return edges


def brute_force(edges: list[Edge], source: str, sink: str, max_loopbacks: int) -> list[tuple[int, ...]]:
    """Y-64..Y-66 by plain recursion (small graphs only)."""
    found: list[tuple[int, ...]] = []

    def walk(node: str, path: list[Edge], on_path: list[str]) -> None:
        for e in sorted((e for e in edges if e.src == node), key=lambda e: e.id):
            if e in path or (e.kind == LOOPBACK and sum(x.kind == LOOPBACK for x in path) >= max_loopbacks):
                continue
            if e.dst in on_path and not e.reenters:
                continue
            if e.dst == sink:
                found.append(tuple(x.id for x in [*path, e]))
                continue
            walk(e.dst, [*path, e], [*on_path, e.dst])

    walk(source, [], [source])
    return found


@SETTINGS
@given(graphs(), st.integers(0, 2))
def test_enumeration_matches_brute_force(edges: list[Edge], loops: int) -> None:
    got = enumerate_paths(edges, "s", "t", max_paths=10_000, max_loopbacks=loops, max_expansions=10**6)
    assert got.complete and list(got.paths) == brute_force(edges, "s", "t", loops)


def reference_sample(edges: list[Edge], n_nodes: int, samples: int, seed: int) -> list[tuple[int, ...]]:
    """Y-68 written literally (walk budget never binding here)."""
    rng = random.Random(seed)
    limit = n_nodes + 1 + sum(e.reenters for e in edges)
    found: dict[tuple[int, ...], None] = {}
    for _ in range(50 * samples):
        if len(found) >= samples:
            break
        node, used, on_path, walk = "s", set(), {"s"}, []
        while True:
            feasible = [
                e
                for e in sorted(edges, key=lambda e: e.id)
                if e.src == node
                and e.id not in used
                and not (e.kind == LOOPBACK and sum(edges[i - 1].kind == LOOPBACK for i in walk) >= 1)
                and (e.dst not in on_path or e.reenters)
            ]
            if not feasible:
                break
            e = feasible[rng.randrange(len(feasible))]
            walk.append(e.id)
            if e.dst == "t":
                found.setdefault(tuple(walk), None)
                break
            if len(walk) >= limit:
                break
            used.add(e.id)
            on_path.add(e.dst)
            node = e.dst
    return list(found)


@SETTINGS
@given(graphs(), st.integers(1, 6), st.integers(0, 3))
def test_sampling_matches_reference(edges: list[Edge], samples: int, seed: int) -> None:
    got = sample_paths(
        edges,
        5,
        "s",
        "t",
        samples=samples,
        max_loopbacks=1,
        max_walk_len=None,
        max_walk_steps=10**6,
        seed=seed,
    )
    assert list(got.paths) == reference_sample(edges, 5, samples, seed)
