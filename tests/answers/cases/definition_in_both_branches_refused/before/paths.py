import sys

if sys.version_info >= (3, 9):

    def strip_prefix(text, prefix):
        return text.removeprefix(prefix)

else:

    def strip_prefix(text, prefix):
        return text[len(prefix) :] if text.startswith(prefix) else text
