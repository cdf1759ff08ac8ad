from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

from cotaudit.report.model import Report


def write_site(
    reports: Sequence[Report],
    out: Path,
    *,
    title: str,
    page_size: int = 200,
    on_item: Callable[[int], None] | None = None,
) -> Path:
    raise NotImplementedError
