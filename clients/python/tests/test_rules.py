"""The retry and deadline rules as tables (pure functions, fake time passed in)."""

from __future__ import annotations

from datetime import datetime, timezone
from email.utils import format_datetime

import httpx
import pytest
from structqa import RetryPolicy
from structqa._exceptions import APIConnectionError, APITimeoutError, StructqaError, api_error
from structqa._headers import parse_retry_after_ms
from structqa._retry import attempt_timeout, backoff_delay, decide, is_retryable, server_delay

NOW = 1_800_000_000.0  # wall clock, seconds since the epoch


def http_date(offset: float) -> str:
    return format_datetime(datetime.fromtimestamp(NOW + offset, timezone.utc), usegmt=True)


@pytest.mark.parametrize(
    ("headers", "expected_ms"),
    [
        ({}, None),
        ({"retry-after-ms": "250"}, 250.0),
        ({"retry-after-ms": "0"}, 0.0),
        ({"retry-after-ms": "1.5"}, 1.5),
        ({"Retry-After-Ms": "300"}, 300.0),  # header names are case-insensitive
        ({"retry-after": "2"}, 2000.0),
        ({"retry-after": "0.5"}, 500.0),
        ({"retry-after-ms": "250", "retry-after": "9"}, 250.0),  # ms wins
        ({"retry-after-ms": "-5", "retry-after": "3"}, 3000.0),  # bad ms falls through
        ({"retry-after-ms": "soon", "retry-after": "3"}, 3000.0),
        ({"retry-after-ms": "nan"}, None),
        ({"retry-after-ms": "inf"}, None),
        ({"retry-after": "-1"}, None),
        ({"retry-after": "garbage"}, None),
        ({"retry-after": ""}, None),
        ({"retry-after": http_date(30)}, 30000.0),
        ({"retry-after": http_date(-30)}, 0.0),  # a date in the past: now
    ],
)
def test_parse_retry_after_ms(headers: dict[str, str], expected_ms: float | None) -> None:
    assert parse_retry_after_ms(httpx.Headers(headers), NOW) == expected_ms
    assert parse_retry_after_ms(headers, NOW) == expected_ms  # plain dicts too


@pytest.mark.parametrize(
    ("headers", "expected_s"),
    [
        ({"retry-after-ms": "250"}, 0.25),
        ({"retry-after": "60"}, 60.0),  # the limit itself is honoured
        ({"retry-after": "61"}, None),  # over 60 s: ignored, backoff instead
        ({"retry-after-ms": "60001"}, None),
        ({"retry-after": http_date(120)}, None),
        ({}, None),
    ],
)
def test_server_delay_caps_at_60s(headers: dict[str, str], expected_s: float | None) -> None:
    assert server_delay(headers, NOW) == expected_s


@pytest.mark.parametrize(
    ("retry_index", "draw", "expected"),
    [
        (0, 0.0, 0.5),
        (1, 0.0, 1.0),
        (2, 0.0, 2.0),
        (3, 0.0, 4.0),
        (4, 0.0, 5.0),  # capped
        (10, 0.0, 5.0),
        (500, 0.0, 5.0),  # no overflow
        (0, 1.0, 0.375),  # at most 25 % taken off
        (0, 0.5, 0.4375),
        (4, 1.0, 3.75),
    ],
)
def test_backoff_delay(retry_index: int, draw: float, expected: float) -> None:
    assert backoff_delay(retry_index, RetryPolicy(), draw) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("policy", "expected"),
    [
        (RetryPolicy(backoff_initial=0), 0.0),
        (RetryPolicy(backoff_max=0), 0.0),
        (RetryPolicy(backoff_initial=1, backoff_max=3, backoff_jitter=0), 1.0),
    ],
)
def test_backoff_delay_policies(policy: RetryPolicy, expected: float) -> None:
    assert backoff_delay(0, policy, 0.9) == expected


def err(status: int, code: str = "x", **headers: str) -> Exception:
    return api_error(status, {"detail": {"error_type": code, "message": "m"}}, {"x-service-error-code": code, **headers})


