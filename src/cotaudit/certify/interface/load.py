"""Reading and validating interface documents (C-10, C-11): every problem, each with a code.

:func:`load_interface` reads a JSON (or YAML) text, :func:`interface_from_dict` validates a
decoded document; both raise :class:`~cotaudit.certify.core.errors.InterfaceError` listing
every problem.

Problem codes: ``BAD_FORMAT`` (not an interface document / wrong field types), ``BAD_ROLE``
(a role definition that makes no sense, e.g. a pattern RE2 cannot compile), ``UNKNOWN_ROLE``,
``DUPLICATE_PREDICATE``, ``WHITELIST_NOT_IN_SIGMA`` (Ω ⊄ Σ), ``QUERY_PREDICATE_UNKNOWN``,
``LEGEND_TYPE_MISMATCH`` and ``LEGEND_NOT_INJECTIVE``.
"""

from __future__ import annotations

from decimal import Decimal, InvalidOperation
from typing import Any

from cotaudit.certify.core.canon import canonical_json, loads_strict, lone_surrogate
from cotaudit.certify.core.errors import InterfaceError, Problem, ProgramError
from cotaudit.certify.interface.model import (
    FORMAT,
    NEGATIONS,
    ROLE_TYPES,
    Interface,
    LegendEntry,
    PredicateSig,
    Role,
)
from cotaudit.certify.interface.pattern import PatternError, compile_pattern
from cotaudit.certify.lang.syntax import NAME_RE, Const
from cotaudit.errors import MissingDependency
from cotaudit.limits import checkpoint

# PyYAML's parser is pure Python (~5 µs per character here): an interface in YAML is a
# hand-written document of a few KiB, and a bigger one is refused before parsing so a hostile
# file cannot hold the process for seconds per MiB. JSON interfaces (C-speed) have no such cap.
MAX_YAML_BYTES = 128 * 1024


def parse_document(text: str) -> tuple[Any, list[Problem]]:
    """JSON when the text starts with ``{``, otherwise YAML (PyYAML); duplicate keys are problems."""
    problems: list[Problem] = []
    stripped = text.lstrip()
    if stripped.startswith("{"):
        try:
            return loads_strict(stripped, floats=True), problems
        except (ValueError, RecursionError) as exc:
            msg = str(exc)
            code = "DUPLICATE_PREDICATE" if "duplicate key" in msg else "BAD_FORMAT"
            raise InterfaceError([Problem(code, f"not valid JSON: {msg}")]) from None
    return _load_yaml(text, problems), problems


def _load_yaml(text: str, problems: list[Problem]) -> Any:
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_YAML_BYTES:
        raise InterfaceError(
            [
                Problem(
                    "BAD_FORMAT",
                    f"a YAML interface is limited to {MAX_YAML_BYTES // 1024} KiB (this one is "
                    f"{size // 1024} KiB); write larger interfaces as JSON",
                )
            ]
        )
    try:
        import yaml  # type: ignore[import-untyped]
    except ModuleNotFoundError:
        raise MissingDependency("yaml", "pip install PyYAML (or write the interface as JSON)") from None

    class Loader(yaml.SafeLoader):  # type: ignore[misc]
        def compose_node(self, parent: Any, index: Any) -> Any:
            # An alias shares a node: a few lines of "&a [*b, *b, …]" expand to 2^n nodes once
            # the document is walked (billion laughs). An interface never needs one.
            checkpoint()
            if self.check_event(yaml.events.AliasEvent):
                mark = self.peek_event().start_mark
                raise yaml.composer.ComposerError(None, None, "aliases (*name) are not allowed", mark)
            return super().compose_node(parent, index)

    def mapping(loader: Any, node: Any) -> dict[Any, Any]:
        out: dict[Any, Any] = {}
        for key_node, value_node in node.value:
            key = loader.construct_object(key_node, deep=True)
            if key in out:
                problems.append(
                    Problem(
                        "DUPLICATE_PREDICATE",
                        f"duplicate key {key!r}",
                        f"line {key_node.start_mark.line + 1}",
                    )
                )
            out[key] = loader.construct_object(value_node, deep=True)
        return out

    Loader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, mapping)
    # Decimal numbers stay exact: YAML floats are re-read from their source text.
    Loader.add_constructor("tag:yaml.org,2002:float", lambda loader, node: Decimal(str(node.value)))
    try:
        return yaml.load(text, Loader=Loader)
    except yaml.YAMLError as exc:
        raise InterfaceError([Problem("BAD_FORMAT", f"not valid YAML: {_first_line(exc)}")]) from None
    except RecursionError:
        raise InterfaceError([Problem("BAD_FORMAT", "not valid YAML: nested too deeply")]) from None


