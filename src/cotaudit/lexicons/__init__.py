"""Closed vocabularies of public data sets, shared by the engines that read them.

Data only: no engine, no parsing. :mod:`.proofwriter` is ProofWriter's lexicon, read by
certify's ProofWriter adapter and by vericot's deterministic ProofWriter formaliser.
"""

__all__: list[str] = []
