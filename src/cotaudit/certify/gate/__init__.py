"""The certificate gate: source mode (parse, types, whitelist, source check, contradictions,
duplicates, the kernel scan), derived mode, and the edge extractor for carrier traces.
"""

from cotaudit.certify.gate.decision import GateDecision, Outcome

__all__ = ["GateDecision", "Outcome"]
