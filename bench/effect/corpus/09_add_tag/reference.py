def add_tag(tag, tags=None):
    """Return a list holding the given tags plus tag; a new list when tags is not given."""
    tags = [] if tags is None else tags
    tags.append(tag)
    return tags
