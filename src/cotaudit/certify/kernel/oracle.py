"""The derivability oracle of the kernel scan (C-47): is unit s derivable from Γ \\ {s}?

Fact s: YES iff s ∈ Cn_k(Γ \\ {s}). Rule s = h :- b1..bm: its variables become Skolem constants
``#sk0, #sk1 …`` (canonical variable order), θ(b_i) for the positive b_i become temporary facts
T, and s is derivable iff θ(h) ∈ Cn_k(Γ \\ {s} ∪ T) (k = None: unbounded, exact Horn entailment).

Three ways to answer, all agreeing with that bottom-up definition (property-tested):

- *fast NO*: no rule of Γ \\ {s} has a head that can produce the goal (C-48's O(1) fact check);
- *goal-directed*: a depth-bounded (k) or exact (least fixpoint of the relevant ground slice)
  top-down search, used when every rule met binds its body variables from its head. In exact
  mode an atom a ∈ Cn(S) is taken as proven when rank(a) < the rank of every head s can produce,
  ranks being longest-path levels of the SCC condensation of S's instance graph: no derivation
  of such an atom can use s, and Cn(Γ) = Cn(S) throughout the scan. When moreover T ⊆ Cn(S)
  (always for a fact, and for a rule whose Skolem body already holds), Cn(Γ \\ {s} ∪ T) ⊆ Cn(S):
  atoms outside Cn(S) are false at once, and a rule whose body has variables the head does not
  bind is instantiated by joining its body against Cn(S) instead of falling back;
- *bottom-up*: the executor on Γ \\ {s} ∪ T with ``max_depth = k``.

Cost: one evaluation of S (the ranks), then per unit a search bounded by the part of its slice
above the rank limit, so the scan is about linear in |S| + |instances of Cn(S)| when the slices
stay small (C-113). Only the bottom-up fallback costs a whole evaluation per unit: ranks not
computable (Cn(S) over 10·cap facts), bounded k with a non-covering rule, or a rule with Skolem
temporaries outside Cn(S) meeting a non-covering rule.

Every bound that decides an answer is a work counter, so the answer is the same on every
machine (C-26): more than ``cap`` atoms, visits or join candidates in a top-down search, more
than ``cap`` derived facts or :data:`CHECK_STEPS_PER_CAP` · ``cap`` join steps in a bottom-up
check give CAPPED, which the scan treats as "retain". Wall time and memory never decide: past
the caller's ``deadline`` (or an evaluation's time or memory bound) the check raises
:class:`~cotaudit.certify.core.errors.ResourceCap`, which aborts the whole scan.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from enum import Enum

from cotaudit.certify.core.errors import ComputationCap, ResourceCap
from cotaudit.certify.engine.evaluation import evaluate
from cotaudit.certify.engine.facts import Source
from cotaudit.certify.engine.limits import EvalLimits
from cotaudit.certify.lang.syntax import (
    SKOLEM_PREFIX,
    Const,
    Fact,
    Literal,
    Rule,
    Unit,
    Var,
    normal_form,
    substitute,
)
from cotaudit.limits import checkpoint

Sig = tuple[str, bool, int]

# The join steps one bottom-up check may take, per unit of ``cap`` (2·10⁷ for the default cap of
# 100,000; a few seconds of work): a work bound standing in for the time slice a check once had,
# so one hard unit is retained instead of using up the whole scan's time.
CHECK_STEPS_PER_CAP = 200


class Answer(Enum):
    YES = "YES"
    NO = "NO"
    CAPPED = "CAPPED"


@dataclass(frozen=True, slots=True)
class Check:
    """The oracle's answer for one unit, with the goal and temporaries it used."""

    answer: Answer
    goal: Literal
    temporaries: tuple[Literal, ...]
    method: str


def skolemise(rule: Rule) -> tuple[Literal, tuple[Literal, ...]]:
    """(θ(head), θ(positive body)) with θ mapping the canonical variables to ``#sk0, #sk1 …``."""
    nf = normal_form(rule)
    theta = {v: Const("sym", f"{SKOLEM_PREFIX}{c[1:]}") for v, c in nf.rename.items()}
    return substitute(rule.head, theta), tuple(substitute(lit, theta) for lit in rule.positive)


def _unify(head: Literal, atom: Literal) -> dict[str, Const] | None:
    if head.signature != atom.signature:
        return None
    theta: dict[str, Const] = {}
    for h, a in zip(head.args, atom.args, strict=True):
        assert isinstance(a, Const)
        if isinstance(h, Var):
            if theta.setdefault(h.name, a) != a:
                return None
        elif h != a:
            return None
    return theta


