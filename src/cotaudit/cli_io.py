"""Reading a command's input and writing its output, shared by the ``cli_*`` command modules.

Output is always written as UTF-8 bytes with lone surrogates escaped
(:func:`cotaudit.report.encoding.utf8_bytes`), so any ``str`` an input produced can be printed.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from cotaudit.errors import InputError, UsageError
from cotaudit.report.encoding import utf8_bytes


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
    data = utf8_bytes(text)
    if output not in (None, "-"):
        try:
            Path(output).write_bytes(data)
        except OSError as exc:
            raise UsageError(f"cannot write {output}: {exc.strerror or exc}") from None
        return
    write_stdout(data)


def write_stdout(data: bytes) -> None:
    """``data`` to stdout's byte stream; a reader that went away (``| head``) ends the output quietly."""
    try:
        buffer = getattr(sys.stdout, "buffer", None)
        if buffer is None:  # a text-only stream (a test's capture): decode what utf8_bytes made
            sys.stdout.write(data.decode("utf-8"))
            sys.stdout.flush()
        else:
            sys.stdout.flush()
            buffer.write(data)
            buffer.flush()
    except BrokenPipeError:
        # Stop writing, keep the exit code, and point stdout at devnull so the interpreter's
        # final flush does not complain either.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
