"""Task-specific sections of a run variant (``task2:``, ``pairs:``, ``image:``).

Each is a strict pydantic model like the rest of the schema: unknown keys are errors.
"""
from pydantic import BaseModel, ConfigDict


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
