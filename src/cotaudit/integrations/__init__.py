"""cotaudit inside the frameworks people already run (each needs its own extra):

- :mod:`cotaudit.integrations.inspect` — an inspect_ai ``@scorer`` (``pip install 'cotaudit[inspect]'``);
- :mod:`cotaudit.integrations.verifiers` — a ``verifiers`` rubric (``pip install 'cotaudit[verifiers]'``).

TRL and verl need no library on cotaudit's side: :mod:`cotaudit.rewards` has their functions.
Every integration scores through :func:`cotaudit.rewards.score_completion`, so the trace is found
in a completion, and "could not check" is kept apart from "wrong", the same way everywhere.
"""

# The integrations import their framework when imported themselves; nothing is re-exported here.
__all__: list[str] = []
