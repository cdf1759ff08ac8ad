"""Pausing the cyclic garbage collector around allocation-heavy, cycle-free work.

The one helper every engine uses: the te linter and type6's verifier pause the collector for a
run, certify for parsing, evaluation and recheck.

Parsing a program and evaluating a closure allocate millions of small objects that reference
counting alone frees (tuples, named tuples, ints; no reference cycles). With the collector on,
the generation-2 passes that the growing heap keeps triggering cost as much as the work itself
(100,000 facts: parse 3.3 s → 1.2 s, evaluate 2.9 s → 1.9 s on the reference machine). The
collector is paused for the duration and restored to its previous state, exception or not.
With threads, an overlapping caller may see it switched back on early (harmless); whoever
found it on switches it back on, so it is never left off.

``promote=True`` is for work whose objects are the long-lived result (a parsed program, a
closure). Left alone, they are all still in the youngest generation when the collector comes
back on, and the first allocation afterwards pays a young collection that walks every one of
them (≈ 0.1 s per million tuples) just to move them up. Promoting moves every tracked object
straight to the oldest generation instead, in constant time (``gc.freeze()`` then
``gc.unfreeze()``; CPython documents both), and resets the young count. Nothing is exempted from
collection: promoted objects are still freed by reference counting, and any cycle among them
waits for the next full collection rather than a young one (the parser's fast path and the
executor make none; other code's young objects are promoted too). So it is done only after
large work (``PROMOTE_AT`` objects), and skipped when the process has frozen objects of its
own (``gc.get_freeze_count() > 0``), which ``unfreeze`` would release.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

# Promote only after large work (net tracked allocations in the block, which the young count
# still counts while the collector is off): small, frequent calls (serving queries) leave the
# generations alone, so other code's cyclic garbage keeps being collected young.
PROMOTE_AT = 100_000


@contextmanager
def paused_collector(*, promote: bool = False) -> Iterator[None]:
    """Disable the cyclic collector inside the block; re-enable it afterwards if it was on.

    With ``promote``, objects that survive a block that allocated at least ``PROMOTE_AT`` of them
    are moved to the oldest generation when it completes normally (see the module docstring)."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
        if promote and collecting and gc.get_count()[0] >= PROMOTE_AT and gc.get_freeze_count() == 0:
            gc.freeze()
            gc.unfreeze()
    finally:
        if collecting:
            gc.enable()
