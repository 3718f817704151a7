"""Random Python files, a true one-line fix in one of their definitions, and the answer a small
model might give for it: the definition whole, shifted, without its decorators or docstring,
inside its whole or partial class, as a fragment, with placeholders, with copied line numbers
(some off by one), the whole file, two blocks, mixed line endings, prose around.

`case(seed)` is deterministic: the same seed gives the same file, fix and answer.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

NAMES = ["add", "scale", "total", "parse", "run", "size", "merge", "clip", "rank", "load"]
METHOD_NAMES = ["run", "size", "area", "value", "reset", "push", "pop", "step"]
CLASS_NAMES = ["Stack", "Shape", "Counter", "Queue", "Grid"]
VARS = ["total", "count", "value", "result", "acc"]


@dataclass
class Definition:
    kind: str
    name: str
    start: int  # first decorator line
    header: int
    end: int  # inclusive
    indent: int
    docstring: tuple[int, int] | None = None
    fixable: list[int] = field(default_factory=list)  # code lines a fix may change
    parent: Definition | None = None
    children: list[Definition] = field(default_factory=list)


@dataclass(frozen=True)
class RandomCase:
    before: str
    after: str
    answer: str
    rendering: str


class _Writer:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.lines: list[str] = []
        self.definitions: list[Definition] = []

    def add(self, line: str, fixable: Definition | None = None) -> int:
        self.lines.append(line)
        if fixable is not None:
            fixable.fixable.append(len(self.lines) - 1)
        return len(self.lines) - 1

    def function(self, name: str, indent: int, parent: Definition | None, method: bool) -> None:
        rng, pad = self.rng, " " * indent
        start = len(self.lines)
        if rng.random() < 0.3:
            self.add(pad + rng.choice(["@property", "@staticmethod", "@cache", "@log(level=2)"]))
        args = "self, a" if method else "a, b"
        if rng.random() < 0.15:
            header = self.add(f"{pad}def {name}(\n".rstrip("\n"))
            self.add(f"{pad}    {args},")
            self.add(f"{pad}):")
        else:
            header = self.add(f"{pad}def {name}({args}):")
        d = Definition("def", name, start, header, header, indent, parent=parent)
        body = pad + "    "
        if rng.random() < 0.4:
            if rng.random() < 0.5:
                d.docstring = (len(self.lines), len(self.lines))
                self.add(f'{body}"""Return the {name} of a."""')
            else:
                first = self.add(f'{body}"""Return the {name}.')
                self.add("")
                self.add(f"{body}Details of {name}.")
                d.docstring = (first, self.add(f'{body}"""'))
        var = rng.choice(VARS)
        self.add(f"{body}{var} = a + {rng.randint(0, 9)}", d)
        for _ in range(rng.randint(1, 4)):
            self.statement(d, body, var)
        d.end = self.add(f"{body}return {var}", d)
        self.definitions.append(d)
        if parent is not None:
            parent.children.append(d)

    def statement(self, d: Definition, body: str, var: str) -> None:
        rng = self.rng
        kind = rng.randrange(7)
        if kind == 0:
            self.add(f"{body}for i in range({rng.randint(1, 9)}):")
            self.add(f"{body}    {var} += i * {rng.randint(1, 5)}", d)
        elif kind == 1:
            self.add(f"{body}if {var} > {rng.randint(0, 99)}:")
            self.add(f"{body}    {var} = {var} - {rng.randint(1, 9)}", d)
        elif kind == 2:  # column-0 text inside a string
            self.add(f'{body}text = """')
            self.add(f"Usage: {d.name} [options]")
            self.add("  -h  help")
            self.add('"""')
            self.add(f"{body}{var} += len(text)", d)
        elif kind == 3:  # a column-0 comment inside the body
            self.add(f"# note on {d.name}")
            self.add(f"{body}{var} *= {rng.randint(2, 5)}", d)
        elif kind == 4:  # a nested function
            self.add(f"{body}def helper(x):")
            self.add(f"{body}    return x + {rng.randint(1, 9)}", d)
            self.add(f"{body}{var} = helper({var})", d)
        elif kind == 5:
            self.add("")
            self.add(f"{body}{var} = {var} * {rng.randint(2, 9)} + 1", d)
        else:
            self.add(f"{body}{var} += {rng.randint(1, 9)}", d)

    def klass(self, name: str) -> None:
        rng = self.rng
        start = len(self.lines)
        if rng.random() < 0.2:
            self.add("@dataclass")
        header = self.add(f"class {name}:")
        d = Definition("class", name, start, header, header, 0)
        if rng.random() < 0.5:
            d.docstring = (len(self.lines), len(self.lines))
            self.add(f'    """A {name.lower()}."""')
        if rng.random() < 0.4:
            self.add(f"    limit = {rng.randint(1, 99)}", d)
        names = rng.sample(METHOD_NAMES, rng.randint(1, 3))
        for index, method in enumerate(names):
            if index or len(self.lines) > header + 1:
                self.add("")
            self.function(method, 4, d, True)
        d.end = len(self.lines) - 1
        self.definitions.append(d)


def _file(rng: random.Random) -> _Writer:
    writer = _Writer(rng)
    if rng.random() < 0.3:
        writer.add('"""A module."""')
        writer.add("")
    if rng.random() < 0.5:
        writer.add("import math")
        writer.add("")
    names = rng.sample(NAMES, 4)
    classes = rng.sample(CLASS_NAMES, 2)
    for index in range(rng.randint(2, 4)):
        if writer.lines:
            writer.add("")
            writer.add("")
        if rng.random() < 0.4:
            writer.klass(classes.pop() if classes else f"Thing{index}")
        else:
            writer.function(names[index], 0, None, False)
    if rng.random() < 0.3:
        writer.add("")
        writer.add("")
        writer.add('if __name__ == "__main__":')
        writer.add("    print(42)")
    return writer


