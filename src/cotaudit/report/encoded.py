"""An R-1 report as the bytes of its canonical JSON: encoded once where it is made, passed on as is.

A worker process (batch, service) checks an item and hands the report back to the process that
asked. As Python objects a large report is costly to move: a 40 MB type6 report is millions of
dicts, lists and strings, which the receiving thread unpickles holding the GIL (half a second)
and which the garbage collector then walks again and again (pauses of 100-900 ms), so every
thread of the receiver stalls — a server's event loop answering ``/v1/health`` among them.

:func:`encode_report` turns a report into the bytes of its canonical compact JSON
(:func:`~cotaudit.report.jsonout.report_dict` through
:func:`~cotaudit.report.encoding.json_bytes`) where it is made. An :class:`EncodedReport` is
those bytes, the byte spans of each finding and each ``details`` entry in them, its timing and
its verdict (and how many findings are warnings): a fixed handful of Python objects whatever
the size of the report, so moving it costs a copy of its bytes and nothing for the collector.
Whoever only writes or forwards a report uses :meth:`EncodedReport.line`; the run log and the
HTTP service do. Whoever needs more reads only that: :meth:`EncodedReport.envelope` (engine,
input, verdict, score: small), the spans of findings and details entries (unparsed bytes), and,
as the one full rebuild, :meth:`EncodedReport.report`.

The bytes without ``timing_ms`` are the report's canonical form, so the same report is the same
bytes in every process; :meth:`EncodedReport.line` with ``timing`` appends the timing, giving
exactly :func:`~cotaudit.report.runlog.report_line`.
"""

from __future__ import annotations

import bisect
import json
from array import array
from dataclasses import dataclass
from typing import Any

from cotaudit.report.encoding import json_bytes
from cotaudit.report.jsonout import report_dict
from cotaudit.report.model import Report, Verdict

ENVELOPE_KEYS = ("schema_version", "engine", "engine_version", "input", "verdict", "score")
"""The R-1 fields before ``findings``, in the schema's order (what :meth:`EncodedReport.envelope` holds)."""

FINDINGS_OPEN = b',"findings":['  # between the envelope and the first finding
DETAILS_OPEN = b'],"details":{'  # between the last finding and the first details entry
_END = b"}}"


@dataclass(frozen=True, slots=True)
class EncodedReport:
    """One report's canonical compact JSON without ``timing_ms`` (``data``), and where its parts are.

    ``data`` is ``{<envelope>,"findings":[<f0>,<f1>...],"details":{<d0>,<d1>...}}``: the
    envelope's fields end at ``envelope_end``; ``findings`` and ``details`` hold the ``[start,
    end)`` offsets of every finding object and every ``"key":value`` details entry (in the
    canonical, sorted order), flattened into one array each.
    """

    data: bytes
    envelope_end: int
    findings: array[int]
    details: array[int]
    verdict: Verdict
    timing_ms: float | None = None
    warnings: int = 0  # findings of severity warning (``--fail-on warning`` without a rebuild)

    # ------------------------------------------------------------------ whole

    def line(self, *, timing: bool = True) -> bytes:
        """The report as one compact JSON object (no newline); ``timing=False`` leaves out ``timing_ms``."""
        if not timing:
            return self.data
        return self.data[:-1] + b',"timing_ms":' + json_bytes(self.timing_ms) + b"}"

    def size(self, *, timing: bool = True) -> int:
        """``len(self.line(timing=timing))`` without building it."""
        return len(self.data) + (len(b',"timing_ms":') + len(json_bytes(self.timing_ms)) if timing else 0)

    def report(self) -> Report:
        """The :class:`Report` itself, rebuilt from the bytes (as costly as the report is large)."""
        return Report.from_dict(json.loads(self.line()))

    # ------------------------------------------------------------------ parts

    def envelope(self) -> dict[str, Any]:
        """The fields before ``findings`` (:data:`ENVELOPE_KEYS`), parsed: small, whatever the findings."""
        envelope: dict[str, Any] = json.loads(self.data[: self.envelope_end] + b"}")
        return envelope

    def summary(self) -> Report:
        """A :class:`Report` with this one's envelope and timing, but no findings and no details:
        for callers that look only at the verdict, the score and the input."""
        head = self.envelope()
        return Report.from_dict({**head, "findings": [], "details": {}, "timing_ms": self.timing_ms})

    @property
    def finding_count(self) -> int:
        return len(self.findings) // 2

    @property
    def detail_count(self) -> int:
        return len(self.details) // 2

    def finding_span(self, index: int) -> tuple[int, int]:
        """Where finding ``index`` (in report order) lies in ``data``: ``[start, end)``."""
        return self.findings[2 * index], self.findings[2 * index + 1]

    def detail_span(self, index: int) -> tuple[int, int]:
        """Where details entry ``index`` (canonical, sorted order) lies in ``data``: ``[start, end)``."""
        return self.details[2 * index], self.details[2 * index + 1]

    def leading_findings(self, room: int) -> tuple[int, bytes]:
        """How many findings from the first fit in ``room`` bytes, and their bytes (commas included)."""
        if not self.findings:
            return 0, b""
        start = self.findings[0]
        count = bisect.bisect_right(self.findings[1::2], start + room)
        end = self.findings[2 * count - 1] if count else start
        return count, self.data[start:end]

    def detail(self, index: int) -> bytes:
        """The ``"key":value`` bytes of details entry ``index``."""
        start, end = self.detail_span(index)
        return self.data[start:end]


def encode_report(report: Report) -> EncodedReport:
    """``report`` in canonical form as an :class:`EncodedReport` (its ``line()`` is ``report_line``'s)."""
    d = report_dict(report, timing=False)
    parts = [json_bytes({k: d[k] for k in ENVELOPE_KEYS})[:-1]]  # the object left open
    envelope_end = len(parts[0])
    pos = envelope_end
    findings: array[int] = array("q")
    details: array[int] = array("q")

    def put(piece: bytes, spans: array[int] | None = None) -> None:
        nonlocal pos
        if spans is not None:
            spans.extend((pos, pos + len(piece)))
        parts.append(piece)
        pos += len(piece)

    put(FINDINGS_OPEN)
    warnings = 0
    for n, finding in enumerate(d["findings"]):
        if n:
            put(b",")
        put(json_bytes(finding), findings)
        warnings += finding["severity"] == "warning"
    put(DETAILS_OPEN)
    for n, (key, value) in enumerate(d["details"].items()):
        if n:
            put(b",")
        put(json_bytes(key) + b":" + json_bytes(value), details)
    put(_END)
    return EncodedReport(
        b"".join(parts), envelope_end, findings, details, report.verdict, report.timing_ms, warnings
    )
