"""Question objects (``Noul``, ``Choice``, ``Score``) and their dictionary forms."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal, Union

from pydantic import BaseModel, ConfigDict
from typing_extensions import NotRequired, TypeAliasType, TypedDict

from structqa._exceptions import StructqaError

JSONValue = TypeAliasType(
    "JSONValue",
    "str | int | float | bool | Sequence[JSONValue | None] | Mapping[str, JSONValue | None]",
)
"""A JSON value (may nest and hold ``None``)."""

JSONContent = TypeAliasType("JSONContent", "str | Mapping[str, JSONValue | None] | Sequence[JSONValue | None]")
"""Text, a JSON object or an array: what ``state``, ``instructions`` and descriptions may be."""


class NoulCriteria(TypedDict, total=False):
    """Optional descriptions of the yes (``true``) and no (``false``) outcomes."""

    true: JSONContent | None
    false: JSONContent | None


class NoulModel(TypedDict):
    type: Literal["noul"]
    instructions: NotRequired[JSONContent | None]
    criteria: NotRequired[NoulCriteria | None]


class ChoiceModel(TypedDict):
    type: Literal["choice"]
    instructions: NotRequired[JSONContent | None]
    criteria: Mapping[str, JSONContent | None]


ScoreLevel = TypeAliasType("ScoreLevel", "JSONContent | int | float | bool")
"""A score level: a description, or (laya's form, a structqa extension) a bare number or boolean, which the
model reads as laya does and the legend echoes as text (``3`` → ``"3"``)."""


class ScoreModel(TypedDict):
    type: Literal["score"]
    instructions: NotRequired[JSONContent | None]
    criteria: Sequence[ScoreLevel]


class _Question(BaseModel):
    model_config = ConfigDict(extra="forbid")

    def __init__(self, instructions: Any = None, criteria: Any = None, /, **data: Any) -> None:
        # Positional ``(instructions, criteria)`` is accepted as a convenience; keywords work as in
        # the earlier SDK.
        if instructions is not None:
            data.setdefault("instructions", instructions)
        if criteria is not None:
            data.setdefault("criteria", criteria)
        super().__init__(**data)

    def to_wire(self) -> dict[str, Any]:
        """The JSON form sent to the service; unset optional fields are left out, ``None`` values
        nested inside ``criteria`` are kept."""
        return {k: v for k, v in self.model_dump(mode="json").items() if v is not None}


class Noul(_Question):
    """A yes/no question. The answer's ``.noul`` is P(yes)."""

    type: Literal["noul"] = "noul"
    instructions: JSONContent | None = None
    criteria: NoulCriteria | None = None


class Choice(_Question):
    """Pick one of named options: ``criteria`` maps option names to descriptions (``None`` = by name)."""

    type: Literal["choice"] = "choice"
    criteria: Mapping[str, JSONContent | None]
    instructions: JSONContent | None = None


class Score(_Question):
    """Rate on an ordered rubric: ``criteria`` lists the levels low → high (level = index)."""

    type: Literal["score"] = "score"
    criteria: Sequence[ScoreLevel]
    instructions: JSONContent | None = None


QuestionModel = Union[NoulModel, ChoiceModel, ScoreModel]
"""A question dictionary identified by its ``type`` key."""
Question = Union[Noul, Choice, Score, QuestionModel]
"""A question object or question dictionary."""
Questions = Mapping[str, Question]
"""Questions keyed by the names that key their answers."""


def questions_to_wire(questions: Mapping[str, Any]) -> dict[str, Any]:
    """Check questions the way the earlier SDK did before sending, and return their JSON form."""
    if not isinstance(questions, Mapping) or not questions:
        raise StructqaError("At least one question is required.")
    wire: dict[str, Any] = {}
    for name, question in questions.items():
        if isinstance(question, _Question):
            body = question.to_wire()
        elif isinstance(question, Mapping):
            body = dict(question)
            kind = body.get("type")
            if not isinstance(kind, str) or not kind:
                raise StructqaError(f'Question "{name}" must be a question object or a dictionary with a nonempty string "type".')
            if kind in ("choice", "score") and "criteria" not in body:
                raise StructqaError(f'Question "{name}" requires "criteria".')
        else:
            raise StructqaError(f'Question "{name}" must be a Noul, Choice, Score or a dictionary.')
        if body.get("type") == "score":
            criteria = body.get("criteria")
            if isinstance(criteria, Mapping) or isinstance(criteria, str) or not isinstance(criteria, Sequence):
                raise StructqaError(f'Score question "{name}" needs criteria as a list of levels, low to high.')
            if not criteria:
                raise StructqaError(f'Score question "{name}" has no criteria; at least one score is required.')
        if body.get("type") == "choice" and not isinstance(body.get("criteria"), Mapping):
            raise StructqaError(f'Choice question "{name}" needs criteria as a mapping of option name to description.')
        wire[str(name)] = body
    return wire