class Gamma:
    """The current unit set Γ of a scan, indexed for the oracle."""

    def __init__(self, units: Sequence[Source]) -> None:
        self.units: dict[int, Unit] = {s.unit_id: s.unit for s in units}
        self.facts: dict[Literal, int] = {}
        self.heads: dict[Sig, list[int]] = {}
        # rules by head signature and first head argument (a variable there: key None)
        self.by_first: dict[tuple[Sig, Const | None], list[int]] = {}
        for s in units:
            if isinstance(s.unit, Fact):
                self.facts.setdefault(s.unit.lit, s.unit_id)
            else:
                head = s.unit.head
                self.heads.setdefault(head.signature, []).append(s.unit_id)
                first = head.args[0] if head.args and isinstance(head.args[0], Const) else None
                self.by_first.setdefault((head.signature, first), []).append(s.unit_id)
        self.covering = {
            uid: isinstance(u, Rule)
            and not u.negative
            and u.calc is None
            and {v for lit in u.positive for v in lit.variables()} <= set(u.head.variables())
            for uid, u in self.units.items()
        }

    def remove(self, uid: int) -> None:
        unit = self.units.pop(uid)
        if isinstance(unit, Fact):
            if self.facts.get(unit.lit) == uid:
                del self.facts[unit.lit]
        else:
            head = unit.head
            self.heads[head.signature].remove(uid)
            first = head.args[0] if head.args and isinstance(head.args[0], Const) else None
            self.by_first[(head.signature, first)].remove(uid)

    def candidates(self, atom: Literal) -> list[int]:
        """Rules whose head may unify with the ground ``atom``."""
        sig = atom.signature
        if not atom.args:
            return self.heads.get(sig, [])
        a = self.by_first.get((sig, atom.args[0]))  # type: ignore[arg-type]
        b = self.by_first.get((sig, None))
        if a and b:
            return sorted(a + b)
        return a or b or []

    def sources(self, without: int) -> list[Source]:
        return [Source(uid, u) for uid, u in sorted(self.units.items()) if uid != without]


@dataclass
class Ranks:
    """Instance-graph ranks of Cn(S) (exact mode's shortcut); ``head_min[uid]``: min rank of the
    heads the rule's instances produce (absent: the rule has no instance). ``by_sig`` indexes
    Cn(S) by signature and first argument for the body joins of non-covering rules."""

    rank: Mapping[Literal, int]
    head_min: Mapping[int, int]
    by_sig: dict[tuple[Sig, Const | None], list[Literal]] = field(default_factory=dict)

    def matching(self, lit: Literal) -> list[Literal]:
        """Atoms of Cn(S) that may match ``lit`` (same signature; same first argument if bound)."""
        if not self.by_sig:
            for a in self.rank:  # insertion order: deterministic
                first = a.args[0] if a.args else None
                assert first is None or isinstance(first, Const)
                self.by_sig.setdefault((a.signature, first), []).append(a)
                if first is not None:
                    self.by_sig.setdefault((a.signature, None), []).append(a)
        first = lit.args[0] if lit.args and isinstance(lit.args[0], Const) else None
        return self.by_sig.get((lit.signature, first), [])


class _Fires(Exception):
    """An instance whose every atom is already known true: the head holds, stop joining."""

    def __init__(self, body: list[Literal]) -> None:
        self.body = body


def _join(
    body: Sequence[Literal],
    theta: dict[str, Const],
    ranks: Ranks,
    budget: list[int],
    known: Callable[[Literal], bool],
) -> list[list[Literal]]:
    """Every ground θ' ⊇ θ with θ'(b) ∈ Cn(S) for all b in ``body``, as lists of θ'(b) — or
    just the first one whose atoms are all ``known`` (it fires, the others add nothing)."""
    out: list[list[Literal]] = []

    def go(i: int, th: dict[str, Const], acc: list[Literal]) -> None:
        if i == len(body):
            if all(known(x) for x in acc):
                raise _Fires(list(acc))
            out.append(list(acc))
            return
        lit = substitute(body[i], th)
        if lit.ground:
            budget[0] -= 1
            if lit in ranks.rank:
                go(i + 1, th, [*acc, lit])
            return
        for atom in ranks.matching(lit):
            budget[0] -= 1
            if budget[0] < 0:
                raise ComputationCap("oracle join", {"budget": budget[0]})
            if budget[0] % 1024 == 0:
                checkpoint()
            ext = _unify(lit, atom)
            if ext is not None:
                go(i + 1, {**th, **ext}, [*acc, atom])

    try:
        go(0, theta, [])
    except _Fires as fired:
        return [fired.body]
    return out