def _first_line(exc: Exception) -> str:
    lines = [line for line in str(exc).splitlines() if line.strip()]
    return lines[0] if lines else type(exc).__name__


def _decimal(value: Any) -> Decimal | None:
    if value is None or isinstance(value, bool):
        return None
    try:
        return Decimal(str(value))
    except InvalidOperation:
        return None


def _role(name: str, d: Any, problems: list[Problem]) -> Role | None:

    if not isinstance(d, dict) or d.get("type") not in ROLE_TYPES:
        problems.append(
            Problem("BAD_ROLE", f"role '{name}' needs a type among {', '.join(ROLE_TYPES)}", f"roles.{name}")
        )
        return None
    pattern = d.get("pattern")
    if pattern is not None:
        try:  # RE2: linear-time matching whatever the pattern (certify/pattern.py)
            compile_pattern(str(pattern))
        except PatternError as exc:
            problems.append(Problem("BAD_ROLE", f"role '{name}': bad pattern ({exc})", f"roles.{name}"))
            return None
    enum = d.get("enum")
    if enum is not None and not (isinstance(enum, list) and all(isinstance(e, str) for e in enum)):
        problems.append(
            Problem("BAD_ROLE", f"role '{name}': enum must be a list of strings", f"roles.{name}")
        )
        return None
    places = d.get("places")
    max_len = d.get("max_len")
    for label, value in (("places", places), ("max_len", max_len)):
        if value is not None and (not isinstance(value, int) or isinstance(value, bool) or value < 0):
            problems.append(
                Problem("BAD_ROLE", f"role '{name}': {label} must be a non-negative integer", f"roles.{name}")
            )
            return None
    return Role(
        name=name,
        type=str(d["type"]),
        pattern=None if pattern is None else str(pattern),
        enum=None if enum is None else tuple(enum),
        min=_decimal(d.get("min")),
        max=_decimal(d.get("max")),
        unit=None if d.get("unit") is None else str(d.get("unit")),
        places=places,
        max_len=max_len,
    )


def _constant(text: Any) -> Const | None:
    from cotaudit.certify.lang.parse import parse_literal

    try:
        lit = parse_literal(f"c({text})")
    except ProgramError:
        return None
    arg = lit.args[0] if lit.arity == 1 else None
    return arg if isinstance(arg, Const) else None


def _strings(value: Any) -> tuple[str, ...] | None:
    if value is None:
        return ()
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    return None


