"""Import arrows run one way: report, codes, errors ← engines ← api ← cli (conventions.md).

Walks every module under src/cotaudit with ``ast`` (imports inside functions count too) and
fails on a wrong arrow. Also a source scan: nothing calls ``eval``/``exec``, imports
``sympy.parsing`` or uses ``sympify``/``parse_expr`` (an allow-list exists and is empty).
"""

from __future__ import annotations

import ast
import io
import tokenize
from dataclasses import dataclass
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parent.parent / "src"
PKG = SRC / "cotaudit"

BASE = ("cotaudit.report", "cotaudit.codes", "cotaudit.errors")
ENGINES = ("cotaudit.te", "cotaudit.type6", "cotaudit.vericot", "cotaudit.certify", "cotaudit.cot")
# Engines never reach up: not into the front end, not into the shared LLM layer, and not into
# the package root, which re-exports cotaudit.api.
ENGINE_FORBIDDEN = (
    "cotaudit.cli",
    "cotaudit.api",
    "cotaudit.service",
    "cotaudit.batch",
    "cotaudit.llm",
    "cotaudit.eval",
)
HEAVY = ("sympy", "pint", "z3", "openai", "pydantic", "fastapi", "uvicorn", "ray")
# Modules on the CLI's start-up path: no engine and no heavy library at import time.
FAST_PATH = ("cotaudit", "cotaudit.api", "cotaudit.cli", "cotaudit.__main__", *BASE)

# (path relative to src/cotaudit, banned name) → why it is acceptable. Keep it empty.
ALLOWED_BANNED: dict[tuple[str, str], str] = {}


@dataclass(frozen=True)
class Import:
    module: str
    line: int
    lazy: bool  # inside a function, or under ``if TYPE_CHECKING:``


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _is_module(name: str) -> bool:
    rel = Path(*name.split("."))
    return (SRC / rel).with_suffix(".py").exists() or (SRC / rel / "__init__.py").exists()


def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in sorted(PKG.rglob("*.py"))}


class _Collector(ast.NodeVisitor):
    def __init__(self, name: str, is_package: bool) -> None:
        self.package = name if is_package else name.rpartition(".")[0]
        self.depth = 0
        self.found: list[Import] = []

    def _nested(self, node: ast.AST) -> None:
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1

    visit_FunctionDef = visit_AsyncFunctionDef = visit_Lambda = _nested

    def visit_If(self, node: ast.If) -> None:
        test = node.test
        guarded = (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
            isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
        )
        if guarded:
            self._nested(node)
        else:
            self.generic_visit(node)

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            self.found.append(Import(alias.name, node.lineno, self.depth > 0))

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.level:
            base = self.package.split(".")
            base = base[: len(base) - node.level + 1]
            module = ".".join([*base, node.module] if node.module else base)
        else:
            module = node.module or ""
        self.found.append(Import(module, node.lineno, self.depth > 0))
        for alias in node.names:
            sub = f"{module}.{alias.name}"
            # ``from cotaudit import api`` is an arrow to cotaudit.api; outside the package the
            # name may be a submodule too (``from sympy import parsing``), so keep it.
            if _is_module(sub) or not _under(module, ("cotaudit",)):
                self.found.append(Import(sub, node.lineno, self.depth > 0))


def _imports(name: str, path: Path) -> list[Import]:
    collector = _Collector(name, path.name == "__init__.py")
    collector.visit(ast.parse(path.read_text(encoding="utf-8"), str(path)))
    return collector.found


def _under(module: str, prefixes: tuple[str, ...]) -> bool:
    return any(module == p or module.startswith(p + ".") for p in prefixes)


MODULES = _modules()


def test_the_walk_sees_the_package() -> None:
    for expected in ("cotaudit", "cotaudit.api", "cotaudit.cli", "cotaudit.report.model", "cotaudit.codes"):
        assert expected in MODULES


def _wrong_arrow(rule: str, name: str, imp: Import) -> bool:
    """Whether ``name`` importing ``imp`` breaks ``rule``."""
    ours = _under(imp.module, ("cotaudit",))
    if rule == "base":
        return ours and _under(name, BASE) and not _under(imp.module, BASE)
    if rule == "engines":
        return _under(name, ENGINES) and (imp.module == "cotaudit" or _under(imp.module, ENGINE_FORBIDDEN))
    if rule == "cli":
        # the cli package imports its own modules; nothing outside it imports the CLI
        return _under(imp.module, ("cotaudit.cli",)) and not _under(
            name, ("cotaudit.cli", "cotaudit.__main__")
        )
    if rule == "fast":
        heavy = _under(imp.module, ENGINES) or _under(imp.module, HEAVY)
        return name in FAST_PATH and not imp.lazy and heavy
    raise AssertionError(rule)


