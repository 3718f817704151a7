def initials(full_name):
    """Return the upper-case initials of a name: "ada king lovelace" -> "AKL"."""
    return "".join(part[0].upper() for part in full_name.split())
