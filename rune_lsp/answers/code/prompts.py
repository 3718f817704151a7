"""What the code-block reader tells the model when it takes no block: the reason, then what to
send instead. Each reason is a sentence fragment naming what the model can see (a definition,
a file, line numbers); `refusal` makes the message."""

from __future__ import annotations

from pathlib import PurePath

_SEND_DEFINITION = (
    "Send the complete corrected function or class, from its def or class line (with its "
    "decorators) to its last line, in one code block with no placeholder for unchanged code, "
    "or call edit_file with old_text copied exactly from the file."
)
_SEND_LINES = (
    "Send the changed lines in one code block, starting and ending with a line that occurs "
    "once in the file, or the whole corrected file, or call edit_file with old_text copied "
    "exactly from the file."
)


def refusal(reason: str, path: str) -> str:
    """The message for a block not taken because of `reason`, for an edit of `path`."""
    python = PurePath(path).suffix.lower() in (".py", ".pyi")
    send = _SEND_DEFINITION if python else _SEND_LINES
    return f"Your code block was not applied: {reason}. {send}"


def not_defined(label: str, shown: str) -> str:
    return f"{label} is not defined in {shown}"


def defined_more_than_once(label: str, shown: str, lines: list[int]) -> str:
    where = ", ".join(str(line) for line in lines)
    return (
        f"{label} occurs {len(lines)} times in {shown} (lines {where}); show it inside what "
        "holds it (its class, or the function, `if` or `try` it is in)"
    )


def defined_twice_in_block(label: str) -> str:
    return f"the block defines {label} twice, and the first is not the code as it is now"


def placeholder(label: str) -> str:
    return f"{label} leaves code out with a placeholder (a `...` or `# ... unchanged` line)"


def placeholder_lines(shown: str) -> str:
    return (
        f"it leaves code out with a placeholder comment (`// ...`, `# rest of the code`), so "
        f"which lines of {shown} it keeps is not known"
    )


def leaves_out(lo: int, hi: int, shown: str) -> str:
    return (
        f"as the whole of {shown} it leaves out lines {lo}-{hi}; show every line the file "
        "keeps, or only the lines you change"
    )


def cut_short(label: str) -> str:
    return f"{label} stops before its end"


def loose_indentation(label: str) -> str:
    return (
        f"{label} is indented differently from the file and has a line no deeper than its "
        "def line, so where that line goes is not known"
    )


def class_changed_outside_methods(label: str) -> str:
    return f"{label} is shown with methods left out and changes lines outside its methods"


def would_not_parse(shown: str, error: SyntaxError) -> str:
    return f"with it, {shown} would not parse ({error.msg}, line {error.lineno})"


def function_for_method(label: str, first: str | None, shown: str, line: int) -> str:
    takes = f"takes `{first}`" if first else "takes no parameter"
    return (
        f"{label} {takes}, but the one of that name in {shown} is a method (line {line}); "
        "to change the method, show it inside its class"
    )


def module_function_for_nested(label: str, shown: str, where: str) -> str:
    return (
        f"the block's other code calls {label} by its name, as a module-level function, but the "
        f"one of that name in {shown} is {where}; give a new function a name of its own, or "
        "show the definition it is in, whole"
    )


def method_at_top(name: str, first: str, shown: str) -> str:
    return (
        f"{name} takes `{first}`: it is a method, yet it would stand outside any class in {shown}; "
        "show it inside its class, in the file that defines that class"
    )


def read_before_defined(name: str, shown: str) -> str:
    return (
        f"placed in {shown}, it would read `{name}` on import before the line that defines "
        f"`{name}` (a NameError)"
    )


def not_defined_anywhere(name: str, scope: str, shown: str, left_out: str | None) -> str:
    reader = f"`{scope}`" if scope else "its module code"
    if left_out is not None:
        # Told only "define it", Qwen2.5-Coder 1.5B sent the same block again (22_median).
        return (
            f"placed in {shown}, {reader} would read `{name}`, which it no longer defines (a "
            f"NameError when it runs): your block leaves out the line `{left_out}`"
        )
    return (
        f"placed in {shown}, {reader} would read `{name}`, which {shown} defines nowhere (a "
        "NameError when it runs): define it, or use a name the file has"
    )


def one_line(shown: str) -> str:
    return f"a one-line block cannot be placed in {shown}"


def anchors_repeat(shown: str) -> str:
    return f"its first or last line occurs more than once in {shown}"


def anchors_missing(shown: str) -> str:
    return f"its first and last lines were not found in {shown}"


def comments_only(shown: str) -> str:
    return f"it holds only comments, no code to place in {shown}"


def anchors_unlike(lo: int, hi: int, shown: str) -> str:
    return f"it differs too much from lines {lo}-{hi} of {shown}"


def anchors_shifted(shown: str) -> str:
    return f"its lines are indented differently from the same lines in {shown}"


def numbers_disagree(shown: str) -> str:
    return f"its copied line numbers do not match the lines they number in {shown}"


def partly_taken_back(shown: str) -> str:
    return (
        f"a later code block shows part of what an earlier one changes in {shown} as it is now, "
        "so which code you mean is not clear; send the corrected code once, without the old"
    )


def blocks_disagree(shown: str) -> str:
    return f"two code blocks change the same lines of {shown} differently"


def unreadable(named: str) -> str:
    return f"it is code of {named}, which could not be read"


def named_twice(named: str, candidates: list[str]) -> str:
    return f"it names {named}, and both {' and '.join(candidates)} exist"
