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

**Shapes.** The input may carry BIG-bench's instruction (``Complete the rest of the sequence,
… Input: [ ( < >``): the symbols are the labelled part that is all brackets
(:func:`cotaudit.cot.replay.shape.payload`). A symbol step may be numbered, bulleted, quoted or
written with an arrow (``3: < ; stack: [ ( <``, ``- `<` ; Stack: `[ ( <` ``, ``< -> [ ( <``,
``Step 3: read <; the stack is now: [ ( <``).

**Losing track.** The position in the input is the replayer's own count of the symbol steps it
read. When a step shows bracket symbols and is read as nothing (or names a symbol in a wording
that is not the bare ``X ; stack`` form and it is not the next one), that count is lost: no
later symbol step is judged, and the closing statements (the final stack, the pops, the
closers, the answer) are judged against the stack the whole input leaves, which does not
depend on the trace. "Reached the end after k symbols" is a finding only while the count is
intact and at least one symbol step was read.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from cotaudit.cot.replay.model import Check, Replay
from cotaudit.cot.replay.shape import payload, unmark

PAIRS = {")": "(", "]": "[", "}": "{", ">": "<"}
OPENERS = frozenset(PAIRS.values())
CLOSE_FOR = {v: k for k, v in PAIRS.items()}
SYMBOLS = OPENERS | frozenset(PAIRS)
# Every pattern here is linear-time: no two adjacent quantifiers can match the same text.
_FINAL = re.compile(r"final stack is\s*(?:\"([^\"]*)\"|(empty))", re.I)
_FINAL_BARE = re.compile(r"final stack(?: is|:| =)([^\n]*)", re.I)  # "Final stack: [ (", unquoted
_POP = re.compile(r"need to pop out([^.\n]*)", re.I)
_NEED = re.compile(r"so,? we need([^\n]*)", re.I)
_ANSWER = re.compile(r"the answer is([^\n]*)", re.I)
_STACK_WORD = re.compile(r"\bstack\b", re.I)
_ARROW = re.compile(r"->|=>|\u2192|\u27f6")
_CONNECTIVE = re.compile(r"(?:[:=]|is now\b|is\b|now\b|becomes\b|contains\b)", re.I)
_NOISE = str.maketrans({c: " " for c in "\"'`*"})  # quotes, code and emphasis marks
_SENTENCE_END = re.compile(r"\.\s|\n")


def _symbols(text: str) -> list[str] | None:
    """Bracket symbols in ``text`` (quotes, commas and "and" ignored); ``None`` if anything else."""
    if text.strip().lower() in ("empty", "nothing", "", "[]", "(empty)"):
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


def _tokens(text: str) -> list[tuple[int, str]]:
    """The bracket symbols of ``text`` that stand as symbols: an arrow (``->``) is not one, and
    neither is a bracket against a letter or digit (prose: "(the stack is bottom first)")."""
    text = _ARROW.sub(lambda m: " " * len(m.group()), text)
    out = []
    for k, ch in enumerate(text):
        if ch in SYMBOLS:
            before = text[k - 1] if k else " "
            after = text[k + 1] if k + 1 < len(text) else " "
            if not (before.isalnum() or after.isalnum()):
                out.append((k, ch))
    return out


def _dyck_input(text: str) -> bool:
    toks = text.split()
    return bool(toks) and all(t in SYMBOLS for t in toks)


def _after_connective(text: str) -> tuple[int, str]:
    """``text`` past a leading ``:`` / ``=`` / "is now" / "becomes" (and blanks), with its offset."""
    at = len(text) - len(text.lstrip())
    for _ in range(3):
        m = _CONNECTIVE.match(text, at)
        if m is None:
            break
        at = m.end()
        at += len(text[at:]) - len(text[at:].lstrip())
    return at, text[at:]


@dataclass(slots=True)
class _Step:
    """What one step said and what replaying it gave."""

    checks: list[Check] = field(default_factory=list)
    spans: list[tuple[int, int]] = field(default_factory=list)  # the text the checks read
    pos: int = 0
    stack: list[str] = field(default_factory=list)
    symbol: bool = False  # a symbol step, read


class DyckLanguages:
    name = "dyck_languages"

    def recognises(self, problem: str, steps: Sequence[str]) -> bool:
        return payload(problem, _dyck_input) is not None

    def replay(self, problem: str, steps: Sequence[str]) -> Replay:
        out = Replay()
        text = payload(problem, _dyck_input)
        if text is None:
            out.notes.append("the input's bracket sequence could not be read")
            return out
        symbols = text.split()
        final: list[str] = []
        for sym in symbols:  # the stack the whole input leaves (None: the input does not close)
            if sym in OPENERS:
                final.append(sym)
            elif final and final[-1] == PAIRS[sym]:
                final.pop()
            else:
                out.notes.append("the input closes a bracket it never opened: nothing is judged")
                return out
        pos = 0
        stack: list[str] = []
        lost = False
        read = 0  # symbol steps read
        for i, raw in enumerate(steps):
            step = unmark(raw)
            if lost or (read == 0 and _final(step) is not None):
                # no symbol step read, or the count lost: a closing statement is about the
                # stack the whole input leaves
                got = self._end(i, step, symbols, len(symbols), final, lost=True)
            else:
                got = self._step(i, step, symbols, pos, stack)
            if got is None:
                shown = [ch for _, ch in _tokens(step.translate(_NOISE))]
                if shown and not lost and shown != symbols:
                    lost = True
                    out.notes.append(
                        f"step {i}: brackets in a wording not read: the position in the input is lost, "
                        "later steps are judged only against the stack the whole input leaves"
                    )
                continue
            out.checks.extend(got.checks)
            if any(not c.ok for c in got.checks):
                out.notes.append(f"dyck replay stopped at step {i}")
                break
            if _covered(step, got.spans):
                out.complete.add(i)
            read += got.symbol
            if not lost:
                pos, stack = got.pos, got.stack
        return out

    def _step(self, i: int, step: str, symbols: list[str], pos: int, stack: list[str]) -> _Step | None:
        read = _symbol_step(step.translate(_NOISE))
        if read is not None:
            sym, strict, start = read
            at, content = _content(step, start)  # as written: quotes tell a list's items apart
            return self._symbol(i, step, sym, content, symbols, pos, stack, strict, at)
        bare = _STACK_WORD.search(step)
        if bare is not None and not step[: bare.start()].translate(_NOISE).strip(" \t;,:.-|"):
            # "stack: [ (", "Stack = ['[']": the stack alone
            claimed = _claimed_stack(_content(step, bare.end())[1])
            if claimed is None:
                return None
            check = Check(i, claimed == stack, "the stack", _fmt(claimed), _fmt(stack), 1)
            return _Step([check], [(0, len(step))], pos, list(stack))
        return self._end(i, step, symbols, pos, stack)

    def _symbol(
        self,
        i: int,
        step: str,
        sym: str,
        content: str,
        symbols: list[str],
        pos: int,
        stack: list[str],
        strict: bool = True,
        at: int = 0,
    ) -> _Step | None:
        """``X ; stack: …``: X is the next input symbol, and the stack is the one it leaves.
        ``strict``: the step is the bare form (nothing but the symbol before "stack"); another
        wording that names another symbol is not read (the count of symbols is then lost)."""
        whole = [(0, len(step))]
        expected = symbols[pos] if pos < len(symbols) else None
        if sym != expected:
            if not strict:
                return None
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
        claimed = _claimed_stack(content)
        if claimed is None:
            return _Step([], [], pos + 1, new, symbol=True)
        col = at + 1
        check = Check(i, claimed == new, f"the stack after {sym}", _fmt(claimed), _fmt(new), col)
        return _Step([check], whole, pos + 1, new, symbol=True)

    def _end(
        self, i: int, step: str, symbols: list[str], pos: int, stack: list[str], lost: bool = False
    ) -> _Step | None:
        """The closing steps: the final stack, the symbols to pop, the closers, the answer.
        ``lost``: the count of symbols read is not known, and ``stack`` is the stack the whole
        input leaves (what a closing statement is about, whatever the trace read)."""
        got = _Step(pos=pos, stack=list(stack))
        final = _final(step)
        if final is not None:
            got.spans.append(final.span())
            if pos < len(symbols) and not lost:
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


@dataclass(frozen=True, slots=True)
class _Said:
    """A statement's span and what it says (``group(1)`` like a match)."""

    begin: int
    end: int
    body: str

    def span(self) -> tuple[int, int]:
        return self.begin, self.end

    def start(self) -> int:
        return self.begin

    def group(self, _: int = 1) -> str:
        return self.body


def _final(step: str) -> _Said | None:
    """ "The final stack is "( ["" (quoted or "empty"), or unquoted to the sentence's end."""
    m = _FINAL.search(step)
    if m is not None:
        return _Said(m.start(), m.end(), m.group(1) or "")
    m = _FINAL_BARE.search(step)
    if m is None:
        return None
    body = m.group(1)
    end = _SENTENCE_END.search(body)
    body = body[: end.start()] if end is not None else body
    return _Said(m.start(), m.start(1) + len(body), body.translate(_NOISE).strip().rstrip("."))


_QUOTED = re.compile(r"\"([^\"]*)\"|'([^']*)'")


def _claimed_stack(content: str) -> list[str] | None:
    """The stack a symbol step claims. Quoted, only what is inside the quotes is read (a list
    ``['[', '(']`` has brackets of its own); else the text past code and emphasis marks."""
    content = content.strip().rstrip(".")
    if '"' in content or "'" in content:
        items = [a or b for a, b in _QUOTED.findall(content)]
        outside = _QUOTED.sub(" ", content)
        if not items or not all(ch in " ,[]`*" for ch in outside):
            return None
        return _symbols(" ".join(items))
    return _symbols(content.translate(_NOISE))


def _symbol_step(step: str) -> tuple[str, bool, int] | None:
    """A symbol step: (the symbol, whether the step is the bare form, where the stack claim
    starts). The symbol is the one bracket before the word "stack" (or before
    an arrow when there is no such word); ``None`` when there is not exactly one."""
    m = _STACK_WORD.search(step)
    if m is not None:
        head, start = step[: m.start()], m.end()
    else:
        a = _ARROW.search(step)
        if a is None:
            return None
        head, start = step[: a.start()], a.end()
    found = _tokens(head)
    if len(found) != 1:
        return None
    sym = found[0][1]
    rest = _ARROW.sub("", head).replace(sym, " ", 1)
    words = re.findall(r"[A-Za-z]+", rest)
    # the bare form: the symbol and separators only ("[ ;", "3: [ ;", "- [ ;", "[ ->")
    strict = not words and all(ch in " \t;,:.-|" for ch in rest)
    return sym, strict, start


def _content(step: str, start: int) -> tuple[int, str]:
    """The stack claimed from ``start`` (past "is now" / ":"), to the end of its sentence."""
    off, content = _after_connective(step[start:])
    end = _SENTENCE_END.search(content)
    if end is not None:
        content = content[: end.start()]
    return start + off, content


def _covered(step: str, spans: Sequence[tuple[int, int]]) -> bool:
    """Is every bracket in ``step`` inside a span a check read?"""
    inside = [False] * len(step)
    for a, b in spans:
        for k in range(a, min(b, len(step))):
            inside[k] = True
    return bool(spans) and all(inside[k] for k, ch in enumerate(step) if ch in SYMBOLS)


REPLAYER = DyckLanguages()
