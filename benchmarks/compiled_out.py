"""A build of the core with the hooks compiled out, to price the ``if hooks.active:`` checks.

``hooks_compiled_out()`` re-compiles every function and method of the hot modules whose body
tests ``hooks.active``, with those ``if`` statements removed (their ``else`` branch kept), and
swaps them in for the duration of a ``with`` block. Callers reach the dispatcher through module
attributes (``dispatch.call(...)``), so the swapped functions are the ones that run. Nothing
else changes: same globals, defaults and closures, so the difference measured is the checks.
"""
from __future__ import annotations

import ast
import contextlib
import importlib
import inspect
import textwrap
import types

HOT_MODULES = ("inplace_lab.ops.dispatch", "inplace_lab.autograd.engine",
               "inplace_lab.autograd.saved", "inplace_lab.ops.methods")


def _is_hooks_active(test) -> bool:
    return (isinstance(test, ast.Attribute) and test.attr == "active"
            and isinstance(test.value, ast.Name) and test.value.id == "hooks")


class _Strip(ast.NodeTransformer):
    def __init__(self):
        self.changed = 0

    def visit_If(self, node):
        self.generic_visit(node)
        if _is_hooks_active(node.test):
            self.changed += 1
            return node.orelse or None
        return node

    def generic_visit(self, node):
        super().generic_visit(node)
        for name in ("body", "orelse", "finalbody"):
            block = getattr(node, name, None)
            if isinstance(block, list) and name == "body" and not block:
                block.append(ast.Pass())
        return node


def _stripped(fn):
    """``fn`` without its ``if hooks.active:`` blocks, or None when it has none."""
    if not isinstance(fn, types.FunctionType) or fn.__closure__:
        return None
    try:
        src = textwrap.dedent(inspect.getsource(fn))
    except (OSError, TypeError):
        return None
    if "hooks.active" not in src:
        return None
    tree = ast.parse(src)
    fdef = tree.body[0]
    if not isinstance(fdef, ast.FunctionDef) or fdef.decorator_list:
        return None
    s = _Strip()
    s.visit(fdef)
    if not s.changed:
        return None
    fdef.returns = None
    for a in fdef.args.args + fdef.args.kwonlyargs + fdef.args.posonlyargs:
        a.annotation = None
    ast.increment_lineno(tree, fn.__code__.co_firstlineno - 1)
    code = compile(tree, fn.__code__.co_filename, "exec")
    fcode = next(c for c in code.co_consts if isinstance(c, types.CodeType)
                 and c.co_name == fn.__name__)
    if fcode.co_freevars:
        return None
    new = types.FunctionType(fcode, fn.__globals__, fn.__name__, fn.__defaults__)
    new.__kwdefaults__ = fn.__kwdefaults__
    new.__qualname__ = fn.__qualname__
    new.__doc__ = fn.__doc__
    return new


def _targets(modules):
    """(owner, attribute name, original, stripped) for every function with hook checks."""
    out = []
    for modname in modules:
        mod = importlib.import_module(modname)
        owners = [mod] + [v for v in vars(mod).values()
                          if isinstance(v, type) and v.__module__ == modname]
        for owner in owners:
            for k, v in list(vars(owner).items()):
                new = _stripped(v)
                if new is not None:
                    out.append((owner, k, v, new))
    return out


def _lane_methods(swaps):
    """The Tensor methods the dispatcher's lanes made (closures, so not swappable above):
    remade by the stripped ``lane``/``lane_inplace`` factories for the same op."""
    from inplace_lab.tensor import Tensor

    factories = {k: new for owner, k, _, new in swaps
                 if getattr(owner, "__name__", "") == "inplace_lab.ops.dispatch"
                 and k in ("lane", "lane_inplace")}
    out = []
    for cls in (Tensor,) + tuple(Tensor._policy_classes.values()):
        for k, v in list(vars(cls).items()):
            made = getattr(v, "_lane", None)
            if made is not None and made[0] in factories:
                kind, spec, arity = made
                new = factories[kind](spec, arity) if kind == "lane" else factories[kind](spec)
                out.append((cls, k, v, new))
    return out


class CompiledOut:
    """Reusable ``with`` block: the stripped functions are compiled once, entering only swaps
    a dozen attributes (so it can wrap every timed repetition)."""

    def __init__(self, modules=HOT_MODULES):
        self.swaps = _targets(modules)
        self.swaps += _lane_methods(self.swaps)
        self.names = [f"{getattr(o, '__name__', o)}.{k}" for o, k, _, _ in self.swaps]

    def __enter__(self):
        for owner, k, _, new in self.swaps:
            setattr(owner, k, new)
        return self.names

    def __exit__(self, *exc):
        for owner, k, old, _ in self.swaps:
            setattr(owner, k, old)
        return False


@contextlib.contextmanager
def hooks_compiled_out(modules=HOT_MODULES):
    with CompiledOut(modules) as names:
        yield names
