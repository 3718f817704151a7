"""The sandbox: which paths the tools may read and write.

`validate_write_path` is the one choke point for writes. It runs when an edit is prepared, again
when it is applied after approval (the rules may have changed meanwhile) and on re-validation.
Paths are judged after resolving `~`, `..` and symlinks, so a link inside the workspace that
points outside it is outside.
"""

from __future__ import annotations

import errno
import os
import shlex
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal
from urllib.parse import unquote, urlsplit

from rune_lsp.text_clip import shorten
from rune_lsp.tools.blocked import (
    hard_blocked_roots,
    hard_link_count,
    is_blocked_inode,
    is_env_file,
)
from rune_lsp.tools.errors import AccessDenied

MAX_PATH_BYTES = 4096
MAX_NAME_BYTES = 255

Access = Literal["read", "write"]


def _real(path: Path) -> Path:
    return Path(os.path.realpath(path))


def _unique(paths: Iterable[Path]) -> tuple[Path, ...]:
    return tuple(dict.fromkeys(paths))


def _absolute_root(raw: str | Path) -> Path:
    path = Path(raw).expanduser()
    if not path.is_absolute():
        raise ValueError(f"sandbox directories must be absolute, got {str(raw)!r}")
    return _real(path)


@dataclass(frozen=True)
class Sandbox:
    """Allowed roots, stored absolute and resolved (normalised on construction).

    Whatever may be written may also be read, so the write roots join the read roots.
    `workspace_roots` are the folders `.env*` files may be read in (the read roots unless
    given). `single_file` is set in single-file mode: the editor named no workspace and the
    file's folder is no project root, so that one file is all the tools may touch.
    """

    read_roots: tuple[Path, ...]
    write_roots: tuple[Path, ...]
    workspace_roots: tuple[Path, ...] | None = None
    single_file: Path | None = None

    def __post_init__(self) -> None:
        # Frozen, yet normalised once here so every check compares resolved paths.
        writes = _unique(map(_absolute_root, self.write_roots))
        reads = _unique([*map(_absolute_root, self.read_roots), *writes])
        workspace = reads if self.workspace_roots is None else self.workspace_roots
        object.__setattr__(self, "read_roots", reads)
        object.__setattr__(self, "write_roots", writes)
        object.__setattr__(self, "workspace_roots", _unique(map(_absolute_root, workspace)))
        if self.single_file is not None:
            object.__setattr__(self, "single_file", _absolute_root(self.single_file))

    @classmethod
    def for_workspace(
        cls,
        folders: Sequence[Path],
        *,
        write_dirs: Sequence[str | Path] | None = None,
        extra_read_dirs: Sequence[str | Path] = (),
    ) -> Sandbox:
        """Writes default to the workspace folders; relative entries hang off the first one.

        Reads cover the folders, the write directories and any extra read directories.
        """
        base = _absolute_root(folders[0]) if folders else None

        def anchored(raw: str | Path) -> Path:
            path = Path(raw).expanduser()
            if not path.is_absolute():
                if base is None:
                    raise ValueError(f"relative directory {str(raw)!r} needs a workspace folder")
                path = base / path
            return path

        roots = tuple(anchored(f) for f in folders)
        writes = roots if write_dirs is None else tuple(anchored(d) for d in write_dirs)
        reads = roots + tuple(anchored(d) for d in extra_read_dirs)
        return cls(read_roots=reads, write_roots=writes, workspace_roots=roots)

    @classmethod
    def for_single_file(
        cls, path: Path, *, write_dirs: Sequence[str | Path] | None = None
    ) -> Sandbox:
        """Single-file mode: `path` alone, plus the absolute `allowedWriteDirs` the user named
        (relative ones hang off a workspace folder, and there is none)."""
        extra = [Path(d).expanduser() for d in write_dirs or ()]
        writes = (path, *(d for d in extra if d.is_absolute()))
        return cls(read_roots=writes, write_roots=writes, workspace_roots=(), single_file=path)

    def roots(self, access: Access) -> tuple[Path, ...]:
        return self.write_roots if access == "write" else self.read_roots

    @property
    def workspace(self) -> tuple[Path, ...]:
        return self.workspace_roots or ()


