"""JSON decoding with bounds on nesting and on numbers, for untrusted trace text (V-4 [ours]).

:func:`json.loads` recurses once per nesting level (100,000 nested brackets raise
``RecursionError``), converts integer literals of any length (5,000 digits exceed Python's
int-string conversion limit and raise ``ValueError``) and accepts ``NaN`` and ``Infinity``,
which are not JSON. :func:`decode` measures the nesting first, with linear-time regular
expressions and no recursion, and decodes with hooks that bound every number, so each of these
is a :class:`JSONRejected` naming the bound instead of an exception from inside the decoder.
"""

from __future__ import annotations

import json
import math
import re
from itertools import accumulate
from typing import Any

from cotaudit.errors import CotauditError

# A string literal, up to its closing quote or the end of the text. It always matches where a
# quote starts, its quantifiers are possessive, and matches never overlap, so one pass over the
# text is linear whatever it holds (an unterminated string simply runs to the end).
_STRING = re.compile(r'"(?:[^"\\]++|\\.?)*+(?:"|\Z)', re.DOTALL)
_BRACKET = re.compile(r"[\[\]{}]")
_DEPTH_STEP = {"[": 1, "{": 1, "]": -1, "}": -1}


MAX_DEPTH = 64
"""Default nesting bound (a trace nests 6 levels, an R-1 report about 8)."""
MAX_NUMBER_CHARS = 100
"""Default bound on the characters of one JSON number."""


class JSONRejected(CotauditError, ValueError):
    """The text is not JSON, or breaches a bound; ``message`` says which."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def nesting_depth(text: str) -> int:
    """The deepest ``[``/``{`` nesting of ``text``, brackets inside string literals not counted.

    Exact for valid JSON; for invalid JSON a best effort that the decoder then rejects anyway.
    """
    brackets = _BRACKET.findall(_STRING.sub("", text))
    return max(0, max(accumulate(map(_DEPTH_STEP.__getitem__, brackets)), default=0))


def decode(text: str, *, max_depth: int = MAX_DEPTH, max_number_chars: int = MAX_NUMBER_CHARS) -> Any:
    """``json.loads(text)`` within the bounds; :class:`JSONRejected` otherwise."""
    # Fewer opening brackets than the bound cannot nest deeper than it: skip the scan.
    depth = nesting_depth(text) if text.count("[") + text.count("{") > max_depth else 0
    if depth > max_depth:
        raise JSONRejected(f"JSON nested {depth} levels deep; at most {max_depth} are allowed")

    def number(literal: str) -> None:
        if len(literal) > max_number_chars:
            raise JSONRejected(
                f"a JSON number of {len(literal)} characters ({literal[:12]}...); "
                f"numbers may have at most {max_number_chars}"
            )

    def parse_int(literal: str) -> int:
        number(literal)
        return int(literal)

    def parse_float(literal: str) -> float:
        number(literal)
        value = float(literal)
        if not math.isfinite(value):
            raise JSONRejected(f"the JSON number {literal[:40]} is out of range")
        return value

    def parse_constant(name: str) -> float:
        raise JSONRejected(f"{name} is not a JSON value")

    try:
        return json.loads(text, parse_int=parse_int, parse_float=parse_float, parse_constant=parse_constant)
    except json.JSONDecodeError as exc:
        raise JSONRejected(f"not JSON: {exc.msg} (line {exc.lineno}, column {exc.colno})") from None
    except RecursionError:  # the pre-scan makes this unreachable; keep the diagnostic anyway
        raise JSONRejected(f"JSON nested too deep; at most {max_depth} levels are allowed") from None
