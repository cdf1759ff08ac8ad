"""Imported by the fork server of the local pool: the built-in engines, loaded once.

Workers fork from that server (:mod:`cotaudit.batch.pool`), so each starts with the engines in
memory in a few milliseconds instead of importing them again. Nothing here may raise, or the
server would die: an engine that cannot load is reported per item by the worker, as everywhere.
"""

from __future__ import annotations

import contextlib

from cotaudit import api
from cotaudit.batch import jobs

for _spec in api.engines():
    if isinstance(_spec.entry_point, str):
        with contextlib.suppress(BaseException):  # even SystemExit from a broken module: see above
            jobs.preload((_spec.name,))
