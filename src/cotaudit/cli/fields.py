"""``--text-field``, ``--id-field`` and ``--engine-field``: the columns of a data file that hold
an item's text, id and engine (:class:`cotaudit.dataio.FieldMap`), for ``check``, ``audit`` and
``batch``. :func:`with_fields` wraps a command's handler so that every source it opens uses them.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # cotaudit.dataio is imported when a command runs, not at start-up
    from cotaudit.dataio import FieldMap

Handler = Callable[[argparse.Namespace], int]
FORMATS_HELP = ".jsonl, .jsonl.gz, .parquet, a saved Hugging Face dataset directory, or - (stdin)"


def add_field_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("data files (" + FORMATS_HELP + ")")
    group.add_argument("--text-field", metavar="NAME", help="the column holding the trace (default: text)")
    group.add_argument("--id-field", metavar="NAME", help="the column holding the item id (default: id)")
    group.add_argument(
        "--engine-field", metavar="NAME", help="the column naming the engine (default: engine)"
    )


def fields_from_args(args: argparse.Namespace) -> FieldMap:
    from cotaudit.dataio import FieldMap

    return FieldMap(
        getattr(args, "text_field", None),
        getattr(args, "id_field", None),
        getattr(args, "engine_field", None),
    )


def with_fields(handler: Handler) -> Handler:
    """``handler`` run with the command line's field map in force."""

    def run(args: argparse.Namespace) -> int:
        from cotaudit.dataio import using_fields

        with using_fields(fields_from_args(args)):
            return handler(args)

    run.__name__ = getattr(handler, "__name__", "handler")
    return run
