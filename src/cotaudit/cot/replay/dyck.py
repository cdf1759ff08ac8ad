"""Dyck languages (BIG-bench ``dyck_languages``): the stack after each symbol.

The problem is a sequence of brackets ``( ) [ ] { } < >``; the trace processes it one symbol
a step (``[ ; stack: { [``), then states the final stack, the symbols to pop, the closers
needed and the answer. The replayer pushes and pops as it reads and checks, step by step:

- the symbol is the next one of the input (none skipped, none invented, none after the end);
- the stack written after it is the stack the symbol leaves (a closer must match the top);
- "we have reached the end" only once every symbol was read, and the final stack is right;
- the symbols to pop are the stack from the top down; the closers needed, and the answer,
  close them in that order.

A step is *complete* when every bracket written in it lies inside a statement the replayer
read and checked (a symbol step, a stack, the final stack, the pops, the closers, the
answer). After the first wrong step the trace's state is no longer the replay's: later steps
are not judged (they stay ``unchecked`` unless an arithmetic claim in them is).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from cotaudit.cot.replay.model import Check, Replay

PAIRS = {")": "(", "]": "[", "}": "{", ">": "<"}
OPENERS = frozenset(PAIRS.values())
CLOSE_FOR = {v: k for k, v in PAIRS.items()}
SYMBOLS = OPENERS | frozenset(PAIRS)
# Every pattern here is linear-time: no two adjacent quantifiers can match the same text.
_FINAL = re.compile(r"final stack is\s*(?:\"([^\"]*)\"|(empty))", re.I)
_POP = re.compile(r"need to pop out([^.\n]*)", re.I)
_NEED = re.compile(r"so,? we need([^\n]*)", re.I)
_ANSWER = re.compile(r"the answer is([^\n]*)", re.I)


def _symbols(text: str) -> list[str] | None:
    """Bracket symbols in ``text`` (quotes, commas and "and" ignored); ``None`` if anything else."""
    if text.strip().lower() in ("empty", "nothing", ""):
        return []
    cleaned = re.sub(r'["\s,]|\band\b', " ", text)
    out: list[str] = []
    for part in cleaned.split():
        if not all(ch in SYMBOLS for ch in part):
            return None
        out.extend(part)
    return out


def _fmt(stack: Sequence[str]) -> str:
    return " ".join(stack) if stack else "empty"


def _cut(text: str, *ends: str) -> str:
    """``text`` up to the first of ``ends`` (case-insensitive)."""
    low = text.lower()
    at = min((k for e in ends if (k := low.find(e)) >= 0), default=len(text))
    return text[:at]


@dataclass(slots=True)
class _Step:
    """What one step said and what replaying it gave."""

    checks: list[Check] = field(default_factory=list)
    spans: list[tuple[int, int]] = field(default_factory=list)  # the text the checks read
    pos: int = 0
    stack: list[str] = field(default_factory=list)


class DyckLanguages:
    name = "dyck_languages"

    def recognises(self, problem: str, steps: Sequence[str]) -> bool:
        toks = problem.split()
        return bool(toks) and all(t in SYMBOLS for t in toks)

    def replay(self, problem: str, steps: Sequence[str]) -> Replay:
        out = Replay()
        symbols = problem.split()
        pos = 0
        stack: list[str] = []
        for i, step in enumerate(steps):
            got = self._step(i, step, symbols, pos, stack)
            if got is None:
                continue
            out.checks.extend(got.checks)
            if any(not c.ok for c in got.checks):
                out.notes.append(f"dyck replay stopped at step {i}")
                break
            if _covered(step, got.spans):
                out.complete.add(i)
            pos, stack = got.pos, got.stack
        return out

    def _step(self, i: int, step: str, symbols: list[str], pos: int, stack: list[str]) -> _Step | None:
        head, semi, rest = step.partition(";")
        label, _, content = rest.strip().partition(":")
        if semi and head.strip() in SYMBOLS and label.strip().lower() == "stack":
            return self._symbol(i, step, head.strip(), content, symbols, pos, stack)
        label, colon, content = step.strip().partition(":")
        if colon and label.strip().lower() == "stack":
            claimed = _symbols(content.strip().rstrip("."))
            if claimed is None:
                return None
            check = Check(i, claimed == stack, "the stack", _fmt(claimed), _fmt(stack), 1)
            return _Step([check], [(0, len(step))], pos, list(stack))
        return self._end(i, step, symbols, pos, stack)

    def _symbol(
        self, i: int, step: str, sym: str, content: str, symbols: list[str], pos: int, stack: list[str]
    ) -> _Step:
        """``X ; stack: …``: X is the next input symbol, and the stack is the one it leaves."""
        whole = [(0, len(step))]
        expected = symbols[pos] if pos < len(symbols) else None
        if sym != expected:
            check = Check(i, False, "the next input symbol", sym, expected or "end of input", 1)
            return _Step([check], whole, pos, stack)
        new = list(stack)
        if sym in OPENERS:
            new.append(sym)
        elif new and new[-1] == PAIRS[sym]:
            new.pop()
        else:
            top = new[-1] if new else "empty"
            check = Check(i, False, f"closing {sym} against the top of the stack", sym, top, 1)
            return _Step([check], whole, pos, stack)
        claimed = _symbols(content.strip().rstrip("."))
        if claimed is None:
            return _Step([], [], pos + 1, new)
        col = step.find("stack") + 1
        check = Check(i, claimed == new, f"the stack after {sym}", _fmt(claimed), _fmt(new), col)
        return _Step([check], whole, pos + 1, new)

    def _end(self, i: int, step: str, symbols: list[str], pos: int, stack: list[str]) -> _Step | None:
        """The closing steps: the final stack, the symbols to pop, the closers, the answer."""
        got = _Step(pos=pos, stack=list(stack))
        final = _FINAL.search(step)
        if final is not None:
            got.spans.append(final.span())
            if pos < len(symbols):
                got.checks.append(
                    Check(i, False, "reached the end of the input", f"end after {pos} symbols",
                          f"{len(symbols) - pos} symbol(s) still to read", final.start() + 1)
                )  # fmt: skip
                return got
            claimed = _symbols(final.group(1) or "")
            if claimed is not None:
                where = final.start() + 1
                got.checks.append(
                    Check(i, claimed == stack, "the final stack", _fmt(claimed), _fmt(stack), where)
                )
        closers = [CLOSE_FOR[s] for s in reversed(stack)]
        pop = _POP.search(step)
        if pop is not None and pos >= len(symbols):
            body = _cut(pop.group(1), "one by one", " in that order")
            claimed = _symbols(body)
            if claimed is not None:
                want = list(reversed(stack))
                what = "the symbols to pop, top first"
                got.checks.append(Check(i, claimed == want, what, _fmt(claimed), _fmt(want), pop.start() + 1))
                got.spans.append((pop.start(), pop.start(1) + len(body)))
        need = _NEED.search(step)
        if need is not None and pos >= len(symbols):
            body = _cut(need.group(1), ". so", "so the answer").strip().rstrip(".")
            claimed = _symbols(body)
            if claimed is not None:
                what = "the closers needed"
                got.checks.append(
                    Check(i, claimed == closers, what, _fmt(claimed), _fmt(closers), need.start() + 1)
                )
                got.spans.append(
                    (need.start(), need.start(1) + len(_cut(need.group(1), ". so", "so the answer")))
                )
        answer = _ANSWER.search(step)
        if answer is not None and pos >= len(symbols):
            claimed = _symbols(answer.group(1).strip().rstrip("."))
            if claimed is not None:
                what = "the answer closes the stack"
                got.checks.append(
                    Check(i, claimed == closers, what, _fmt(claimed), _fmt(closers), answer.start() + 1)
                )
                got.spans.append(answer.span())
        return got if got.checks else None


def _covered(step: str, spans: Sequence[tuple[int, int]]) -> bool:
    """Is every bracket in ``step`` inside a span a check read?"""
    inside = [False] * len(step)
    for a, b in spans:
        for k in range(a, min(b, len(step))):
            inside[k] = True
    return bool(spans) and all(inside[k] for k, ch in enumerate(step) if ch in SYMBOLS)


REPLAYER = DyckLanguages()
