"""Text that can always be written out: a lone surrogate becomes its ``\\uXXXX`` escape.

A Python ``str`` — and a JSON string such as ``"GIVEN:\\ud800"`` — may hold a lone UTF-16
surrogate (a model output cut in the middle of an emoji looks like that), but UTF-8 cannot encode
one, so a plain ``text.encode("utf-8")`` raises and would stop a whole run over one item. Every
writer passes what it produces through :func:`escape_surrogates`, and every place that turns
output text into bytes uses :func:`utf8_bytes` (or ``errors=ENCODE_ERRORS``), so such an item is
reported like any other.

The escape is Python's ``backslashreplace``: ``\\ud800``, six ASCII characters. Inside a JSON
string that is JSON's own escape, so the output is valid JSON and reads back as the same string;
in text and HTML it shows as those six characters. Only surrogates are affected: every other
code point has a UTF-8 encoding and is written as is.
"""

from __future__ import annotations

ENCODE_ERRORS = "backslashreplace"
"""The ``errors=`` for every output ``open()`` / ``write_text()`` / ``encode()``."""


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
