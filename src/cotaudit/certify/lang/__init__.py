"""The language of predicate units: terms, literals, rules and their normal form, the text
grammar and parser, the JSON form, the registered calculators and stratification.
"""

from cotaudit.certify.lang.parse import parse_literal, parse_program, parse_query, parse_unit
from cotaudit.certify.lang.syntax import (
    BodyLit,
    Calc,
    Const,
    Fact,
    Literal,
    Rule,
    Unit,
    Var,
    normal_form,
    program_text,
)

__all__ = [
    "BodyLit",
    "Calc",
    "Const",
    "Fact",
    "Literal",
    "Rule",
    "Unit",
    "Var",
    "normal_form",
    "parse_literal",
    "parse_program",
    "parse_query",
    "parse_unit",
    "program_text",
]
