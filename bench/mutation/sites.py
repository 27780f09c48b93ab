"""Where a small mistake can be made in a module, and the module with one made.

A site is a node of the module's syntax tree and one change of it: a comparison flipped, ``and``
for ``or``, an arithmetic operator swapped, a number moved by one (a boolean negated), a condition
negated, a return replaced by ``return None``, a statement deleted. Docstrings, annotations and
f-strings hold none (changing them changes no behaviour worth a test). Sites are listed in
``ast.walk`` order; a site's index in that list names it within one version of the file, its
``key`` (the change and its line's text) across edits elsewhere in the file.
"""
from __future__ import annotations

import ast
import hashlib
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Mutant:
    module: str
    line: int
    change: str  # "< → <=", "return → return None", …
    source_line: str
    index: int  # which site of the module (in walk order)
    scope: str | None  # the qualified name of the module-level function or method holding it (None: module level)
    end_line: int = 0  # the last line of the node changed (a multi-line statement)
    occurrence: int = 0  # how many earlier sites share this key (two `+` on one line)

    @property
    def key(self) -> str:
        """What identifies it across edits elsewhere in the file: the change and its line's text
        (and which of the line's same changes it is, when there are several)."""
        digest = hashlib.sha1(f"{self.change}|{self.source_line.strip()}".encode()).hexdigest()[:12]
        return f"{self.module}:{digest}" + (f"#{self.occurrence}" if self.occurrence else "")

    @property
    def lines(self) -> range:
        return range(self.line, max(self.line, self.end_line) + 1)


# ----------------------------------------------------------------------------------- mutators
COMPARE_FLIPS = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt, ast.Eq: ast.NotEq,
                 ast.NotEq: ast.Eq, ast.In: ast.NotIn, ast.NotIn: ast.In, ast.Is: ast.IsNot, ast.IsNot: ast.Is}
BINOP_SWAPS = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Div, ast.Div: ast.Mult, ast.FloorDiv: ast.Div,
               ast.Mod: ast.FloorDiv, ast.Pow: ast.Mult}
SYMBOLS = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!=", ast.In: "in",
           ast.NotIn: "not in", ast.Is: "is", ast.IsNot: "is not", ast.Add: "+", ast.Sub: "-", ast.Mult: "*",
           ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%", ast.Pow: "**", ast.And: "and", ast.Or: "or"}


def _docstring_nodes(tree: ast.AST) -> set[int]:
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.body:
            first = node.body[0]
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
            ):
                out.add(id(first))
    return out


def _in_annotation(tree: ast.AST) -> set[int]:
    """Nodes inside type annotations and f-strings: changing them changes no behaviour worth testing."""
    out: set[int] = set()
    for node in ast.walk(tree):
        parts = []
        if isinstance(node, (ast.arg, ast.AnnAssign)) and node.annotation is not None:
            parts.append(node.annotation)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.returns is not None:
            parts.append(node.returns)
        if isinstance(node, ast.JoinedStr):
            parts.append(node)
        for part in parts:
            out.update(id(n) for n in ast.walk(part))
    return out


def _scopes(tree: ast.Module) -> dict[int, str]:
    """Each node inside a module-level function or a method of a module-level class (nested
    classes included) → that function's qualified name, as its code object's ``co_qualname``
    says it. A node inside a nested function belongs to the outermost one: the inner function is
    made anew from the outer one's code at every call."""
    owner: dict[int, str] = {}

    def visit(body: list[ast.stmt], prefix: str) -> None:
        for statement in body:
            if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
                name = prefix + statement.name
                for node in ast.walk(statement):
                    owner[id(node)] = name
                for decorator in statement.decorator_list:  # run once, at import
                    for node in ast.walk(decorator):
                        owner.pop(id(node), None)
                for default in [*statement.args.defaults, *statement.args.kw_defaults]:
                    for node in ast.walk(default) if default is not None else ():
                        owner.pop(id(node), None)
            elif isinstance(statement, ast.ClassDef):
                visit(statement.body, f"{prefix}{statement.name}.")
    visit(tree.body, "")
    return owner


