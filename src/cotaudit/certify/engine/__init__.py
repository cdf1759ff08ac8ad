"""The executor: semi-naive bottom-up evaluation with provenance, its compiled join plans, the
compact fact store and the closure with its certificate builders.
"""

from cotaudit.certify.engine.closure import Closure
from cotaudit.certify.engine.evaluation import evaluate
from cotaudit.certify.engine.facts import Source
from cotaudit.certify.engine.limits import EvalLimits

__all__ = ["Closure", "EvalLimits", "Source", "evaluate"]
