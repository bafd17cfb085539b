"""Everything the sync and async clients share: settings, request building, the retry loop's
decisions and response parsing. Only the transport (and sleeping) differs between the two clients,
so each of them is a thin loop over :class:`Call`."""

from __future__ import annotations

import asyncio
import logging
import math
import os
import platform
import random
import sys
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any, Generic, TypeVar

import httpx
from pydantic_core import to_json

from structqa._constants import (
    IDEMPOTENCY_KEY_HEADER,
    LOGGER_NAME,
    RETRY_COUNT_HEADER,
    RUNTIME_HEADER,
    SDK_HEADER,
    SDK_NAME,
)
from structqa._exceptions import APIConnectionError, APIError, APITimeoutError, DeadlineExceededError, StructqaError
from structqa._headers import request_id_from
from structqa._response import parse_response
from structqa._retry import RetryPolicy, attempt_timeout, decide
from structqa._version import __version__
from structqa.constants import (
    API_KEY_ENV,
    BASE_URL_ENV,
    DEFAULT_BASE_URL,
    DEFAULT_MODEL,
    DEFAULT_MODEL_ENV,
    DEFAULT_TIMEOUT,
)

logger = logging.getLogger(LOGGER_NAME)

T = TypeVar("T")
Timeout = float | httpx.Timeout
Deadline = float | datetime
"""Seconds from the start of the call, or an absolute (timezone-aware) time."""

RUNTIME = f"python/{platform.python_version()} ({sys.platform}; {platform.machine()})"


# --------------------------------------------------------------------------- clock


class Clock:
    """Time, sleep and randomness for the retry loop. Tests substitute a fake one."""

    def monotonic(self) -> float:
        return time.monotonic()

    def time(self) -> float:
        return time.time()

    def random(self) -> float:
        return random.random()  # noqa: S311 - jitter, not cryptography

    def sleep(self, seconds: float) -> None:
        if seconds > 0:
            time.sleep(seconds)

    async def asleep(self, seconds: float) -> None:
        if seconds > 0:
            await asyncio.sleep(seconds)


SYSTEM_CLOCK = Clock()


# --------------------------------------------------------------------------- settings


def _env(name: str) -> str | None:
    value = os.environ.get(name, "").strip()
    return value or None


def resolve_api_key(api_key: str | None) -> str:
    key = (api_key if api_key is not None else _env(API_KEY_ENV) or "").strip()
    if not key:
        raise StructqaError(f"No API key was provided. Pass api_key or set the {API_KEY_ENV} environment variable.")
    if not key.isascii() or not key.isprintable() or any(c.isspace() for c in key):
        raise StructqaError("API key must contain only printable ASCII characters without whitespace.")
    return key


def resolve_timeout(timeout: Timeout) -> Timeout:
    if isinstance(timeout, httpx.Timeout):
        return timeout
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not math.isfinite(timeout) or timeout <= 0:
        raise StructqaError("timeout must be a positive, finite number of seconds.")
    return float(timeout)


@dataclass
class Config:
    api_key: str = field(repr=False)
    base_url: str
    model: str
    timeout: Timeout
    headers: httpx.Headers = field(repr=False)
    retry: RetryPolicy

    @classmethod
    def resolve(
        cls,
        *,
        api_key: str | None,
        base_url: str | None,
        model: str | None,
        timeout: Timeout | None,
        headers: Mapping[str, str] | None,
        retry: RetryPolicy | None,
    ) -> Config:
        """Explicit arguments win over ``SERVICE_*`` environment variables; blank env values are ignored."""
        if retry is not None and not isinstance(retry, RetryPolicy):
            raise StructqaError("retry must be a RetryPolicy.")
        return cls(
            api_key=resolve_api_key(api_key),
            base_url=(base_url if base_url is not None else _env(BASE_URL_ENV) or DEFAULT_BASE_URL).strip().rstrip("/"),
            model=model if model is not None else _env(DEFAULT_MODEL_ENV) or DEFAULT_MODEL,
            timeout=resolve_timeout(DEFAULT_TIMEOUT if timeout is None else timeout),
            headers=httpx.Headers(headers or {}),
            retry=retry or RetryPolicy(),
        )


