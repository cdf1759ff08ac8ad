"""Normal form and canonical key of a rule (Definition 11, C-5).

The key of ``h(A) :- c(B), b(A, B).`` and of ``h(X) :- b(X, Y), c(Y).`` is
``r:h(V0):-b(V0,V1),c(V1)``. Equal keys imply logical equivalence (variable renaming, body
reordering and duplicate removal preserve meaning), so the key is a sound cache index; some
equivalent rules get different keys, and the kernel scan removes those as redundant.

:class:`NormalForm` also records the canonical variable names and the canonical body order,
which certificates use (``subst`` over ``V0, V1 …``; premises in canonical body order).
"""

from __future__ import annotations

from dataclasses import dataclass

from cotaudit.certify.syntax import BodyLit, Const, Rule, Var

_ArgSig = tuple[int, str]


@dataclass(frozen=True, slots=True)
class NormalForm:
    """The canonical key, the variable renaming (original → ``Vi``) and the body order.

    ``body_order`` lists indices into ``rule.body`` (duplicates dropped) in canonical order.
    """

    key: str
    rename: dict[str, str]
    body_order: tuple[int, ...]

    def canonical_body(self, rule: Rule) -> list[BodyLit]:
        return [rule.body[i] for i in self.body_order]


def _signature(b: BodyLit, head_pos: dict[str, int]) -> tuple[bool, bool, str, int, tuple[_ArgSig, ...]]:
    args: list[_ArgSig] = []
    for a in b.lit.args:
        if isinstance(a, Const):
            args.append((0, a.kind + ":" + a.text()))
        elif a.name in head_pos:
            args.append((1, f"{head_pos[a.name]:06d}"))
        else:
            args.append((2, ""))
    return (b.naf, b.lit.neg, b.lit.pred, len(b.lit.args), tuple(args))


def _rename(rule: Rule, order: list[int]) -> dict[str, str]:
    names: dict[str, str] = {}
    for lit in [rule.head, *(rule.body[i].lit for i in order)]:
        for a in lit.args:
            if isinstance(a, Var) and a.name not in names:
                names[a.name] = f"V{len(names)}"
    if rule.calc and rule.calc.out not in names:  # unreachable for safe rules; keeps the key total
        names[rule.calc.out] = f"V{len(names)}"
    return names


def renamed_text(b: BodyLit, names: dict[str, str]) -> str:
    args = ",".join(names[a.name] if isinstance(a, Var) else a.text() for a in b.lit.args)
    head = ("not " if b.naf else "") + ("-" if b.lit.neg else "") + b.lit.pred
    return head + (f"({args})" if b.lit.args else "")


def normal_form(rule: Rule) -> NormalForm:
    """Normalise ``rule`` per C-5 steps (1)–(4)."""
    seen: set[str] = set()
    kept: list[int] = []
    for i, b in enumerate(rule.body):  # (1) drop duplicate body literals
        t = b.text()
        if t not in seen:
            seen.add(t)
            kept.append(i)
    head_pos: dict[str, int] = {}
    for pos, a in enumerate(rule.head.args):
        if isinstance(a, Var):
            head_pos.setdefault(a.name, pos)
    # (2) stable sort by the variable-blind signature
    order = sorted(kept, key=lambda i: _signature(rule.body[i], head_pos))
    names = _rename(rule, order)
    for _ in range(len(order) + 1):  # (3)-(4) until stable
        new_order = sorted(order, key=lambda i: renamed_text(rule.body[i], names))
        new_names = _rename(rule, new_order)
        if new_order == order and new_names == names:
            break
        order, names = new_order, new_names
    head = BodyLit(rule.head)
    key = "r:" + renamed_text(head, names) + ":-" + ",".join(renamed_text(rule.body[i], names) for i in order)
    if rule.calc:
        key += rule.calc.text(names)
    return NormalForm(key, names, tuple(order))
