"""The one place where the spec's native codes map to the stable codes of ``cotaudit.codes``.

Native codes (``T6_H01`` …) stay in the type6 result, as the spec defines them; R-1 findings
carry the stable code (``T6_E101`` …), whose letter fixes the R-1 severity. Residuals have two
stable codes each: elevated (an error) and off-chain (a warning).
"""

from __future__ import annotations

_FAMILY = {"H": "E1", "S": "W3", "Q": "W4"}
_FIXED = {
    "T6_D01": "T6_W501",
    "T6_D02": "T6_I502",
    "T6_I01": "T6_I001",
    "T6_I02": "T6_I002",
}


def stable_code(native: str, *, elevated: bool | None = None) -> str:
    """``T6_H01`` → ``T6_E101``; ``T6_R02`` → ``T6_E202`` if elevated else ``T6_W202``."""
    if native in _FIXED:
        return _FIXED[native]
    letter, number = native[3], native[4:]
    if letter in ("E", "W"):
        return f"T6_{letter}0{number}"
    if letter == "R":
        return f"T6_{'E' if elevated else 'W'}2{number}"
    return f"T6_{_FAMILY[letter]}{number}"


def r1_severity(severity: str) -> str:
    """Effective type6 severity → R-1 severity: only hard events are errors (they make hard_fail)."""
    if severity == "hard":
        return "error"
    if severity in ("info", "diagnostic"):
        return "info"
    return "warning"
