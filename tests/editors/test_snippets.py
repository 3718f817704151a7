"""Reading the editor snippets out of docs/getting-started.md, and pointing them at a test's
server and model: this part needs no editor installed."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.editors import emacs, neovim, scenario
from tests.editors.editor_process import APT_LINE
from tests.editors.neovim import NeovimSnippet
from tests.editors.snippets import SnippetChanged, fenced_block, quoted, replace_once

BASE_URL = "http://127.0.0.1:40123"

DOC = """# Title

## Editors

### First

```lua
first()
```

```elisp
(first)
```

### Second

```sh
# not a heading: a shell comment inside a fence
echo second
```

```lua
second()
```

### Third
"""


@pytest.fixture
def doc(tmp_path: Path) -> Path:
    path = tmp_path / "doc.md"
    path.write_text(DOC, encoding="utf-8")
    return path


def test_a_block_is_found_by_heading_and_language(doc: Path) -> None:
    assert fenced_block("First", "lua", doc) == "first()\n"
    assert fenced_block("First", "elisp", doc) == "(first)\n"
    assert fenced_block("Second", "lua", doc) == "second()\n"


def test_a_block_is_never_taken_from_the_next_section(doc: Path) -> None:
    with pytest.raises(SnippetChanged, match="'Third'"):
        fenced_block("Third", "lua", doc)
    with pytest.raises(SnippetChanged, match="elisp"):
        fenced_block("Second", "elisp", doc)


def test_a_missing_heading_is_reported(doc: Path) -> None:
    with pytest.raises(SnippetChanged, match="'Fourth'"):
        fenced_block("Fourth", "lua", doc)


def test_a_substitution_needs_exactly_one_match() -> None:
    assert replace_once('cmd = { "a" }', r'"a"', '"b"') == 'cmd = { "b" }'
    with pytest.raises(SnippetChanged, match="found 0"):
        replace_once('cmd = { "a" }', r'"c"', '"b"')
    with pytest.raises(SnippetChanged, match="found 2"):
        replace_once('{ "a", "a" }', r'"a"', '"b"')


def test_quoted_strings_are_read_back_by_lua_and_elisp() -> None:
    assert quoted('/tmp/a "b"\\c') == '"/tmp/a \\"b\\"\\\\c"'
    with pytest.raises(ValueError, match="ASCII"):
        quoted("/tmp/café")


@pytest.mark.parametrize("snippet", neovim.SNIPPETS, ids=lambda s: s.heading)
def test_each_neovim_snippet_is_pointed_at_the_test_server(snippet: NeovimSnippet) -> None:
    text = neovim.configured_snippet(snippet.heading, BASE_URL)
    assert f'cmd = {{ "{scenario.server_executable()}" }}' in text
    assert f'baseUrl = "{BASE_URL}"' in text
    assert '"rune-lsp"' not in text


def test_the_emacs_snippet_is_pointed_at_the_test_server() -> None:
    text = emacs.configured_snippet(BASE_URL)
    assert f'("{scenario.server_executable()}" :initializationOptions' in text
    assert f':baseUrl "{BASE_URL}"' in text
    assert '"rune-lsp"' not in text


NEOVIMS = neovim.installed()
LUA_BLOCKS = [s.heading for s in neovim.SNIPPETS] + [neovim.IN_BUFFER_HEADING]


@pytest.mark.skipif(not NEOVIMS, reason=f"nvim is not installed ({APT_LINE})")
@pytest.mark.parametrize("heading", LUA_BLOCKS)
def test_each_neovim_snippet_compiles(heading: str, tmp_path: Path) -> None:
    """Even where no Neovim here is the one a snippet is for, its Lua must at least compile."""
    nvim = NEOVIMS[-1]
    source = tmp_path / "snippet.lua"
    source.write_text(fenced_block(heading, "lua"), encoding="utf-8")
    check = f"lua local _, err = loadfile('{source}') "
    check += "if err then io.stderr:write(err) vim.cmd('cq') end"
    compiled = subprocess.run(
        [nvim.path, "--headless", "--clean", "-c", check, "-c", "qall!"],
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
        env={**os.environ, **nvim.environ()},
    )
    assert compiled.returncode == 0, compiled.stdout + compiled.stderr
