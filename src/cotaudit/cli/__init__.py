"""The ``cotaudit`` command line: one module per command group, listed in :mod:`.entry`.

``cotaudit.cli:main`` is the console entry point (pyproject ``[project.scripts]``). Modules:
:mod:`.entry` (parser, exit codes, one-line errors), :mod:`.check` (``check``, ``audit``),
:mod:`.batch`, :mod:`.serve`, :mod:`.te`, :mod:`.type6`, :mod:`.vericot`, :mod:`.certify`
(with :mod:`.certify_ops` and :mod:`.certify_eval`), :mod:`.eval`; shared by them:
:mod:`.io` (the one reader, writer and data-directory lookup), :mod:`.limits`, :mod:`.llm`
and :mod:`.html`. Engines are imported inside the handlers, so ``cotaudit --help`` stays fast.
"""

from cotaudit.cli.entry import build_parser, exit_code, main

__all__ = ["build_parser", "exit_code", "main"]