def _past(deadline: float | None, what: str) -> None:
    """Raise :class:`ResourceCap` once the whole operation's ``deadline`` has passed."""
    if deadline is not None and time.monotonic() > deadline:
        raise ResourceCap(f"{what}: the kernel scan's time bound has passed", {}, "time")


def _prove_bounded(
    goal: Literal, gamma: Gamma, s: int, temps: frozenset[Literal], k: int, cap: int, deadline: float | None
) -> Answer | None:
    """Depth-bounded top-down search; ``None`` when a rule met does not bind its body from its head."""
    best: dict[Literal, int] = {}  # proven height
    failed: dict[Literal, int] = {}  # largest budget that failed
    visits = [0]

    class _Fallback(Exception):
        pass

    def prove(a: Literal, b: int) -> bool:
        if a in temps or (a in gamma.facts and gamma.facts[a] != s):
            return True
        if a in best and best[a] <= b:
            return True
        if b <= 0 or failed.get(a, -1) >= b:
            return False
        visits[0] += 1
        if visits[0] > cap:
            raise ComputationCap("oracle search", {"visits": visits[0]})
        if visits[0] % 256 == 0:
            _past(deadline, "oracle search")
            checkpoint()
        for uid in gamma.candidates(a):
            if uid == s:
                continue
            if not gamma.covering[uid]:
                raise _Fallback
            rule = gamma.units[uid]
            assert isinstance(rule, Rule)
            theta = _unify(rule.head, a)
            if theta is None:
                continue
            body = [substitute(lit, theta) for lit in rule.positive]
            if all(prove(x, b - 1) for x in body):
                best[a] = b
                return True
        failed[a] = b
        return False

    try:
        return Answer.YES if prove(goal, k) else Answer.NO
    except _Fallback:
        return None


def _prove_exact(
    goal: Literal,
    gamma: Gamma,
    s: int,
    temps: frozenset[Literal],
    ranks: Ranks | None,
    cap: int,
    deadline: float | None,
) -> Answer | None:
    """Least fixpoint over the ground slice relevant to ``goal``; ``None`` to fall back."""
    limit = ranks.head_min.get(s) if ranks is not None else None
    # T ⊆ Cn(S) ⇒ Cn(Γ \ {s} ∪ T) ⊆ Cn(S): only atoms of Cn(S) can hold
    inside = ranks is not None and all(t in ranks.rank for t in temps)
    budget = [cap]

    def safe(a: Literal) -> bool:
        if ranks is None:
            return False
        r = ranks.rank.get(a)
        return r is not None and (limit is None or r < limit)

    def known(a: Literal) -> bool:
        return a in temps or (a in gamma.facts and gamma.facts[a] != s) or safe(a)

    true: set[Literal] = set()
    alts: dict[Literal, list[list[Literal]]] = {}
    stack = [goal]
    seen = {goal}
    while stack:
        a = stack.pop()
        if known(a):
            true.add(a)
            continue
        options: list[list[Literal]] = []
        if inside and ranks is not None and a not in ranks.rank:
            alts[a] = options  # outside Cn(S): false
            continue
        for uid in gamma.candidates(a):
            if uid == s:
                continue
            rule = gamma.units[uid]
            assert isinstance(rule, Rule)
            theta = _unify(rule.head, a)
            if theta is None:
                continue
            if gamma.covering[uid]:
                bodies = [[substitute(lit, theta) for lit in rule.positive]]
            elif inside and ranks is not None and not rule.negative and rule.calc is None:
                bodies = _join(rule.positive, theta, ranks, budget, known)
            else:
                return None
            for body in bodies:
                options.append(body)
                for x in body:
                    if x not in seen:
                        seen.add(x)
                        stack.append(x)
        alts[a] = options
        if len(seen) > cap or budget[0] < 0:
            raise ComputationCap("oracle slice", {"atoms": len(seen)})
        _past(deadline, "oracle slice")
        checkpoint()
    # Horn satisfiability by counting (each option fires when all its atoms are true)
    waiting: dict[Literal, list[tuple[Literal, int]]] = {}
    missing: dict[tuple[Literal, int], int] = {}
    queue = list(true)
    for a, options in alts.items():
        for j, body in enumerate(options):
            need = {x for x in body if x not in true}
            missing[(a, j)] = len(need)
            for x in need:
                waiting.setdefault(x, []).append((a, j))
            if not need and a not in true:
                true.add(a)
                queue.append(a)
    while queue:
        x = queue.pop()
        for a, j in waiting.pop(x, ()):
            missing[(a, j)] -= 1
            if missing[(a, j)] == 0 and a not in true:
                true.add(a)
                queue.append(a)
    return Answer.YES if goal in true else Answer.NO


