from __future__ import annotations

from pathlib import Path

import pytest

from rune_lsp.tools.errors import AccessDenied, ToolDenied
from rune_lsp.tools.sandbox import Sandbox, validate_read_path, validate_write_path


def test_contract_message_shape_for_a_path_outside(ws: Path) -> None:
    sandbox = Sandbox(read_roots=(ws,), write_roots=(ws,))
    with pytest.raises(AccessDenied) as caught:
        validate_write_path("/etc/nope.txt", sandbox, base=ws)
    assert str(caught.value) == (
        f"Access denied: /etc/nope.txt is outside allowed write directories: ['{ws}']. "
        "Write inside one of those directories instead."
    )
    assert isinstance(caught.value, ToolDenied)


def test_git_message_names_the_reason_and_the_allowed_dirs(ws: Path) -> None:
    sandbox = Sandbox(read_roots=(ws,), write_roots=(ws,))
    with pytest.raises(AccessDenied) as caught:
        validate_write_path(".git/config", sandbox, base=ws)
    assert str(caught.value) == (
        f"Access denied: {ws}/.git/config is inside .git/, which is never writable. "
        f"Allowed write directories: ['{ws}']. Write inside one of those directories instead."
    )


def test_relative_paths_resolve_against_the_base(ws: Path) -> None:
    (ws / "src").mkdir()
    sandbox = Sandbox(read_roots=(ws,), write_roots=(ws,))
    assert validate_write_path("src/new.py", sandbox, base=ws) == ws / "src" / "new.py"
    assert validate_write_path("./src/../a.txt", sandbox, base=ws) == ws / "a.txt"
    assert validate_read_path("src", sandbox, base=ws / "src") == ws / "src" / "src"


def test_symlink_inside_the_workspace_resolves_to_its_target(ws: Path) -> None:
    (ws / "real").mkdir()
    (ws / "alias").symlink_to(ws / "real")
    sandbox = Sandbox(read_roots=(ws,), write_roots=(ws,))
    assert validate_write_path("alias/f.txt", sandbox, base=ws) == ws / "real" / "f.txt"


def test_symlink_escape_names_where_it_resolves(ws: Path, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (ws / "link").symlink_to(outside)
    sandbox = Sandbox(read_roots=(ws,), write_roots=(ws,))
    with pytest.raises(AccessDenied) as caught:
        validate_write_path("link/x", sandbox, base=ws)
    assert f"{ws}/link/x (which resolves to {outside}/x) is outside" in str(caught.value)


def test_write_roots_can_be_narrower_than_read_roots(ws: Path) -> None:
    (ws / "src").mkdir()
    sandbox = Sandbox.for_workspace([ws], write_dirs=["src"])
    assert sandbox.write_roots == (ws / "src",)
    assert validate_read_path("README.md", sandbox, base=ws) == ws / "README.md"
    with pytest.raises(AccessDenied) as caught:
        validate_write_path("README.md", sandbox, base=ws)
    assert f"['{ws}/src']" in str(caught.value)


def test_write_roots_are_readable_and_extra_read_roots_are_read_only(
    ws: Path, tmp_path: Path
) -> None:
    docs = tmp_path / "docs"
    out = tmp_path / "out"
    docs.mkdir()
    out.mkdir()
    sandbox = Sandbox.for_workspace([ws], write_dirs=[out], extra_read_dirs=[docs])
    assert validate_read_path(str(out / "a"), sandbox, base=ws) == out / "a"
    assert validate_read_path(str(docs / "a"), sandbox, base=ws) == docs / "a"
    with pytest.raises(AccessDenied):
        validate_write_path(str(docs / "a"), sandbox, base=ws)


def test_read_denial_names_the_read_dirs(ws: Path) -> None:
    sandbox = Sandbox(read_roots=(ws,), write_roots=(ws,))
    with pytest.raises(AccessDenied) as caught:
        validate_read_path("/etc/hostname", sandbox, base=ws)
    assert str(caught.value).endswith(
        f"is outside allowed read directories: ['{ws}']. Read inside one of those directories "
        "instead."
    )


def test_git_internals_are_not_readable_either(ws: Path) -> None:
    (ws / ".git").mkdir()
    sandbox = Sandbox(read_roots=(ws,), write_roots=(ws,))
    with pytest.raises(AccessDenied, match="never readable"):
        validate_read_path(".git/config", sandbox, base=ws)


def test_roots_must_be_absolute() -> None:
    with pytest.raises(ValueError, match="absolute"):
        Sandbox(read_roots=(Path("relative"),), write_roots=())


def test_roots_are_resolved_and_deduplicated(ws: Path) -> None:
    (ws.parent / "alias").symlink_to(ws)
    sandbox = Sandbox(read_roots=(ws.parent / "alias", ws), write_roots=(ws / "." / "",))
    assert sandbox.read_roots == (ws,)
    assert sandbox.write_roots == (ws,)


def test_local_file_uris_are_read_as_paths(ws: Path) -> None:
    sandbox = Sandbox(read_roots=(ws,), write_roots=(ws,))
    uri = (ws / "with space.py").as_uri()
    assert validate_write_path(uri, sandbox, base=ws) == ws / "with space.py"


def test_empty_path_message(ws: Path) -> None:
    sandbox = Sandbox(read_roots=(ws,), write_roots=(ws,))
    with pytest.raises(AccessDenied, match=r"^Access denied: the path is empty\. Allowed write"):
        validate_write_path("", sandbox, base=ws)


def test_a_home_secret_dir_that_becomes_a_link_later_is_still_blocked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home, ws = tmp_path / "home", tmp_path / "ws"
    (ws / "keys").mkdir(parents=True)
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    sandbox = Sandbox.for_workspace([ws])
    assert validate_read_path("keys/id_rsa", sandbox, base=ws) == ws / "keys" / "id_rsa"
    # After the first check, ~/.ssh turns into a link to a directory inside the workspace.
    (home / ".ssh").symlink_to(ws / "keys")
    with pytest.raises(AccessDenied, match=r"\.ssh|never readable"):
        validate_read_path("keys/id_rsa", sandbox, base=ws)
