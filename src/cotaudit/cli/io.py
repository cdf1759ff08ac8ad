"""The command line's one reader, one writer and one data-directory lookup.

Every command module reads its inputs with :func:`read_text` and writes its outputs with
:func:`emit` / :func:`write_file` / :func:`append_file`. Output is always written as UTF-8
bytes with lone surrogates escaped (:func:`cotaudit.report.encoding.utf8_bytes`), so any
``str`` an input produced can be printed; a file that cannot be written is one
``PATH: cannot write (REASON)`` line. Corpora come from :func:`data_dir`.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from cotaudit.errors import InputError, UsageError
from cotaudit.report.encoding import utf8_bytes

DATA_ENV = "COTAUDIT_DATA"


def read_text(path: str, limit: int | None = None) -> str:
    """The UTF-8 text of ``path`` (``-``: stdin); a one-line :class:`InputError` otherwise,
    also when it is larger than ``limit`` bytes (then no more than ``limit + 1`` are read)."""
    try:
        if limit is None:
            data = sys.stdin.buffer.read() if path == "-" else Path(path).read_bytes()
        elif path == "-":
            data = sys.stdin.buffer.read(limit + 1)
        else:
            with Path(path).open("rb") as fh:
                data = fh.read(limit + 1)
    except OSError as exc:
        raise InputError(path, exc.strerror or str(exc)) from None
    if limit is not None and len(data) > limit:
        raise InputError(path, f"larger than {limit} bytes")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise InputError(
            path, f"not UTF-8 text (byte 0x{data[exc.start]:02x} at offset {exc.start})"
        ) from None


def emit(text: str, output: str | None) -> None:
    """Write ``text`` to ``output`` (UTF-8), or to stdout when it is ``None`` or ``-``.

    The bytes are never translated, so output is byte-identical across platforms."""
    if output is not None and output != "-":
        write_file(output, text)
        return
    write_stdout(utf8_bytes(text))


def write_file(path: str | Path, text: str) -> None:
    """``text`` as UTF-8 into ``path``; a one-line :class:`UsageError` when it cannot be written."""
    try:
        Path(path).write_bytes(utf8_bytes(text))
    except OSError as exc:
        raise cannot_write(path, exc) from None


def append_file(path: str | Path, text: str) -> None:
    """``text`` as UTF-8 appended to ``path`` (created if missing)."""
    try:
        with Path(path).open("ab") as fh:
            fh.write(utf8_bytes(text))
    except OSError as exc:
        raise cannot_write(path, exc) from None


def cannot_write(path: str | Path, exc: OSError) -> UsageError:
    """The one-line error for an output that cannot be written."""
    where = path.as_posix() if isinstance(path, Path) else path
    return UsageError(f"{where}: cannot write ({exc.strerror or type(exc).__name__})")


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
        closed_pipe()


def closed_pipe() -> None:
    """The reader went away: stop writing, and point stdout at devnull so the interpreter's
    final flush does not complain either (the exit code is the caller's to keep)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # no real stdout (a test's capture): nothing to point
        pass


def data_dir() -> Path:
    """``$COTAUDIT_DATA``, else ``../shared/data`` beside the working directory (the repo layout)."""
    env = os.environ.get(DATA_ENV)
    return Path(env) if env else Path.cwd().parent / "shared" / "data"


def gsm8k_path(given: str | None) -> Path:
    """The GSM8K test split: ``given``, else ``data_dir()/gsm8k/test.jsonl``; it must exist."""
    path = Path(given) if given else data_dir() / "gsm8k" / "test.jsonl"
    if not path.is_file():
        raise InputError(str(path), "GSM8K test split not found (pass --gsm8k PATH or set COTAUDIT_DATA)")
    return path