def derivable(
    s: int,
    gamma: Gamma,
    *,
    k: int | None,
    cap: int,
    ranks: Ranks | None = None,
    limits: EvalLimits | None = None,
    deadline: float | None = None,
) -> Check:
    """Is unit ``s`` (a member of Γ) derivable from Γ \\ {s} within ``k`` rounds?

    The answer depends only on Γ, ``k`` and ``cap`` (work bounds give CAPPED). ``deadline``
    (``time.monotonic()`` value) and the time and memory of ``limits`` bound the whole
    operation: past them this raises :class:`ResourceCap` instead of answering."""
    unit = gamma.units[s]
    temps: tuple[Literal, ...] = ()
    if isinstance(unit, Fact):
        goal = unit.lit
    elif unit.calc is not None or unit.negative:
        return Check(Answer.NO, unit.head, (), "not-skolemisable")
    else:
        goal, temps = skolemise(unit)
    if goal in temps or gamma.facts.get(goal, s) != s:  # a tautology, or a base fact of Γ \ {s}
        return Check(Answer.YES, goal, temps, "fast")
    if not any(uid != s for uid in gamma.candidates(goal)):
        return Check(Answer.NO, goal, temps, "fast")
    tset: frozenset[Literal] = frozenset(temps)
    try:
        if k is None:
            got = _prove_exact(goal, gamma, s, tset, ranks, cap, deadline)
        else:
            got = _prove_bounded(goal, gamma, s, tset, k, cap, deadline)
        if got is not None:
            return Check(got, goal, temps, "top-down")
        overlay = [Source(-1 - i, Fact(f"tmp{i}", t), "temp") for i, t in enumerate(temps)]
        base = limits or EvalLimits()
        bound = replace(
            base,
            max_facts=cap + len(gamma.units) + len(temps),
            max_join_steps=CHECK_STEPS_PER_CAP * cap,
            timeout_s=base.timeout_s if deadline is None else deadline - time.monotonic(),
        )
        if bound.timeout_s <= 0:
            raise ResourceCap("oracle: the kernel scan's time bound has passed", {}, "time")
        closure = evaluate(gamma.sources(s), overlay, max_depth=k, limits=bound)
        return Check(Answer.YES if closure.contains(goal) else Answer.NO, goal, temps, "bottom-up")
    except ResourceCap:
        raise  # machine-dependent: never an answer
    except ComputationCap:
        return Check(Answer.CAPPED, goal, temps, "capped")


def compute_ranks(units: Sequence[Source], cap: int, limits: EvalLimits | None = None) -> Ranks | None:
    """Ranks of the instance graph of Cn(S), or ``None`` when it is too large to build (more
    than 10·``cap`` facts). Past the time or memory of ``limits`` it raises :class:`ResourceCap`."""
    from cotaudit.certify.lang.strata import sccs

    try:
        bound = replace(limits or EvalLimits(), max_facts=cap * 10 + len(units))
        closure = evaluate(list(units), limits=bound, record_instances=True)
    except ResourceCap:
        raise  # without ranks the answers stay the same, but their work bounds would not
    except ComputationCap:
        return None
    n = len(closure)
    succ: dict[int, list[int]] = {}
    for i, (head, _, prem) in enumerate(closure.instances):
        if i % 65536 == 0:
            checkpoint()
        for p in prem:
            succ.setdefault(p, []).append(head)
    checkpoint()
    comps = sccs(list(range(n)), succ)
    checkpoint()
    comp_of = {f: i for i, comp in enumerate(comps) for f in comp}
    level = [0] * len(comps)
    for ci in range(len(comps) - 1, -1, -1):  # reverse of reverse-topological: sources first
        for f in comps[ci]:
            for h in succ.get(f, ()):
                hc = comp_of[h]
                if hc != ci and level[hc] < level[ci] + 1:
                    level[hc] = level[ci] + 1
    rank = {closure.store.literal(f): level[comp_of[f]] for f in range(n)}
    head_min: dict[int, int] = {}
    for f in range(n):  # a base fact is "used" by every derivation that has it as a leaf
        if closure.is_base(f):
            head_min[closure.store.unit[f]] = level[comp_of[f]]
    for head, ridx, _ in closure.instances:
        uid = closure.rules[ridx].unit_id
        r = level[comp_of[head]]
        if uid not in head_min or r < head_min[uid]:
            head_min[uid] = r
    return Ranks(rank, head_min)
