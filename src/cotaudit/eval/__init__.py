"""The evaluation harness: corpora with gold labels, methods, a resumable runner, metrics, reports.

Engine-neutral: an :class:`~cotaudit.eval.model.EvalItem` is a text with its gold label (is it
adversarial, which category, which line); a method turns it into an
:class:`~cotaudit.eval.model.Outcome` (flagged or not, the lines and codes of its errors, the
time it took). Metrics and statistics only see those. ``cotaudit.eval.te`` binds the te engine.
"""

from cotaudit.eval.model import EvalItem, Method, Outcome

__all__ = ["EvalItem", "Method", "Outcome"]
