"""Every status / x-service-error-code maps to its exception, for both clients."""

from __future__ import annotations

import pickle
from typing import Any

import httpx
import pytest
import structqa
from helpers import QUESTIONS, REQUEST_ID, FakeServer, Twin, error
from structqa import (
    AllowanceExhaustedError,
    APIError,
    AuthenticationError,
    BadRequestError,
    InternalServerError,
    NotFoundError,
    OverloadedError,
    PayloadTooLargeError,
    PermissionDeniedError,
    ProcessedTokenCapError,
    QuestionRoom,
    RateLimitError,
    StateTooLongError,
    TooManyQuestionsError,
    UnprocessableEntityError,
)
from structqa._exceptions import extract_message

NO_RETRY = structqa.RetryPolicy(max_retries=0)


@pytest.mark.parametrize(
    ("status", "code", "extra", "cls"),
    [
        (400, "invalid_json", {}, BadRequestError),
        (400, "unknown_model", {"model": "nope", "accepted_models": ["legacy-latest"]}, BadRequestError),
        (401, "missing_api_key", {}, AuthenticationError),
        (401, "invalid_api_key", {}, AuthenticationError),
        (402, "allowance_exhausted", {"allowance": 1000, "used": 1000, "resets_at": "2026-12-01T00:00:00Z", "usage_view": "/app/usage"}, AllowanceExhaustedError),
        (403, "forbidden", {}, PermissionDeniedError),
        (404, "not_found", {}, NotFoundError),
        (408, "request_timeout", {}, APIError),
        (413, "state_too_long", {"model": "core-0.3.20", "state_tokens": 900, "questions": {"a": {"room": 476, "overflow": 424}}}, StateTooLongError),
        (413, "too_many_questions", {"limit": 32, "count": 40}, TooManyQuestionsError),
        (413, "processed_token_cap", {"model": "core-0.3.20", "cost": 4000, "cap": 3500}, ProcessedTokenCapError),
        (413, "payload_too_large", {"limit_bytes": 1048576}, PayloadTooLargeError),
        (429, "rate_limited", {}, RateLimitError),
        (429, "in_flight_limit", {}, RateLimitError),
        (500, "internal_error", {}, InternalServerError),
        (503, "unavailable", {}, InternalServerError),
        (529, "overloaded", {}, OverloadedError),
        (529, "starting", {}, OverloadedError),
        (418, "teapot", {}, APIError),
    ],
)
async def test_status_maps_to_exception(
    twin: Twin, server: FakeServer, status: int, code: str, extra: dict[str, Any], cls: type[APIError]
) -> None:
    server.reply(error(status, code, "what happened", extra, retry_after_ms="1500"))
    with pytest.raises(APIError) as caught:
        await twin.system_one("text", QUESTIONS, retry=NO_RETRY)
    e = caught.value
    assert type(e) is cls
    assert e.status == status
    assert e.code == code
    assert e.message == "what happened"
    assert e.request_id == REQUEST_ID
    assert e.retry_after_ms == 1500.0
    assert e.endpoint == "POST http://structqa.test/v1/systemone"
    assert e.body["detail"]["error_type"] == code
    assert code in str(e) and REQUEST_ID in str(e)
    assert "sq_test_key" not in str(e) and "sq_test_key" not in repr(e)
    # picklable, keeps its class and fields
    again = pickle.loads(pickle.dumps(e))
    assert type(again) is cls and again.code == code and again.request_id == REQUEST_ID


async def test_state_too_long_fields(twin: Twin, server: FakeServer) -> None:
    server.reply(
        error(413, "state_too_long", extra={"model": "core-0.3.20", "state_tokens": 1500, "questions": {
            "a": {"room": 476, "overflow": 1024}, "b": {"room": 430, "overflow": 1070}}})
    )
    with pytest.raises(StateTooLongError) as caught:
        await twin.system_one("long", QUESTIONS)
    e = caught.value
    assert isinstance(e, PayloadTooLargeError)
    assert e.model == "core-0.3.20" and e.state_tokens == 1500
    assert e.questions == {"a": QuestionRoom(476, 1024), "b": QuestionRoom(430, 1070)}
    assert e.min_room == 430
    assert len(server.requests) == 1  # never retried