def validate_write_path(raw: str, sandbox: Sandbox, *, base: Path) -> Path:
    """The resolved absolute path to write, or AccessDenied naming the allowed directories."""
    return _validate(raw, sandbox, base=base, access="write")


def validate_read_path(raw: str, sandbox: Sandbox, *, base: Path) -> Path:
    """The resolved absolute path to read, or AccessDenied naming the allowed directories."""
    return _validate(raw, sandbox, base=base, access="read")


# --- the checks ---------------------------------------------------------------------------------


class _Denial:
    """Builds the one message shape every denial uses."""

    def __init__(self, sandbox: Sandbox, access: Access) -> None:
        roots = sandbox.roots(access)
        self.access = access
        self.shown_roots = repr([str(r) for r in roots])
        verb = "Write" if access == "write" else "Read"
        self.hint = f"{verb} inside one of those directories instead."
        self.single_file = sandbox.single_file

    def outside(self, subject: str) -> AccessDenied:
        if self.single_file is not None:
            return AccessDenied(
                f"Access denied: {subject} is not the file this run works on. {self._allowed()}"
            )
        return AccessDenied(
            f"Access denied: {subject} is outside allowed {self.access} directories: "
            f"{self.shown_roots}. {self.hint}"
        )

    def because(self, subject: str, reason: str) -> AccessDenied:
        return AccessDenied(f"Access denied: {subject} {reason}. {self._allowed()}")

    def only(self, subject: str, reason: str) -> AccessDenied:
        """For a path inside the allowed directories: `reason` says what to do instead."""
        return AccessDenied(f"Access denied: {subject} {reason}.")

    def _allowed(self) -> str:
        if self.single_file is None:
            return f"Allowed {self.access} directories: {self.shown_roots}. {self.hint}"
        verb = "written" if self.access == "write" else "read"
        return (
            f"Single-file mode: only {self.shown_roots} may be {verb}, because the editor "
            f"opened no workspace folder and {self.single_file.parent} holds no project marker "
            "(such as .git or pyproject.toml). Work with that file alone, or ask the user to "
            "open the project's folder as a workspace."
        )


def _shown(raw: str) -> str:
    return shorten(repr(raw), 80)


def _validate(raw: str, sandbox: Sandbox, *, base: Path, access: Access) -> Path:
    roots = sandbox.roots(access)
    deny = _Denial(sandbox, access)
    text = _strip_file_uri(raw, deny)
    _check_shape(text, deny)
    lexical = _lexical(text, base)
    final = _resolve(lexical, deny)
    subject = str(lexical) if final == lexical else f"{lexical} (which resolves to {final})"

    final_text, lexical_text = str(final), str(lexical)
    if not any(_inside(final_text, root) for root in roots):
        raise deny.outside(subject)
    never = "never writable" if access == "write" else "never readable by tools"
    for blocked in hard_blocked_roots():
        if _inside(final_text, blocked) or _inside(lexical_text, blocked):
            where = "is" if blocked in (final_text, lexical_text) else "is inside"
            raise deny.because(subject, f"{where} {blocked}, which is {never}")
    if _in_git_dir(final) or _in_git_dir(lexical):
        raise deny.because(subject, f"is inside .git/, which is {never}")
    if (is_env_file(final) or is_env_file(lexical)) and not any(
        _inside(final_text, root) for root in sandbox.workspace
    ):
        raise deny.because(subject, f"is a .env file outside the workspace folders, {never}")
    _check_links(final, subject, deny)
    return final


