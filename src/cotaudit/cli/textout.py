"""``cotaudit check``'s text output on the terminal: findings, the items that did not pass, totals.

```
examples/te/C_arithmetic_slip.te:5:26: TE_E006 EQ[e3] claims 8 but 16-3-4 = 9
examples/te/C_arithmetic_slip.te: fail (1 error, 0 warnings)
Found 1 error in 1 of 2 items (1 pass, 1 fail).
```
Like ruff: one line per finding, then one closing line; an item that passed prints nothing of
its own, so 85,000 clean items print one line. ``--verbose`` adds every item's verdict line
(with its time), ``--quiet`` prints the findings alone (and the verdict line of an invalid item
that has none, which is its only trace). Colour only decorates: with it off the bytes are the
plain lines of :mod:`cotaudit.report.text`.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from cotaudit.cli.color import paint
from cotaudit.cli.options import Output
from cotaudit.report.encoding import escape_surrogates
from cotaudit.report.model import VERDICTS, Finding, Report
from cotaudit.report.text import count_words, finding_column, input_label, one_line, verdict_line
from cotaudit.selection import ignored_counts


def finding_text(report: Report, finding: Finding, color: bool) -> str:
    """``path:line:col: CODE message``, coloured when ``color``."""
    where = paint(input_label(report.input), "path", color)
    line = finding.location.line
    if line is not None:
        column = finding_column(finding)
        spot = f":{line}" + (f":{column}" if column is not None else "")
        where += paint(spot, "location", color)
    code = paint(finding.code, finding.severity, color)
    return f"{where}: {code} {one_line(finding.message)}"


def _verdict(report: Report, color: bool, timing: bool) -> str:
    text = verdict_line(report)
    if timing and report.timing_ms is not None:
        text += f" [{report.timing_ms:.2f} ms]"
    if not color:
        return text
    label = input_label(report.input)
    rest = text[len(label) + 2 :]
    word, _, tail = rest.partition(" ")
    return f"{paint(label, 'path', color)}: {paint(word, report.verdict, color)} {tail}".rstrip()


def totals_line(reports: Sequence[Report], color: bool = False) -> str:
    """``Found 2 errors and 1 warning in 2 of 5 items (3 pass, 2 fail).`` or ``All 5 items passed.``"""
    verdicts = Counter(r.verdict for r in reports)
    errors = sum(1 for r in reports for f in r.findings if f.severity == "error")
    warnings = sum(1 for r in reports for f in r.findings if f.severity == "warning")
    n = len(reports)
    if verdicts["pass"] == n:
        line = f"All {count_words(n, 'item')} passed" if n != 1 else "The item passed"
        if warnings:
            line += f" ({count_words(warnings, 'warning')})"
        line = paint(line + ".", "pass", color)
    else:
        found = count_words(errors, "error") + (
            f" and {count_words(warnings, 'warning')}" if warnings else ""
        )
        mix = ", ".join(f"{verdicts[v]} {v}" for v in VERDICTS if verdicts[v])
        bad = n - verdicts["pass"]
        line = f"Found {found} in {bad} of {count_words(n, 'item')} ({mix})."
        line = paint(line, "fail" if verdicts["fail"] or verdicts["invalid"] else "abstain", color)
    ignored = ignored_counts(reports)
    if ignored:
        total = sum(ignored.values())
        line += (
            f" {count_words(total, 'finding')} not reported by the selection ({', '.join(sorted(ignored))})."
        )
    return line


def render_check_text(reports: Sequence[Report], out: Output, *, timing: bool = True) -> str:
    lines: list[str] = []
    for report in reports:
        lines += [finding_text(report, f, out.color) for f in report.findings]
        if out.quiet:
            if report.verdict == "invalid" and not report.findings:
                lines.append(_verdict(report, out.color, False))
        elif out.verbose or report.verdict != "pass":
            lines.append(_verdict(report, out.color, timing and out.verbose))
    if not out.quiet:
        lines.append(totals_line(reports, out.color))
    return escape_surrogates("".join(line + "\n" for line in lines))
