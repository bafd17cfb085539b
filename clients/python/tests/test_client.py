"""Client behaviour against the fake transport, run for both twins (sync and async)."""

from __future__ import annotations

import json
from datetime import datetime, timedelta, timezone
from email.utils import format_datetime

import httpx
import pytest
import structqa
from helpers import QUESTIONS, REQUEST_ID, FakeClock, FakeServer, Twin, answers_body, error, ok
from pydantic import BaseModel, ValidationError
from structqa import (
    AllowanceExhaustedError,
    APIConnectionError,
    APIResponseValidationError,
    APITimeoutError,
    ChoiceAnswer,
    DeadlineExceededError,
    NoulAnswer,
    OverloadedError,
    RateLimitError,
    RetryPolicy,
    ScoreAnswer,
    StructqaError,
    SystemOneResponse,
)

# --------------------------------------------------------------------------- request building


async def test_request_shape(twin: Twin, server: FakeServer) -> None:
    await twin.system_one(
        "I was charged twice.",
        {
            **QUESTIONS,
            "raw": {"type": "noul", "instructions": "Refund?", "criteria": {"true": "asks for money back"}},
            "pair": structqa.Noul(instructions={"q": "Is `a` mentioned?", "a": [1, None]}, criteria=structqa.NoulCriteria(false=None)),
        },
        extra_headers={"X-Trace": "t1"},
    )
    (request,) = server.requests
    assert request.method == "POST"
    assert str(request.url) == "http://structqa.test/v1/systemone"
    assert request.headers["authorization"] == "Bearer sq_test_key"
    assert request.headers["content-type"] == "application/json"
    assert request.headers["accept"] == "application/json"
    assert request.headers["user-agent"].startswith("structqa-client/")
    assert request.headers["x-trace"] == "t1"
    assert request.headers["idempotency-key"]
    assert "x-retry-count" not in request.headers
    body = json.loads(request.content)
    assert body == {
        "state": "I was charged twice.",
        "model": "legacy-latest",
        "questions": {
            "urgent": {"type": "noul", "instructions": "Is it urgent?"},
            "tone": {"type": "choice", "instructions": "Tone?", "criteria": {"calm": None, "angry": None}},
            "level": {"type": "score", "instructions": "Level?", "criteria": ["low", "mid", "high"]},
            "raw": {"type": "noul", "instructions": "Refund?", "criteria": {"true": "asks for money back"}},
            "pair": {"type": "noul", "instructions": {"q": "Is `a` mentioned?", "a": [1, None]}, "criteria": {"false": None}},
        },
    }
    # 10 s per attempt by default
    assert request.extensions["timeout"] == {"connect": 10.0, "read": 10.0, "write": 10.0, "pool": 10.0}


async def test_model_extra_body_timeout_and_object_state(twin: Twin, server: FakeServer) -> None:
    await twin.system_one(
        {"ticket": {"messages": [{"text": "hi"}]}},
        QUESTIONS,
        model="core-0.3.20",
        extra_body={"user": "u1", "model": "core-multilingual-0.3.20"},
        timeout=3.0,
    )
    body = server.bodies()[0]
    assert body["state"] == {"ticket": {"messages": [{"text": "hi"}]}}
    assert body["model"] == "core-multilingual-0.3.20"  # extra_body is merged last
    assert body["user"] == "u1"
    assert server.requests[0].extensions["timeout"]["read"] == 3.0


async def test_client_level_settings(twin: Twin, server: FakeServer) -> None:
    twin.make(model="core-latest", headers={"X-Team": "a"}, timeout=httpx.Timeout(7.0, connect=1.0), base_url="http://h.test/root/")
    await twin.system_one("x", QUESTIONS)
    request = server.requests[0]
    assert str(request.url) == "http://h.test/root/v1/systemone"
    assert request.headers["x-team"] == "a"
    assert server.bodies()[0]["model"] == "core-latest"
    assert request.extensions["timeout"] == {"connect": 1.0, "read": 7.0, "write": 7.0, "pool": 7.0}
    assert twin.client.model == "core-latest" and twin.client.base_url == "http://h.test/root"