def _check_links(final: Path, subject: str, deny: _Denial) -> None:
    """Hard links: a second name of a secret is that secret, and an edit made through one
    name changes the file under every other name too (editors write in place)."""
    if deny.access == "read":
        try:
            found = os.stat(final)
        except OSError:
            return  # missing or unreadable: the tool itself says so
        if is_blocked_inode(found):
            raise deny.because(
                subject,
                "is a hard link to a file in a credential store (such as ~/.ssh), "
                "which is never readable by tools",
            )
        return
    links = hard_link_count(final)
    if links > 1:
        raise deny.only(
            subject,
            f"is a hard link (one file with {links} names, maybe some outside the allowed "
            "directories), and an edit through one name changes all of them. Do not edit it; "
            "describe the change in your answer instead, or propose run_command "
            f"`cp -p {shlex.quote(str(final))} {shlex.quote(str(final))}.copy && mv "
            f"{shlex.quote(str(final))}.copy {shlex.quote(str(final))}` to give it its own "
            "copy first",
        )


def _inside(path: str, root: Path | str) -> bool:
    """`Path(path).is_relative_to(root)` for normalised absolute paths, without building
    Paths: this runs for every root on every tool call."""
    prefix = str(root)
    return path == prefix or path.startswith(prefix if prefix.endswith("/") else prefix + "/")


def _strip_file_uri(raw: str, deny: _Denial) -> str:
    """Models often echo the editor's URIs; a local `file://` URI means its path."""
    if not raw.lower().startswith("file://"):
        return raw
    try:
        parts = urlsplit(raw)
    except ValueError as exc:
        raise deny.because(_shown(raw), "is not a valid file URI") from exc
    if parts.netloc not in ("", "localhost"):
        raise deny.because(_shown(raw), f"names another host ({parts.netloc!r})")
    return unquote(parts.path)


def _check_shape(text: str, deny: _Denial) -> None:
    if not text.strip():
        raise deny.because("the path", "is empty")
    if "\0" in text:
        raise deny.because(_shown(text), "contains a NUL byte")
    try:
        encoded = os.fsencode(text)
    except UnicodeEncodeError as exc:
        raise deny.because(_shown(text), "contains characters no file name can hold") from exc
    if len(encoded) > MAX_PATH_BYTES:
        raise deny.because(
            _shown(text), f"is too long ({len(encoded)} bytes; the limit is {MAX_PATH_BYTES})"
        )
    if any(len(name) > MAX_NAME_BYTES for name in encoded.split(b"/")):
        raise deny.because(_shown(text), f"has a name longer than {MAX_NAME_BYTES} bytes")


def _lexical(text: str, base: Path) -> Path:
    """Absolute and `..`-normalised, symlinks not yet followed (what the model asked for)."""
    expanded = os.path.expanduser(text) if text.startswith("~") else text
    path = Path(expanded)
    if not path.is_absolute():
        path = base / path
    normal = os.path.normpath(path)
    # POSIX keeps a leading `//` apart from `/`; Linux treats them alike, and so do we.
    if normal.startswith("//"):
        normal = "/" + normal.lstrip("/")
    return Path(normal)


def _resolve(lexical: Path, deny: _Denial) -> Path:
    """Follow every symlink that exists; the part that does not exist yet is taken as written.

    realpath leaves a symlink loop unresolved, so the nearest existing ancestor is resolved
    again strictly: a loop or an unreadable link is denied rather than guessed.
    """
    try:  # the usual case: the path exists and resolves in one pass
        return Path(os.path.realpath(lexical, strict=True))
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise deny.because(str(lexical), "cannot be resolved (a symlink loop)") from exc
        # Not there (yet), not a directory, not searchable: resolve what exists, below, and
        # let the tool itself say what is wrong.
    real = _real(lexical)
    probe = real
    while not os.path.lexists(probe) and probe != probe.parent:
        probe = probe.parent
    try:
        anchor = Path(os.path.realpath(probe, strict=True))
    except (OSError, RuntimeError) as exc:
        raise deny.because(str(lexical), "cannot be resolved (a symlink loop?)") from exc
    return anchor / real.relative_to(probe) if anchor != probe else real


def _in_git_dir(path: Path) -> bool:
    # Trailing dots and spaces and case are dropped: some file systems treat those as `.git`.
    return any(part.rstrip(" .").casefold() == ".git" for part in path.parts)