def build_interface(doc: Any, problems: list[Problem]) -> Interface | None:
    """The :class:`Interface` of ``doc``, appending every problem found to ``problems``."""

    if not isinstance(doc, dict):
        problems.append(Problem("BAD_FORMAT", "an interface is a mapping"))
        return None
    if doc.get("format") != FORMAT:
        problems.append(Problem("BAD_FORMAT", f"'format' must be {FORMAT!r}", "format"))
    negation = doc.get("negation", "none")
    if negation not in NEGATIONS:
        problems.append(
            Problem("BAD_FORMAT", f"'negation' must be one of {', '.join(NEGATIONS)}", "negation")
        )
    roles: dict[str, Role] = {}
    raw_roles = doc.get("roles") or {}
    if not isinstance(raw_roles, dict):
        problems.append(Problem("BAD_FORMAT", "'roles' must be a mapping", "roles"))
        raw_roles = {}
    for name, d in raw_roles.items():
        role = _role(str(name), d, problems)
        if role is not None:
            roles[str(name)] = role
    predicates: dict[str, PredicateSig] = {}
    raw_preds = doc.get("predicates") or {}
    if not isinstance(raw_preds, dict):
        problems.append(Problem("BAD_FORMAT", "'predicates' must be a mapping", "predicates"))
        raw_preds = {}
    for name, d in raw_preds.items():
        pname = str(name)
        args = _strings(d.get("args") if isinstance(d, dict) else None)
        anchors = _strings(d.get("anchors") if isinstance(d, dict) else None)
        if not NAME_RE.fullmatch(pname) or pname == "not" or args is None or anchors is None:
            problems.append(
                Problem(
                    "BAD_FORMAT",
                    f"predicate '{pname}' needs a name and an 'args' list",
                    f"predicates.{pname}",
                )
            )
            continue
        for role_name in args:
            if role_name not in roles and role_name not in raw_roles:
                problems.append(
                    Problem(
                        "UNKNOWN_ROLE",
                        f"predicate '{pname}' uses unknown role '{role_name}'",
                        f"predicates.{pname}",
                    )
                )
        predicates[pname] = PredicateSig(pname, args, tuple(a.lower() for a in anchors))
    whitelist = _strings(doc.get("source_whitelist"))
    queries = _strings(doc.get("query_predicates"))
    if whitelist is None or queries is None:
        problems.append(Problem("BAD_FORMAT", "'source_whitelist' and 'query_predicates' are lists of names"))
        whitelist, queries = whitelist or (), queries or ()
    for p in whitelist:
        if p not in predicates:
            problems.append(
                Problem(
                    "WHITELIST_NOT_IN_SIGMA", f"whitelisted predicate '{p}' is not in Σ", "source_whitelist"
                )
            )
    for p in queries:
        if p not in predicates:
            problems.append(
                Problem("QUERY_PREDICATE_UNKNOWN", f"query predicate '{p}' is not in Σ", "query_predicates")
            )
    legend = _legend(doc.get("legend") or {}, roles, problems)
    if problems:
        return None
    return Interface(
        name=str(doc.get("name", "")),
        version=str(doc.get("version", "")),
        negation=str(negation),
        roles=roles,
        predicates=predicates,
        legend=legend,
        whitelist=frozenset(whitelist),
        query_predicates=tuple(queries),
    )


def _legend(raw: Any, roles: dict[str, Role], problems: list[Problem]) -> dict[Const, LegendEntry]:

    legend: dict[Const, LegendEntry] = {}
    if not isinstance(raw, dict):
        problems.append(Problem("BAD_FORMAT", "'legend' must be a mapping", "legend"))
        return legend
    seen: dict[tuple[str, str], str] = {}
    for key, d in raw.items():
        const = _constant(key)
        aliases = _strings(d.get("aliases") if isinstance(d, dict) else None)
        if const is None or not isinstance(d, dict) or aliases is None:
            problems.append(
                Problem("BAD_FORMAT", f"legend entry {key!r} is not constant: {{role, label}}", "legend")
            )
            continue
        role_name, label = str(d.get("role", "")), str(d.get("label", ""))
        role = roles.get(role_name)
        if role is None:
            problems.append(
                Problem("UNKNOWN_ROLE", f"legend constant {key!r} has unknown role '{role_name}'", "legend")
            )
            continue
        if not role.accepts(const):
            problems.append(
                Problem("LEGEND_TYPE_MISMATCH", f"legend constant {key!r} is not a {role_name}", "legend")
            )
            continue
        if (role_name, label) in seen:
            problems.append(
                Problem(
                    "LEGEND_NOT_INJECTIVE",
                    f"legend constants {seen[(role_name, label)]!r} and {key!r} "
                    f"share ({role_name}, {label!r})",
                    "legend",
                )
            )
            continue
        seen[(role_name, label)] = str(key)
        legend[const] = LegendEntry(const, role_name, label, aliases)
    return legend


def load_interface(text: str) -> Interface:
    """Parse and validate an interface file (JSON, or YAML when PyYAML is installed)."""
    doc, problems = parse_document(text)
    iface = interface_from_dict(doc, problems)
    if lone_surrogate(canonical_json(iface.to_json())) is not None:
        raise InterfaceError([Problem("BAD_FORMAT", "an escaped lone surrogate is not text")])
    return iface


def interface_from_dict(doc: Any, problems: list[Problem] | None = None) -> Interface:
    """Validate a decoded interface document (C-11); raises :class:`InterfaceError`."""
    found = list(problems or [])
    result = build_interface(doc, found)
    if found or result is None:
        raise InterfaceError(found or [Problem("BAD_FORMAT", "not an interface")])
    return result
