"""The base of the loop's typed data: a pydantic model that never changes once built.

`RunState` and `TurnState` (loop/state.py), which the runtime updates as a run goes on, are the
only loop models that are not frozen.
"""

from pydantic import BaseModel, ConfigDict


class Frozen(BaseModel):
    model_config = ConfigDict(frozen=True)
