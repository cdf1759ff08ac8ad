"""Workloads the spec defines by construction: shared by the benchmarks and the tests that check
their published check values."""

from __future__ import annotations

import random


def lib15k(seed: int = 0) -> list[str]:
    """C-113's 15,000-unit lib corpus (axioms, ground rule chains, 500 weakened and 499
    inlined copies), in text syntax, one unit per string."""
    r = random.Random(seed)
    U = ["[ax] derivable(X) :- axiom(X)."] + [f"[a{i}] axiom(t{i})." for i in range(2500)]
    P: dict[int, list[int]] = {}

    def body(ds: list[int]) -> str:
        return ", ".join(f"derivable(t{d})" for d in ds)

    for i in range(2500, 14000):
        P[i] = sorted(r.sample(range(max(0, i - 400), i), r.randint(1, 4)))
        U.append(f"[p{i}] derivable(t{i}) :- {body(P[i])}.")
    for i in sorted(r.sample(range(2500, 14000), 500)):
        extra = r.choice([d for d in range(max(0, i - 400), i) if d not in P[i]])
        U.append(f"[w{i}] derivable(t{i}) :- {body(sorted(P[i] + [extra]))}.")
    cand = [i for i in range(2500, 14000) if any(d >= 2500 for d in P[i])]
    for i in sorted(r.sample(cand, 499)):
        d = max(x for x in P[i] if x >= 2500)
        U.append(f"[c{i}] derivable(t{i}) :- {body(sorted(set(P[i]) - {d} | set(P[d])))}.")
    return U
