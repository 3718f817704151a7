"""Hostile paths against the sandbox: nothing outside the allowed directory is ever accepted.

Every case runs through both choke points (write and read). DENY cases must be refused with a
message that names the allowed directory and the hint; CONTAINED cases (odd names such as
look-alike dots, percent escapes, backslashes) may be accepted, but only inside the workspace.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rune_lsp.tools.errors import AccessDenied
from rune_lsp.tools.sandbox import Sandbox, validate_read_path, validate_write_path

Validator = Callable[..., Path]
VALIDATORS = {"write": validate_write_path, "read": validate_read_path}
HINTS = {
    "write": "Write inside one of those directories instead.",
    "read": "Read inside one of those directories instead.",
}


class Lab:
    def __init__(self, base: Path) -> None:
        self.base = base
        self.ws = base / "ws"
        self.outside = base / "outside"
        self.home = base / "home"
        self.sandbox = Sandbox(read_roots=(self.ws,), write_roots=(self.ws,))


@pytest.fixture(scope="module")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lab]:
    base = tmp_path_factory.mktemp("hostile").resolve()
    lab = Lab(base)
    for directory in (
        lab.ws / "src",
        lab.ws / ".git",
        lab.ws / "sub" / ".git" / "hooks",
        lab.outside,
        lab.home / ".ssh",
        base / "ws-evil",
    ):
        directory.mkdir(parents=True)
    (lab.outside / "secret.txt").write_text("secret")
    (lab.ws / "src" / "app.py").write_text("print(1)\n")
    links = {
        "out_file": lab.outside / "secret.txt",
        "out_dir": lab.outside,
        "chain1": lab.ws / "chain2",
        "chain2": lab.ws / "chain3",
        "chain3": lab.outside,
        "dangling": lab.outside / "not_yet.txt",
        "loop_a": lab.ws / "loop_b",
        "loop_b": lab.ws / "loop_a",
        "gitlink": lab.ws / ".git",
        "rel_escape": Path("../outside"),
        "inner": lab.ws / "src",
    }
    for name, target in links.items():
        (lab.ws / name).symlink_to(target)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HOME", str(lab.home))
        yield lab


DENY, CONTAINED = "deny", "contained"

HOSTILE: list[tuple[str, str]] = [
    ("../../etc/passwd", DENY),
    ("../outside/secret.txt", DENY),
    ("foo/../../x", DENY),
    ("src/../../outside/secret.txt", DENY),
    ("./././../x", DENY),
    ("..", DENY),
    ("/etc/nope.txt", DENY),
    ("/etc/passwd", DENY),
    ("//etc/passwd", DENY),
    ("/proc/self/environ", DENY),
    ("/sys/kernel/notes", DENY),
    ("/var/log/syslog", DENY),
    ("~", DENY),
    ("~/", DENY),
    ("~/.ssh/id_rsa", DENY),
    ("~/.gnupg/pubring.kbx", DENY),
    ("~root/.ssh/authorized_keys", DENY),
    ("out_file", DENY),
    ("out_dir/secret.txt", DENY),
    ("out_dir/new.txt", DENY),
    ("chain1/secret.txt", DENY),
    ("chain1/brand_new/x.txt", DENY),
    ("dangling", DENY),
    ("rel_escape/secret.txt", DENY),
    ("loop_a", DENY),
    ("loop_a/x", DENY),
    (".git/config", DENY),
    (".git", DENY),
    ("sub/.git/hooks/pre-commit", DENY),
    ("gitlink/config", DENY),
    (".GIT/config", DENY),
    (".git./config", DENY),
    (".git /hooks/x", DENY),
    ("src/../.git/HEAD", DENY),
    ("a\x00b", DENY),
    ("src/app.py\x00.txt", DENY),
    ("", DENY),
    ("   ", DENY),
    ("a" * 256, DENY),
    ("a/" * 2100, DENY),
    ("\ud800", DENY),
    ("file:///etc/passwd", DENY),
    ("file://localhost/etc/passwd", DENY),
    ("file://evil.example/ws/x", DENY),
    ("FILE:///etc/shadow", DENY),
    ("../../etc/passwd ", DENY),
    # Look-alikes and encodings: odd names inside the workspace, never a way out.
    ("%2e%2e/%2e%2e/etc/passwd", CONTAINED),
    ("..%2f..%2fetc%2fpasswd", CONTAINED),
    ("..\\..\\etc\\passwd", CONTAINED),
    ("\uff0e\uff0e\uff0f\uff0e\uff0e\uff0fetc\uff0fpasswd", CONTAINED),
    ("\u2025/etc/passwd", CONTAINED),
    ("\u2024\u2024/\u2024\u2024/etc", CONTAINED),
    ("..\u2215..\u2215etc", CONTAINED),
    ("src/.. /x", CONTAINED),
    (".../x", CONTAINED),
    ("out_dir/../ws/src/app.py", CONTAINED),
    ("inner/app.py", CONTAINED),
    ("src/app.py.", CONTAINED),
]


def _absolute_cases(lab: Lab) -> list[tuple[str, str]]:
    return [
        (str(lab.ws) + "/../outside/secret.txt", DENY),
        (str(lab.ws) + "-evil/x", DENY),
        (str(lab.outside / "secret.txt"), DENY),
        (lab.ws.as_uri() + "/../outside/secret.txt", DENY),
        (str(lab.ws / "src" / "new.py"), CONTAINED),
    ]


def _assert_denial_message(message: str, lab: Lab, access: str) -> None:
    assert message.startswith("Access denied: ")
    assert repr([str(lab.ws)]) in message
    assert message.endswith(HINTS[access])


def _assert_contained(result: Path, lab: Lab) -> None:
    assert result.is_absolute()
    assert result.is_relative_to(lab.ws)
    assert Path(os.path.realpath(result)).is_relative_to(lab.ws)
    assert ".git" not in [part.casefold() for part in result.parts]


def test_the_table_is_large_enough() -> None:
    assert len(HOSTILE) >= 30
    assert sum(1 for _, kind in HOSTILE if kind == DENY) >= 30


@pytest.mark.parametrize("access", ["write", "read"])
@pytest.mark.parametrize(("raw", "expect"), HOSTILE, ids=[repr(r)[:40] for r, _ in HOSTILE])
def test_hostile_path(lab: Lab, access: str, raw: str, expect: str) -> None:
    _check(lab, access, raw, expect)


@pytest.mark.parametrize("access", ["write", "read"])
def test_hostile_absolute_paths(lab: Lab, access: str) -> None:
    for raw, expect in _absolute_cases(lab):
        _check(lab, access, raw, expect)


def _check(lab: Lab, access: str, raw: str, expect: str) -> None:
    validate = VALIDATORS[access]
    if expect == DENY:
        with pytest.raises(AccessDenied) as caught:
            validate(raw, lab.sandbox, base=lab.ws)
        _assert_denial_message(str(caught.value), lab, access)
        return
    try:
        result = validate(raw, lab.sandbox, base=lab.ws)
    except AccessDenied as exc:
        _assert_denial_message(str(exc), lab, access)
    else:
        _assert_contained(result, lab)


def test_hard_blocked_even_when_configured(lab: Lab) -> None:
    everything = Sandbox(read_roots=(Path("/"),), write_roots=(Path("/"),))
    for raw in ("/etc/hosts", "/proc/self/environ", "/sys/x", "/var/tmp/x", "~/.ssh/config"):
        with pytest.raises(AccessDenied) as caught:
            validate_write_path(raw, everything, base=lab.ws)
        assert "which is never writable" in str(caught.value)
        assert "Allowed write directories: ['/']" in str(caught.value)
    # Outside the blocked roots a root-wide sandbox does allow writing.
    assert validate_write_path(str(lab.ws / "x"), everything, base=lab.ws) == lab.ws / "x"


SEGMENTS = st.one_of(
    st.sampled_from(
        [
            "..",
            ".",
            "",
            "src",
            "app.py",
            ".git",
            ".GIT",
            ".git.",
            "sub",
            "hooks",
            "out_dir",
            "out_file",
            "chain1",
            "dangling",
            "loop_a",
            "gitlink",
            "rel_escape",
            "inner",
            "~",
            "~root",
            "\uff0e\uff0e",
            "\uff0f",
            "\u2025",
            "%2e%2e",
            "..\\",
            " ",
            "x.",
            "é",
            "outside",
            "ws",
            "etc",
            "\x00",
        ]
    ),
    st.text(min_size=1, max_size=6),
)
PREFIXES = st.sampled_from(["", "/", "~/", "~", "./", "../", "file://"])


@settings(max_examples=400, deadline=None)
@given(prefix=PREFIXES, segments=st.lists(SEGMENTS, min_size=0, max_size=8))
def test_generated_paths_never_escape(lab: Lab, prefix: str, segments: list[str]) -> None:
    raw = prefix + "/".join(segments)
    for access, validate in VALIDATORS.items():
        try:
            result = validate(raw, lab.sandbox, base=lab.ws)
        except AccessDenied as exc:
            _assert_denial_message(str(exc), lab, access)
        else:
            _assert_contained(result, lab)


@settings(max_examples=200, deadline=None)
@given(segments=st.lists(SEGMENTS, min_size=1, max_size=6))
def test_generated_absolute_paths_never_escape(lab: Lab, segments: list[str]) -> None:
    raw = str(lab.ws) + "/" + "/".join(segments)
    try:
        result = validate_write_path(raw, lab.sandbox, base=lab.ws)
    except AccessDenied as exc:
        _assert_denial_message(str(exc), lab, "write")
    else:
        _assert_contained(result, lab)
