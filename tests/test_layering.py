"""Import arrows run one way: report, codes, errors ← engines ← api ← cli (conventions.md).

Walks every module under src/cotaudit with ``ast`` (imports inside functions and under
``TYPE_CHECKING`` count too) and fails on a wrong arrow, on any import cycle, and on a certify
layer importing a later one (docs/architecture.md). Also a source scan: nothing calls
``eval``/``exec``, imports ``sympy.parsing`` or uses ``sympify``/``parse_expr`` (an allow-list
exists and is empty).
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

BASE = ("cotaudit.report", "cotaudit.codes", "cotaudit.errors", "cotaudit.stats", "cotaudit.lexicons")
ENGINES = ("cotaudit.te", "cotaudit.type6", "cotaudit.vericot", "cotaudit.certify", "cotaudit.cot")
# Engines never reach up: not into the front end, not into the shared LLM layer, and not into
# the package root, which re-exports cotaudit.api.
ENGINE_FORBIDDEN = (
    "cotaudit.cli",
    "cotaudit.api",
    "cotaudit.registry",
    "cotaudit.inputs",
    "cotaudit.service",
    "cotaudit.batch",
    "cotaudit.llm",
    "cotaudit.eval",
    "cotaudit.frontends",
)
HEAVY = ("sympy", "pint", "z3", "openai", "pydantic", "fastapi", "uvicorn", "ray")
# Modules on the CLI's start-up path: no engine and no heavy library at import time. These and
# every module they import eagerly (see _start_up: command groups import engines in handlers).
FAST_PATH = ("cotaudit", "cotaudit.api", "cotaudit.cli", "cotaudit.__main__", *BASE)
# certify's layers, in order (docs/architecture.md): a module imports only its own layer and the
# layers before it. The proof checker comes before the executor, so it can never import it.
CERTIFY_LAYERS = (
    "core",
    "lang",
    "interface",
    "sources",
    "proof",
    "engine",
    "kernel",
    "gate",
    "state",
    "serve",
    "kb",
    "adapters",
)

# (path relative to src/cotaudit, banned name) → why it is acceptable. Keep it empty.
ALLOWED_BANNED: dict[tuple[str, str], str] = {}


@dataclass(frozen=True)
class Import:
    module: str
    line: int
    lazy: bool  # inside a function, or under ``if TYPE_CHECKING:``
    # ``from pkg import a, b`` where a and b are all submodules of pkg: the arrow to pkg itself
    # only initialises the package; it uses no name pkg/__init__.py defines.
    submodules_only: bool = False


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
        ours = _under(module, ("cotaudit",))
        only_submodules = ours and all(_is_module(f"{module}.{a.name}") for a in node.names)
        self.found.append(Import(module, node.lineno, self.depth > 0, only_submodules))
        for alias in node.names:
            sub = f"{module}.{alias.name}"
            # ``from cotaudit import api`` is an arrow to cotaudit.api; outside the package the
            # name may be a submodule too (``from sympy import parsing``), so keep it.
            if _is_module(sub) or not ours:
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
        return _under(imp.module, ("cotaudit.cli",)) and not _under(
            name, ("cotaudit.cli", "cotaudit.__main__")
        )
    if rule == "fast":
        heavy = _under(imp.module, ENGINES) or _under(imp.module, HEAVY)
        return name in START_UP and not imp.lazy and heavy
    if rule == "certify-layers":
        mine, theirs = _certify_layer(name), _certify_layer(imp.module)
        return mine is not None and theirs is not None and theirs > mine
    if rule == "proof":
        proof = ("cotaudit.certify.proof",)
        later = tuple(
            f"cotaudit.certify.{layer}" for layer in CERTIFY_LAYERS[CERTIFY_LAYERS.index("proof") + 1 :]
        )
        return _under(name, proof) and (_under(imp.module, later) or imp.module == "cotaudit.certify")
    raise AssertionError(rule)


def _start_up() -> set[str]:
    """FAST_PATH and every module of ours they import at import time, transitively (importing
    ``a.b.c`` runs ``a`` and ``a.b`` too)."""
    seen: set[str] = set()
    todo = [m for m in FAST_PATH if m in MODULES]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        for imp in _imports(name, MODULES[name]):
            if imp.lazy or not _under(imp.module, ("cotaudit",)):
                continue
            parts = imp.module.split(".")
            todo += [m for m in (".".join(parts[:n]) for n in range(1, len(parts) + 1)) if m in MODULES]
    return seen


START_UP = _start_up()


def test_the_start_up_walk_follows_imports() -> None:
    assert {"cotaudit.cli.entry", "cotaudit.cli.check", "cotaudit.cli.io", "cotaudit.report.text"} <= START_UP
    assert not any(_under(m, ENGINES) for m in START_UP)


def _certify_layer(module: str) -> int | None:
    """The index of ``module``'s certify layer, or None outside certify's layers."""
    parts = module.split(".")
    if parts[:2] != ["cotaudit", "certify"] or len(parts) < 3:
        return None
    return CERTIFY_LAYERS.index(parts[2]) if parts[2] in CERTIFY_LAYERS else None


@pytest.mark.parametrize("rule", ["base", "engines", "cli", "fast", "certify-layers", "proof"])
def test_import_arrows(rule: str) -> None:
    bad = [
        f"{path.relative_to(SRC)}:{imp.line}: {name} imports {imp.module}"
        for name, path in MODULES.items()
        for imp in _imports(name, path)
        if _wrong_arrow(rule, name, imp)
    ]
    assert bad == []


def test_certify_has_only_its_layers() -> None:
    """No flat module in certify: every module lives in one of the layers (or is __init__)."""
    root = PKG / "certify"
    flat = sorted(p.name for p in root.glob("*.py") if p.name != "__init__.py")
    packages = sorted(p.name for p in root.iterdir() if (p / "__init__.py").exists())
    assert flat == []
    assert packages == sorted(CERTIFY_LAYERS)


# --------------------------------------------------------------------------- import cycles


def _resolve(module: str) -> str | None:
    """The module of ours that ``module`` names (an imported name resolves to its module)."""
    while module and module not in MODULES:
        module = module.rpartition(".")[0]
    return module or None


def _graph() -> dict[str, dict[str, int]]:
    """module → {imported module of ours: first line}, every import counted (lazy ones too)."""
    graph: dict[str, dict[str, int]] = {name: {} for name in MODULES}
    for name, path in MODULES.items():
        for imp in _imports(name, path):
            if imp.submodules_only or not _under(imp.module, ("cotaudit",)):
                continue
            target = _resolve(imp.module)
            if target is not None and target != name:
                graph[name].setdefault(target, imp.line)
    return graph


def _cycles(graph: dict[str, dict[str, int]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    top = stack.pop()
                    on_stack.discard(top)
                    component.append(top)
                    if top == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return sorted(found)


def test_no_import_cycles() -> None:
    """No cycle between our modules, deferred and ``TYPE_CHECKING`` imports included."""
    graph = _graph()
    described = [
        [f"{a} -> {b} (line {graph[a][b]})" for a in cycle for b in sorted(graph[a]) if b in cycle]
        for cycle in _cycles(graph)
    ]
    assert described == []


def test_the_cycle_finder_finds_cycles() -> None:
    graph = {"a": {"b": 1}, "b": {"c": 1}, "c": {"a": 1}, "d": {"a": 1}, "e": {"e": 1}, "f": {}}
    assert _cycles(graph) == [["a", "b", "c"]]
    assert _cycles({"x": {"y": 1}, "y": {"x": 1}, "z": {"x": 1}}) == [["x", "y"]]


def test_every_package_lists_its_exports() -> None:
    """Typed exports: every __init__.py has ``__all__``; only the package root has a module
    ``__getattr__``, and only for its engine subpackages (imported on first use)."""
    missing = [
        name
        for name, path in MODULES.items()
        if path.name == "__init__.py" and "__all__" not in path.read_text()
    ]
    getattrs = [
        name
        for name, path in MODULES.items()
        if any(
            isinstance(node, ast.FunctionDef) and node.name == "__getattr__"
            for node in ast.parse(path.read_text(encoding="utf-8")).body
        )
    ]
    assert missing == []
    assert getattrs == ["cotaudit"]


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
    imports = _imports("cotaudit.report.sample", sample)
    # ``from . import text`` only initialises the package; ``from .model import Report`` uses it
    assert [i.submodules_only for i in imports if i.module == "cotaudit.report"] == [True]
    assert not any(i.submodules_only for i in imports if i.module == "cotaudit.report.model")