@pytest.mark.parametrize(
    ("error", "retryable"),
    [
        (err(400, "invalid_json"), False),
        (err(401, "invalid_api_key"), False),
        (err(402, "allowance_exhausted"), False),
        (err(403), False),
        (err(404), False),
        (err(408), True),
        (err(413, "state_too_long"), False),
        (err(413, "too_many_questions"), False),
        (err(422, "invalid_request"), False),
        (err(429, "rate_limited"), True),
        (err(429, "in_flight_limit"), True),
        (err(500, "internal_error"), True),
        (err(502), True),
        (err(503), True),
        (err(529, "overloaded"), True),
        (err(529, "starting"), True),
        (APIConnectionError("refused"), True),
        (APITimeoutError(10.0), True),
        (ValueError("not ours"), False),
    ],
)
def test_is_retryable_default_policy(error: Exception, retryable: bool) -> None:
    assert is_retryable(error, RetryPolicy()) is retryable


@pytest.mark.parametrize(
    ("policy", "error", "retryable"),
    [
        (RetryPolicy(api_connection_error=False), APIConnectionError("x"), False),
        (RetryPolicy(api_timeout_error=False), APITimeoutError(1.0), False),
        (RetryPolicy(api_timeout_error=False), APIConnectionError("x"), True),
        (RetryPolicy(http_statuses={429}), err(529), False),
        (RetryPolicy(http_statuses={429}), err(429), True),
        (RetryPolicy(exceptions={ValueError}), ValueError("x"), True),
        (RetryPolicy(predicate=lambda e: getattr(e, "status", 0) == 409), err(409), True),
        (RetryPolicy(predicate=lambda e: False), err(409), False),
    ],
)
def test_is_retryable_custom_policy(policy: RetryPolicy, error: Exception, retryable: bool) -> None:
    assert is_retryable(error, policy) is retryable


@pytest.mark.parametrize(
    ("configured", "remaining", "expected"),
    [
        (10.0, None, 10.0),
        (10.0, 30.0, 10.0),
        (10.0, 4.0, 4.0),
        (10.0, 0.0, None),
        (10.0, -1.0, None),
        (httpx.Timeout(10.0, connect=2.0), 5.0, httpx.Timeout(5.0, connect=2.0)),
        (httpx.Timeout(None), 3.0, httpx.Timeout(3.0)),
    ],
)
def test_attempt_timeout(configured: float | httpx.Timeout, remaining: float | None, expected: object) -> None:
    assert attempt_timeout(configured, remaining) == expected


# decide(): one row per situation. Columns: error, retries done, policy, elapsed, remaining (caller
# deadline), headers, draw → action, delay.
DEFAULT = RetryPolicy()


