"""The attributes a failing test names, and the special methods its operators and builtins
call: which methods of a long class to show beside it (runner/failing_tests.py shows a class
longer than `WHOLE_CLASS_LINES` as its head and these methods).

The names follow the data model (https://docs.python.org/3/reference/datamodel.html#special-method-names):
`cache["a"] = 1` calls `__setitem__`, `x in y` calls `__contains__`, `len(x)` `__len__`.
"""

from __future__ import annotations

import ast

_SUBSCRIPT: dict[type[ast.expr_context], str] = {
    ast.Load: "__getitem__",
    ast.Store: "__setitem__",
    ast.Del: "__delitem__",
}
_OPERATORS: dict[type[ast.AST], str] = {
    ast.In: "__contains__",
    ast.NotIn: "__contains__",
    ast.Eq: "__eq__",
    ast.NotEq: "__ne__",
    ast.Lt: "__lt__",
    ast.LtE: "__le__",
    ast.Gt: "__gt__",
    ast.GtE: "__ge__",
    ast.Add: "__add__",
    ast.Sub: "__sub__",
    ast.Mult: "__mul__",
    ast.Div: "__truediv__",
    ast.Mod: "__mod__",
    ast.BitOr: "__or__",
    ast.BitAnd: "__and__",
}
_BUILTINS: dict[str, tuple[str, ...]] = {
    "len": ("__len__",),
    "iter": ("__iter__",),
    "list": ("__iter__",),
    "tuple": ("__iter__",),
    "sorted": ("__iter__",),
    "set": ("__iter__",),
    "dict": ("__iter__",),
    "repr": ("__repr__",),
    "str": ("__str__", "__repr__"),
    "hash": ("__hash__",),
    "bool": ("__bool__", "__len__"),
    "copy": ("__copy__",),
    "deepcopy": ("__deepcopy__",),
}


def attribute_names(node: ast.AST) -> set[str]:
    """The attributes `node` names, and the special methods its operators call (`cache["a"] =
    1` calls `__setitem__`: tinydb 4.8.2's fix of `LRUCache`)."""
    names = {n.attr for n in ast.walk(node) if isinstance(n, ast.Attribute)}
    for child in ast.walk(node):
        if isinstance(child, ast.Subscript):
            names.add(_SUBSCRIPT[type(child.ctx)])
        elif isinstance(child, ast.Compare):
            names.update(_OPERATORS[type(op)] for op in child.ops if type(op) in _OPERATORS)
        elif isinstance(child, ast.BinOp | ast.AugAssign) and type(child.op) in _OPERATORS:
            names.add(_OPERATORS[type(child.op)])
        elif isinstance(child, ast.Call) and isinstance(child.func, ast.Name | ast.Attribute):
            called = child.func.id if isinstance(child.func, ast.Name) else child.func.attr
            names.update(_BUILTINS.get(called, ()))  # `copy.deepcopy(x)` as `deepcopy(x)`
        elif isinstance(child, ast.For | ast.comprehension):
            names.add("__iter__")
        elif isinstance(child, ast.With):
            names.update(("__enter__", "__exit__"))
    return names
