"""Retry and deadline rules, as small pure functions.

Nothing here reads a clock, sleeps or draws a random number: the caller passes ``now``, the elapsed
time and the random draw in, so every rule is tested by a table (tests/test_rules.py). The sync and
async clients both drive their loops through :func:`decide` (see ``_core.py``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Literal

import httpx

from structqa._exceptions import APIConnectionError, APIError, APITimeoutError, StructqaError
from structqa._headers import parse_retry_after_ms
from structqa.constants import MAX_SERVER_RETRY_DELAY

__all__ = ["RetryDecision", "RetryPolicy", "attempt_timeout", "backoff_delay", "decide", "is_retryable", "server_delay"]


@dataclass(frozen=True)
class RetryPolicy:
    """How a call is retried. ``RetryPolicy(max_retries=0)`` disables retries.

    The fields and defaults are those of the earlier SDK's ``RetryPolicy``.
    """

    max_retries: int = 2
    """Retries after the first attempt."""
    backoff_initial: float = 0.5
    """First backoff delay in seconds, doubled on each retry up to ``backoff_max``."""
    backoff_max: float = 5.0
    """Largest backoff delay in seconds."""
    backoff_jitter: float = 0.25
    """Fraction of each backoff delay randomly taken off (0..1)."""
    http_statuses: set[int] = field(default_factory=lambda: {408, 429, *range(500, 600)})
    """Statuses that are retried. 402 and other 4xx are never in it by default."""
    respect_retry_after: bool = True
    """Honour ``retry-after-ms`` then ``Retry-After`` (delays over 60 s fall back to backoff)."""
    api_connection_error: bool = True
    """Retry when no response arrived."""
    api_timeout_error: bool = True
    """Retry when an attempt timed out."""
    exceptions: set[type[BaseException]] = field(default_factory=set)
    """Further exception types to retry."""
    predicate: Callable[[BaseException], bool] | None = None
    """Called with the error; ``True`` retries it too."""
    timeout: float | None = 30.0
    """Total budget in seconds for the call, attempts and waits included; ``None`` = no budget.
    A retry whose wait would reach the budget is not made and the last error is raised."""

    def __post_init__(self) -> None:
        if not isinstance(self.max_retries, int) or isinstance(self.max_retries, bool) or self.max_retries < 0:
            raise StructqaError("max_retries must be a non-negative integer.")
        for name in ("backoff_initial", "backoff_max"):
            value = getattr(self, name)
            if not isinstance(value, (int, float)) or not math.isfinite(value) or value < 0:
                raise StructqaError(f"{name} must be a non-negative, finite number of seconds.")
        if not 0 <= self.backoff_jitter <= 1:
            raise StructqaError("backoff_jitter must be between zero and one.")
        if self.timeout is not None and (not math.isfinite(self.timeout) or self.timeout <= 0):
            raise StructqaError("timeout must be a positive, finite number of seconds.")


def is_retryable(error: BaseException, policy: RetryPolicy) -> bool:
    """Whether ``error`` may be retried under ``policy`` (ignoring counts and time)."""
    if isinstance(error, APITimeoutError):
        builtin = policy.api_timeout_error
    elif isinstance(error, APIConnectionError):
        builtin = policy.api_connection_error
    elif isinstance(error, APIError):
        builtin = error.status in policy.http_statuses
    else:
        builtin = False
    if builtin:
        return True
    if policy.exceptions and isinstance(error, tuple(policy.exceptions)):
        return True
    return policy.predicate is not None and bool(policy.predicate(error))


def backoff_delay(retry_index: int, policy: RetryPolicy, draw: float) -> float:
    """Seconds to wait before retry number ``retry_index`` (0 = first retry) when the server gave no delay.

    ``min(backoff_initial · 2^retry_index, backoff_max)`` minus up to ``backoff_jitter`` of it;
    ``draw`` in [0, 1) is the random draw (0 = no jitter taken off).
    """
    if policy.backoff_initial <= 0 or policy.backoff_max <= 0:
        return 0.0
    exponent = min(retry_index, 64)
    base = min(policy.backoff_initial * (2.0**exponent), policy.backoff_max)
    return base * (1.0 - min(max(draw, 0.0), 1.0) * policy.backoff_jitter)


def server_delay(headers: Mapping[str, str], now: float) -> float | None:
    """The server's requested delay in seconds if usable (≤ 60 s), else ``None``.

    ``now`` is wall-clock seconds since the epoch (for an HTTP-date ``Retry-After``).
    """
    ms = parse_retry_after_ms(headers, now)
    if ms is None:
        return None
    seconds = ms / 1000.0
    return seconds if seconds <= MAX_SERVER_RETRY_DELAY else None


def attempt_timeout(
    configured: float | httpx.Timeout, remaining: float | None
) -> float | httpx.Timeout | None:
    """The timeout for the next attempt: the configured per-attempt timeout, cut to the time left
    before the caller's deadline. ``None`` means no time is left (do not start the attempt)."""
    if remaining is None:
        return configured
    if remaining <= 0:
        return None
    if isinstance(configured, httpx.Timeout):
        def cut(value: float | None) -> float:
            return remaining if value is None else min(value, remaining)

        return httpx.Timeout(
            connect=cut(configured.connect), read=cut(configured.read), write=cut(configured.write), pool=cut(configured.pool)
        )
    return min(configured, remaining)


Action = Literal["retry", "raise", "deadline"]


@dataclass(frozen=True)
class RetryDecision:
    """What to do after a failed attempt."""

    action: Action
    """``retry`` after :attr:`delay`; ``raise`` the error; or ``deadline``: raise DeadlineExceededError."""
    delay: float = 0.0
    """Seconds to wait before the retry."""
    reason: str = ""


def decide(
    *,
    error: BaseException,
    retries_done: int,
    policy: RetryPolicy,
    elapsed: float,
    remaining: float | None,
    headers: Mapping[str, str] | None,
    now: float,
    draw: float,
) -> RetryDecision:
    """Decide what follows a failed attempt.

    Args:
        error: the error of the attempt just made.
        retries_done: retries already made (0 after the first attempt).
        policy: the retry policy.
        elapsed: seconds since the call started (for ``policy.timeout``).
        remaining: seconds left before the caller's deadline, or ``None`` without one.
        headers: the failed response's headers (``None`` when there was no response).
        now: wall-clock seconds since the epoch (for an HTTP-date ``Retry-After``).
        draw: a random number in [0, 1) for the jitter.
    """
    if remaining is not None and remaining <= 0:
        return RetryDecision("deadline", reason="deadline passed")
    if not is_retryable(error, policy):
        return RetryDecision("raise", reason="not retryable")
    if retries_done >= policy.max_retries:
        return RetryDecision("raise", reason="retries exhausted")
    delay = server_delay(headers, now) if (headers is not None and policy.respect_retry_after) else None
    reason = "server delay"
    if delay is None:
        delay = backoff_delay(retries_done, policy, draw)
        reason = "backoff"
    if remaining is not None and delay >= remaining:
        return RetryDecision("deadline", delay, reason=f"{reason} {delay:.3f}s reaches the deadline")
    if policy.timeout is not None and elapsed + delay >= policy.timeout:
        return RetryDecision("raise", delay, reason=f"{reason} {delay:.3f}s reaches the retry budget")
    return RetryDecision("retry", delay, reason=reason)
