"""Exceptions: one class per condition the service (contract §6) or the network can produce.

    StructqaError                                  (alias TypeSafeError)
     ├── APIError                                  (alias TypeSafeAPIError)  any non-2xx answer
     │    │   .status .code (x-service-error-code) .message .body .headers
     │    │   .request_id .retry_after_ms .endpoint
     │    ├── BadRequestError              400     unknown_model
     │    ├── AuthenticationError          401     invalid_api_key
     │    ├── AllowanceExhaustedError      402     allowance_exhausted   (.allowance .used .resets_at .usage_view)
     │    ├── PermissionDeniedError        403     missing_api_key (403 like the earlier service)
     │    ├── NotFoundError                404
     │    ├── PayloadTooLargeError         413     payload_too_large     (.limit_bytes)
     │    │    ├── StateTooLongError       413     state_too_long        (.questions {name: QuestionRoom} .state_tokens .model)
     │    │    ├── TooManyQuestionsError   413     too_many_questions    (.limit)
     │    │    └── ProcessedTokenCapError  413     processed_token_cap   (.cost .cap .model)
     │    ├── UnprocessableEntityError     422     invalid_request, invalid_json (.issues: the detail[] list)
     │    ├── RateLimitError               429     rate_limited, in_flight_limit
     │    ├── InternalServerError          5xx     internal_error
     │    │    └── OverloadedError         529     overloaded, starting
     │    └── APIResponseValidationError   2xx whose body does not match the response model (.field_path)
     ├── APIConnectionError                        no response (also a ConnectionError)
     │    └── APITimeoutError                      one attempt timed out (also a TimeoutError)
     └── DeadlineExceededError                     the caller's overall deadline passed (also a TimeoutError; .last_error)

Retried by default: 408, 429, every 5xx (so 529), APIConnectionError, APITimeoutError. Never: 402 or
any other 4xx. The names used by the earlier SDK (``TypeSafe…``) are aliases of these classes.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import httpx

from structqa._constants import ERROR_CODE_HEADER, MAX_ERROR_BODY_LENGTH
from structqa._headers import parse_retry_after_ms, request_id_from

__all__ = [
    "APIConnectionError",
    "APIError",
    "APIResponseValidationError",
    "APITimeoutError",
    "AllowanceExhaustedError",
    "AuthenticationError",
    "BadRequestError",
    "DeadlineExceededError",
    "InternalServerError",
    "NotFoundError",
    "OverloadedError",
    "PayloadTooLargeError",
    "PermissionDeniedError",
    "ProcessedTokenCapError",
    "QuestionRoom",
    "RateLimitError",
    "StateTooLongError",
    "StructqaError",
    "TooManyQuestionsError",
    "UnprocessableEntityError",
    "api_error",
    "extract_message",
]


def extract_message(body: Any) -> str | None:
    """Human text from any common error envelope (ours, FastAPI's, gateways')."""
    if isinstance(body, str):
        return body or None
    if not isinstance(body, dict):
        return None
    error, message, detail = body.get("error"), body.get("message"), body.get("detail")
    if isinstance(error, str):
        return error
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        return error["message"]
    if isinstance(message, str):
        return message
    if isinstance(detail, str):
        return detail
    if isinstance(detail, dict) and isinstance(detail.get("message"), str):
        return detail["message"]
    if isinstance(detail, list):
        parts = []
        for entry in detail:
            if isinstance(entry, dict) and isinstance(entry.get("msg"), str):
                loc = entry.get("loc")
                path = ".".join(str(p) for p in loc if p != "body") if isinstance(loc, list) else ""
                parts.append(f"{path}: {entry['msg']}" if path else entry["msg"])
        return "; ".join(parts) or None
    return None


def _detail(body: Any) -> dict[str, Any]:
    if isinstance(body, dict):
        detail = body.get("detail")
        if isinstance(detail, dict):
            return detail
        if isinstance(body.get("error"), dict):
            return body["error"]
    return {}


class StructqaError(Exception):
    """Base class of every error this client raises."""


class APIError(StructqaError):
    """The service answered with a non-success status."""

    def __init__(
        self,
        status: int,
        body: Any,
        headers: httpx.Headers | Mapping[str, str] | None = None,
        message: str | None = None,
        endpoint: str | None = None,
    ) -> None:
        super().__init__(status, body, headers, message, endpoint)
        self.status: int = status
        """HTTP status code."""
        self.body: Any = body
        """The decoded JSON body, the text body, or ``None`` when empty."""
        self.headers: httpx.Headers = httpx.Headers(headers or {})
        """Response headers."""
        self.endpoint: str | None = endpoint
        """Method and URL of the request, without credentials or query."""
        code = self.headers.get(ERROR_CODE_HEADER) or _detail(body).get("error_type") or _detail(body).get("code")
        self.code: str | None = code if isinstance(code, str) else None
        """The ``x-service-error-code`` header (falls back to ``detail.error_type``)."""
        self.retry_after_ms: float | None = parse_retry_after_ms(self.headers, _now())
        """The delay the server asked for (``retry-after-ms``, else ``Retry-After``), or ``None``."""
        if message is None:
            message = extract_message(body)
            if not message:
                if body is None:
                    message = "(no body)"
                else:
                    raw = body if isinstance(body, str) else json.dumps(body, ensure_ascii=False)
                    message = raw[:MAX_ERROR_BODY_LENGTH] + "…" if len(raw) > MAX_ERROR_BODY_LENGTH else raw
        self.message: str = message
        """Human-readable message from the body."""

    @property
    def request_id(self) -> str | None:
        """``x-request-id`` (or ``x-typesafe-request-id``) of the failed response."""
        return request_id_from(self.headers)

    @property
    def status_code(self) -> int:
        """Alias of :attr:`status`."""
        return self.status

    def __str__(self) -> str:
        text = f"{self.status} {self.code}: {self.message}" if self.code else f"{self.status} {self.message}"
        if self.endpoint:
            text = f"{self.endpoint}: {text}"
        if self.request_id:
            text += f" (request_id={self.request_id})"
        return text

    def __repr__(self) -> str:
        return f"{type(self).__name__}({str(self)!r})"

    def __reduce__(self) -> Any:
        return (type(self), (self.status, self.body, dict(self.headers), self.message, self.endpoint))


class BadRequestError(APIError):
    """400: the body is not JSON, or the model name is not accepted (``.accepted_models``)."""

    @property
    def accepted_models(self) -> list[str] | None:
        value = _detail(self.body).get("accepted_models")
        return list(value) if isinstance(value, list) else None


class AuthenticationError(APIError):
    """401: no key, a malformed/unknown/revoked key, or a key of the earlier service."""


class AllowanceExhaustedError(APIError):
    """402: the monthly free allowance is used up. Never retried: wait for the UTC reset."""

    @property
    def allowance(self) -> int | None:
        return _detail(self.body).get("allowance")

    @property
    def used(self) -> int | None:
        return _detail(self.body).get("used")

    @property
    def resets_at(self) -> str | None:
        """When the allowance resets (UTC, ISO 8601)."""
        return _detail(self.body).get("resets_at")

    @property
    def usage_view(self) -> str | None:
        """Path of the usage page (``/app/usage``)."""
        return _detail(self.body).get("usage_view")


class PermissionDeniedError(APIError):
    """403."""


class NotFoundError(APIError):
    """404."""


class PayloadTooLargeError(APIError):
    """413: the request is over a limit. Subclasses name which one."""

    @property
    def limit_bytes(self) -> int | None:
        return _detail(self.body).get("limit_bytes")


@dataclass(frozen=True)
class QuestionRoom:
    """How much state one question can hold, in the checkpoint's tokens."""

    room: int
    """Tokens of state this question can hold."""
    overflow: int
    """Tokens of state beyond the room (0 when the state fits this question)."""


