"""Corpus tools of the te engine, not the linter: GSM8K → TE conversion (:mod:`.gsm8k`, with the
safe number parser :mod:`.gsm8k_numbers`), perturbations that inject one error (:mod:`.perturb`,
:mod:`.roscoe`), the adversarial corpus built from them (:mod:`.adversarial`, its seeds and
hard clean controls in ``data/``) and the Natural Program rendering (:mod:`.np`).

Nothing here runs the linter: clean controls are never chosen by lint outcome (TE-51).
"""

from cotaudit.te.corpus.adversarial import (
    PAPER_COUNTS,
    PAPER_SEED,
    CorpusItem,
    build_corpus,
    read_jsonl,
    write_jsonl,
)

__all__ = ["PAPER_COUNTS", "PAPER_SEED", "CorpusItem", "build_corpus", "read_jsonl", "write_jsonl"]