@pytest.mark.parametrize(
    ("error", "retries_done", "policy", "elapsed", "remaining", "headers", "action", "delay"),
    [
        # the server's delay is honoured, ms before seconds
        (err(429, "rate_limited"), 0, DEFAULT, 0.0, None, {"retry-after-ms": "250", "retry-after": "7"}, "retry", 0.25),
        (err(429, "rate_limited"), 0, DEFAULT, 0.0, None, {"retry-after": "2"}, "retry", 2.0),
        (err(529, "overloaded"), 1, DEFAULT, 3.0, None, {"retry-after": "1"}, "retry", 1.0),
        # no server delay: exponential backoff from the retry index
        (err(503), 0, DEFAULT, 0.0, None, {}, "retry", 0.5),
        (err(503), 1, DEFAULT, 0.5, None, {}, "retry", 1.0),
        (APIConnectionError("x"), 0, DEFAULT, 0.0, None, None, "retry", 0.5),
        (APITimeoutError(10.0), 1, DEFAULT, 10.0, None, None, "retry", 1.0),
        # a server delay over 60 s is ignored in favour of backoff
        (err(529, "starting"), 0, DEFAULT, 0.0, None, {"retry-after": "120"}, "retry", 0.5),
        # respect_retry_after=False
        (err(429), 0, RetryPolicy(respect_retry_after=False), 0.0, None, {"retry-after-ms": "900"}, "retry", 0.5),
        # never retried
        (err(402, "allowance_exhausted"), 0, DEFAULT, 0.0, None, {"retry-after": "1"}, "raise", 0.0),
        (err(400, "invalid_json"), 0, DEFAULT, 0.0, None, {}, "raise", 0.0),
        (err(413, "state_too_long"), 0, DEFAULT, 0.0, None, {}, "raise", 0.0),
        (err(422, "invalid_request"), 0, DEFAULT, 0.0, 100.0, {}, "raise", 0.0),
        # retries exhausted
        (err(529), 2, DEFAULT, 1.0, None, {}, "raise", 0.0),
        (err(529), 0, RetryPolicy(max_retries=0), 0.0, None, {}, "raise", 0.0),
        (err(529), 4, RetryPolicy(max_retries=5), 0.0, None, {}, "retry", 5.0),
        # the caller's deadline
        (err(529), 0, DEFAULT, 0.0, 10.0, {"retry-after-ms": "2000"}, "retry", 2.0),
        (err(529), 0, DEFAULT, 0.0, 1.5, {"retry-after-ms": "2000"}, "deadline", 2.0),
        (err(529), 0, DEFAULT, 0.0, 2.0, {"retry-after-ms": "2000"}, "deadline", 2.0),
        (err(529), 0, DEFAULT, 0.0, 0.0, {}, "deadline", 0.0),
        (err(402), 0, DEFAULT, 5.0, -1.0, {}, "deadline", 0.0),
        # the policy's own total budget (earlier SDK semantics: re-raise the last error)
        (err(529), 0, RetryPolicy(timeout=30.0), 29.0, None, {"retry-after": "2"}, "raise", 2.0),
        (err(529), 0, RetryPolicy(timeout=30.0), 27.0, None, {"retry-after": "2"}, "retry", 2.0),
        (err(529), 0, RetryPolicy(timeout=None), 1000.0, None, {"retry-after": "2"}, "retry", 2.0),
    ],
)
def test_decide(
    error: Exception,
    retries_done: int,
    policy: RetryPolicy,
    elapsed: float,
    remaining: float | None,
    headers: dict[str, str] | None,
    action: str,
    delay: float,
) -> None:
    decision = decide(
        error=error, retries_done=retries_done, policy=policy, elapsed=elapsed, remaining=remaining, headers=headers, now=NOW, draw=0.0
    )
    assert (decision.action, decision.delay) == (action, pytest.approx(delay))


def test_decide_uses_the_jitter_draw() -> None:
    decision = decide(error=err(503), retries_done=0, policy=DEFAULT, elapsed=0, remaining=None, headers={}, now=NOW, draw=1.0)
    assert decision.delay == pytest.approx(0.375)


def test_decide_http_date_against_fake_now() -> None:
    decision = decide(
        error=err(429), retries_done=0, policy=DEFAULT, elapsed=0, remaining=None, headers={"retry-after": http_date(3)}, now=NOW, draw=0.0
    )
    assert (decision.action, decision.delay) == ("retry", pytest.approx(3.0))


@pytest.mark.parametrize(
    "kwargs",
    [
        {"max_retries": -1},
        {"max_retries": 1.5},
        {"backoff_initial": -1},
        {"backoff_max": float("inf")},
        {"backoff_jitter": 1.5},
        {"timeout": 0},
        {"timeout": float("nan")},
    ],
)
def test_retry_policy_validation(kwargs: dict[str, object]) -> None:
    with pytest.raises(StructqaError):
        RetryPolicy(**kwargs)  # type: ignore[arg-type]


def test_retry_policy_defaults_match_the_earlier_sdk() -> None:
    p = RetryPolicy()
    assert (p.max_retries, p.backoff_initial, p.backoff_max, p.backoff_jitter, p.timeout) == (2, 0.5, 5.0, 0.25, 30.0)
    assert p.http_statuses == {408, 429, *range(500, 600)}
    assert p.respect_retry_after and p.api_connection_error and p.api_timeout_error
    assert p.exceptions == set() and p.predicate is None
