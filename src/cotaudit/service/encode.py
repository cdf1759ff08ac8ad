"""JSON for the wire: any Unicode string, a bounded size, and never one long C call.

:func:`encode` gives the bytes of :func:`cotaudit.report.encoding.json_bytes` — compact
``json.dumps`` in UTF-8, a lone surrogate written as its JSON escape ``\\ud800``, so the answer
is valid JSON that decodes to the same string (the escaping is that module's, shared with every
writer) — with two differences that matter to a server:

- The work is cut into pieces of at most :data:`PIECE_NODES` values, each one short call into the
  C encoder, so a thread encoding a 40 MB report hands the GIL back to the event loop thread
  every few microseconds instead of holding it for a second.
- It stops as soon as the output passes ``limit`` bytes (:class:`TooLarge`), so an oversized
  answer costs ``limit`` bytes of work, not its full size.

:func:`fit_reports` applies a response budget to a list of R-1 report dicts: a report that does
not fit its share is replaced by a shorter one that keeps its verdict and says what was left
out (``details.truncated``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from cotaudit.report.encoding import compact_json, utf8_bytes

PIECE_NODES = 2048  # values per call into the C encoder (~50-100 µs of work)
_STR_NODE = 64  # a string counts one node per this many characters


class TooLarge(Exception):
    """The encoding passed its byte limit (it was abandoned there)."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"more than {limit} bytes")
        self.limit = limit


def _small(node: object) -> bool:
    """Whether ``node`` holds at most :data:`PIECE_NODES` values (stops counting once it is not)."""
    budget = PIECE_NODES
    stack = [node]
    while stack:
        x = stack.pop()
        if isinstance(x, dict):
            budget -= len(x)
            stack.extend(x.values())
        elif isinstance(x, list | tuple):
            budget -= len(x)
            stack.extend(x)
        elif isinstance(x, str):
            budget -= len(x) // _STR_NODE
        if budget < 0:
            return False
    return True


def _key(key: object) -> str:
    """A dict key as ``json.dumps`` writes it (strings; numbers, booleans and None converted)."""
    if isinstance(key, str):
        return compact_json(key)
    if key is True or key is False or key is None:
        return compact_json(compact_json(key))
    if isinstance(key, int | float):
        return compact_json(compact_json(key))
    raise TypeError(f"keys must be str, int, float, bool or None, not {type(key).__name__}")


class _Frame:
    """An open container while :func:`pieces` walks it."""

    __slots__ = ("first", "is_dict", "items")

    def __init__(self, items: Iterator[Any], is_dict: bool) -> None:
        self.items = items
        self.is_dict = is_dict
        self.first = True


_DONE = object()


def pieces(obj: object) -> Iterator[str]:
    """The JSON text of ``obj`` in pieces whose concatenation is ``json.dumps`` (compact form).

    Containers too large for one piece are opened here, with an explicit stack (no recursion
    limit); everything small goes through the C encoder in one call.
    """
    stack: list[_Frame] = []
    node = obj
    while True:
        if isinstance(node, dict) and not _small(node):
            yield "{"
            stack.append(_Frame(iter(node.items()), True))
        elif isinstance(node, list | tuple) and not _small(node):
            yield "["
            stack.append(_Frame(iter(node), False))
        else:
            yield compact_json(node)
        while stack:  # find the next value to write, closing finished containers
            frame = stack[-1]
            item: Any = next(frame.items, _DONE)
            if item is _DONE:
                stack.pop()
                yield "}" if frame.is_dict else "]"
                continue
            sep = "" if frame.first else ","
            frame.first = False
            if frame.is_dict:
                key, node = item
                yield sep + _key(key) + ":"
            else:
                node = item
                if sep:
                    yield sep
            break
        else:
            return


def encode(obj: object, limit: int | None = None) -> bytes:
    """UTF-8 JSON for ``obj`` (lone surrogates escaped); :class:`TooLarge` past ``limit`` bytes."""
    out: list[bytes] = []
    size = 0
    for piece in pieces(obj):
        data = utf8_bytes(piece)
        size += len(data)
        if limit is not None and size > limit:
            raise TooLarge(limit)
        out.append(data)
    return b"".join(out)


# --------------------------------------------------------------------------- report budgets

_ENVELOPE = ("schema_version", "engine", "engine_version", "input", "verdict", "score")
DETAIL_BYTES = 4096  # a details entry at most this large is kept in a shortened report
DETAIL_ENTRIES = 256  # details entries looked at when shortening (bounds the work)


def fit_report(report: Mapping[str, Any], limit: int) -> bytes:
    """``report`` encoded in at most ``limit`` bytes: whole if it fits, else shortened.

    The shortened report keeps the envelope (engine, input, verdict, score, timing), the small
    ``details`` entries (the engine's own verdict word, summaries) and the leading findings that
    fit, and says what it left out in ``details.truncated``. If even the envelope is too large
    (an id or path of many kilobytes), the input is named by its ``sha256`` alone
    (``input_kept: false``). :class:`TooLarge` if not even that fits.
    """
    try:
        return encode(report, limit)
    except TooLarge:
        pass
    findings = report.get("findings")
    findings = findings if isinstance(findings, list) else []
    details = report.get("details")
    details = details if isinstance(details, dict) else {}
    note = {
        "reason": "response_too_large",
        "limit_bytes": limit,
        "findings_total": len(findings),
        "findings_kept": len(findings),  # the largest count: reserves room for the final one
        "details_total": len(details),
        "details_kept": len(details),
    }
    shortened: dict[str, Any] = {k: report[k] for k in _ENVELOPE if k in report}
    shortened["findings"] = []
    shortened["details"] = {"truncated": note}
    if "timing_ms" in report:
        shortened["timing_ms"] = report["timing_ms"]
    try:
        room = limit - len(encode(shortened, limit))
    except TooLarge:
        given = report.get("input")
        sha = given.get("sha256") if isinstance(given, Mapping) else None
        shortened["input"] = {"path": None, "id": None, "sha256": sha if isinstance(sha, str) else None}
        note["input_kept"] = False
        room = limit - len(encode(shortened, limit))  # TooLarge: not even the envelope fits
    kept: dict[str, Any] = {}
    for key, value in list(details.items())[:DETAIL_ENTRIES]:
        if key == "truncated":
            continue
        try:
            room -= len(encode({key: value}, min(DETAIL_BYTES, room)))
        except TooLarge:
            continue
        kept[key] = value
    kept_findings: list[Any] = []
    for finding in findings:
        try:
            room -= len(encode(finding, room - 1)) + 1  # the comma before it
        except TooLarge:
            break
        kept_findings.append(finding)
    note["findings_kept"] = len(kept_findings)
    note["details_kept"] = len(kept)
    shortened["findings"] = kept_findings
    shortened["details"] = {**kept, "truncated": note}
    return encode(shortened, limit)


def fit_reports(reports: Sequence[Mapping[str, Any]], limit: int) -> list[bytes]:
    """Each report of a list encoded so that together (with ``,``) they take at most ``limit``.

    Reports are placed in order; each may use what is left after setting aside an equal share
    of half the budget for every report still to come, so an early large report cannot starve
    the ones after it. :class:`TooLarge` if some report cannot be shortened into its room.
    """
    n = len(reports)
    floor = limit // (2 * n) if n else 0
    left = limit - max(0, n - 1)  # the commas between them
    out: list[bytes] = []
    for i, report in enumerate(reports):
        room = left - floor * (n - 1 - i)
        data = fit_report(report, room)
        left -= len(data)
        out.append(data)
    return out
