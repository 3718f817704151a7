"""Code blocks in a model's answer, read as edits of the files they are code of."""
