"""One op of the op table as a function of its own, for kernels compiled one op at a time.

The scalar bodies of :mod:`.opcodes` are chains, ``if op == COPY: ... elif op == NEG: ...``.
Wherever Numba compiles a chain it types and lowers every branch, even when the op code is a
compile-time constant: its dead-branch pruning compares arguments with ``None`` only. For
``unary_into`` that is 37 branches (``erfinv``'s Halley loop among them) for every op and
dtype a kernel is compiled for: about a second each, where the one branch it runs takes a
tenth of that.

:func:`branch` gives that one branch as a function of its own: the chain's source, parsed,
with the ``if``/``elif`` chain replaced by the statements of the branch that the op code
takes. Each test is evaluated as written (``op == FLOOR or op == CEIL``, in the chain's own
module), so the branch taken is the one plain Python would take. The function keeps the
chain's parameters (a branch may test ``op`` again, as ``FLOOR``/``CEIL`` do), its module
namespace and its line numbers, so a traceback points into ``opcodes.py``.
"""

from __future__ import annotations

import ast
import functools
import inspect
import textwrap
from typing import Any, Callable


@functools.lru_cache(maxsize=None)
def branch(chain: Callable[..., Any], code: int) -> Callable[..., Any]:
    """The function ``chain`` reduced to the branch that op code ``code`` takes."""
    filename = inspect.getsourcefile(chain) or "<unknown>"
    tree = ast.parse(textwrap.dedent(inspect.getsource(chain)))
    ast.increment_lineno(tree, chain.__code__.co_firstlineno - 1)
    function = tree.body[0]
    if not isinstance(function, ast.FunctionDef):
        raise TypeError(f"{chain.__qualname__} is not a plain function")
    op_name = function.args.args[0].arg
    statements = [s for s in function.body if not _is_docstring(s)]
    if len(statements) != 1 or not isinstance(statements[0], ast.If):
        raise ValueError(f"{chain.__qualname__} is not a single if/elif chain on {op_name!r}")
    function.body = _taken(statements[0], op_name, code, chain.__globals__, filename)
    function.name = f"{chain.__name__}_{code}"
    function.decorator_list = []
    namespace: dict[str, Any] = {}
    exec(compile(tree, filename, "exec"), chain.__globals__, namespace)  # noqa: S102 - our own source
    specialised = namespace[function.name]
    specialised.__doc__ = f"{chain.__qualname__} for op code {code} alone."
    return specialised


def _taken(chain: ast.If, op_name: str, code: int, namespace: dict[str, Any], filename: str) -> list[ast.stmt]:
    """The statements of the branch of ``chain`` taken when ``op_name`` is ``code``."""
    node = chain
    while True:
        test = compile(ast.Expression(node.test), filename, "eval")
        if eval(test, namespace, {op_name: code}):  # noqa: S307 - a test of our own chain
            return node.body
        rest = node.orelse
        # an ``elif`` is an ``if`` alone in ``orelse`` at the chain's column; an ``if`` inside
        # an ``else:`` block is indented (the syntax tree has no other difference)
        if len(rest) == 1 and isinstance(rest[0], ast.If) and rest[0].col_offset == chain.col_offset:
            node = rest[0]
        else:
            return rest or [ast.Pass()]


def _is_docstring(statement: ast.stmt) -> bool:
    return isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant)
