"""Telegraph Reasoning (TE): a tagged trace grammar and a linter that re-computes every claim.

    >>> from cotaudit import te
    >>> te.lint("GIVEN:\\n  a := 4\\nGOAL: b\\nEQ[e1]: b = 2 * a = 8\\nANS: b\\n").verdict
    'CLEAN'

``lint`` returns a :class:`LintResult` with diagnostics TE_E001 … TE_E014 / TE_W001;
``check`` returns the shared R-1 :class:`~cotaudit.report.Report`.
"""

from cotaudit.te.config import M1, M2, Diagnostic, LintConfig
from cotaudit.te.linter import check, lint
from cotaudit.te.numeric import Limits
from cotaudit.te.result import ENGINE_VERSION, LintResult

__all__ = ["ENGINE_VERSION", "M1", "M2", "Diagnostic", "Limits", "LintConfig", "LintResult", "check", "lint"]
