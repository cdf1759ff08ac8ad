"""Colour on the terminal: ``--color auto|always|never`` and ``NO_COLOR``.

``auto`` (the default) colours stdout only when it is a terminal, ``NO_COLOR`` (any non-empty
value, https://no-color.org) is unset and ``TERM`` is not ``dumb``; ``always`` and ``never``
decide alone. Styles are plain ANSI SGR sequences -- nothing is imported for them -- and
:func:`paint` returns the text unchanged when colour is off, so plain output stays byte-identical.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping
from typing import TextIO

CHOICES = ("auto", "always", "never")

STYLES: Mapping[str, str] = {
    "bold": "1",
    "dim": "2",
    "error": "1;31",
    "warning": "1;33",
    "info": "1;36",
    "pass": "32",
    "fail": "1;31",
    "abstain": "33",
    "invalid": "1;35",
    "path": "1",
    "code": "1;31",
    "location": "36",
}


def use_color(
    choice: str | None, stream: TextIO | None = None, environ: Mapping[str, str] | None = None
) -> bool:
    """Whether output on ``stream`` (stdout by default) gets colour under ``--color choice``."""
    env = os.environ if environ is None else environ
    if choice == "always":
        return True
    if choice == "never":
        return False
    if env.get("NO_COLOR") or env.get("TERM") == "dumb":
        return False
    target = stream if stream is not None else sys.stdout
    isatty = getattr(target, "isatty", None)
    return bool(isatty and isatty())


def paint(text: str, style: str, enabled: bool) -> str:
    """``text`` wrapped in the SGR sequence of ``style`` when ``enabled``."""
    if not enabled or not text:
        return text
    return f"\x1b[{STYLES[style]}m{text}\x1b[0m"
