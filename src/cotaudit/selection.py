"""Rule selection in ruff's idiom: ``select``, ``extend-select`` and ``ignore`` over stable codes.

A selector is a whole code (``TE_E006``), a prefix of codes (``TE_E0``, ``T6_W``, ``TE``) or
``ALL``; one that matches no code in the table is an error (with the nearest codes offered).
A code is enabled when the most specific selector that matches it comes from ``select`` /
``extend-select`` rather than ``ignore``; on a tie ``ignore`` wins (ruff's rule). ``select``
defaults to ``ALL``.

Selection decides what is *reported*, never what is *checked*: engines always run in full,
then :func:`apply_selection` takes the deselected findings out of each report. The verdict
follows R-1 and is the same rule for every engine:

- ``pass``, ``abstain`` and ``invalid`` never change: hiding a finding never turns an
  undecided or unreadable input into a decided one.
- ``fail`` stays ``fail`` while a selected error remains. When every error was deselected it
  becomes ``abstain`` if a remaining finding is an abstention (a code whose summary says the
  input was not decided: budgets, solver unknowns, certify's ``abstain-*``), else ``pass`` --
  so a deselected error never fails an item.

The report says what was hidden: ``details.selection`` holds ``ignored`` (code → count) and,
when the verdict changed, ``verdict_before``. :func:`exceeds` is ``--fail-on``: ``error`` fails
the run on any item that did not pass; ``warning`` also on a selected warning.
"""

from __future__ import annotations

import difflib
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from cotaudit.codes import CODES
from cotaudit.errors import UsageError
from cotaudit.report.model import Report, Verdict

FailOn = Literal["error", "warning"]
FAIL_ON: tuple[FailOn, ...] = ("error", "warning")
ALL = "ALL"

# Codes whose finding means "nothing was decided" (an abstention), not "something is wrong".
ABSTENTION_CODES: frozenset[str] = frozenset(
    code
    for code, entry in CODES.items()
    if entry.name.startswith("abstain-")
    or code in {"COTAUDIT_W001", "COTAUDIT_W002", "VC_W001", "VC_W003", "CERTIFY_W013"}
)


def check_selector(selector: str) -> str:
    """``selector`` upper-cased if it names ``ALL`` or a prefix of some code; else a UsageError
    with the nearest codes and prefixes."""
    text = selector.strip().upper()
    if text == ALL or (any(code.startswith(text) for code in CODES) and text):
        return text
    prefixes = sorted({c[: len(text)] for c in CODES if len(c) >= len(text)} | set(CODES))
    close = difflib.get_close_matches(text, prefixes, n=3, cutoff=0.6)
    hint = f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
    raise UsageError(f"unknown code or prefix {selector!r} (see 'cotaudit codes'){hint}")


def _longest(code: str, selectors: Iterable[str]) -> int:
    """Length of the most specific selector matching ``code`` (``ALL`` counts 0); -1 if none."""
    best = -1
    for s in selectors:
        if s == ALL:
            best = max(best, 0)
        elif code.startswith(s):
            best = max(best, len(s))
    return best


@dataclass(frozen=True, slots=True)
class Selection:
    """Which codes are reported. Build with :meth:`of`; the defaults report everything."""

    select: tuple[str, ...] = (ALL,)
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] = ()

    @classmethod
    def of(
        cls,
        select: Sequence[str] | None = None,
        extend_select: Sequence[str] = (),
        ignore: Sequence[str] = (),
    ) -> Selection:
        """A checked selection (every selector must match some code)."""
        return cls(
            tuple(check_selector(s) for s in select) if select is not None else (ALL,),
            tuple(check_selector(s) for s in extend_select),
            tuple(check_selector(s) for s in ignore),
        )

    @property
    def is_default(self) -> bool:
        return self.select == (ALL,) and not self.extend_select and not self.ignore

    def enabled(self, code: str) -> bool:
        """Whether findings of ``code`` are reported. A code outside the table (a plug-in
        engine's own) follows the same rule: reported under ``ALL``, unless ignored."""
        chosen = _longest(code, (*self.select, *self.extend_select))
        dropped = _longest(code, self.ignore)
        return chosen >= 0 and chosen > dropped

    def enabled_codes(self) -> list[str]:
        return [code for code in CODES if self.enabled(code)]

    def to_dict(self) -> dict[str, list[str]]:
        return {
            "select": list(self.select),
            "extend-select": list(self.extend_select),
            "ignore": list(self.ignore),
        }

    def normalized(self) -> Selection:
        """The same selection with each list sorted and without repeats (``--ignore B,A,B``
        and ``--ignore A,B`` select alike): what a run log records and compares on resume."""
        parts = (self.select, self.extend_select, self.ignore)
        return Selection(*(tuple(sorted(set(part))) for part in parts))


def apply_selection(report: Report, selection: Selection) -> Report:
    """``report`` without its deselected findings, the verdict per the module's rule, and
    ``details.selection`` naming what was hidden (unchanged when nothing was)."""
    kept = tuple(f for f in report.findings if selection.enabled(f.code))
    if len(kept) == len(report.findings):
        return report
    ignored = Counter(f.code for f in report.findings if not selection.enabled(f.code))
    verdict: Verdict = report.verdict
    if verdict == "fail" and not any(f.severity == "error" for f in kept):
        verdict = "abstain" if any(f.code in ABSTENTION_CODES for f in kept) else "pass"
    note: dict[str, object] = {"ignored": dict(sorted(ignored.items()))}
    if verdict != report.verdict:
        note["verdict_before"] = report.verdict
    return replace(report, findings=kept, verdict=verdict, details={**report.details, "selection": note})


def fails(verdict: str, warnings: int, fail_on: FailOn = "error") -> bool:
    """Whether one item fails the run: it did not pass, or (``warning``) it reports a warning.
    For a caller that has the verdict and the count of warnings, not the report (``batch``)."""
    return verdict != "pass" or (fail_on == "warning" and warnings > 0)


def exceeds(reports: Iterable[Report], fail_on: FailOn = "error") -> bool:
    """Whether the run fails: an item that did not pass, or (``warning``) a selected warning."""
    for report in reports:
        warnings = sum(f.severity == "warning" for f in report.findings) if fail_on == "warning" else 0
        if fails(report.verdict, warnings, fail_on):
            return True
    return False


def ignored_counts(reports: Iterable[Report]) -> Counter[str]:
    """Findings hidden by selection, per code, over ``reports``."""
    total: Counter[str] = Counter()
    for report in reports:
        note = report.details.get("selection")
        if isinstance(note, dict) and isinstance(note.get("ignored"), dict):
            total.update({str(k): int(v) for k, v in note["ignored"].items()})
    return total
