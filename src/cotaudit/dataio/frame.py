"""The one module that imports pandas (``pip install 'cotaudit[data]'``): a run log as a
``DataFrame``.

A run log's first line is its header, in another shape than the reports after it, so
``pandas.read_json("run.jsonl", lines=True).iloc[1:]`` gives one row per report with nested
``input``/``findings``/``details`` columns. :func:`read_run_log` gives the flat table of
``cotaudit export`` instead: one row per item (:data:`~cotaudit.dataio.export.ITEM_COLUMNS`) or,
with ``findings=True``, one per finding.
"""

from __future__ import annotations

import os
from typing import Any

from cotaudit.dataio.export import rows_of
from cotaudit.errors import MissingDependency

INSTALL_HINT = "pip install 'cotaudit[data]'"


def read_run_log(path: str | os.PathLike[str], *, findings: bool = False) -> Any:
    """A run log as a ``pandas.DataFrame`` (see the module docstring)."""
    try:
        import pandas as pd
    except ModuleNotFoundError:
        raise MissingDependency("pandas", INSTALL_HINT) from None
    columns, rows = rows_of(path, findings=findings)
    return pd.DataFrame(list(rows), columns=list(columns))
