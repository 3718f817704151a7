"""Reading a model's turn: what its answer proposes (calls, code blocks) and what it is told."""
