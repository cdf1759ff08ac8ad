"""Text and JSON that can always be written out: a lone surrogate becomes its ``\\uXXXX`` escape.

A Python ``str`` — and a JSON string such as ``"GIVEN:\\ud800"`` — may hold a lone UTF-16
surrogate (a model output cut in the middle of an emoji looks like that), but UTF-8 cannot encode
one, so a plain ``text.encode("utf-8")`` raises and would stop a whole run over one item. Every
writer passes what it produces through :func:`escape_surrogates`, and every place that turns
output text into bytes uses :func:`utf8_bytes` (or ``errors=ENCODE_ERRORS``), so such an item is
reported like any other. This is the one place that says how: the run log, the JSON writers and
the HTTP service's encoder (:mod:`cotaudit.service.encode`) all use it.

The escape is Python's ``backslashreplace``: ``\\ud800``, six ASCII characters. Inside a JSON
string that is JSON's own escape (exactly what ``ensure_ascii=True`` would write), so the output
is valid JSON and reads back as the same string; in text and HTML it shows as those six
characters. Only surrogates are affected: every other code point has a UTF-8 encoding and is
written as is.

:func:`compact_json` is the one-line JSON form every machine-read output shares (JSONL, the wire);
:func:`json_bytes` is that form as output bytes.
"""

from __future__ import annotations

import json

ENCODE_ERRORS = "backslashreplace"
"""The ``errors=`` for every output ``open()`` / ``write_text()`` / ``encode()``."""

compact_json = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode
"""``json.dumps(obj, ensure_ascii=False, separators=(",", ":"), allow_nan=False)``, with the
encoder built once (lone surrogates are left in the ``str``: :func:`json_bytes` escapes them)."""


def utf8_bytes(text: str) -> bytes:
    """``text`` as UTF-8, lone surrogates written as ``\\uXXXX`` (never an exception)."""
    return text.encode("utf-8", ENCODE_ERRORS)


def escape_surrogates(text: str) -> str:
    """``text`` unchanged when UTF-8 can encode it, else with each surrogate as ``\\uXXXX``."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return utf8_bytes(text).decode("utf-8")
    return text


def json_bytes(obj: object) -> bytes:
    """:func:`compact_json` of ``obj`` as UTF-8 bytes, lone surrogates as their JSON escape."""
    return utf8_bytes(compact_json(obj))
