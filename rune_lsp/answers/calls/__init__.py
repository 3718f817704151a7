"""Calls in a model's answer: made natively, or written as text (`text.py`), and what the
model is told about calling (`prompts.py`: the text protocol, the corrective turns)."""
