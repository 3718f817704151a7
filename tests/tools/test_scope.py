"""Single-file mode and the always-on hard-blocked set (issue 14, items 1 and 6).

Every test runs against a fake HOME under tmp_path, never the real one.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from rune_lsp.tools.errors import AccessDenied
from rune_lsp.tools.sandbox import Sandbox, validate_read_path, validate_write_path
from rune_lsp.tools.scope import PROJECT_MARKERS, is_project_root, scope_for

SECRETS = {
    ".aws/credentials": "[default]\naws_secret_access_key = AKIASECRET\n",
    ".netrc": "machine example.com password hunter2\n",
    ".config/gh/hosts.yml": "github.com:\n  oauth_token: gho_SECRET\n",
    ".docker/config.json": '{"auths": {"x": {"auth": "c2VjcmV0"}}}\n',
    ".kube/config": "token: kube-secret\n",
    ".ssh/id_rsa": "-----BEGIN OPENSSH PRIVATE KEY-----\n",
}


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = (tmp_path / "home").resolve()
    for relative, text in SECRETS.items():
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(text)
    (root / ".bashrc").write_text("alias ll='ls -l'\n")
    (root / "notes.md").write_text("# notes\n")
    monkeypatch.setenv("HOME", str(root))
    return root


def test_no_workspace_and_no_project_marker_is_single_file_mode(home: Path) -> None:
    scope = scope_for(home / "notes.md", [])

    assert scope.single_file and scope.root == home
    assert validate_read_path("notes.md", scope.sandbox, base=scope.root) == home / "notes.md"
    assert validate_write_path("notes.md", scope.sandbox, base=scope.root) == home / "notes.md"
    for raw in [*SECRETS, ".bashrc", "."]:
        with pytest.raises(AccessDenied, match="Single-file mode: only"):
            validate_read_path(raw, scope.sandbox, base=scope.root)
    with pytest.raises(AccessDenied) as caught:
        validate_write_path("~/.bashrc", scope.sandbox, base=scope.root)
    message = str(caught.value)
    assert message.startswith(f"Access denied: {home}/.bashrc is not the file this run works on")
    assert f"only ['{home}/notes.md'] may be written" in message
    assert "open the project's folder as a workspace" in message


def test_a_folder_with_a_project_marker_is_the_root(home: Path) -> None:
    project = home / "proj"
    (project / "src").mkdir(parents=True)
    (project / "pyproject.toml").write_text("[project]\n")
    (project / "src" / "app.py").write_text("x = 1\n")
    (project / "README.md").write_text("hi\n")

    scope = scope_for(project / "README.md", [])

    assert not scope.single_file and scope.root == project
    assert validate_read_path("src/app.py", scope.sandbox, base=project) == project / "src/app.py"
    with pytest.raises(AccessDenied, match="outside allowed read directories"):
        validate_read_path("../.bashrc", scope.sandbox, base=project)
    # Only the file's own folder counts: a file in src/ (no marker there) is single-file.
    assert scope_for(project / "src" / "app.py", []).single_file


def test_home_and_the_filesystem_root_are_never_project_roots(home: Path) -> None:
    (home / ".git").mkdir()  # a dotfiles repository
    (home / "Makefile").write_text("all:\n")

    assert not is_project_root(home) and not is_project_root(home.parent)
    assert not is_project_root(Path("/"))
    assert scope_for(home / "notes.md", []).single_file


@pytest.mark.parametrize("marker", PROJECT_MARKERS)
def test_each_marker_makes_a_project_root(tmp_path: Path, home: Path, marker: str) -> None:
    folder = tmp_path / "p"
    folder.mkdir()
    (folder / marker).write_text("")
    assert is_project_root(folder)


def test_a_file_outside_the_workspace_folders_joins_them_alone(home: Path, tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    (scratch / "x.py").write_text("x = 1\n")
    (scratch / "y.py").write_text("y = 2\n")

    scope = scope_for(scratch / "x.py", [ws])

    assert scope.root == ws.resolve()
    assert validate_write_path(str(scratch / "x.py"), scope.sandbox, base=ws) == scratch / "x.py"
    with pytest.raises(AccessDenied, match="outside allowed read directories"):
        validate_read_path(str(scratch / "y.py"), scope.sandbox, base=ws)


@pytest.mark.parametrize("relative", sorted(SECRETS))
def test_credential_stores_are_blocked_even_inside_a_workspace(home: Path, relative: str) -> None:
    # A workspace folder that is the home directory itself: the stores stay closed.
    sandbox = Sandbox.for_workspace([home])
    with pytest.raises(AccessDenied, match="never readable by tools"):
        validate_read_path(relative, sandbox, base=home)
    with pytest.raises(AccessDenied, match="never writable"):
        validate_write_path(relative, sandbox, base=home)


def test_env_files_are_readable_only_inside_the_workspace(home: Path, tmp_path: Path) -> None:
    ws, shared = tmp_path / "ws", tmp_path / "shared"
    ws.mkdir()
    shared.mkdir()
    (ws / ".env").write_text("DEBUG=1\n")
    (shared / ".env.production").write_text("TOKEN=secret\n")
    sandbox = Sandbox.for_workspace([ws], write_dirs=[ws, shared])

    assert validate_read_path(".env", sandbox, base=ws) == ws / ".env"
    with pytest.raises(AccessDenied, match=r"is a \.env file outside the workspace folders"):
        validate_read_path(str(shared / ".env.production"), sandbox, base=ws)
    single = scope_for(home / ".env", [])
    with pytest.raises(AccessDenied, match=r"\.env file outside the workspace"):
        validate_read_path(".env", single.sandbox, base=home)


def test_single_file_mode_keeps_absolute_allowed_write_dirs(home: Path, tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    scope = scope_for(home / "notes.md", [], write_dirs=[str(out), "relative/dir"])
    assert scope.sandbox.write_roots == (home / "notes.md", out.resolve())
    assert validate_write_path(str(out / "a.txt"), scope.sandbox, base=home) == out / "a.txt"


# --- hard links (item 6) ------------------------------------------------------------------------


def test_a_hard_link_to_a_home_secret_is_not_readable(home: Path, tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    os.link(home / ".ssh" / "id_rsa", ws / "innocent.txt")
    sandbox = Sandbox.for_workspace([ws])

    with pytest.raises(AccessDenied) as caught:
        validate_read_path("innocent.txt", sandbox, base=ws)
    assert "is a hard link to a file in a credential store" in str(caught.value)


def test_a_hard_link_elsewhere_is_still_readable(home: Path, tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (tmp_path / "cache.py").write_text("x = 1\n")
    os.link(tmp_path / "cache.py", ws / "linked.py")  # as uv or pnpm link into a venv
    sandbox = Sandbox.for_workspace([ws])
    assert validate_read_path("linked.py", sandbox, base=ws) == ws / "linked.py"


def test_a_hard_linked_file_is_never_writable(home: Path, tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (tmp_path / "outside.cfg").write_text("safe = true\n")
    os.link(tmp_path / "outside.cfg", ws / "app.cfg")
    sandbox = Sandbox.for_workspace([ws])

    with pytest.raises(AccessDenied) as caught:
        validate_write_path("app.cfg", sandbox, base=ws)
    message = str(caught.value)
    assert f"Access denied: {ws}/app.cfg is a hard link (one file with 2 names" in message
    assert "Do not edit it" in message and "cp -p" in message  # says what to do instead
    assert validate_read_path("app.cfg", sandbox, base=ws) == ws / "app.cfg"


async def test_run_command_is_refused_in_single_file_mode(home: Path) -> None:
    from rune_lsp.loop.state import ToolOutcome
    from rune_lsp.tools.documents import DiskDocuments
    from rune_lsp.tools.executor import WorkspaceTools
    from rune_lsp.tools.schemas import RunCommandArgs

    scope = scope_for(home / "notes.md", [])
    tools = WorkspaceTools(scope.root, scope.sandbox, DiskDocuments())
    outcome = await tools.prepare(
        "run_command", RunCommandArgs(command="ls ~"), call_id="c", edit_id="e", reason=""
    )
    assert isinstance(outcome, ToolOutcome) and outcome.status == "denied"
    assert "Single-file mode: only" in outcome.content
