"""Fast paths when the C extension is there."""

try:
    from _speedups import escape
except ImportError:

    def escape(text):
        """Escape HTML's special characters."""
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def unescape(text):
    return text.replace("&lt;", "<").replace("&gt;", ">")
