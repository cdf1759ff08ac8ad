"""Reading a command's input and writing its output, shared by the ``cli_*`` command modules."""

from __future__ import annotations

import sys
from pathlib import Path

from cotaudit.errors import InputError, UsageError


def read_text(path: str) -> str:
    """The UTF-8 text of ``path`` (``-``: stdin); a one-line :class:`InputError` otherwise."""
    try:
        data = sys.stdin.buffer.read() if path == "-" else Path(path).read_bytes()
    except OSError as exc:
        raise InputError(path, exc.strerror or str(exc)) from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(
            path, f"not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start})"
        ) from None


def emit(text: str, output: str | None) -> None:
    """Write ``text`` to ``output`` (UTF-8), or to stdout when it is ``None`` or ``-``."""
    if output in (None, "-"):
        sys.stdout.write(text)
        sys.stdout.flush()
        return
    try:
        Path(output).write_text(text, encoding="utf-8")
    except OSError as exc:
        raise UsageError(f"cannot write {output}: {exc.strerror or exc}") from None