@pytest.mark.parametrize("rule", ["base", "engines", "cli", "fast"])
def test_import_arrows(rule: str) -> None:
    bad = [
        f"{path.relative_to(SRC)}:{imp.line}: {name} imports {imp.module}"
        for name, path in MODULES.items()
        for imp in _imports(name, path)
        if _wrong_arrow(rule, name, imp)
    ]
    assert bad == []


def test_errors_module_is_a_leaf() -> None:
    imports = _imports("cotaudit.errors", PKG / "errors.py")
    assert [i.module for i in imports if _under(i.module, ("cotaudit",))] == []


# --------------------------------------------------------------------------- banned constructs


def _banned(path: Path) -> list[tuple[int, str]]:
    """(line, name) for eval/exec calls, builtins.eval, sympify, parse_expr and sympy.parsing."""
    tokens = [
        t
        for t in tokenize.generate_tokens(io.StringIO(path.read_text(encoding="utf-8")).readline)
        if t.type in (tokenize.NAME, tokenize.OP)
    ]
    hits: list[tuple[int, str]] = []
    for i, tok in enumerate(tokens):
        prev = tokens[i - 1].string if i else ""
        prev2 = tokens[i - 2].string if i > 1 else ""
        nxt = tokens[i + 1].string if i + 1 < len(tokens) else ""
        if tok.type != tokenize.NAME:
            continue
        if tok.string in ("eval", "exec") and nxt == "(":
            if prev not in (".", "def") or prev2 in ("builtins", "__builtins__"):
                hits.append((tok.start[0], tok.string))
        elif tok.string in ("sympify", "parse_expr"):
            hits.append((tok.start[0], tok.string))
        elif tok.string == "parsing" and prev == "." and prev2 == "sympy":
            hits.append((tok.start[0], "sympy.parsing"))
    return hits


def _banned_imports(name: str, path: Path) -> list[tuple[int, str]]:
    return [(i.line, i.module) for i in _imports(name, path) if _under(i.module, ("sympy.parsing",))]


def test_no_eval_exec_or_sympy_parsing() -> None:
    bad: list[str] = []
    for name, path in MODULES.items():
        rel = path.relative_to(PKG).as_posix()
        for line, what in _banned(path) + _banned_imports(name, path):
            if (rel, what) not in ALLOWED_BANNED:
                bad.append(f"{rel}:{line}: {what}")
    assert bad == []


def test_allow_list_entries_are_real() -> None:
    for rel, what in ALLOWED_BANNED:
        path = PKG / rel
        assert path.exists(), rel
        assert any(w == what for _, w in _banned(path)), f"stale allow-list entry {rel}: {what}"


def test_the_scanner_catches_what_it_should(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        "import builtins\n"
        "x = eval('1')\n"
        "builtins.exec('2')\n"
        "from sympy import sympify\n"
        "import sympy.parsing.sympy_parser\n"
        "obj.eval(3)\n"  # a method named eval is fine
        "def eval(x): ...\n"  # so is defining one
        "s = 'eval(1) parse_expr'  # strings and comments are ignored: sympify\n",
        encoding="utf-8",
    )
    assert _banned(sample) == [(2, "eval"), (3, "exec"), (4, "sympify"), (5, "sympy.parsing")]


def test_the_import_walk_resolves_names(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        "from . import text\n"
        "from .model import Report\n"
        "from cotaudit import api\n"
        "from sympy import parsing\n"
        "def f():\n"
        "    import cotaudit.te\n",
        encoding="utf-8",
    )
    found = {(i.module, i.lazy) for i in _imports("cotaudit.report.sample", sample)}
    assert {
        ("cotaudit.report", False),
        ("cotaudit.report.text", False),
        ("cotaudit.report.model", False),
        ("cotaudit.api", False),
        ("sympy.parsing", False),
        ("cotaudit.te", True),
    } <= found
    assert _banned_imports("cotaudit.report.sample", sample) == [(4, "sympy.parsing")]
