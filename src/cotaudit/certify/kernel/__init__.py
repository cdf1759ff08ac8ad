"""The kernel scan: the deletion scan, the derivability oracle, Ess, order sensitivity and the
redundancy fractions.
"""

from cotaudit.certify.kernel.scan import KernelResult, OrderRank, kernel_scan

__all__ = ["KernelResult", "OrderRank", "kernel_scan"]