# --------------------------------------------------------------------------- requests


@dataclass(frozen=True)
class Prepared(Generic[T]):
    """One logical request: sent once, and again on each retry with the same body and
    Idempotency-Key."""

    method: str
    url: str
    headers: httpx.Headers
    content: bytes | None
    timeout: Timeout
    retry: RetryPolicy
    deadline: float | None
    """Seconds from the start of the call, or ``None``."""
    parse: Callable[[httpx.Response], T]


def encode_json(body: Any) -> bytes:
    def fallback(value: Any) -> Any:
        if isinstance(value, Mapping):
            return dict(value)
        if isinstance(value, (list, tuple, set, frozenset)) or hasattr(value, "__iter__") and not isinstance(value, (str, bytes)):
            return list(value)
        raise TypeError(f"Cannot encode {type(value).__name__} as JSON")

    try:
        return to_json(body, fallback=fallback)
    except Exception as error:  # pydantic_core raises its own serialization errors
        raise StructqaError("The request body could not be encoded as JSON.") from error


def deadline_seconds(deadline: Deadline | None, now_wall: float) -> float | None:
    """Normalise a caller deadline into seconds from now."""
    if deadline is None:
        return None
    if isinstance(deadline, datetime):
        when = deadline if deadline.tzinfo is not None else deadline.replace(tzinfo=timezone.utc)
        return when.timestamp() - now_wall
    if isinstance(deadline, bool) or not isinstance(deadline, (int, float)) or math.isnan(deadline):
        raise StructqaError("deadline must be seconds (a number) or a datetime.")
    return float(deadline)


def prepare(
    config: Config,
    method: str,
    path: str,
    *,
    body: Any = None,
    parse_as: Any,
    retry: RetryPolicy | None = None,
    timeout: Timeout | None = None,
    extra_headers: Mapping[str, str] | None = None,
    deadline: Deadline | None = None,
    idempotency_key: str | None = None,
    now_wall: float | None = None,
) -> Prepared[Any]:
    headers = httpx.Headers(config.headers)
    headers.update(extra_headers or {})
    headers.pop(RETRY_COUNT_HEADER, None)
    headers.update(
        {
            "Authorization": f"Bearer {config.api_key}",
            "Accept": "application/json",
            "User-Agent": f"{SDK_NAME}/{__version__}",
            SDK_HEADER: f"{SDK_NAME}/{__version__}",
            RUNTIME_HEADER: RUNTIME,
        }
    )
    content = None
    if body is not None:
        content = encode_json(body)
        headers["Content-Type"] = "application/json"
    if idempotency_key is not None:
        headers[IDEMPOTENCY_KEY_HEADER] = idempotency_key
    if retry is not None and not isinstance(retry, RetryPolicy):
        raise StructqaError("retry must be a RetryPolicy.")
    return Prepared(
        method=method,
        url=config.base_url + path,
        headers=headers,
        content=content,
        timeout=resolve_timeout(config.timeout if timeout is None else timeout),
        retry=retry or config.retry,
        deadline=deadline_seconds(deadline, time.time() if now_wall is None else now_wall),
        parse=lambda response: parse_response(response, parse_as),
    )


def new_idempotency_key() -> str:
    return f"sq-{uuid.uuid4().hex}"


# --------------------------------------------------------------------------- the retry loop, sans I/O


@dataclass
class Step(Generic[T]):
    """The outcome of one attempt: either the parsed ``value`` or a wait before retrying."""

    done: bool
    value: Any = None
    delay: float = 0.0


