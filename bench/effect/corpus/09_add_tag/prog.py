def add_tag(tag, tags=[]):
    """Return a list holding the given tags plus tag; a new list when tags is not given."""
    tags.append(tag)
    return tags