class StateTooLongError(PayloadTooLargeError):
    """413 ``state_too_long``: the state would be cut for at least one question; nothing was answered.

    :attr:`questions` gives each question's room, so the state can be split into chunks that fit
    (see :func:`structqa.ask_in_chunks`).
    """

    @property
    def model(self) -> str | None:
        """The checkpoint whose tokens were counted."""
        return _detail(self.body).get("model")

    @property
    def state_tokens(self) -> int | None:
        """Length of the state in that checkpoint's tokens."""
        return _detail(self.body).get("state_tokens")

    @property
    def questions(self) -> dict[str, QuestionRoom]:
        """Per question name: its room and the overflow."""
        raw = _detail(self.body).get("questions")
        rooms: dict[str, QuestionRoom] = {}
        if isinstance(raw, dict):
            for name, entry in raw.items():
                if isinstance(entry, dict) and isinstance(entry.get("room"), (int, float)):
                    rooms[name] = QuestionRoom(int(entry["room"]), int(entry.get("overflow") or 0))
        return rooms

    @property
    def min_room(self) -> int | None:
        """The smallest room over all reported questions: a chunk this long fits every question."""
        rooms = [q.room for q in self.questions.values()]
        return min(rooms) if rooms else None


class TooManyQuestionsError(PayloadTooLargeError):
    """413 ``too_many_questions``: more than 32 questions in one call."""

    @property
    def limit(self) -> int | None:
        return _detail(self.body).get("limit")


