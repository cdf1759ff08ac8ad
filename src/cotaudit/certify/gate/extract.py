"""The edge extractor E (C-36): a derivation stated in a carrier trace → a candidate certificate.

One line per step::

    1. is_preliminary_contract(x1) <- [ji_art6] subscription_order_or_booking_form(x1), agrees_future_conclusion(x1), determinable_parties_and_subject(x1)
    2. fails_conclusion_duty(p1, x1) <- [ji_art7] #1, refuses_to_conclude_main_contract(p1, x1)

``#n`` refers to the conclusion of line n; atoms no line concludes are leaves. The substitution
is found by unifying the rule head with the conclusion and the body with the premises in any
order (backtracking, at most 64 literals). The candidate keeps a line map so the gate can point
every failure at its line. Lines are parsed with lark; an unparseable line is
``MALFORMED_DERIVATION`` with line:col.
"""  # noqa: E501

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from lark import Lark, Token, Transformer
from lark.exceptions import UnexpectedInput, VisitError

from cotaudit.certify.core.errors import ComputationCap, ProgramError
from cotaudit.certify.lang.grammar import DEFAULT_LIMITS, GRAMMAR
from cotaudit.certify.lang.syntax import Const, Literal, Rule, Var, normal_form
from cotaudit.limits import checkpoint

_TRACE = GRAMMAR.replace("program  : unit*", "trace : step+\nprogram  : unit*").replace(
    "label    :",
    'step     : INT "." literal "<-" label premise ("," premise)*\n'
    'premise  : "#" INT -> ref\n         | literal -> atom\nlabel    :',
)
MAX_LITERALS = 64
# Matching a body to its premises in any order is a search (a bijection with one consistent
# substitution: subgraph-isomorphism hard in general), so it gets a budget of unification
# attempts; past it the step is not decided — ComputationCap, never a wrong REJECT or a hang.
MAX_MATCH_STEPS = 100_000


class _Steps(Transformer[Token, Any]):
    def __init__(self) -> None:
        super().__init__()
        from cotaudit.certify.lang.grammar import DEFAULT_LIMITS, TreeBuilder

        self.build = TreeBuilder(DEFAULT_LIMITS)

    def __default__(self, data: Any, children: Any, meta: Any) -> Any:
        fn = getattr(self.build, str(data), None)
        return fn(children) if fn is not None else children

    def ref(self, c: list[Token]) -> int:
        return int(str(c[0]))

    def atom(self, c: list[Any]) -> Literal:
        lit: Literal = c[0][0]
        return lit

    def step(self, c: list[Any]) -> tuple[int, Literal, str, list[Literal | int], int]:
        num: Token = c[0]
        return (int(str(num)), c[1][0], c[2][0], c[3:], num.line or 0)

    def trace(self, c: list[Any]) -> list[Any]:
        return c


_PARSER: list[Lark] = []


def _parser() -> Lark:
    if not _PARSER:
        _PARSER.append(Lark(_TRACE, parser="lalr", start="trace", maybe_placeholders=False))
    return _PARSER[0]


def _unify(pattern: Literal, fact: Literal, theta: dict[str, Const]) -> dict[str, Const] | None:
    if pattern.signature != fact.signature:
        return None
    out = dict(theta)
    for p, v in zip(pattern.args, fact.args, strict=True):
        if not isinstance(v, Const):
            return None
        if isinstance(p, Var):
            if out.setdefault(p.name, v) != v:
                return None
        elif p != v:
            return None
    return out


def _match_body(
    body: Sequence[Literal], premises: Sequence[Literal], theta: dict[str, Const]
) -> tuple[dict[str, Const], list[int]] | None:
    """θ and, per body literal, the index of its premise (a bijection found by backtracking)."""
    if len(body) != len(premises) or len(body) > MAX_LITERALS:
        return None
    used = [False] * len(premises)
    pick: list[int] = []
    steps = [0]

    def go(i: int, t: dict[str, Const]) -> dict[str, Const] | None:
        if i == len(body):
            return t
        for j, prem in enumerate(premises):
            if used[j]:
                continue
            steps[0] += 1
            if steps[0] > MAX_MATCH_STEPS:
                raise ComputationCap(
                    f"matching a body to its premises took more than {MAX_MATCH_STEPS} steps",
                    {"steps": steps[0], "literals": len(body)},
                )
            if steps[0] % 1000 == 0:
                checkpoint()
            t2 = _unify(body[i], prem, t)
            if t2 is not None:
                used[j] = True
                pick.append(j)
                got = go(i + 1, t2)
                if got is not None:
                    return got
                used[j] = False
                pick.pop()
        return None

    got = go(0, theta)
    return (got, list(pick)) if got is not None else None


