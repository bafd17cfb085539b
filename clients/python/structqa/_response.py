"""Typed answers and responses, and the parsing of HTTP responses into them."""

from __future__ import annotations

import json
import logging
from functools import cached_property
from typing import Annotated, Any, Literal, TypeVar, cast

import httpx
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from structqa._constants import LOGGER_NAME
from structqa._exceptions import APIResponseValidationError, StructqaError, api_error
from structqa._headers import request_id_from

logger = logging.getLogger(LOGGER_NAME)

ResponseT = TypeVar("ResponseT", bound=BaseModel)

_FROZEN = ConfigDict(extra="ignore", frozen=True, strict=True)


class NoulAnswer(BaseModel):
    """A yes/no answer: :attr:`noul` is P(yes) in [0, 1]. No confidence (by contract)."""

    model_config = _FROZEN
    type: Literal["noul"] = "noul"
    noul: float


class ChoiceAnswer(BaseModel):
    """The most probable option, the probability of every option, and a confidence in [0, 1]."""

    model_config = _FROZEN
    type: Literal["choice"] = "choice"
    choice: str
    probabilities: dict[str, float]
    confidence: float


class ScoreAnswer(BaseModel):
    """An expected level ``score = Σ i·pᵢ``, the rubric echoed as ``legend``, level probabilities and
    a confidence. ``legend`` and ``probabilities`` are keyed by the integer level."""

    model_config = ConfigDict(extra="ignore", frozen=True, strict=False)
    type: Literal["score"] = "score"
    score: float
    legend: dict[int, str | dict[str, Any] | list[Any]]
    probabilities: dict[int, float]
    confidence: float


Answer = Annotated[NoulAnswer | ChoiceAnswer | ScoreAnswer, Field(discriminator="type")]
"""One question's answer, told apart by ``type``."""

_ANSWER_TYPES = frozenset({"noul", "choice", "score"})


class Usage(BaseModel):
    """Token counts; a field is ``None`` when the service did not report it."""

    model_config = _FROZEN
    input_tokens: int | None = None
    output_tokens: int | None = None
    processed_tokens: int | None = None
    """Questions × longest per-question sequence: the amount charged."""


class _ResponseMixin:
    """HTTP metadata attached to parsed responses (kept out of the model's fields)."""

    @classmethod
    def _decode(cls, response: httpx.Response) -> Any:
        raise NotImplementedError

    @property
    def request_id(self) -> str | None:
        """``x-request-id`` of the response (``x-typesafe-request-id`` is the same value)."""
        return cast(Any, self).__dict__.get("_request_id")

    @property
    def raw_http_response(self) -> httpx.Response:
        """The underlying :class:`httpx.Response`."""
        response = cast(Any, self).__dict__.get("_raw")
        if response is None:
            raise StructqaError("The response was not created from an HTTP response.")
        return cast(httpx.Response, response)

    @classmethod
    def from_http_response(cls, response: httpx.Response) -> Any:
        """Parse an HTTP response (raising the matching APIError for a failure status)."""
        return parse_response(response, cast(Any, cls))


class SystemOneResponse(BaseModel, _ResponseMixin):
    """Answers keyed by question name, grouped by type, with the checkpoint used and the usage."""

    model_config = _FROZEN
    model: str
    """The checkpoint that answered (aliases resolve to a checkpoint name)."""
    usage: Usage = Field(default_factory=Usage)
    answers: dict[str, Answer] = Field(default_factory=dict)

    @cached_property
    def nouls(self) -> dict[str, NoulAnswer]:
        return {k: a for k, a in self.answers.items() if isinstance(a, NoulAnswer)}

    @cached_property
    def choices(self) -> dict[str, ChoiceAnswer]:
        return {k: a for k, a in self.answers.items() if isinstance(a, ChoiceAnswer)}

    @cached_property
    def scores(self) -> dict[str, ScoreAnswer]:
        return {k: a for k, a in self.answers.items() if isinstance(a, ScoreAnswer)}

    @classmethod
    def _decode(cls, response: httpx.Response) -> SystemOneResponse:
        decoded = decode_body(response.content)
        if not isinstance(decoded, dict):
            raise _validation_error(response, "")
        answers = decoded.get("answers")
        if isinstance(answers, dict):
            for name, raw in list(answers.items()):
                if not isinstance(raw, dict) or not isinstance(raw.get("type"), str):
                    raise _validation_error(response, f"answers.{name}.type")
                if raw["type"] not in _ANSWER_TYPES:
                    logger.warning("Ignoring answer %r of unknown type %r", name, raw["type"])
                    del answers[name]
            # Custom subclasses may declare answers as top-level fields (as in the earlier SDK).
            for extra in (set(cls.model_fields) - set(SystemOneResponse.model_fields)) & answers.keys():
                decoded[extra] = answers[extra]
        try:
            return cls.model_validate_json(json.dumps(decoded))
        except ValidationError as error:
            loc = list(error.errors(include_url=False)[0]["loc"])
            if len(loc) >= 3 and loc[0] == "answers" and loc[2] in _ANSWER_TYPES:
                del loc[2]
            raise _validation_error(response, format_path(loc)) from error