class Call(Generic[T]):
    """Drives one logical request through its attempts. It never does I/O itself: the client sends
    :meth:`begin`'s request, then hands the response (or the transport error) to :meth:`on_response`
    / :meth:`on_transport_error`, which either return the result, a delay to sleep, or raise."""

    def __init__(self, prepared: Prepared[T], clock: Clock) -> None:
        self.prepared = prepared
        self.clock = clock
        self.started = clock.monotonic()
        self.attempts = 0
        self.last_error: BaseException | None = None
        self._attempt_timeout: Timeout = prepared.timeout

    # seconds before the caller's deadline, or None
    def remaining(self) -> float | None:
        if self.prepared.deadline is None:
            return None
        return self.prepared.deadline - (self.clock.monotonic() - self.started)

    def begin(self) -> tuple[httpx.Headers, Timeout]:
        """Headers and timeout for the next attempt (raises DeadlineExceededError if no time is left)."""
        timeout = attempt_timeout(self.prepared.timeout, self.remaining())
        if timeout is None:
            raise DeadlineExceededError(self.prepared.deadline, self.last_error) from self.last_error
        headers = httpx.Headers(self.prepared.headers)
        if self.attempts:
            headers[RETRY_COUNT_HEADER] = str(self.attempts)
            logger.info("%s %s retry %d", self.prepared.method, self.prepared.url, self.attempts)
        self.attempts += 1
        self._attempt_timeout = timeout
        return headers, timeout

    def on_response(self, response: httpx.Response) -> Step[T]:
        logger.info(
            "%s %s <- %s (request %s)",
            self.prepared.method,
            self.prepared.url,
            response.status_code,
            request_id_from(response.headers) or "-",
        )
        try:
            return Step(True, self.prepared.parse(response))
        except APIError as error:
            if not 200 <= error.status < 300:
                return self._failed(error, response.headers)
            raise

    def on_transport_error(self, exc: httpx.TransportError) -> Step[T]:
        logger.info("%s %s <- %s", self.prepared.method, self.prepared.url, type(exc).__name__)
        error: APIConnectionError
        if isinstance(exc, httpx.TimeoutException):
            remaining = self.remaining()
            if remaining is not None and remaining <= 0.001:
                raise DeadlineExceededError(self.prepared.deadline, APITimeoutError(self._attempt_timeout)) from exc
            error = APITimeoutError(self._attempt_timeout)
        else:
            error = APIConnectionError(f"Connection error: {type(exc).__name__}: {exc}")
        error.__cause__ = exc
        return self._failed(error, None)

    def _failed(self, error: BaseException, headers: Mapping[str, str] | None) -> Step[T]:
        self.last_error = error
        decision = decide(
            error=error,
            retries_done=self.attempts - 1,
            policy=self.prepared.retry,
            elapsed=self.clock.monotonic() - self.started,
            remaining=self.remaining(),
            headers=headers,
            now=self.clock.time(),
            draw=self.clock.random(),
        )
        if decision.action == "retry":
            return Step(False, delay=decision.delay)
        if decision.action == "deadline":
            raise DeadlineExceededError(self.prepared.deadline, error) from error
        raise error


def run_sync(http: httpx.Client, prepared: Prepared[T], clock: Clock) -> T:
    call = Call(prepared, clock)
    while True:
        headers, timeout = call.begin()
        try:
            response = http.request(prepared.method, prepared.url, content=prepared.content, headers=headers, timeout=timeout)
        except httpx.TransportError as exc:
            step = call.on_transport_error(exc)
        else:
            step = call.on_response(response)
        if step.done:
            return step.value
        clock.sleep(step.delay)


async def run_async(http: httpx.AsyncClient, prepared: Prepared[T], clock: Clock) -> T:
    call = Call(prepared, clock)
    while True:
        headers, timeout = call.begin()
        try:
            response = await http.request(
                prepared.method, prepared.url, content=prepared.content, headers=headers, timeout=timeout
            )
        except httpx.TransportError as exc:
            step = call.on_transport_error(exc)
        else:
            step = call.on_response(response)
        if step.done:
            return step.value
        await clock.asleep(step.delay)
