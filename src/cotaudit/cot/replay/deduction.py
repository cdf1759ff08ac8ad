"""Logical deduction (BIG-bench ``logical_deduction``): every placement claim against the puzzle.

The puzzle (:mod:`cotaudit.cot.replay.ordering`) lists n objects in a fixed order and
statements about them. The trace restates statements and draws conclusions, in prose
("the blue book must be the leftmost", "the kiwis cannot be the most expensive", "the only
vehicle that can be third-newest is the convertible", "it is the third-oldest") and in
position lists ("So from newest to oldest: first can be any vehicle, then second is the
station wagon, then third can be the convertible or the truck, then fourth and fifth can be
any vehicle", "third to seventh can be any golfer except Eve"), and ends "So the answer is
(C)".

**What a claim is checked against.** The labelling guideline of BIG-Bench Mistake (its
mistake-finding prompts walk through it) counts a statement as correct when it "can be found
in the original question" or follows from "the information in previous Thoughts". So:

- a clause that says what a statement of the puzzle says (in any wording the grammar reads:
  "the loquats are the second-cheapest" is "second is the loquats" in a cheapest-first list)
  is a *restatement*: it holds, and from then on that statement is a premise;
- every other claim must be *entailed* by the statements restated so far (this step
  included), asked of Z3; a claim that does not follow is wrong at that step even when it
  happens to be true of the final order, and the finding shows an order that satisfies those
  premises and breaks the claim;
- "can be any …" asserts nothing; "… except Eve" asserts Eve is in none of those places; a
  position past n is wrong; an answer must name an option whose statement is entailed.

**Coverage.** A step is *complete* when every sentence in it was read (into restatements,
claims, or sentences that name no object and no position) and no "can be any" stands at a
position the premises already fix. Only complete steps are marked so for the evaluation's
"label looks wrong" class; anything the grammar cannot read leaves the step incomplete and is
never a finding.

If a statement of the puzzle cannot be read, nothing is judged.
"""

from __future__ import annotations

from collections.abc import Sequence

import cotaudit.limits as limits
from cotaudit.cot.replay.deduction_grammar import Claim
from cotaudit.cot.replay.deduction_reader import StepReader
from cotaudit.cot.replay.model import Check, Replay
from cotaudit.cot.replay.ordering import (
    MAX_QUERIES,
    TRUE,
    Fact,
    Frame,
    Puzzle,
    Solver,
    at,
    neg,
    parse_puzzle,
)


class LogicalDeduction:
    name = "logical_deduction"

    def recognises(self, problem: str, steps: Sequence[str]) -> bool:
        return "arranged in a fixed order" in problem and parse_puzzle(problem) is not None

    def replay(self, problem: str, steps: Sequence[str]) -> Replay:
        out = Replay()
        puzzle = parse_puzzle(problem)
        if puzzle is None:
            out.notes.append("the puzzle's objects or statements could not be read")
            return out
        solver = Solver(puzzle)
        frame = Frame()
        used: list[int] = []  # the statements the trace has stated so far
        for i, step in enumerate(steps):
            limits.checkpoint()
            reading = StepReader(puzzle, frame).read(step)
            out.notes.extend(f"step {i}: not read: {u!r}" for u in reading.unread)
            complete = reading.complete
            claims = sorted(reading.claims, key=lambda c: c.offset)
            quoted: dict[int, int] = {}  # claim index -> statement
            for j, claim in enumerate(claims):
                hit = _restated(puzzle, claim.fact) if claim.mode == "entails" else None
                if hit is not None and claim.role == "cite":
                    quoted[j] = hit
                    if hit not in used:
                        used.append(hit)
            premises = sorted(used)
            for j, claim in enumerate(claims):
                if j in quoted:
                    out.checks.append(
                        Check(
                            i,
                            True,
                            "a statement of the puzzle, stated",
                            claim.text[:200],
                            puzzle.statements[quoted[j]][0],
                            claim.offset + 1,
                        )
                    )
                    continue
                explain = not any(c.step == i and not c.ok for c in out.checks[-8:])
                check, unsure = _judge(solver, premises, claim, i, explain)
                if check is not None:
                    out.checks.append(check)
                if check is None or unsure:
                    complete = False
                elif check.ok and claim.role == "so":
                    reasons = sorted({quoted[k] for k in quoted if claims[k].offset < claim.offset})
                    if reasons and _needless(solver, premises, reasons, claim):
                        complete = False
                        out.notes.append(f"step {i}: {claim.text[:80]!r} holds, but not by the reason given")
            if complete and reading.claims:
                out.complete.add(i)
        if solver.queries >= MAX_QUERIES:
            out.notes.append(f"over {MAX_QUERIES} solver queries: later claims were not judged")
        return out


