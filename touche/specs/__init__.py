"""Task-specific sections of a run variant (``task2:``, ``pairs:``, ``image:``).

Each is a strict pydantic model like the rest of the schema: unknown keys are errors.
"""
import typing
from typing import ClassVar

from pydantic import BaseModel, ConfigDict, model_validator

from touche.specs.weights import all_zero_problem


class Strict(BaseModel):
    """Unknown keys are errors; so is true/false where a number is expected (pydantic's lax mode
    would read ``top_k: true`` as 1), and so are .nan and .inf (``k1: .nan`` was told it should be
    ≤ 10)."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)
    # The weights whose terms together make one score (touche/specs/weights.py): not all 0.
    formula: ClassVar[tuple[str, ...]] = ()

    @model_validator(mode="before")
    @classmethod
    def _no_bool_for_numbers(cls, data):
        if isinstance(data, dict):
            for name, value in data.items():
                field = cls.model_fields.get(name) if isinstance(value, bool) else None
                if field is not None:
                    kinds = set(typing.get_args(field.annotation)) | {field.annotation}
                    if (int in kinds or float in kinds) and bool not in kinds:
                        raise ValueError(f"{name}: expected a number, not {str(value).lower()}")
        return data

    @model_validator(mode="after")
    def _formula_weighs_something(self):
        if self.formula and not any(getattr(self, name) for name in self.formula):
            raise ValueError(all_zero_problem(list(self.formula)))
        return self
