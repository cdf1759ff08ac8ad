"""Codes shared by every engine: the per-input budgets that ``api.check`` enforces (cotaudit.limits)."""

from cotaudit.codes.model import Code

CORE: tuple[Code, ...] = (
    Code(
        "COTAUDIT_W001",
        "cotaudit",
        "time-budget-exceeded",
        "warning",
        "input",
        "The input ran past its wall-time budget, so nothing was decided about it (verdict abstain).",
    ),
    Code(
        "COTAUDIT_W002",
        "cotaudit",
        "memory-budget-exceeded",
        "warning",
        "input",
        "Checking the input needed more memory than its budget allows, so nothing was decided (abstain).",
    ),
)
