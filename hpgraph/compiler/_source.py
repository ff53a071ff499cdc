"""Finding a callback's AST and quoting the user's source in errors."""

from __future__ import annotations

import ast
import inspect
import linecache
import textwrap
from dataclasses import dataclass

from ..exceptions import UnsupportedSyntax

_PARSED: dict = {}  # (filename, source text hash) -> ast.Module


@dataclass
class SourceInfo:
    """Where a callback's AST came from: node positions map to ``lines`` (the whole file when
    it could be parsed) after adding ``line_offset`` / ``col_offset``."""

    filename: str
    funcname: str
    lines: list
    node: ast.AST  # ast.Lambda or ast.FunctionDef
    line_offset: int = 0
    col_offset: int = 0

    def text(self) -> str:
        """The callback's own source text (for hashing)."""
        n = self.node
        seg = self.lines[n.lineno - 1 + self.line_offset: n.end_lineno + self.line_offset]
        if not seg:
            return ast.dump(n)
        if len(seg) == 1:
            return seg[0][n.col_offset + self.col_offset: n.end_col_offset + self.col_offset]
        first = seg[0][n.col_offset + self.col_offset:]
        last = seg[-1][: n.end_col_offset + self.col_offset]
        return "".join([first, *seg[1:-1], last])

    def quote(self, node) -> str:
        """Traceback-style quote of ``node``: file, line, the line itself, and ``^`` markers."""
        lineno = getattr(node, "lineno", None)
        if lineno is None:
            node = self.node
            lineno = node.lineno
        fl = lineno + self.line_offset
        line = self.lines[fl - 1].rstrip("\r\n") if 0 < fl <= len(self.lines) else ""
        col = node.col_offset + self.col_offset
        if getattr(node, "end_lineno", None) == lineno and node.end_col_offset is not None:
            end = node.end_col_offset + self.col_offset
        else:
            end = len(line)
        stripped = line.lstrip()
        lead = len(line) - len(stripped)
        col = max(col - lead, 0)
        end = max(end - lead, col + 1)
        return (f'  File "{self.filename}", line {fl}, in {self.funcname}\n'
                f"    {stripped}\n"
                f"    {' ' * col}{'^' * (end - col)}")

    def error(self, node, message: str, cls=UnsupportedSyntax):
        """An exception of ``cls`` whose message quotes ``node``."""
        exc = cls(f"{message}\n{self.quote(node)}")
        exc.hp_filename = self.filename
        exc.hp_lineno = getattr(node, "lineno", self.node.lineno) + self.line_offset
        return exc


def _parse_file(filename: str, lines: list):
    text = "".join(lines)
    key = (filename, hash(text))
    tree = _PARSED.get(key)
    if tree is None:
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError):
            tree = False
        if len(_PARSED) > 256:
            _PARSED.clear()
        _PARSED[key] = tree
    return tree or None


def _code_positions(code):
    """(line, col) of the code object's instructions (Python >= 3.11), else []."""
    try:
        return [(ln, col) for ln, _eln, col, ecol in code.co_positions()
                if ln is not None and col is not None and not (col == 0 and ecol == 0)]
    except AttributeError:  # pragma: no cover (Python < 3.11)
        return []


def _arg_names(node) -> list:
    a = node.args
    return [x.arg for x in (*a.posonlyargs, *a.args)]