def _needless(solver: Solver, premises: list[int], reasons: list[int], claim: Claim) -> bool:
    """ "P, so Q" where Q follows from the earlier statements without P: the conclusion holds but
    the stated reason does not support it. Not a finding (the claim is true); the step is then
    not counted as fully checked."""
    assert claim.fact is not None
    rest = [k for k in premises if k not in reasons]
    return solver.entails(rest, claim.fact) is True


def _restated(puzzle: Puzzle, fact: Fact | None) -> int | None:
    if fact is None:
        return None
    for k, (_, f) in enumerate(puzzle.statements):
        if f == fact:
            return k
    return None


def _judge(
    solver: Solver, premises: list[int], claim: Claim, step: int, explain: bool = True
) -> tuple[Check | None, bool]:
    """The check for one claim, and whether it leaves the step incomplete. ``explain``: search
    for an order that shows a claim that does not follow (done for a step's first finding)."""
    n = solver.n
    col = claim.offset + 1
    said = claim.text[:200]
    if claim.mode == "range":
        return Check(step, False, "a position in the order", said, f"positions 1 to {n} only", col), False
    if claim.mode == "not-an-option":
        return Check(
            step, False, "the answer names an option of the question", said, "no such option", col
        ), False
    if claim.mode == "any-unread":
        return None, True
    if claim.mode == "any":
        # "k can be any …": every object the list leaves unplaced must be possible at k.
        for p in claim.positions:
            for o in claim.others:
                excluded = solver.entails(premises, neg(at(o, p)))
                if excluded is None:
                    return None, True
                if excluded:
                    name = solver.puzzle.lex.objects[o]
                    return Check(
                        step,
                        False,
                        "a place said to be open to any object",
                        said,
                        f"the {name} cannot be there, by the statements stated so far",
                        col,
                    ), False
        return Check(step, True, "a place said to be open to any object", said, "open", col), False
    fact = claim.fact
    if fact is None:
        return None, True
    if fact == TRUE:
        return Check(step, True, "a position named two ways", said, "the same position", col), False
    if claim.mode == "possible":
        verdict = solver.entails(premises, neg(fact))
        if verdict is None:
            return None, True
        if verdict:
            return Check(
                step,
                False,
                "a placement said to be possible",
                said,
                "impossible given the statements stated so far",
                col,
            ), False
        return Check(step, True, "a placement said to be possible", said, "possible", col), False
    verdict = solver.entails(premises, fact)
    if verdict is None:
        return None, True
    if verdict:
        for alt in claim.alternatives:
            ruled_out = solver.entails(premises, neg(alt))
            if ruled_out is None:
                return None, True
            if ruled_out:
                return Check(
                    step,
                    False,
                    "an alternative said to be possible",
                    said,
                    f"{_say(solver, alt)} is ruled out by the statements stated so far",
                    col,
                ), False
        return Check(
            step, True, "a claim that must follow from the statements stated so far", said, "follows", col
        ), False
    counter = solver.counter_order(premises, fact) if explain else None
    note = f"the order {solver.describe(counter)} satisfies them and breaks it" if counter else ""
    stated = "; ".join(solver.puzzle.statements[k][0] for k in premises) or "none"
    return Check(
        step,
        False,
        "a claim that must follow from the statements stated so far",
        said,
        f"does not follow from: {stated}"[:300],
        col,
        note,
    ), False


def _say(solver: Solver, fact: Fact) -> str:
    if fact.op == "at":
        obj, k = fact.args
        assert isinstance(obj, int)
        return f"the {solver.puzzle.lex.objects[obj]} at place {k} of {solver.n} (from the start)"
    return fact.smt()


REPLAYER = LogicalDeduction()
