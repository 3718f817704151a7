"""What a placement may not add to a Python file: the faults that make an exact placement a
diff that cannot run. Each is asked of the result, and of the file only when the result has
it: the file's own faults (a fallback `try: x except NameError`, a name a plugin injects) are
its business, and only one the placement adds refuses the answer, with a reason the model can
act on (`prompts.py`).

In the order asked, cheapest and surest first: a new syntax error (compiled, not only parsed:
`ast.parse` takes an `await` in a plain `def`, which no import would), a method out of its
class, a module name read on import before the line binding it (`import_time.py`), a name
read and bound nowhere (`undefined.py`). A stub (`.pyi`) never runs: its names may come in
any order, and only the first two are asked of it.
"""

from __future__ import annotations

from pathlib import PurePosixPath

from rune_lsp.answers.code import prompts
from rune_lsp.answers.code.import_time import read_before_bound
from rune_lsp.answers.code.python_source import (
    METHOD_FIRST_PARAMETERS,
    Outline,
    parse_error,
)
from rune_lsp.answers.code.spans import FileText, Replace
from rune_lsp.answers.code.undefined import left_out_line, pruned, undefined_names


def added_fault(file: FileText, merged: list[Replace], after: FileText, path: str) -> str | None:
    """Why `after` (`file` with `merged` made, `path` its name) may not be proposed: a fault
    the file did not have; None when it adds none."""
    shown = PurePosixPath(path).name
    broken = _new_syntax_error(file, after, merged)
    if broken is not None:
        return prompts.would_not_parse(shown, broken)
    later = after.outline
    stray = _new_method_at_top(file.outline, later)
    if stray is not None:
        return prompts.method_at_top(*stray, shown)
    if later is None or PurePosixPath(path).suffix.lower() == ".pyi":
        return None
    early = _new_read_before_bound(file, later)
    if early is not None:
        return prompts.read_before_defined(early, shown)
    unbound = _new_undefined(file.text, after.text, later, path)
    if unbound is None:
        return None
    name, scope = unbound
    now = file.outline
    line = None if now is None else left_out_line(now.module, file.lines, scope, name, after.text)
    return prompts.not_defined_anywhere(name, scope, shown, line)


def _new_method_at_top(now: Outline | None, later: Outline | None) -> tuple[str, str] | None:
    """A function taking `self` or `cls` that the result (`later`) has at its top level and the
    file (`now`) had not: a method shown out of its class, with that parameter. Qwen2.5-Coder
    1.5B sent click's `Context.lookup_default` below the whole of `_utils.py` (bench/effect
    release_multi 19_click, 6 December 2026); the whole file read, it was appended there as a
    function, a diff that looked like a fix and could never run."""
    if now is None or later is None:
        return None
    had = {unit.name for unit in now.definitions}
    for unit in later.definitions:
        if unit.first_parameter in METHOD_FIRST_PARAMETERS and unit.name not in had:
            return unit.name, unit.first_parameter
    return None


def _new_read_before_bound(file: FileText, later: Outline) -> str | None:
    """A name the result (`later`) reads on import before the line that binds it, where the
    file did not: an exact placement that raises NameError (a new constant above the constant
    it reads, or below the function whose default value reads it). The file's own such reads
    (a fallback `try: x except NameError: x = ...`) are its business, and a file that does not
    parse has none to compare with."""
    early = read_before_bound(later.module)
    if not early or file.outline is None:
        return None  # the file is asked only when the result has any: most have none
    had = read_before_bound(file.outline.module)
    return next((name for name in early if name not in had), None)


def _new_undefined(before: str, after: str, later: Outline, path: str) -> tuple[str, str] | None:
    """A name the result (parsed as `later`) reads and binds nowhere (and the definition
    reading it), where the file did not read it so: a fix that dropped the line defining it
    raised NameError on its first call (`answers/code/undefined.py`). The file's own such
    names are its business; the syntax tree is walked only for names the result adds."""
    unbound = undefined_names(after, path)
    if not unbound:
        return None  # the file is asked only when the result has any: most have none
    had = undefined_names(before, path)
    fresh = pruned(later.module, {n: r for n, r in unbound.items() if n not in had})
    return next(iter(fresh.items()), None)


def _new_syntax_error(
    before: FileText, after: FileText, replaces: list[Replace]
) -> SyntaxError | None:
    """The syntax error `after` has that `before` did not: any, when `before` parsed; else one
    other than `before`'s first error, carried past the replaced lines unchanged."""
    error = parse_error("\n".join(after.lines))
    if error is None:
        return None
    had = parse_error("\n".join(before.lines))
    if had is None or had.lineno is None or error.lineno is None:
        return error
    line, moved = had.lineno - 1, 0
    for replace in replaces:
        if replace.lo <= line <= replace.hi:
            return error  # the lines it was in were replaced: this one is the block's
        if replace.hi < line:
            moved += replace.growth
    return None if (error.msg, error.lineno) == (had.msg, line + moved + 1) else error
