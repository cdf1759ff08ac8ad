"""certify part-1 benchmarks (certify.md §15): C-111, C-112 beside clingo, C-113 scan time.

    python benchmarks/certify/bench_certify.py [--runs 5] [--only c111,c112,c113,scaling,admit] [--unoriented]

Each figure is the median and p95 over ``--runs`` runs after one warm-up, with the throughput
(facts of the model, or units scanned, per second at the median) and the 1-minute load average
(the reference machine has 2 cores; other work on it slows both sides). Ours: parse + evaluate
with provenance (witnesses kept), and the two parts apart. clingo: ``Control.add`` + ``ground``
+ ``solve`` of the same program text, measured in the same run (its model is counted once,
outside the timed runs); the ratio is ours/clingo of the medians. ``scaling`` prints closure time versus facts for TC graphs of 500/1,000/2,000 nodes and
scan time versus units for lib corpora of 1,500/5,000/15,000 units (C-116). ``admit`` times
kernel-scope admissions through ``CertState`` (one batch, ten batches, single units into a
deployed kernel) on lib corpora of 1,500 and 5,000 units and splits each into its kernel
scans, the justification certificates of the J units, cache revalidation and source checks
(one run each: the 5,000-unit deploy alone takes about a minute). Check values are printed
beside the times; benchmarks never assert.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

from cotaudit.certify.engine.evaluation import evaluate
from cotaudit.certify.engine.facts import Source
from cotaudit.certify.engine.limits import EvalLimits
from cotaudit.certify.kernel.redundancy import fractions
from cotaudit.certify.kernel.scan import essential, kernel_scan, order_sensitivity
from cotaudit.certify.lang.grammar import Limits
from cotaudit.certify.lang.parse import parse_program
from cotaudit.eval.certify.workloads import lib15k

BIG = Limits(max_bytes=1 << 26, max_units=10_000_000)
NO_LIMIT = EvalLimits(max_facts=50_000_000, timeout_s=3600)


def tc_graph(n: int = 2000, m: int = 10000, seed: int = 0, oriented: bool = True) -> list[tuple[int, int]]:
    r = random.Random(seed)
    E: set[tuple[int, int]] = set()
    while len(E) < m:
        a, b = r.randrange(n), r.randrange(n)
        if a == b:
            continue
        E.add((min(a, b), max(a, b)) if oriented else (a, b))
    return sorted(E)


def ownership(seed: int = 0) -> list[tuple[str, ...]]:
    r = random.Random(seed)
    F: list[tuple[str, ...]] = [("owns", f"c{(i - 1) // 10}", f"c{i}") for i in range(1, 50001)]
    L: set[tuple[str, str]] = set()
    while len(L) < 40000:
        L.add((f"c{r.randrange(50001)}", f"m{r.randrange(200)}"))
    F += [("listed", *t) for t in sorted(L)]
    F += sorted(("located", f"c{j}", f"k{r.randrange(500)}") for j in r.sample(range(50001), 9950))
    F += [("embargoed", f"k{k}") for k in sorted(r.sample(range(500), 50))]
    return F


def lib(n_units: int, seed: int = 0) -> list[str]:
    """``lib15k`` with every count scaled by n_units / 15,000 (C-116's smaller lib corpora);
    ``lib(15000)`` is exactly ``lib15k()``."""
    if n_units == 15000:
        return lib15k(seed)
    f = n_units / 15000
    n_ax, n_top, n_w, n_c = round(2500 * f), round(14000 * f), round(500 * f), round(499 * f)
    r = random.Random(seed)
    U = ["[ax] derivable(X) :- axiom(X)."] + [f"[a{i}] axiom(t{i})." for i in range(n_ax)]
    P: dict[int, list[int]] = {}

    def body(ds: list[int]) -> str:
        return ", ".join(f"derivable(t{d})" for d in ds)

    for i in range(n_ax, n_top):
        P[i] = sorted(r.sample(range(max(0, i - 400), i), r.randint(1, 4)))
        U.append(f"[p{i}] derivable(t{i}) :- {body(P[i])}.")
    for i in sorted(r.sample(range(n_ax, n_top), n_w)):
        extra = r.choice([d for d in range(max(0, i - 400), i) if d not in P[i]])
        U.append(f"[w{i}] derivable(t{i}) :- {body(sorted(P[i] + [extra]))}.")
    cand = [i for i in range(n_ax, n_top) if any(d >= n_ax for d in P[i])]
    for i in sorted(r.sample(cand, n_c)):
        d = max(x for x in P[i] if x >= n_ax)
        U.append(f"[c{i}] derivable(t{i}) :- {body(sorted(set(P[i]) - {d} | set(P[d])))}.")
    return U


def load() -> str:
    one, five, _ = os.getloadavg()
    return f"load average {one:.2f} (5 min {five:.2f})"


def timed(fn: Callable[[], Any], runs: int) -> tuple[list[float], Any]:
    fn()  # warm-up
    times: list[float] = []
    out = None
    for _ in range(runs):
        start = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - start)
    return times, out


def summary(times: list[float]) -> str:
    ordered = sorted(times)
    p95 = ordered[min(len(ordered) - 1, int(0.95 * len(ordered) + 0.5) - 1)] if ordered else float("nan")
    return f"median {statistics.median(times):7.3f} s  p95 {p95:7.3f} s"


def ours(text: str) -> dict[str, int]:
    closure = evaluate(parse_program(text, BIG), limits=NO_LIMIT)
    counts = {p: closure.count(p) for p in ("path", "controls", "exposed", "restricted")}
    counts["_model"] = len(closure)
    return counts


def ours_split(text: str, runs: int) -> tuple[list[float], list[float]]:
    """Parse and evaluate timed apart (the same work as ``ours``)."""
    evaluate(parse_program(text, BIG), limits=NO_LIMIT)  # warm-up
    t_parse: list[float] = []
    t_eval: list[float] = []
    for _ in range(runs):
        start = time.perf_counter()
        units = parse_program(text, BIG)
        mid = time.perf_counter()
        evaluate(units, limits=NO_LIMIT)
        t_parse.append(mid - start)
        t_eval.append(time.perf_counter() - mid)
    return t_parse, t_eval


def clingo_solve(text: str) -> Any:
    """What is timed for clingo: load (``add``) + ground + solve, the model left inside clingo."""
    import clingo

    ctl = clingo.Control(["--warn=none"])
    ctl.add("base", [], text)
    ctl.ground([("base", [])])
    ctl.solve()
    return ctl


def clingo_counts(text: str) -> dict[str, int]:
    """clingo's model counted per predicate (once, outside the timed runs: turning 10⁵–10⁶
    atoms into Python objects would be charged to clingo otherwise)."""
    import clingo

    ctl = clingo.Control(["--warn=none"])
    ctl.add("base", [], text)
    ctl.ground([("base", [])])
    counts: dict[str, int] = {}

    def on_model(m: Any) -> None:
        for s in m.symbols(atoms=True):
            counts[s.name] = counts.get(s.name, 0) + 1

    ctl.solve(on_model=on_model)
    counts["_model"] = sum(counts.values())
    return counts


def throughput(facts: int, times: list[float]) -> str:
    return f"{facts / statistics.median(times):,.0f} facts/s"


def versus(name: str, text: str, runs: int, expected: dict[str, int], target: bool = True) -> None:
    print(f"{name}  ({load()})")
    t_ours, c_ours = timed(lambda: ours(text), runs)
    t_clingo, _ = timed(lambda: clingo_solve(text), runs)
    c_clingo = clingo_counts(text)
    t_parse, t_eval = ours_split(text, runs)
    model = c_ours["_model"]
    print(
        f"{name}  ours   {summary(t_ours)}   {throughput(model, t_ours)}   counts { ({k: c_ours[k] for k in expected}) }"
    )
    print(f"{name}  ours   parse {summary(t_parse)}   evaluate {summary(t_eval)}")
    print(
        f"{name}  clingo {summary(t_clingo)}   {throughput(model, t_clingo)}   counts { ({k: c_clingo.get(k, 0) for k in expected}) }"
    )
    ratio = statistics.median(t_ours) / statistics.median(t_clingo)
    same = all(c_ours[k] == c_clingo.get(k) == v for k, v in expected.items()) and model == c_clingo["_model"]
    goal = "   (target ≤ 2.00)" if target else ""
    print(
        f"{name}  ratio ours/clingo (medians) {ratio:.2f}{goal}   model {model:,} facts   "
        f"check values {'ok' if same else 'WRONG'} {expected}   ({load()})"
    )
    sys.stdout.flush()


def c111(runs: int, oriented: bool = True) -> None:
    E = tc_graph(oriented=oriented)
    text = "path(X,Y) :- edge(X,Y).\npath(X,Z) :- path(X,Y), edge(Y,Z).\n" + "".join(
        f"edge(n{a},n{b}).\n" for a, b in E
    )
    name = "C-111 TC 2000/10000 " + ("oriented" if oriented else "unoriented")
    versus(name, text, runs, {"path": 451_180 if oriented else 3_920_375}, target=oriented)


def c112(runs: int) -> None:
    rules = (
        "controls(X,Y) :- owns(X,Y).\ncontrols(X,Z) :- controls(X,Y), owns(Y,Z).\n"
        "exposed(X) :- controls(X,Y), located(Y,K), embargoed(K).\nrestricted(X,M) :- exposed(X), listed(X,M).\n"
    )
    text = rules + "".join(f"{f[0]}({','.join(f[1:])}).\n" for f in ownership())
    versus(
        "C-112 four rules/100k facts", text, runs, {"controls": 237_660, "exposed": 1_241, "restricted": 969}
    )


def c113(runs: int) -> None:
    print(f"C-113  ({load()})")
    units = parse_program("\n".join(lib15k()), BIG)
    S = [Source(i + 1, u) for i, u in enumerate(units)]
    times, result = timed(lambda: kernel_scan(S), runs)
    t_ess, (ess, _) = timed(lambda: essential(S), max(1, runs // 2))
    delta = order_sensitivity(result, ess).delta
    f = fractions(S, result.J)
    lo, hi = f.uniform_ci
    rate = len(S) / statistics.median(times)
    print(
        f"C-113 scan 15,000 units exact  {summary(times)}   {rate:,.0f} units/s   (target < 30 s)   ({load()})"
    )
    print(f"C-113 Ess 15,000 units exact   {summary(t_ess)}")
    print(
        f"C-113 check values: keys {len({u.key for u in units})}, |J| {len(result.J)}, |A| {len(result.A) + len(result.R)}, "
        f"|A Δ Ess| {len(delta)}, capped {len(result.capped)}, uniform {100 * f.uniform:.2f}% [{100 * lo:.2f}, {100 * hi:.2f}]"
    )
    for k in (1, 2, 3, 4):
        tk, rk = timed(lambda k=k: kernel_scan(S, k=k), max(1, runs // 2))
        print(f"C-113 scan k={k}  {summary(tk)}   |J| {len(rk.J)} capped {len(rk.capped)}")
    sys.stdout.flush()


def scaling(runs: int) -> None:
    """C-116: closure time versus facts (TC) and scan time versus units (lib corpora)."""
    print(f"scaling  ({load()})")
    rules = "path(X,Y) :- edge(X,Y).\npath(X,Z) :- path(X,Y), edge(Y,Z).\n"
    for n in (500, 1000, 2000):
        E = tc_graph(n=n, m=5 * n)
        text = rules + "".join(f"edge(n{a},n{b}).\n" for a, b in E)
        t, c = timed(lambda text=text: ours(text), runs)
        tc, _ = timed(lambda text=text: clingo_solve(text), runs)
        ratio = statistics.median(t) / statistics.median(tc)
        print(
            f"scaling TC {n:>5} nodes {5 * n:>6} edges  path {c['path']:>8,}   ours {summary(t)}   "
            f"{throughput(c['_model'], t)}   clingo median {statistics.median(tc):7.3f} s   ratio {ratio:.2f}"
        )
    for n in (1500, 5000, 15000):
        units = parse_program("\n".join(lib(n)), BIG)
        S = [Source(i + 1, u) for i, u in enumerate(units)]
        t, r = timed(lambda S=S: kernel_scan(S), runs)
        med = statistics.median(t)
        print(
            f"scaling scan {len(S):>6} units  |J| {len(r.J):>4}   {summary(t)}   "
            f"{len(S) / med:,.0f} units/s   {1e6 * med / len(S):6.1f} µs/unit"
        )
    print(f"scaling  ({load()})")
    sys.stdout.flush()


def admissions(runs: int) -> None:
    """Kernel-scope batches through the state machine, each split into where its time goes."""
    from cotaudit.certify.gate import source as gate
    from cotaudit.certify.sources.records import Evidence
    from cotaudit.certify.state import admission
    from cotaudit.certify.state import machine as state_mod

    spent: dict[str, float] = {}
    for module, name, key in (
        (state_mod, "kernel_scan", "scan"),
        (admission, "justify", "justify"),
        (admission, "revalidate", "revalidate"),
        (gate, "run_checker", "checker"),
    ):
        setattr(module, name, _timing(getattr(module, name), key, spent))
    print(f"admit  (one run each; {load()})")
    for n in (1500, 5000):
        units = lib(n)
        extra = [
            f"[n{i}] derivable(t{90000 + i}) :- derivable(t{100 + i}), derivable(t{n // 2 + i})."
            for i in range(3)
        ]
        for what, size in (("1 batch", len(units)), ("10 batches", -(-len(units) // 10))):
            st = _lib_state(units + extra)
            spent.clear()
            start = time.perf_counter()
            for i in range(0, len(units), size):
                st.admit_batch([(u, Evidence("src"), "deploy", None) for u in units[i : i + size]])
            total = time.perf_counter() - start
            j = sum(r.kstatus == "J" for r in st.active())
            print(
                f"admit lib {len(units):>5} in {what:<10}  total {total:8.2f} s   {_split(spent)}   |J| {j}"
            )
            if size == len(units):
                spent.clear()
                start = time.perf_counter()
                for u in extra:
                    st.admit(u, Evidence("src"))
                each = (time.perf_counter() - start) / len(extra)
                print(
                    f"admit 1 unit into lib {len(units):>5}   each {each:8.2f} s   {_split(spent, len(extra))}"
                )
            st.close()
    print(f"admit  ({load()})")
    sys.stdout.flush()


def _timing(real: Callable[..., Any], key: str, spent: dict[str, float]) -> Callable[..., Any]:
    def timed_call(*args: Any, **kwargs: Any) -> Any:
        start = time.perf_counter()
        try:
            return real(*args, **kwargs)
        finally:
            spent[key] = spent.get(key, 0.0) + time.perf_counter() - start

    return timed_call


def _lib_state(units: list[str]) -> Any:
    from cotaudit.certify.interface.model import simple_interface
    from cotaudit.certify.sources.records import SourceRecord
    from cotaudit.certify.state.config import CertifyConfig
    from cotaudit.certify.state.machine import CertState

    iface = simple_interface({"axiom": 1, "derivable": 1}, ["axiom"])
    st = CertState.open(":memory:", iface, CertifyConfig(), clock=lambda: "1970-01-01T00:00:00Z")
    st.add_record(SourceRecord("src", "rules", "\n".join(units) + "\n"))
    return st


def _split(spent: dict[str, float], per: int = 1) -> str:
    return "  ".join(
        f"{k} {spent.get(k, 0.0) / per:7.2f} s" for k in ("scan", "justify", "revalidate", "checker")
    )


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--only", default="c111,c112,c113,scaling", help="also: admit (slow)")
    ap.add_argument(
        "--unoriented", action="store_true", help="also the unoriented C-111 variant (3.9M facts, slow)"
    )
    args = ap.parse_args()
    only = set(args.only.split(","))
    print(
        f"python {sys.version.split()[0]}, {os.cpu_count()} cores, runs {args.runs} after one warm-up, {load()}"
    )
    if "c111" in only:
        c111(args.runs)
        if args.unoriented:
            c111(1, oriented=False)
    if "c112" in only:
        c112(args.runs)
    if "c113" in only:
        c113(args.runs)
    if "scaling" in only:
        scaling(args.runs)
    if "admit" in only:
        admissions(args.runs)


if __name__ == "__main__":
    main()