class ModelMetadata(BaseModel):
    """One accepted model name. Extra fields the service adds are kept (``model_extra``)."""

    model_config = ConfigDict(extra="allow", frozen=True)
    name: str
    description: str
    release_date: str
    """``YYYY-MM-DD``."""


class ListModelsResponse(BaseModel, _ResponseMixin):
    """``GET /v1/models``: every name a request may use."""

    model_config = ConfigDict(extra="ignore", frozen=True)
    models: tuple[ModelMetadata, ...]

    @property
    def names(self) -> list[str]:
        return [m.name for m in self.models]

    @classmethod
    def _decode(cls, response: httpx.Response) -> ListModelsResponse:
        try:
            return cls.model_validate_json(response.content)
        except ValidationError as error:
            raise _validation_error(response, format_path(error.errors(include_url=False)[0]["loc"])) from error


class _Lenient(BaseModel):
    model_config = ConfigDict(extra="allow", frozen=True)


class AccountRef(_Lenient):
    id: str | None = None
    name: str | None = None


class DayUsage(_Lenient):
    date: str
    processed_tokens: int = 0
    requests: int = 0
    by_model: dict[str, int] = Field(default_factory=dict)


class ModelUsage(_Lenient):
    model: str
    processed_tokens: int = 0
    requests: int = 0


class AccountLimits(_Lenient):
    monthly_allowance: int | None = None
    requests_per_second: int | None = None
    processed_tokens_per_second: int | None = None
    in_flight: int | None = None


class AccountUsage(_Lenient, _ResponseMixin):
    """``GET /v1/usage``: the caller's usage for one UTC month. Every field is optional; fields the
    service adds later are kept (``model_extra`` / attribute access)."""

    account: AccountRef | None = None
    period: str | None = None
    """UTC month, ``YYYY-MM``."""
    period_start: str | None = None
    resets_at: str | None = None
    """00:00 UTC on the 1st of the next month."""
    allowance: int | None = None
    """Monthly free allowance in processed tokens."""
    used: int | None = None
    reserved: int | None = None
    """Tokens of admitted calls still running."""
    remaining: int | None = None
    requests: int | None = None
    by_day: list[DayUsage] = Field(default_factory=list)
    by_model: list[ModelUsage] = Field(default_factory=list)
    limits: AccountLimits | None = None
    usage_view: str | None = None
    """Path of the usage web page."""
    generated_at: str | None = None

    @classmethod
    def _decode(cls, response: httpx.Response) -> AccountUsage:
        decoded = decode_body(response.content)
        if not isinstance(decoded, dict):
            raise _validation_error(response, "")
        try:
            return cls.model_validate(decoded)
        except ValidationError as error:
            raise _validation_error(response, format_path(error.errors(include_url=False)[0]["loc"])) from error


def decode_body(content: bytes) -> Any:
    """JSON if it parses (whatever the content type), else text, else ``None`` when empty."""
    if not content:
        return None
    try:
        return json.loads(content)
    except ValueError:
        return content.decode("utf-8", errors="replace")


def format_path(segments: Any) -> str:
    path = ""
    for segment in segments:
        if segment == "[key]":
            continue
        if isinstance(segment, int):
            path += f"[{segment}]"
        else:
            path += f".{segment}" if path else str(segment)
    return path


def endpoint_of(response: httpx.Response) -> str | None:
    try:
        request = response.request
    except RuntimeError:
        return None
    return f"{request.method} {request.url.copy_with(username=None, password=None, query=None, fragment=None)}"


def _validation_error(response: httpx.Response, path: str) -> APIResponseValidationError:
    return APIResponseValidationError(
        response.status_code, decode_body(response.content), response.headers, path, endpoint_of(response)
    )


def parse_response(response: httpx.Response, response_type: type[ResponseT]) -> ResponseT:
    """Turn an HTTP response into ``response_type`` or raise the matching error."""
    if not response.is_success:
        raise api_error(response.status_code, decode_body(response.content), response.headers, endpoint_of(response))
    if isinstance(response_type, type) and issubclass(response_type, _ResponseMixin):
        result: Any = response_type._decode(response)
    else:
        try:
            result = response_type.model_validate_json(response.content)
        except ValidationError as error:
            raise _validation_error(response, format_path(error.errors(include_url=False)[0]["loc"])) from error
    if isinstance(result, BaseModel):
        # Transport metadata is kept out of the model's fields (so model_dump never shows it).
        try:
            result.__dict__["_request_id"] = request_id_from(response.headers)
            result.__dict__["_raw"] = response
        except (AttributeError, TypeError):  # pragma: no cover - exotic models
            pass
    return cast(ResponseT, result)
