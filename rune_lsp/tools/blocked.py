"""What the tools never read or write, whatever was configured: the one hard-blocked set.

Three kinds of rule, all applied with or without a workspace folder:

- system state: /etc, /proc, /sys, /var (and what they resolve to);
- credential stores in the home directory (`HOME_SECRETS`), also when reached by another name:
  a symlink is resolved, and a hard link (a second name for the same inode) is recognised by
  comparing `(st_dev, st_ino)` with the files under those stores;
- `.env*` files outside the workspace folders (the sandbox applies that one: it knows them).
"""

from __future__ import annotations

import functools
import logging
import os
import stat
import threading
import time
from collections.abc import Iterable
from pathlib import Path

log = logging.getLogger(__name__)

#: Home-relative credential stores: ssh and gpg keys, cloud and registry logins, tokens.
HOME_SECRETS = (
    ".ssh",
    ".gnupg",
    ".aws",
    ".azure",
    ".config/gcloud",
    ".config/gh",
    ".docker",
    ".kube",
    ".netrc",
    ".git-credentials",
    ".pgpass",
    ".pypirc",
)
#: Names of dotenv files (`.env`, `.env.local`, `.envrc`): readable only inside the workspace.
ENV_FILE_PREFIX = ".env"
#: The inodes of the home secrets are re-collected at most this often (a few ms of walking).
INODE_TTL_SECONDS = 2.0
#: A store holding more entries than this (a huge ~/.kube/cache) is walked this far only.
MAX_SECRET_ENTRIES = 20_000

Inode = tuple[int, int]


def home_secrets() -> tuple[Path, ...]:
    """The credential stores of the current HOME, as spelled there (not resolved)."""
    try:
        home = Path.home()
    except RuntimeError:  # no HOME and no passwd entry: nothing to add
        return ()
    return tuple(home / name for name in HOME_SECRETS)


def hard_blocked_roots() -> tuple[str, ...]:
    """Never readable or writable by a tool: system state and the home credential stores,
    each as spelled and as resolved (strings: this runs on every check, see `_inside`)."""
    try:
        home = str(Path.home())
    except RuntimeError:  # no HOME and no passwd entry: nothing to add
        return _system_roots()
    # Resolved on every check, since `~/.ssh` may become a link at any time; but a store none
    # of whose parts is a link resolves to the resolved home plus its name, which spares a
    # realpath walk per store (they tripled the cost of a check).
    real_home = os.path.realpath(home)
    secrets: list[str] = []
    for name in HOME_SECRETS:
        spelled = os.path.join(home, name)
        secrets.append(spelled)
        linked = _has_link(home, name)
        secrets.append(os.path.realpath(spelled) if linked else os.path.join(real_home, name))
    return tuple(dict.fromkeys([*_system_roots(), *secrets]))


def _has_link(home: str, name: str) -> bool:
    """Whether some part of `home/name` below `home` is a symlink (missing parts are not)."""
    current = home
    for part in name.split("/"):
        current = os.path.join(current, part)
        try:
            if stat.S_ISLNK(os.lstat(current).st_mode):
                return True
        except OSError:  # missing (or no directory): nothing further down can be a link
            return False
    return False


@functools.cache
def _system_roots() -> tuple[str, ...]:
    """/etc, /proc, /sys, /var and what they resolve to: fixed for the life of the process."""
    blocked = ["/etc", "/proc", "/sys", "/var"]
    # Both spellings: /var may itself be a link (macOS: /private/var).
    return tuple(dict.fromkeys([*blocked, *map(os.path.realpath, blocked)]))


def is_env_file(path: Path) -> bool:
    return path.name.startswith(ENV_FILE_PREFIX)


def is_blocked_inode(found: os.stat_result) -> bool:
    """True when `found` (a stat of a file about to be read) is a second name of a home secret.

    Only a regular file with more than one link can be one, so the common case costs nothing;
    hard links cannot cross file systems, hence the device is compared too.
    """
    if found.st_nlink < 2 or not stat.S_ISREG(found.st_mode):
        return False
    return (found.st_dev, found.st_ino) in _SECRET_INODES.current()


def hard_link_count(path: Path) -> int:
    """How many names the regular file at `path` has; 0 when it is missing or no file."""
    try:
        found = os.stat(path)
    except OSError:
        return 0
    return found.st_nlink if stat.S_ISREG(found.st_mode) else 0


class _SecretInodes:
    """`(st_dev, st_ino)` of every file under the home secrets, re-collected after a TTL.

    Keyed by the stores' paths too, so a changed HOME (tests, `sudo -E`) is seen at once.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()  # tools read from worker threads as well
        self._cached: tuple[tuple[Path, ...], float, frozenset[Inode]] | None = None

    def current(self) -> frozenset[Inode]:
        roots = home_secrets()
        now = time.monotonic()
        with self._lock:
            cached = self._cached
            if cached is not None and cached[0] == roots and now - cached[1] < INODE_TTL_SECONDS:
                return cached[2]
            inodes = frozenset(_collect(roots))
            self._cached = (roots, now, inodes)
            return inodes


def _collect(roots: Iterable[Path]) -> Iterable[Inode]:
    """Files are followed through links (a linked key is still that key); directories only at
    the top (`~/.ssh` may be a link), so a link to `/` inside a store is not walked."""
    budget = MAX_SECRET_ENTRIES
    pending = [(root, True) for root in roots]
    while pending and budget > 0:
        current, top = pending.pop()
        budget -= 1
        try:
            found = os.stat(current)
        except OSError:
            continue
        if stat.S_ISREG(found.st_mode):
            yield found.st_dev, found.st_ino
        elif stat.S_ISDIR(found.st_mode) and (top or not os.path.islink(current)):
            try:
                pending.extend((Path(entry.path), False) for entry in os.scandir(current))
            except OSError:
                continue
    if budget <= 0:
        log.warning("rune: stopped collecting secret files after %d", MAX_SECRET_ENTRIES)


_SECRET_INODES = _SecretInodes()
