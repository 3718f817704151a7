"""What outlives a run: receipts and paused runs on disk, and which run owns a document.

Used by the server and the CLI, never by the loop. Writes are atomic (`atomic.py`).
"""
