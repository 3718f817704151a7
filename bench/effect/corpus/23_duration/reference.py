def format_duration(seconds):
    """Format a number of seconds as M:SS, e.g. 65 -> "1:05"."""
    minutes, secs = divmod(seconds, 60)
    return f"{minutes}:{secs:02d}"