def _find_node(tree, func, line_offset=0):
    """The Lambda/FunctionDef node in ``tree`` defining ``func``, or None; raises if ambiguous."""
    code = func.__code__
    argnames = list(code.co_varnames[: code.co_argcount])
    first = code.co_firstlineno - line_offset
    if code.co_name == "<lambda>":
        cands = [n for n in ast.walk(tree) if isinstance(n, ast.Lambda)
                 and n.lineno <= first <= n.end_lineno and _arg_names(n) == argnames]
        # the lambda starts on co_firstlineno
        exact = [n for n in cands if n.lineno == first]
        cands = exact or cands
        if len(cands) > 1:
            pos = [(ln - line_offset, col) for ln, col in _code_positions(code)]
            if pos:
                def inside(n):
                    b = n.body
                    return all((b.lineno, b.col_offset) <= p <= (b.end_lineno, b.end_col_offset)
                               for p in pos)
                narrowed = [n for n in cands if inside(n)]
                if narrowed:
                    cands = narrowed
        if len(cands) > 1:
            return "ambiguous"
        return cands[0] if cands else None
    cands = []
    for n in ast.walk(tree):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == code.co_name:
            start = n.decorator_list[0].lineno if n.decorator_list else n.lineno
            if first in (start, n.lineno):
                cands.append(n)
    return cands[0] if len(cands) == 1 else (None if not cands else "ambiguous")


def get_source(func) -> SourceInfo:
    """Locate the AST node of ``func`` (a lambda or a def) with positions in the user's file."""
    code = getattr(func, "__code__", None)
    if code is None:
        raise UnsupportedSyntax(f"{func!r} is not a Python function; hpgraph compiles plain "
                                "lambdas and def functions")
    filename = code.co_filename
    funcname = code.co_name
    lines = linecache.getlines(filename, getattr(func, "__globals__", None))
    if lines:
        tree = _parse_file(filename, lines)
        if tree is not None:
            node = _find_node(tree, func)
            if node == "ambiguous":
                raise _ambiguous(filename, code)
            if node is not None:
                return SourceInfo(filename, funcname, lines, node)
    # Fallback: inspect's block (e.g. the file changed on disk, or an interactive session)
    try:
        src_lines, start = inspect.getsourcelines(func)
    except (OSError, TypeError):
        raise UnsupportedSyntax(
            f"cannot read the source of {funcname!r} (defined in {filename}); hpgraph compiles "
            "callbacks from their source, so define them in a file or notebook cell, not "
            "with exec() or at an interactive prompt without history") from None
    text = "".join(src_lines)
    ded = textwrap.dedent(text)
    indent = len(src_lines[0]) - len(src_lines[0].lstrip()) - \
        (len(ded.splitlines(True)[0]) - len(ded.splitlines(True)[0].lstrip()))
    node = None
    try:
        tree = ast.parse(ded)
        node = _find_node(tree, func, line_offset=start - 1)
    except SyntaxError:
        tree = None
    if node == "ambiguous":
        raise _ambiguous(filename, code)
    if node is None and funcname == "<lambda>":
        node, indent = _lambda_from_fragment(src_lines[0], func)
        if node is not None:
            return SourceInfo(filename, funcname, [src_lines[0]], node, 0, indent)
    if node is None:
        raise UnsupportedSyntax(f"cannot locate the source of {funcname!r} in {filename}; "
                                "define it with a plain 'def'")
    full = linecache.getlines(filename) or src_lines
    if full is src_lines:
        return SourceInfo(filename, funcname, src_lines, node, 0, indent)
    return SourceInfo(filename, funcname, full, node, start - 1, indent)


def _lambda_from_fragment(line: str, func):
    """Parse a lambda out of one line of a larger statement (longest parseable tail)."""
    names = list(func.__code__.co_varnames[: func.__code__.co_argcount])
    idx = line.find("lambda")
    found = None
    while idx != -1:
        for end in range(len(line), idx, -1):
            try:
                expr = ast.parse(line[idx:end].strip(), mode="eval").body
            except SyntaxError:
                continue
            if isinstance(expr, ast.Lambda) and _arg_names(expr) == names:
                if found is not None:
                    return None, 0
                found = (expr, idx)
            break
        idx = line.find("lambda", idx + 1)
    if found is None:
        return None, 0
    return found


def _ambiguous(filename, code):
    return UnsupportedSyntax(
        f"several lambdas with parameters {code.co_varnames[:code.co_argcount]} start on line "
        f"{code.co_firstlineno} of {filename}; hpgraph cannot tell which one to compile. "
        "Define the callback with 'def' (or put the lambdas on separate lines).")