async def test_extra_fields_of_other_errors(twin: Twin, server: FakeServer) -> None:
    server.reply(
        error(402, "allowance_exhausted", extra={"allowance": 1000, "used": 1001, "resets_at": "2026-12-01T00:00:00Z", "usage_view": "/app/usage"}),
        error(413, "processed_token_cap", extra={"model": "core-0.3.20", "cost": 4000, "cap": 3500}),
        error(413, "too_many_questions", extra={"limit": 32}),
        error(400, "unknown_model", extra={"accepted_models": ["legacy-latest", "core-0.3.20"]}),
    )
    with pytest.raises(AllowanceExhaustedError) as a:
        await twin.system_one("x", QUESTIONS)
    assert (a.value.allowance, a.value.used, a.value.resets_at, a.value.usage_view) == (1000, 1001, "2026-12-01T00:00:00Z", "/app/usage")
    with pytest.raises(ProcessedTokenCapError) as p:
        await twin.system_one("x", QUESTIONS)
    assert (p.value.cost, p.value.cap, p.value.model) == (4000, 3500, "core-0.3.20")
    with pytest.raises(TooManyQuestionsError) as t:
        await twin.system_one("x", QUESTIONS)
    assert t.value.limit == 32
    with pytest.raises(BadRequestError) as b:
        await twin.system_one("x", QUESTIONS, model="nope")
    assert b.value.accepted_models == ["legacy-latest", "core-0.3.20"]


async def test_validation_error_issues(twin: Twin, server: FakeServer) -> None:
    issues = [{"loc": ["body", "questions", "q", "criteria"], "msg": "needs 2 options", "type": "value_error"}]
    server.reply(httpx.Response(422, json={"detail": issues}, headers={"x-service-error-code": "invalid_request"}))
    with pytest.raises(UnprocessableEntityError) as caught:
        await twin.system_one("x", {"q": {"type": "choice", "criteria": {"only": None}}})
    assert caught.value.issues == issues
    assert caught.value.message == "questions.q.criteria: needs 2 options"
    assert caught.value.code == "invalid_request"


async def test_code_falls_back_to_body_and_non_json_bodies(twin: Twin, server: FakeServer) -> None:
    server.reply(
        httpx.Response(413, json={"detail": {"error_type": "state_too_long", "message": "m", "questions": {}}}),
        httpx.Response(500, text="<html>bad gateway</html>"),
        httpx.Response(500),
    )
    with pytest.raises(StateTooLongError):
        await twin.system_one("x", QUESTIONS, retry=NO_RETRY)
    with pytest.raises(InternalServerError) as html:
        await twin.system_one("x", QUESTIONS, retry=NO_RETRY)
    assert html.value.message == "<html>bad gateway</html>" and html.value.code is None
    with pytest.raises(InternalServerError) as empty:
        await twin.system_one("x", QUESTIONS, retry=NO_RETRY)
    assert empty.value.body is None and empty.value.request_id is None


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"detail": {"error_type": "x", "message": "ours"}}, "ours"),
        ({"detail": "Not Found"}, "Not Found"),
        ({"detail": [{"loc": ["body", "state"], "msg": "field required"}, {"msg": "other"}]}, "state: field required; other"),
        ({"error": {"code": "c", "message": "openrouter"}}, "openrouter"),
        ({"message": "vercel", "error_type": "x"}, "vercel"),
        ({"error": "plain"}, "plain"),
        ("text body", "text body"),
        ({}, None),
        (None, None),
    ],
)
def test_extract_message(body: Any, message: str | None) -> None:
    assert extract_message(body) == message


def test_hierarchy_and_earlier_sdk_aliases() -> None:
    assert issubclass(StateTooLongError, PayloadTooLargeError)
    assert issubclass(TooManyQuestionsError, PayloadTooLargeError)
    assert issubclass(ProcessedTokenCapError, PayloadTooLargeError)
    assert issubclass(OverloadedError, InternalServerError)
    assert issubclass(structqa.APITimeoutError, structqa.APIConnectionError)
    assert issubclass(structqa.APIConnectionError, ConnectionError)
    assert issubclass(structqa.APITimeoutError, TimeoutError)
    assert issubclass(structqa.DeadlineExceededError, TimeoutError)
    for cls in (APIError, structqa.APIConnectionError, structqa.DeadlineExceededError):
        assert issubclass(cls, structqa.StructqaError)
    aliases = {
        "TypeSafeError": structqa.StructqaError,
        "TypeSafeAPIError": APIError,
        "TypeSafeBadRequestError": BadRequestError,
        "TypeSafeAuthenticationError": AuthenticationError,
        "TypeSafePermissionDeniedError": PermissionDeniedError,
        "TypeSafeNotFoundError": NotFoundError,
        "TypeSafeUnprocessableEntityError": UnprocessableEntityError,
        "TypeSafeRateLimitError": RateLimitError,
        "TypeSafeInternalServerError": InternalServerError,
        "TypeSafeAPIConnectionError": structqa.APIConnectionError,
        "TypeSafeAPITimeoutError": structqa.APITimeoutError,
        "TypeSafeAPIResponseValidationError": structqa.APIResponseValidationError,
        "TypeSafeClient": structqa.Client,
        "AsyncTypeSafeClient": structqa.AsyncClient,
    }
    for name, target in aliases.items():
        assert getattr(structqa, name) is target, name
