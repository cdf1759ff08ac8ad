"""Certificates and their independent checker: the certificate format, kernel views, the
reference evaluator and ``recheck``. Nothing here imports the executor (``engine``) or any
layer after it: a test walks the imports.
"""

from cotaudit.certify.proof.kernelview import KernelView
from cotaudit.certify.proof.recheck import recheck
from cotaudit.certify.proof.report import RecheckFailure, RecheckReport

__all__ = ["KernelView", "RecheckFailure", "RecheckReport", "recheck"]