async def test_settings_from_environment(twin: Twin, server: FakeServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SERVICE_BASE_URL", "http://env.test/")
    monkeypatch.setenv("SERVICE_API_KEY", "  sq_env_key \n")
    monkeypatch.setenv("TYPESAFE_API_KEY", "ts_old_key")  # the earlier service's key is never read
    twin.make(api_key=None, base_url=None)
    await twin.system_one("x", QUESTIONS)
    assert str(server.requests[-1].url) == "http://env.test/v1/systemone"
    assert server.requests[-1].headers["authorization"] == "Bearer sq_env_key"
    # explicit arguments win
    twin.make(api_key="sq_explicit", base_url="http://arg.test")
    await twin.system_one("x", QUESTIONS)
    assert str(server.requests[-1].url) == "http://arg.test/v1/systemone"
    assert server.requests[-1].headers["authorization"] == "Bearer sq_explicit"
    # blank env values are ignored
    monkeypatch.setenv("SERVICE_BASE_URL", "   ")
    twin.make(api_key=None, base_url=None)
    assert twin.client.base_url == "http://localhost:8080"


@pytest.mark.parametrize("key", [None, "", "   ", "has space", "tab\tkey", "kéy", "ctl\x01"])
def test_api_key_is_validated_early(key: str | None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SERVICE_API_KEY", "  ")
    for cls in (structqa.Client, structqa.AsyncClient):
        with pytest.raises(StructqaError):
            cls(api_key=key)


def test_constructor_checks() -> None:
    with pytest.raises(ValueError):
        structqa.Client(api_key="k", transport=httpx.MockTransport(lambda r: ok()), http_client=httpx.Client())
    with pytest.raises(StructqaError):
        structqa.Client(api_key="k", timeout=0)
    with pytest.raises(TypeError):
        structqa.Client("k")  # type: ignore[misc]  # keyword-only, as in the earlier SDK


@pytest.mark.parametrize(
    "questions",
    [
        {},
        {"s": structqa.Score(instructions="x", criteria=[])},
        {"s": {"type": "score", "criteria": []}},
        {"s": {"type": "score", "criteria": {"0": "low"}}},
        {"c": {"type": "choice", "criteria": ["a", "b"]}},
        {"c": {"type": "choice"}},
        {"n": {"instructions": "no type"}},
        {"n": "not a question"},
    ],
)
async def test_questions_checked_before_sending(twin: Twin, server: FakeServer, questions: dict) -> None:
    with pytest.raises(StructqaError):
        await twin.system_one("x", questions)
    assert server.requests == []


def test_question_objects() -> None:
    assert structqa.Choice("Tone?", {"a": None, "b": "bee"}).to_wire() == {
        "type": "choice", "instructions": "Tone?", "criteria": {"a": None, "b": "bee"}}
    assert structqa.Noul().to_wire() == {"type": "noul"}
    with pytest.raises(ValidationError):
        structqa.Noul(instructions="x", unknown=1)  # type: ignore[call-arg]
    with pytest.raises(ValidationError):
        structqa.Choice(instructions="x")  # type: ignore[call-arg]


# --------------------------------------------------------------------------- responses


async def test_response_accessors(twin: Twin, server: FakeServer) -> None:
    r = await twin.system_one("x", QUESTIONS)
    assert isinstance(r, SystemOneResponse)
    assert r.model == "core-0.3.20"
    assert (r.usage.input_tokens, r.usage.output_tokens, r.usage.processed_tokens) == (40, 3, 120)
    assert set(r.answers) == {"urgent", "tone", "level"}
    assert r.answers["urgent"].noul == 0.9
    assert isinstance(r.nouls["urgent"], NoulAnswer)
    tone = r.choices["tone"]
    assert isinstance(tone, ChoiceAnswer) and tone.choice == "calm" and tone.probabilities == {"calm": 0.8, "angry": 0.2}
    assert tone.confidence == 0.6
    level = r.scores["level"]
    assert isinstance(level, ScoreAnswer)
    assert level.score == 1.2 and level.legend == {0: "low", 1: "mid", 2: "high"}
    assert level.probabilities == {0: 0.1, 1: 0.6, 2: 0.3} and level.confidence == 0.7
    assert r.request_id == REQUEST_ID
    assert r.raw_http_response.status_code == 200
    assert "_raw" not in r.model_dump()


async def test_request_id_from_either_header(twin: Twin, server: FakeServer) -> None:
    server.reply(httpx.Response(200, json=answers_body(), headers={"x-typesafe-request-id": "req_" + "f" * 32}))
    r = await twin.system_one("x", QUESTIONS)
    assert r.request_id == "req_" + "f" * 32


async def test_lenient_where_the_earlier_sdk_was(twin: Twin, server: FakeServer) -> None:
    body = answers_body(extra_top="ignored")
    body.pop("usage")
    body["answers"]["future"] = {"type": "multi", "values": []}
    body["answers"]["urgent"]["stats"] = {}
    server.reply(httpx.Response(200, json=body))
    r = await twin.system_one("x", QUESTIONS)
    assert r.usage.input_tokens is None
    assert "future" not in r.answers  # an answer type this client does not know is skipped
    assert r.request_id is None


@pytest.mark.parametrize(
    ("mutate", "path"),
    [
        (lambda b: b["answers"]["tone"].pop("confidence"), "answers.tone.confidence"),
        (lambda b: b["answers"]["urgent"].update(noul="high"), "answers.urgent.noul"),
        (lambda b: b.pop("model"), "model"),
        (lambda b: b["answers"].update(bad=["x"]), "answers.bad.type"),
    ],
)
async def test_malformed_success_body(twin: Twin, server: FakeServer, mutate, path: str) -> None:
    body = answers_body()
    mutate(body)
    server.reply(httpx.Response(200, json=body))
    with pytest.raises(APIResponseValidationError) as caught:
        await twin.system_one("x", QUESTIONS)
    assert caught.value.field_path == path
    assert len(server.requests) == 1  # not retried


async def test_response_model(twin: Twin, server: FakeServer) -> None:
    class Mine(BaseModel):
        model: str
        answers: dict

    r = await twin.system_one("x", QUESTIONS, response_model=Mine)
    assert isinstance(r, Mine) and r.model == "core-0.3.20"


async def test_models_list(twin: Twin, server: FakeServer) -> None:
    server.reply(
        httpx.Response(200, headers={"x-request-id": REQUEST_ID}, json={"models": [
            {"name": "legacy-latest", "description": "alias", "release_date": "2026-09-15", "kind": "alias"},
            {"name": "core-0.3.20", "description": "English", "release_date": "2026-09-15"},
        ]})
    )
    models = await twin.models_list()
    assert models.names == ["legacy-latest", "core-0.3.20"]
    assert models.models[0].release_date == "2026-09-15"
    assert models.models[0].model_extra == {"kind": "alias"}
    assert models.request_id == REQUEST_ID
    request = server.requests[0]
    assert request.method == "GET" and str(request.url) == "http://structqa.test/v1/models"
    assert request.content == b"" and "idempotency-key" not in request.headers


async def test_usage(twin: Twin, server: FakeServer) -> None:
    server.reply(httpx.Response(200, json={
        "account": {"id": "acc_1", "name": "demo"}, "period": "2026-11", "resets_at": "2026-12-01T00:00:00.000Z",
        "allowance": 1_000_000, "used": 1200, "reserved": 0, "remaining": 998_800, "requests": 3,
        "by_day": [{"date": "2026-11-22", "processed_tokens": 1200, "requests": 3, "by_model": {"core-0.3.20": 1200}}],
        "by_model": [{"model": "core-0.3.20", "processed_tokens": 1200, "requests": 3}],
        "limits": {"monthly_allowance": 1_000_000, "requests_per_second": 5, "processed_tokens_per_second": 20000, "in_flight": 4},
        "usage_view": "/app/usage", "future_field": 1}))
    usage = await twin.usage()
    assert (usage.allowance, usage.used, usage.remaining, usage.resets_at) == (1_000_000, 1200, 998_800, "2026-12-01T00:00:00.000Z")
    assert usage.by_day[0].by_model == {"core-0.3.20": 1200}
    assert usage.by_model[0].model == "core-0.3.20" and usage.limits is not None and usage.limits.in_flight == 4
    assert usage.account is not None and usage.account.name == "demo"
    assert usage.future_field == 1  # type: ignore[attr-defined]
    assert str(server.requests[0].url) == "http://structqa.test/v1/usage"
    assert server.requests[0].headers["authorization"] == "Bearer sq_test_key"
    await twin.usage(month="2026-10")
    assert str(server.requests[1].url) == "http://structqa.test/v1/usage?month=2026-10"


# --------------------------------------------------------------------------- retries


async def test_retry_honours_retry_after_ms(twin: Twin, server: FakeServer, clock: FakeClock) -> None:
    server.reply(error(429, "rate_limited", retry_after_ms="250", retry_after="1"), ok())
    r = await twin.system_one("x", QUESTIONS)
    assert r.model == "core-0.3.20"
    assert clock.sleeps == [0.25]
    assert len(server.requests) == 2
    assert server.requests[1].headers["x-retry-count"] == "1"


async def test_retry_honours_retry_after_seconds(twin: Twin, server: FakeServer, clock: FakeClock) -> None:
    server.reply(error(429, "in_flight_limit", retry_after="2"), ok())
    await twin.system_one("x", QUESTIONS)
    assert clock.sleeps == [2.0]


async def test_retry_honours_retry_after_http_date(twin: Twin, server: FakeServer, clock: FakeClock) -> None:
    when = datetime.fromtimestamp(clock.time() + 3, timezone.utc)
    server.reply(error(429, "rate_limited", retry_after=format_datetime(when, usegmt=True)), ok())
    await twin.system_one("x", QUESTIONS)
    assert clock.sleeps == [3.0]


async def test_529_then_success(twin: Twin, server: FakeServer, clock: FakeClock) -> None:
    server.reply(error(529, "starting", retry_after="1", retry_after_ms="1000"), ok())
    r = await twin.system_one("x", QUESTIONS)
    assert r.answers["urgent"].noul == 0.9
    assert clock.sleeps == [1.0]


async def test_server_delay_over_60s_falls_back_to_backoff(twin: Twin, server: FakeServer, clock: FakeClock) -> None:
    server.reply(error(529, "overloaded", retry_after="300"), ok())
    await twin.system_one("x", QUESTIONS)
    assert clock.sleeps == [0.5]


async def test_backoff_when_no_delay_given_then_gives_up(twin: Twin, server: FakeServer, clock: FakeClock) -> None:
    server.reply(error(529, "overloaded"))  # repeats
    with pytest.raises(OverloadedError):
        await twin.system_one("x", QUESTIONS)
    assert len(server.requests) == 3  # 1 + max_retries (2)
    assert clock.sleeps == [0.5, 1.0]


async def test_jitter_takes_off_up_to_a_quarter(twin: Twin, server: FakeServer, clock: FakeClock) -> None:
    clock.draw = 1.0
    server.reply(error(500, "internal_error"), ok())
    await twin.system_one("x", QUESTIONS)
    assert clock.sleeps == [0.375]


@pytest.mark.parametrize(
    ("status", "code"),
    [(402, "allowance_exhausted"), (400, "invalid_json"), (401, "invalid_api_key"), (413, "state_too_long"), (422, "invalid_request"), (404, "not_found")],
)
async def test_4xx_never_retried(twin: Twin, server: FakeServer, clock: FakeClock, status: int, code: str) -> None:
    server.reply(error(status, code, retry_after_ms="10"), ok())
    with pytest.raises(structqa.APIError) as caught:
        await twin.system_one("x", QUESTIONS)
    assert caught.value.status == status
    assert len(server.requests) == 1 and clock.sleeps == []


async def test_402_not_retried(twin: Twin, server: FakeServer, clock: FakeClock) -> None:
    server.reply(error(402, "allowance_exhausted", extra={"resets_at": "2026-12-01T00:00:00Z"}, retry_after="5"), ok())
    with pytest.raises(AllowanceExhaustedError) as caught:
        await twin.system_one("x", QUESTIONS)
    assert caught.value.resets_at == "2026-12-01T00:00:00Z"
    assert len(server.requests) == 1 and clock.sleeps == []


async def test_408_retried(twin: Twin, server: FakeServer, clock: FakeClock) -> None:
    server.reply(httpx.Response(408), ok())
    await twin.system_one("x", QUESTIONS)
    assert len(server.requests) == 2


async def test_connection_error_then_success(twin: Twin, server: FakeServer, clock: FakeClock) -> None:
    server.reply(httpx.ConnectError("refused"), ok())
    r = await twin.system_one("x", QUESTIONS)
    assert r.request_id == REQUEST_ID
    assert clock.sleeps == [0.5]


async def test_timeouts_exhausted(twin: Twin, server: FakeServer, clock: FakeClock) -> None:
    server.reply(httpx.ReadTimeout("slow"))
    with pytest.raises(APITimeoutError) as caught:
        await twin.system_one("x", QUESTIONS)
    assert caught.value.timeout == 10.0
    assert len(server.requests) == 3


async def test_connection_errors_not_retried_when_disabled(twin: Twin, server: FakeServer) -> None:
    server.reply(httpx.ConnectError("refused"))
    with pytest.raises(APIConnectionError):
        await twin.system_one("x", QUESTIONS, retry=RetryPolicy(api_connection_error=False))
    assert len(server.requests) == 1


async def test_client_level_retry_policy(twin: Twin, server: FakeServer, clock: FakeClock) -> None:
    twin.make(retry=RetryPolicy(max_retries=0))
    server.reply(error(529, "overloaded"), ok())
    with pytest.raises(OverloadedError):
        await twin.system_one("x", QUESTIONS)
    assert len(server.requests) == 1


async def test_idempotency_key_reused_across_retries(twin: Twin, server: FakeServer) -> None:
    server.reply(error(529, "overloaded", retry_after_ms="1"), error(429, "rate_limited", retry_after_ms="1"), ok())
    await twin.system_one("x", QUESTIONS)
    keys = {r.headers["idempotency-key"] for r in server.requests}
    bodies = {r.content for r in server.requests}
    assert len(server.requests) == 3 and len(keys) == 1 and len(bodies) == 1
    # a new call gets a new key; a caller's key is used as given
    await twin.system_one("x", QUESTIONS)
    assert server.requests[3].headers["idempotency-key"] not in keys
    await twin.system_one("x", QUESTIONS, idempotency_key="order-42")
    assert server.requests[4].headers["idempotency-key"] == "order-42"
    await twin.system_one("x", QUESTIONS, extra_headers={"Idempotency-Key": "from-header"})
    assert server.requests[5].headers["idempotency-key"] == "from-header"


async def test_retried_error_keeps_request_id_and_delay(twin: Twin, server: FakeServer) -> None:
    server.reply(error(429, "rate_limited", retry_after_ms="700"))
    with pytest.raises(RateLimitError) as caught:
        await twin.system_one("x", QUESTIONS, retry=RetryPolicy(max_retries=1))
    assert caught.value.retry_after_ms == 700.0
    assert caught.value.request_id == REQUEST_ID
    assert caught.value.code == "rate_limited"


# --------------------------------------------------------------------------- deadline


async def test_deadline_stops_retries(twin: Twin, server: FakeServer, clock: FakeClock) -> None:
    server.reply(error(529, "overloaded", retry_after_ms="2000"))
    with pytest.raises(DeadlineExceededError) as caught:
        await twin.system_one("x", QUESTIONS, deadline=3.0, retry=RetryPolicy(max_retries=10))
    assert isinstance(caught.value.last_error, OverloadedError)
    assert len(server.requests) == 2  # t=0, t=2; the next wait would reach t=4 > 3
    assert clock.sleeps == [2.0]


async def test_deadline_cuts_the_attempt_timeout(twin: Twin, server: FakeServer, clock: FakeClock) -> None:
    server.took = 1.5
    server.reply(error(503, "unavailable", retry_after_ms="500"), ok())
    await twin.system_one("x", QUESTIONS, deadline=4.0)
    assert server.requests[0].extensions["timeout"]["read"] == 4.0
    assert server.requests[1].extensions["timeout"]["read"] == pytest.approx(2.0)  # 4 - 1.5 - 0.5


async def test_deadline_as_datetime(twin: Twin, server: FakeServer, clock: FakeClock) -> None:
    deadline = datetime.fromtimestamp(clock.time(), timezone.utc) + timedelta(seconds=1)
    server.reply(error(529, "overloaded", retry_after_ms="1500"))
    with pytest.raises(DeadlineExceededError):
        await twin.system_one("x", QUESTIONS, deadline=deadline)
    assert len(server.requests) == 1


async def test_deadline_already_passed_sends_nothing(twin: Twin, server: FakeServer) -> None:
    with pytest.raises(DeadlineExceededError):
        await twin.system_one("x", QUESTIONS, deadline=0)
    assert server.requests == []


async def test_timeout_at_the_deadline(twin: Twin, server: FakeServer, clock: FakeClock) -> None:
    def slow(request: httpx.Request) -> httpx.Response:
        clock.advance(2.0)
        raise httpx.ReadTimeout("slow", request=request)

    server.reply(slow)
    with pytest.raises(DeadlineExceededError) as caught:
        await twin.system_one("x", QUESTIONS, deadline=2.0)
    assert isinstance(caught.value.last_error, APITimeoutError)
    assert len(server.requests) == 1


async def test_policy_budget_reraises_last_error(twin: Twin, server: FakeServer, clock: FakeClock) -> None:
    server.took = 4.0
    server.reply(error(529, "overloaded", retry_after_ms="2000"))
    with pytest.raises(OverloadedError):
        await twin.system_one("x", QUESTIONS, retry=RetryPolicy(max_retries=10, timeout=10.0))
    assert len(server.requests) == 2  # t=4 (+2 wait), t=10: the next wait reaches the 10 s budget


# --------------------------------------------------------------------------- lifecycle


def test_sync_context_manager_closes() -> None:
    with structqa.Client(api_key="k", transport=httpx.MockTransport(lambda r: ok())) as client:
        client.system_one("x", QUESTIONS)
    assert client._http.is_closed


async def test_async_context_manager_closes() -> None:
    async with structqa.AsyncClient(api_key="k", transport=httpx.MockTransport(lambda r: ok())) as client:
        await client.system_one("x", QUESTIONS)
    assert client._http.is_closed


def test_given_http_client_is_used_and_closed() -> None:
    http = httpx.Client(transport=httpx.MockTransport(lambda r: ok()))
    with structqa.TypeSafeClient(api_key="k", http_client=http) as client:
        assert client.system_one("x", QUESTIONS).model == "core-0.3.20"
    assert http.is_closed
