"""Pausing the cyclic garbage collector around allocation-heavy, cycle-free work.

Parsing a program and evaluating a closure allocate millions of small objects that reference
counting alone frees (tuples, named tuples, ints; no reference cycles). With the collector on,
the generation-2 passes that the growing heap keeps triggering cost as much as the work itself
(100,000 facts: parse 3.3 s → 1.2 s, evaluate 2.9 s → 1.9 s on the reference machine). The
collector is paused for the duration and restored to its previous state, exception or not.
With threads, an overlapping caller may see it switched back on early (harmless); whoever
found it on switches it back on, so it is never left off.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paused_collector() -> Iterator[None]:
    """Disable the cyclic collector inside the block; re-enable it afterwards if it was on."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if collecting:
            gc.enable()
