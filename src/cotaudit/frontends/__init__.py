"""Front ends: turn raw model input and output into what the engines check, with the LLM layer.

- :mod:`~cotaudit.frontends.te_emit`: a problem → the 5-shot TE prompt → a completion → the
  extracted trace (TE-5) → structural compliance and the answer's value;
- :mod:`~cotaudit.frontends.te_verify`: the M3 / M4 baselines' model calls (Natural Program
  self-verification, LLM judge on the raw trace) with majority votes;
- :mod:`~cotaudit.frontends.type6_annotate`: raw chain of thought → an annotated ``.t6`` trace
  (the paper's stages 1-3 and the verify-and-correct pass), checked by the type6 parser;
- :mod:`~cotaudit.frontends.type6_judge`: the 4-axis LLM-judge rubric baseline for type6.

Engines never import front ends; front ends import engines and :mod:`cotaudit.llm`.
"""

__all__: list[str] = []
