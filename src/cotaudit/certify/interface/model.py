"""The grounding interface I = (Σ, L, Ω) (certify.md §3, C-10 … C-13): the model.

:func:`~cotaudit.certify.interface.load.load_interface` (in :mod:`.load`) reads the JSON (or,
with PyYAML installed, YAML) file and validates it, raising :class:`InterfaceError` with *every*
problem and its stable code. ``Interface.type_check`` is C-13, ``load_program`` is
Proposition 1 at load time (C-12).

Role types: ``symbol`` (``pattern`` full match, by RE2 in linear time: :mod:`.pattern`; or
``enum``), ``integer`` (min/max), ``decimal`` (``unit``, min/max, ``places``), ``string``
(``max_len``), ``boolean`` (``true``/``false``) and, as a cotaudit extension for small
examples, ``any`` (every constant).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from cotaudit.certify.core.canon import canonical_json, sha256_hex
from cotaudit.certify.core.errors import InterfaceError, Problem, ProgramError, WhitelistViolation
from cotaudit.certify.interface.pattern import fullmatch
from cotaudit.certify.lang.syntax import NAME_RE, BodyLit, Const, Fact, Literal, Rule, Unit

FORMAT = "cotaudit.certify.interface/1"
ROLE_TYPES = ("symbol", "integer", "decimal", "string", "boolean", "any")
NEGATIONS = ("none", "strong", "naf")


@dataclass(frozen=True, slots=True)
class Role:
    """An argument role type."""

    name: str
    type: str
    pattern: str | None = None
    enum: tuple[str, ...] | None = None
    min: Decimal | None = None
    max: Decimal | None = None
    unit: str | None = None
    places: int | None = None
    max_len: int | None = None

    def accepts(self, c: Const) -> bool:
        if c.skolem or self.type == "any":
            return True
        if self.type == "symbol":
            if c.kind != "sym":
                return False
            if self.enum is not None and c.value not in self.enum:
                return False
            return self.pattern is None or fullmatch(self.pattern, c.value)
        if self.type == "boolean":
            return c.kind == "sym" and c.value in ("true", "false")
        if self.type == "string":
            return c.kind == "str" and (self.max_len is None or len(c.value) <= self.max_len)
        if c.kind != "num":
            return False
        value = Decimal(c.value)
        if self.type == "integer" and value != value.to_integral_value():
            return False
        if self.type == "decimal" and self.places is not None:
            exponent = value.as_tuple().exponent
            if isinstance(exponent, int) and -exponent > self.places:
                return False
        return (self.min is None or value >= self.min) and (self.max is None or value <= self.max)

    def to_json(self) -> dict[str, Any]:
        d: dict[str, Any] = {"type": self.type}
        for name in ("pattern", "unit", "places", "max_len"):
            value = getattr(self, name)
            if value is not None:
                d[name] = value
        if self.enum is not None:
            d["enum"] = list(self.enum)
        for name in ("min", "max"):
            value = getattr(self, name)
            if value is not None:
                d[name] = str(value)
        return d


@dataclass(frozen=True, slots=True)
class PredicateSig:
    """A predicate of Σ: its argument roles and optional span-checker anchors."""

    name: str
    args: tuple[str, ...]
    anchors: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class LegendEntry:
    """L(c) = (role, entity label), with optional aliases used by the source checkers."""

    constant: Const
    role: str
    label: str
    aliases: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class TypeIssue:
    """Why a literal fails C-13 (the gate's reason code, a message, machine-readable detail)."""

    reason: str
    message: str
    detail: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Interface:
    """A validated interface; build it with :func:`load_interface` or :func:`interface_from_dict`."""

    name: str
    version: str
    negation: str
    roles: Mapping[str, Role]
    predicates: Mapping[str, PredicateSig]
    legend: Mapping[Const, LegendEntry]
    whitelist: frozenset[str]
    query_predicates: tuple[str, ...]

    def to_json(self) -> dict[str, Any]:
        """The canonical JSON form (what ``sha256`` covers)."""
        return {
            "format": FORMAT,
            "name": self.name,
            "version": self.version,
            "negation": self.negation,
            "roles": {n: r.to_json() for n, r in sorted(self.roles.items())},
            "predicates": {
                n: {"args": list(p.args), **({"anchors": list(p.anchors)} if p.anchors else {})}
                for n, p in sorted(self.predicates.items())
            },
            "legend": {
                c.text(): {
                    "role": e.role,
                    "label": e.label,
                    **({"aliases": list(e.aliases)} if e.aliases else {}),
                }
                for c, e in sorted(self.legend.items(), key=lambda kv: kv[0].text())
            },
            "source_whitelist": sorted(self.whitelist),
            "query_predicates": list(self.query_predicates),
        }

    @property
    def sha256(self) -> str:
        return sha256_hex(canonical_json(self.to_json()))

    # ------------------------------------------------------------------ C-13
    def check_literal(self, lit: Literal) -> TypeIssue | None:
        """C-13 for one literal: Σ membership, arity, role types, legend roles, negation."""
        sig = self.predicates.get(lit.pred)
        if sig is None:
            return TypeIssue(
                "UNKNOWN_PREDICATE", f"predicate '{lit.pred}' is not in the interface", {"pred": lit.pred}
            )
        if len(sig.args) != lit.arity:
            return TypeIssue(
                "ARITY_MISMATCH",
                f"'{lit.pred}' takes {len(sig.args)} arguments, got {lit.arity}",
                {"pred": lit.pred, "expected": len(sig.args), "got": lit.arity},
            )
        if lit.neg and self.negation != "strong":
            return TypeIssue("NEGATION_NOT_ENABLED", "strong negation '-' is not enabled", {"pred": lit.pred})
        for i, (arg, role_name) in enumerate(zip(lit.args, sig.args, strict=True)):
            if not isinstance(arg, Const):
                continue
            role = self.roles[role_name]
            entry = self.legend.get(arg)
            if not role.accepts(arg) or (entry is not None and entry.role != role_name and not arg.skolem):
                return TypeIssue(
                    "ROLE_MISMATCH",
                    f"argument {i + 1} of '{lit.pred}' ({arg.text()}) is not a {role_name}",
                    {"pred": lit.pred, "position": i + 1, "constant": arg.text(), "role": role_name},
                )
        return None

    def type_check(self, unit: Unit) -> TypeIssue | None:
        """C-13 for a unit: every literal, and NAF only when ``negation: naf``."""
        lits: Iterable[Literal | BodyLit] = [unit.lit] if isinstance(unit, Fact) else [unit.head, *unit.body]
        for item in lits:
            if isinstance(item, BodyLit):
                if item.naf and self.negation != "naf":
                    return TypeIssue("NEGATION_NOT_ENABLED", "negation as failure 'not' is not enabled", {})
                item = item.lit
            issue = self.check_literal(item)
            if issue is not None:
                return issue
        return None

    def head_in_whitelist(self, rule: Rule) -> bool:
        """Proposition 1: a rule head (either polarity) whose predicate is in Ω."""
        return rule.head.pred in self.whitelist

    def is_source_predicate(self, lit: Literal) -> bool:
        return lit.pred in self.whitelist


def load_program(units: Iterable[Unit], interface: Interface) -> list[Unit]:
    """C-12 at load: heads(R) ∩ Ω = ∅ (``WhitelistViolation`` naming every offender) and every
    rule predicate in Σ with the right arity and roles (``ProgramError``)."""
    out = list(units)
    offenders = [u.label for u in out if isinstance(u, Rule) and interface.head_in_whitelist(u)]
    if offenders:
        raise WhitelistViolation(offenders)
    for u in out:
        issue = interface.type_check(u)
        if issue is not None:
            line, col = u.pos or (None, None)
            raise ProgramError(
                issue.reason, issue.message, line=line, col=col, label=u.label, detail=issue.detail
            )
    return out


def simple_interface(
    predicates: Mapping[str, int], whitelist: Iterable[str], *, negation: str = "none", name: str = "simple"
) -> Interface:
    """An interface whose arguments all have role ``any`` (tests and small examples)."""
    any_role = Role("any", "any")
    for p in predicates:
        if not NAME_RE.fullmatch(p):
            raise InterfaceError([Problem("BAD_FORMAT", f"bad predicate name {p!r}")])
    return Interface(
        name=name,
        version="1",
        negation=negation,
        roles={"any": any_role},
        predicates={p: PredicateSig(p, ("any",) * n) for p, n in predicates.items()},
        legend={},
        whitelist=frozenset(whitelist),
        query_predicates=(),
    )
