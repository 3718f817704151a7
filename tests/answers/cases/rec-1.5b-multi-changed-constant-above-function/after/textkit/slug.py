"""Turning titles into URL slugs."""

import re

_SEPARATORS = re.compile(r"\W+")


def slugify(title: str, max_length: int = 40) -> str:
    """Lower case, runs of anything but letters and digits as one dash, no dash at either end."""
    slug = _SEPARATORS.sub("-", title).lower()
    slug = slug.strip("-")
    if len(slug) > max_length:
        slug = slug[:max_length].rstrip("-")
    return slug
