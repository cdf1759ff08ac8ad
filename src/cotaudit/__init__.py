"""cotaudit: mechanical audits of language-model reasoning traces.

```python
import cotaudit
report = cotaudit.check(text, engine="te")      # -> Report (R-1)
reports = cotaudit.check_file("trace.te")        # engine from the extension
result = cotaudit.audit(["examples/"])           # every supported file under a tree
cotaudit.te.lint(text)                           # engine entry points, imported on first use
```
"""

import importlib
from typing import TYPE_CHECKING, Any

from cotaudit.api import AuditResult, audit, check, check_file
from cotaudit.errors import CotauditError, MissingDependency
from cotaudit.report import Finding, Report
from cotaudit.version import __version__

if TYPE_CHECKING:  # typed as the modules they are; imported on first use at run time
    from cotaudit import certify as certify
    from cotaudit import te as te
    from cotaudit import type6 as type6
    from cotaudit import vericot as vericot

# Engine subpackages are imported on first attribute access (they pull in SymPy, pint, z3 ...):
# the one module-level __getattr__ of the package, for these submodules only, so that
# ``import cotaudit`` (and the CLI's start) stays fast.
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
