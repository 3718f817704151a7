"""Provider URLs as they may be written to disk: a password embedded in one is masked."""

from __future__ import annotations

from typing import Annotated
from urllib.parse import urlsplit, urlunsplit

from pydantic import AfterValidator

from rune_lsp.store.scrub import MASK


def mask_url_password(url: str) -> str:
    """`http://user:secret@host/v1` -> `http://user:***@host/v1`; other URLs unchanged."""
    try:
        parts = urlsplit(url)
        password = parts.password
    except ValueError:
        return url
    if password is None:
        return url
    userinfo, _, hostport = parts.netloc.rpartition("@")
    user = userinfo.split(":", 1)[0]
    return urlunsplit(parts._replace(netloc=f"{user}:{MASK}@{hostport}"))


#: A base URL field of a stored model: masked whenever it is set or loaded.
StoredUrl = Annotated[str, AfterValidator(mask_url_password)]