def extract_derivation(text: str, rules: Mapping[str, tuple[int, Rule]]) -> dict[str, Any]:
    """A candidate certificate for the gate's derived mode (``lines``: node id → trace line).

    ``rules`` maps a rule label to (unit id, rule) for the kernel the trace cites.
    """
    if len(text.encode("utf-8", "surrogatepass")) > DEFAULT_LIMITS.max_bytes:
        raise ProgramError("MALFORMED_DERIVATION", f"larger than {DEFAULT_LIMITS.max_bytes} bytes")
    try:
        steps = _Steps().transform(_parser().parse(text))
    except UnexpectedInput as exc:
        raise ProgramError(
            "MALFORMED_DERIVATION", "the derivation does not parse", line=exc.line, col=exc.column
        ) from None
    except VisitError as exc:
        inner = exc.orig_exc
        raise ProgramError("MALFORMED_DERIVATION", str(getattr(inner, "bare", inner))) from None
    numbers = [s[0] for s in steps]
    conclusions = {s[0]: s[1] for s in steps}
    concluded_by: dict[Literal, int] = {}  # a concluded literal -> its first line number
    for num, lit in conclusions.items():
        concluded_by.setdefault(lit, num)
    leaves = list(
        dict.fromkeys(
            p for step in steps for p in step[3] if isinstance(p, Literal) and p not in concluded_by
        )
    )
    node_of: dict[Literal, int] = {}
    nodes: list[dict[str, Any]] = []
    for leaf in leaves:
        node_of[leaf] = len(nodes)
        nodes.append(
            {
                "id": len(nodes),
                "fact": leaf.text(),
                "leaf": {"unit_id": None, "scope": None, "evidence_sha256": None},
            }
        )
    line_of: dict[str, int] = {}
    step_node: dict[int, int] = {}
    for i, num in enumerate(numbers):
        step_node.setdefault(num, len(leaves) + i)
    for num, concl, label, prem, line in steps:
        nid = step_node[num]
        premise_lits: list[Literal] = []
        premise_ids: list[int] = []
        for p in prem:
            if isinstance(p, int):
                if p not in conclusions:
                    raise ProgramError("MALFORMED_DERIVATION", f"#{p} refers to no line", line=line)
                premise_lits.append(conclusions[p])
                premise_ids.append(step_node[p])
            else:
                premise_lits.append(p)
                premise_ids.append(node_of[p] if p in node_of else step_node[concluded_by[p]])
        edge = _edge(concl, label, rules, premise_lits, premise_ids)
        nodes.append({"id": nid, "fact": concl.text(), "edge": edge})
        line_of[str(nid)] = line
    root = step_node[numbers[-1]]
    return {"conclusion": nodes[root]["fact"], "nodes": nodes, "root": root, "lines": line_of}


def _edge(
    concl: Literal, label: str, rules: Mapping[str, tuple[int, Rule]], lits: list[Literal], ids: list[int]
) -> dict[str, Any]:
    found = rules.get(label)
    if found is None:
        return {
            "kind": "rule",
            "rule": label,
            "rule_unit_id": None,
            "rule_key": None,
            "subst": {},
            "premises": ids,
            "naf": [],
        }
    uid, rule = found
    nf = normal_form(rule)
    canon_body = [rule.body[i].lit for i in nf.body_order if not rule.body[i].naf]
    head = _unify(rule.head, concl, {})
    matched = _match_body(canon_body, lits, head or {}) if head is not None else None
    premises = ids
    if matched is not None:
        theta, pick = matched
        premises = [ids[j] for j in pick]
    else:
        theta = head if head is not None else (_match_body(canon_body, lits, {}) or ({}, []))[0]
    subst = {nf.rename[v]: c.text() for v, c in theta.items() if v in nf.rename}
    return {
        "kind": "calc" if rule.calc else "rule",
        "rule": label,
        "rule_unit_id": uid,
        "rule_key": rule.key,
        "subst": dict(sorted(subst.items(), key=lambda kv: int(kv[0][1:]))),
        "premises": premises,
        "naf": [],
    }