def _fixed(line: str, rng: random.Random) -> str:
    head, _, tail = line.rpartition(" ")
    if tail.isdigit() and rng.random() < 0.6:
        return f"{head} {int(tail) + rng.randint(1, 5)}"
    return line + " + 1"


def _shift(lines: list[str], delta: int) -> list[str]:
    out = []
    for line in lines:
        if not line.strip():
            out.append(line)
        elif delta >= 0:
            out.append(" " * delta + line)
        else:
            width = len(line) - len(line.lstrip(" "))
            out.append(line[min(width, -delta) :])
    return out


def _join(lines: list[str], rng: random.Random) -> tuple[str, list[str]]:
    style = rng.choice(["\n", "\n", "\r\n", "\r", "mixed"])
    ends = [rng.choice(["\n", "\r\n", "\r"]) if style == "mixed" else style for _ in lines]
    for index in reversed(
        range(len(lines) - 1)
    ):  # "\r" then an empty line's "\n" would read as "\r\n"
        if ends[index] == "\r" and not lines[index + 1] and ends[index + 1].startswith("\n"):
            ends[index] = "\n"
    if rng.random() < 0.1:
        ends[-1] = ""
    return "".join(line + end for line, end in zip(lines, ends, strict=True)), ends


def _fence(lines: list[str], rng: random.Random) -> str:
    tag = rng.choice(["python", "python", "", "py"])
    return f"```{tag}\n" + "\n".join(lines) + "\n```"


def case(seed: int) -> RandomCase:
    rng = random.Random(seed)
    writer = _file(rng)
    lines = writer.lines
    choices = [d for d in writer.definitions if d.fixable or d.children]
    target = rng.choice(choices)
    fixable = target.fixable or [i for c in target.children for i in c.fixable]
    at = rng.choice(fixable)
    fixed = list(lines)
    fixed[at] = _fixed(lines[at], rng)
    text, ends = _join(lines, rng)
    after = "".join(line + end for line, end in zip(fixed, ends, strict=True))
    rendering, blocks = _render(rng, writer, target, fixed, at)
    prose = rng.choice(["Here is the corrected code:\n\n", "", "The bug is in the loop.\n"])
    answer = prose + "\n\n".join(_fence(b, rng) for b in blocks)
    if rng.random() < 0.5:
        answer += "\n\nThis change fixes the bug."
    return RandomCase(text, after, answer, rendering)


def _render(
    rng: random.Random, writer: _Writer, d: Definition, fixed: list[str], at: int
) -> tuple[str, list[list[str]]]:
    own = fixed[d.start : d.end + 1]
    kind = rng.choice(
        [
            "exact", "exact", "shifted", "no_decorators", "no_docstring", "class_whole",
            "class_partial", "whole_file", "placeholder_inside", "fragment", "prefix",
            "numbered", "two_blocks", "usage_after",
        ]
    )  # fmt: skip
    parent = d.parent
    if kind == "shifted":
        # Models move a definition as one piece: to column 0, or deeper (a shallower line, a
        # column-0 line of a string, stays where it can).
        return kind, [_shift(own, rng.choice([-d.indent, -d.indent, 2, 4]))]
    if kind == "no_decorators":
        return kind, [_shift(fixed[d.header : d.end + 1], -d.indent * rng.randint(0, 1))]
    if kind == "no_docstring" and d.docstring is not None:
        lo, hi = d.docstring
        return kind, [fixed[d.start : lo] + fixed[hi + 1 : d.end + 1]]
    if kind == "class_whole" and parent is not None:
        return kind, [fixed[parent.start : parent.end + 1]]
    if kind == "class_partial" and parent is not None:
        block = [fixed[parent.header]]
        for child in parent.children:
            if child is d:
                block += fixed[child.start : child.end + 1]
            else:
                style = rng.choice(["    # ... other methods ...", "stub", None])
                if style == "stub":
                    block += [fixed[child.header], "        ..."]
                elif style:
                    block.append(style)
            block.append("")
        return kind, [block]
    if kind == "whole_file":
        return kind, [fixed]
    if kind == "placeholder_inside":
        marker = " " * (d.indent + 4) + rng.choice(["# ... unchanged ...", "# rest of the code"])
        return kind, [[*fixed[d.start : d.header + 1], marker, fixed[at]]]
    if kind == "fragment":
        lo = rng.randint(d.header + 1, at)
        hi = rng.randint(at, d.end)
        return kind, [_shift(fixed[lo : hi + 1], rng.choice([0, 0, -4, 4]))]
    if kind == "prefix":
        block = fixed[d.start : at + 1]
        if rng.random() < 0.5:
            block.append(" " * (d.indent + 4) + "# rest of the code")
        return kind, [block]
    if kind == "numbered":
        lo = rng.choice([d.start, at])
        hi = rng.choice([at, d.end])
        off = rng.choice([0, 0, 1, -1])
        return kind, [[f"{i + 1 + off:>5} | {fixed[i]}" for i in range(lo, hi + 1)]]
    if kind == "two_blocks":
        original = writer.lines[d.start : d.end + 1]
        return kind, [original, own]
    if kind == "usage_after":
        return kind, [own, [f"print({d.name}(1, 2))"]]
    return "exact", [own]