def sites(tree: ast.Module) -> list[tuple[ast.AST, str, str]]:
    """Every (node, kind, change) a mutant can be made at, in walk order."""
    skip = _docstring_nodes(tree) | _in_annotation(tree)
    functions = {id(n) for f in ast.walk(tree) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
                 for n in ast.walk(f)}
    out = []
    for node in ast.walk(tree):
        if id(node) in skip:
            continue
        if isinstance(node, ast.Compare):
            for i, op in enumerate(node.ops):
                if type(op) in COMPARE_FLIPS:
                    out.append((node, f"compare:{i}", f"{SYMBOLS[type(op)]} → {SYMBOLS[COMPARE_FLIPS[type(op)]]}"))
        elif isinstance(node, ast.BinOp) and type(node.op) in BINOP_SWAPS:
            out.append((node, "binop", f"{SYMBOLS[type(node.op)]} → {SYMBOLS[BINOP_SWAPS[type(node.op)]]}"))
        elif isinstance(node, ast.BoolOp):
            out.append(
                (node, "boolop", f"{SYMBOLS[type(node.op)]} → {'or' if isinstance(node.op, ast.And) else 'and'}")
            )
        elif isinstance(node, ast.Constant) and isinstance(node.value, (int, float)) and id(node) in functions:
            if isinstance(node.value, bool):
                out.append((node, "const", f"{node.value} → {not node.value}"))
            else:
                out.append((node, "const", f"{node.value!r} → {node.value + 1!r}"))
        elif isinstance(node, (ast.If, ast.While, ast.IfExp)):
            out.append((node, "negate", "condition → not condition"))
        elif isinstance(node, ast.Return) and node.value is not None and not (
                isinstance(node.value, ast.Constant) and node.value.value is None):
            out.append((node, "return", "return … → return None"))
        elif isinstance(node, (ast.Assign, ast.AugAssign, ast.Expr)) and id(node) in functions:
            out.append((node, "delete", "statement deleted"))
    return out


class _Apply(ast.NodeTransformer):
    def __init__(self, target: ast.AST, kind: str):
        self.target, self.kind = target, kind

    def visit(self, node):
        if node is not self.target:
            return self.generic_visit(node)
        kind = self.kind
        if kind.startswith("compare:"):
            i = int(kind.split(":")[1])
            node.ops[i] = COMPARE_FLIPS[type(node.ops[i])]()
        elif kind == "binop":
            node.op = BINOP_SWAPS[type(node.op)]()
        elif kind == "boolop":
            node.op = ast.Or() if isinstance(node.op, ast.And) else ast.And()
        elif kind == "const":
            node.value = (not node.value) if isinstance(node.value, bool) else node.value + 1
        elif kind == "negate":
            node.test = ast.UnaryOp(op=ast.Not(), operand=node.test)
        elif kind == "return":
            node.value = ast.Constant(value=None)
        elif kind == "delete":
            return ast.copy_location(ast.Pass(), node)
        return node


def mutants_of(module: str, path: Path) -> tuple[str, list[Mutant]]:
    """The module's source and every mutant that can be made of it."""
    source = path.read_text(encoding="utf-8")
    lines = source.splitlines()
    tree = ast.parse(source)
    owners = _scopes(tree)
    # a default argument is made at import but read by the calls: its lines are the function's,
    # so the tests that call the function judge it
    body_end = {id(n): f.end_lineno for f in ast.walk(tree) if isinstance(f, (ast.FunctionDef, ast.AsyncFunctionDef))
                for d in [*f.args.defaults, *f.args.kw_defaults] if d is not None for n in ast.walk(d)}
    out, seen = [], {}
    for index, (node, _, change) in enumerate(sites(tree)):
        line = getattr(node, "lineno", 0)
        text = lines[line - 1] if line else ""
        same = seen.get((change, text.strip()), 0)
        seen[change, text.strip()] = same + 1
        end = getattr(node, "end_lineno", line) or line
        if isinstance(node, (ast.If, ast.While, ast.IfExp)):
            end = getattr(node.test, "end_lineno", line) or line  # negating the test: its lines, not the body's
        end = max(end, body_end.get(id(node), 0))
        out.append(Mutant(module, line, change, text, index, owners.get(id(node)), end, same))
    return source, out


def mutated_tree(source: str, mutant: Mutant) -> ast.Module:
    """The module's syntax tree with ``mutant`` made, every other node where it was (so code
    compiled from it has the original's line numbers)."""
    tree = ast.parse(source)
    node, kind, _ = sites(tree)[mutant.index]
    _Apply(node, kind).visit(tree)
    ast.fix_missing_locations(tree)
    return tree


def mutated(source: str, mutant: Mutant) -> str:
    """The module's source with ``mutant`` made (as ``ast.unparse`` writes it)."""
    return ast.unparse(mutated_tree(source, mutant))
