"""Dyck languages (BIG-bench ``dyck_languages``): the stack after each symbol.

The problem is a sequence of brackets ``( ) [ ] { } < >``; the trace processes it one symbol
a step (``[ ; stack: { [``), then states the final stack, the symbols to pop and the closers
needed. The replayer pushes and pops as it reads and checks, step by step:

- the symbol is the next one of the input (none skipped, none invented, none after the end);
- the stack written after it is the stack the symbol leaves (a closer must match the top);
- "we have reached the end" only once every symbol was read, and the final stack is right;
- the symbols to pop are the stack from the top down, and the closers needed match them.

After the first wrong step the trace's state is no longer the replay's: later steps are not
judged (they stay ``unchecked`` unless an arithmetic claim in them is).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from cotaudit.cot.replay import Check, Replay

PAIRS = {")": "(", "]": "[", "}": "{", ">": "<"}
OPENERS = frozenset(PAIRS.values())
CLOSE_FOR = {v: k for k, v in PAIRS.items()}
SYMBOLS = OPENERS | frozenset(PAIRS)
_SYMBOL_STEP = re.compile(r"\s*(\S)\s*;\s*stack:\s*(.*?)\s*\.?\s*")
_STACK_ONLY = re.compile(r"\s*stack:\s*(.*?)\s*\.?\s*")
_FINAL = re.compile(r"final stack is\s*(?:\"([^\"]*)\"|(empty))", re.I)
_POP = re.compile(r"need to pop out\s*(.*?)(?:\s*one by one|\.|$)", re.I)
_NEED = re.compile(r"so,? we need\s*(.*?)\s*(?:\.\s*so the answer|$)", re.I)


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
        popped: list[str] | None = None
        for i, step in enumerate(steps):
            check = self._step(i, step, symbols, pos, stack, popped)
            if check is None:
                continue
            _kind, ok_checks, new_pos, new_stack, new_popped = check
            out.checks.extend(ok_checks)
            if any(not c.ok for c in ok_checks):
                out.notes.append(f"dyck replay stopped at step {i}")
                break
            pos, stack, popped = new_pos, new_stack, new_popped
        return out

    def _step(
        self,
        i: int,
        step: str,
        symbols: list[str],
        pos: int,
        stack: list[str],
        popped: list[str] | None,
    ) -> tuple[str, list[Check], int, list[str], list[str] | None] | None:
        m = _SYMBOL_STEP.fullmatch(step)
        if m is not None and m.group(1) in SYMBOLS:
            sym = m.group(1)
            expected = symbols[pos] if pos < len(symbols) else None
            if sym != expected:
                return (
                    "symbol",
                    [Check(i, False, "the next input symbol", sym, expected or "end of input", 1)],
                    pos,
                    stack,
                    popped,
                )
            claimed = _symbols(m.group(2))
            new = list(stack)
            if sym in OPENERS:
                new.append(sym)
            elif new and new[-1] == PAIRS[sym]:
                new.pop()
            else:
                top = new[-1] if new else "empty"
                return (
                    "mismatch",
                    [Check(i, False, f"closing {sym} against the top of the stack", sym, top, 1)],
                    pos,
                    stack,
                    popped,
                )
            if claimed is None:
                return "symbol", [], pos + 1, new, popped
            col = step.find("stack:") + 1
            return (
                "symbol",
                [Check(i, claimed == new, f"the stack after {sym}", _fmt(claimed), _fmt(new), col)],
                pos + 1,
                new,
                popped,
            )
        m = _STACK_ONLY.fullmatch(step)
        if m is not None:
            claimed = _symbols(m.group(1))
            if claimed is None:
                return None
            return (
                "stack",
                [Check(i, claimed == stack, "the stack", _fmt(claimed), _fmt(stack), 1)],
                pos,
                stack,
                popped,
            )
        checks: list[Check] = []
        final = _FINAL.search(step)
        if final is not None:
            if pos < len(symbols):
                checks.append(
                    Check(
                        i,
                        False,
                        "reached the end of the input",
                        f"end after {pos} symbols",
                        f"{len(symbols) - pos} symbol(s) still to read",
                        final.start() + 1,
                    )
                )
                return "final", checks, pos, stack, popped
            claimed = _symbols(final.group(1) or "")
            if claimed is not None:
                checks.append(
                    Check(
                        i, claimed == stack, "the final stack", _fmt(claimed), _fmt(stack), final.start() + 1
                    )
                )
        pop = _POP.search(step)
        if pop is not None and pos >= len(symbols):
            claimed = _symbols(pop.group(1))
            want = list(reversed(stack))
            if claimed is not None:
                checks.append(
                    Check(
                        i,
                        claimed == want,
                        "the symbols to pop, top first",
                        _fmt(claimed),
                        _fmt(want),
                        pop.start() + 1,
                    )
                )
                popped = want
        need = _NEED.search(step)
        if need is not None and pos >= len(symbols):
            claimed = _symbols(need.group(1))
            want = [CLOSE_FOR[s] for s in reversed(stack)]
            if claimed is not None:
                checks.append(
                    Check(
                        i, claimed == want, "the closers needed", _fmt(claimed), _fmt(want), need.start() + 1
                    )
                )
        if not checks:
            return None
        return "end", checks, pos, stack, popped


REPLAYER = DyckLanguages()