class ProcessedTokenCapError(PayloadTooLargeError):
    """413 ``processed_token_cap``: questions × longest sequence is over the checkpoint's cap."""

    @property
    def cost(self) -> int | None:
        return _detail(self.body).get("cost")

    @property
    def cap(self) -> int | None:
        return _detail(self.body).get("cap")

    @property
    def model(self) -> str | None:
        return _detail(self.body).get("model")


class UnprocessableEntityError(APIError):
    """422: the request does not match the schema. :attr:`issues` is the FastAPI-style list."""

    @property
    def issues(self) -> list[dict[str, Any]]:
        """``[{"loc": [...], "msg": ..., "type": ...}, ...]``."""
        detail = self.body.get("detail") if isinstance(self.body, dict) else None
        return [entry for entry in detail if isinstance(entry, dict)] if isinstance(detail, list) else []


class RateLimitError(APIError):
    """429: account rate or in-flight limit. Retried after :attr:`retry_after_ms`."""


class InternalServerError(APIError):
    """5xx. Retried."""


class OverloadedError(InternalServerError):
    """529: the service is busy (``overloaded``) or still loading checkpoints (``starting``). Retried."""


class APIResponseValidationError(APIError):
    """A success response whose body does not match the expected shape."""

    def __init__(
        self,
        status: int,
        body: Any,
        headers: httpx.Headers | Mapping[str, str] | None = None,
        field_path: str = "",
        endpoint: str | None = None,
    ) -> None:
        self.field_path = field_path
        """Dotted path of the first missing or ill-typed field, e.g. ``answers.tone.confidence``."""
        super().__init__(status, body, headers, f"Invalid response data at {field_path!r}.", endpoint)
        self.args = (status, body, headers, field_path, endpoint)

    def __reduce__(self) -> Any:
        return (type(self), (self.status, self.body, dict(self.headers), self.field_path, self.endpoint))


class APIConnectionError(StructqaError, ConnectionError):
    """The request got no response (connection refused, reset, DNS, …)."""


class APITimeoutError(APIConnectionError, TimeoutError):
    """One attempt exceeded its timeout."""

    def __init__(self, timeout: float | httpx.Timeout | None = None) -> None:
        super().__init__(timeout)
        self.timeout = timeout

    def __str__(self) -> str:
        return f"Request timed out (timeout={self.timeout})."


class DeadlineExceededError(StructqaError, TimeoutError):
    """The caller's overall deadline passed before an answer; :attr:`last_error` is the last failure."""

    def __init__(self, deadline: float | None = None, last_error: BaseException | None = None) -> None:
        super().__init__(deadline, last_error)
        self.deadline = deadline
        """The overall budget in seconds."""
        self.last_error = last_error
        """The error of the last attempt, if any."""

    def __str__(self) -> str:
        text = f"Deadline of {self.deadline}s exceeded" if self.deadline is not None else "Deadline exceeded"
        return f"{text} (last error: {self.last_error})" if self.last_error else text


_BY_STATUS: dict[int, type[APIError]] = {
    400: BadRequestError,
    401: AuthenticationError,
    402: AllowanceExhaustedError,
    403: PermissionDeniedError,
    404: NotFoundError,
    413: PayloadTooLargeError,
    422: UnprocessableEntityError,
    429: RateLimitError,
    529: OverloadedError,
}

_BY_413_CODE: dict[str, type[APIError]] = {
    "state_too_long": StateTooLongError,
    "too_many_questions": TooManyQuestionsError,
    "processed_token_cap": ProcessedTokenCapError,
    "payload_too_large": PayloadTooLargeError,
}


def error_class(status: int, code: str | None) -> type[APIError]:
    """The exception class for a status and ``x-service-error-code``."""
    if status == 413 and code in _BY_413_CODE:
        return _BY_413_CODE[code]
    if status in _BY_STATUS:
        return _BY_STATUS[status]
    return InternalServerError if status >= 500 else APIError


def api_error(status: int, body: Any, headers: httpx.Headers | Mapping[str, str], endpoint: str | None = None) -> APIError:
    """Build the matching exception for an error response."""
    h = httpx.Headers(headers)
    code = h.get(ERROR_CODE_HEADER) or _detail(body).get("error_type")
    return error_class(status, code if isinstance(code, str) else None)(status, body, h, endpoint=endpoint)


def _now() -> float:
    import time

    return time.time()
