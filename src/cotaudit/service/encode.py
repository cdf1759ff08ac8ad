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

:func:`fit_reports` applies a response budget to a list of encoded R-1 reports
(:class:`~cotaudit.report.encoded.EncodedReport`, as the workers send them): a report that does
not fit its share is replaced by a shorter one that keeps its verdict and says what was left
out (``details.truncated``).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from cotaudit.report.encoded import DETAILS_OPEN, FINDINGS_OPEN, EncodedReport
from cotaudit.report.encoding import compact_json, json_bytes, utf8_bytes

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

DETAIL_BYTES = 4096  # a details entry at most this large is kept in a shortened report
DETAIL_ENTRIES = 256  # details entries looked at when shortening (bounds the work)
_TRUNCATED = b'"truncated":'


def fit_report(report: EncodedReport, limit: int) -> bytes:
    """``report`` (with its timing) in at most ``limit`` bytes: whole if it fits, else shortened.

    The shortened report keeps the envelope (engine, input, verdict, score, timing), the small
    ``details`` entries (the engine's own verdict word, summaries) and the leading findings that
    fit, and says what it left out in ``details.truncated``. If even the envelope is too large
    (an id or path of many kilobytes), the input is named by its ``sha256`` alone
    (``input_kept: false``). :class:`TooLarge` if not even that fits.

    It works on the encoded bytes: the kept findings and entries are copied as they are, only
    the envelope is parsed, so shortening a 40 MB report builds no objects worth speaking of.
    """
    if report.size() <= limit:
        return report.line()
    head = report.envelope()
    note: dict[str, Any] = {
        "reason": "response_too_large",
        "limit_bytes": limit,
        "findings_total": report.finding_count,
        "findings_kept": report.finding_count,  # the largest counts: reserve room for the final ones
        "details_total": report.detail_count,
        "details_kept": report.detail_count,
    }
    closing = b'},"timing_ms":' + json_bytes(report.timing_ms) + b"}"

    def frame() -> int:  # every byte of the shortened report but the kept findings and entries
        return (
            len(json_bytes(head))
            - 1
            + len(FINDINGS_OPEN)
            + len(DETAILS_OPEN)
            + len(_TRUNCATED + json_bytes(note))
        )

    room = limit - frame() - len(closing)
    if room < 0:
        given = head.get("input")
        sha = given.get("sha256") if isinstance(given, Mapping) else None
        head["input"] = {"path": None, "id": None, "sha256": sha if isinstance(sha, str) else None}
        note["input_kept"] = False
        room = limit - frame() - len(closing)
        if room < 0:
            raise TooLarge(limit)  # not even the envelope fits
    kept: list[bytes] = []
    for i in range(min(report.detail_count, DETAIL_ENTRIES)):
        start, end = report.detail_span(i)
        cost = end - start + 1  # the comma after it
        if cost > min(DETAIL_BYTES, room):
            continue
        entry = report.detail(i)
        if entry.startswith(_TRUNCATED):  # ours replaces it
            continue
        kept.append(entry)
        room -= cost
    count, findings = report.leading_findings(room)
    note["findings_kept"] = count
    note["details_kept"] = len(kept)
    kept.append(_TRUNCATED + json_bytes(note))
    return b"".join([json_bytes(head)[:-1], FINDINGS_OPEN, findings, DETAILS_OPEN, b",".join(kept), closing])


def fit_reports(reports: Sequence[EncodedReport], limit: int) -> list[bytes]:
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
