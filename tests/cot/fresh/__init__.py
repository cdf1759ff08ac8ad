"""Freshly generated BIG-bench-style items and traces, in several writing styles, for measuring
the cot engine on phrasings it has never seen (see :mod:`tests.cot.fresh.gen`)."""
