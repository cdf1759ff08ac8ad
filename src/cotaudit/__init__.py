"""cotaudit: mechanical audits of language-model reasoning traces.

```python
import cotaudit
report = cotaudit.check(text, engine="te")      # -> Report (R-1)
reports = cotaudit.check_file("trace.te")        # engine from the extension
result = cotaudit.audit(["examples/"])           # every supported file under a tree
cotaudit.te.lint(text)                           # engine entry points, imported on first use
```
"""

__version__ = "0.1.0"

import importlib
from typing import Any

from cotaudit.api import AuditResult, audit, check, check_file
from cotaudit.errors import CotauditError, MissingDependency
from cotaudit.report import Finding, Report

# Engine subpackages are imported on first attribute access (they pull in SymPy, pint, z3 ...).
_ENGINE_PACKAGES = frozenset({"te", "type6", "vericot", "certify"})

__all__ = [
    "AuditResult",
    "CotauditError",
    "Finding",
    "MissingDependency",
    "Report",
    "__version__",
    "audit",
    "check",
    "check_file",
]


def __getattr__(name: str) -> Any:
    if name in _ENGINE_PACKAGES:
        try:
            return importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as exc:
            if exc.name != f"{__name__}.{name}":
                raise
            raise AttributeError(
                f"module 'cotaudit' has no attribute '{name}' "
                f"(engine '{name}' is not available in this version of cotaudit)"
            ) from None
    raise AttributeError(f"module 'cotaudit' has no attribute '{name}'")
