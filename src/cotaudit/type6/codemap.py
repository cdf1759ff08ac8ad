"""The one place where the spec's native codes map to the stable codes of ``cotaudit.codes``.

Native codes (``T6_H01`` …) stay in the type6 result, as the spec defines them; R-1 findings
carry the stable code (``T6_E101`` …), whose letter fixes the R-1 severity. The mapping is an
explicit table, one line per native code (tests/frozen_codes/type6.txt freezes the stable side):
input errors, warnings and info keep their letter (``T6_E01`` → ``T6_E001``), hard events
become errors ``E1xx``, soft events warnings ``W3xx``, quality events warnings ``W4xx``,
diagnostics ``W501``/``I502``. Residuals have two stable codes each (:data:`RESIDUALS`):
elevated (an error, ``E2xx``) and off-chain (a warning, ``W2xx``).
"""

from __future__ import annotations

STABLE: dict[str, str] = {
    "T6_E01": "T6_E001",
    "T6_E02": "T6_E002",
    "T6_E03": "T6_E003",
    "T6_E04": "T6_E004",
    "T6_E05": "T6_E005",
    "T6_E06": "T6_E006",
    "T6_W01": "T6_W001",
    "T6_W02": "T6_W002",
    "T6_W03": "T6_W003",
    "T6_W04": "T6_W004",
    "T6_W05": "T6_W005",
    "T6_W06": "T6_W006",
    "T6_W07": "T6_W007",
    "T6_W08": "T6_W008",
    "T6_W09": "T6_W009",
    "T6_I01": "T6_I001",
    "T6_I02": "T6_I002",
    "T6_H01": "T6_E101",
    "T6_H02": "T6_E102",
    "T6_H03": "T6_E103",
    "T6_H04": "T6_E104",
    "T6_H05": "T6_E105",
    "T6_S01": "T6_W301",
    "T6_S02": "T6_W302",
    "T6_S03": "T6_W303",
    "T6_S04": "T6_W304",
    "T6_S05": "T6_W305",
    "T6_Q01": "T6_W401",
    "T6_Q02": "T6_W402",
    "T6_Q03": "T6_W403",
    "T6_Q04": "T6_W404",
    "T6_Q05": "T6_W405",
    "T6_D01": "T6_W501",
    "T6_D02": "T6_I502",
}
# Residual → (elevated, off-chain).
RESIDUALS: dict[str, tuple[str, str]] = {
    "T6_R01": ("T6_E201", "T6_W201"),
    "T6_R02": ("T6_E202", "T6_W202"),
}


def stable_code(native: str, *, elevated: bool | None = None) -> str:
    """``T6_H01`` → ``T6_E101``; ``T6_R02`` → ``T6_E202`` if elevated else ``T6_W202``."""
    if native in RESIDUALS:
        on_chain, off_chain = RESIDUALS[native]
        return on_chain if elevated else off_chain
    return STABLE[native]


def r1_severity(severity: str) -> str:
    """Effective type6 severity → R-1 severity: only hard events are errors (they make hard_fail)."""
    if severity == "hard":
        return "error"
    if severity in ("info", "diagnostic"):
        return "info"
    return "warning"
