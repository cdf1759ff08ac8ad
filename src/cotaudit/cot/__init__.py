"""cot: raw chains of thought audited with no model.

    >>> from cotaudit import cot
    >>> cot.check("Step 1: 48/2 = 24\\nStep 2: 48 + 24 = 72\\n").verdict
    'pass'

The text is split into steps (:mod:`cotaudit.cot.segment`); every arithmetic claim written in
prose or LaTeX is recomputed exactly (:mod:`cotaudit.cot.claims`, with the te engine's safe
evaluator); task replayers re-run the state of known tasks (:mod:`cotaudit.cot.replay`); the
final answer is compared with gold when one is given (:mod:`cotaudit.cot.answer`). See
docs/cot.md for what a verdict means and what the engine cannot check.
"""

from cotaudit.cot.engine import ENGINE_VERSION, audit, check
from cotaudit.cot.replay import Check, Replay, Replayer, register_replayer, replayers

__all__ = [
    "ENGINE_VERSION",
    "Check",
    "Replay",
    "Replayer",
    "audit",
    "check",
    "register_replayer",
    "replayers",
]
