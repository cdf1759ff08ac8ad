"""Task replay checkers: small plug-ins that each know one task's state and replay a trace.

A replayer has a ``name``, a ``recognises(problem, steps)`` test and a ``replay(problem,
steps)`` that returns a :class:`Replay`: one :class:`Check` per claim it could test (the
stack after a symbol, who holds what after a swap, a bucket of words, a placement) and,
optionally, the arithmetic claims it read itself (with names bound, e.g. ``A = -14``) for
the steps it owns. The engine uses the record's ``task`` field, or the ``task=`` option,
or else the first registered replayer that recognises the problem; with none, only the
generic arithmetic reader runs.

Register your own (the built-in ones are registered the same way)::

    from cotaudit.cot.replay import Check, Replay, register_replayer

    class Countdown:
        name = "countdown"

        def recognises(self, problem, steps):
            return problem.startswith("Count down from")

        def replay(self, problem, steps):
            checks = []
            expected = int(problem.split()[3])
            for i, step in enumerate(steps):
                if step.strip().isdigit():
                    got = int(step)
                    checks.append(Check(i, got == expected, "count", str(got), str(expected)))
                    expected = got - 1
            return Replay(checks)

    register_replayer(Countdown())

A check that finds the trace wrong must be certain: when the trace's wording cannot be read,
return no check for it (the step stays ``unchecked``), never a failing one.
"""

from cotaudit.cot.replay.model import Check, Replay, Replayer
from cotaudit.cot.replay.registry import find_replayer, register_replayer, replayers, unregister_replayer

__all__ = [
    "Check",
    "Replay",
    "Replayer",
    "find_replayer",
    "register_replayer",
    "replayers",
    "unregister_replayer",
]
