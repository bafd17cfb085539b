"""``Client`` and ``AsyncClient``: twins over the shared core in ``_core.py``."""

from __future__ import annotations

from collections.abc import Mapping
from functools import cached_property
from types import TracebackType
from typing import Any, TypeVar, overload
from urllib.parse import urlencode

import httpx
from pydantic import BaseModel
from typing_extensions import Self

from structqa._constants import MODELS_PATH, SYSTEM_ONE_PATH, USAGE_PATH
from structqa._core import (
    SYSTEM_CLOCK,
    Clock,
    Config,
    Deadline,
    Prepared,
    Timeout,
    new_idempotency_key,
    prepare,
    run_async,
    run_sync,
)
from structqa._response import AccountUsage, ListModelsResponse, SystemOneResponse
from structqa._retry import RetryPolicy
from structqa._types import JSONContent, JSONValue, Question, questions_to_wire

ResponseT = TypeVar("ResponseT", bound=BaseModel)

__all__ = ["AsyncClient", "AsyncModels", "Client", "Models"]


def _header(headers: Mapping[str, str] | None, name: str) -> str | None:
    return httpx.Headers(headers).get(name) if headers else None


class _Base:
    """Request building shared by both clients (no I/O here)."""

    _config: Config
    _clock: Clock

    def _init(
        self,
        *,
        api_key: str | None,
        base_url: str | None,
        model: str | None,
        timeout: Timeout | None,
        retry: RetryPolicy | None,
        headers: Mapping[str, str] | None,
        transport: Any,
        http_client: Any,
        clock: Clock | None,
    ) -> None:
        if transport is not None and http_client is not None:
            raise ValueError("transport and http_client are mutually exclusive.")
        if timeout is None and http_client is not None and http_client.timeout != httpx.Timeout(5.0):
            timeout = http_client.timeout  # inherit a timeout the caller set on their own client
        self._config = Config.resolve(
            api_key=api_key, base_url=base_url, model=model, timeout=timeout, headers=headers, retry=retry
        )
        self._clock = clock or SYSTEM_CLOCK

    @property
    def base_url(self) -> str:
        return self._config.base_url

    @property
    def model(self) -> str:
        """The default model (``legacy-latest`` unless set)."""
        return self._config.model

    @property
    def timeout(self) -> Timeout:
        return self._config.timeout

    @property
    def retry(self) -> RetryPolicy:
        return self._config.retry

    def __repr__(self) -> str:
        return f"{type(self).__name__}(base_url={self._config.base_url!r}, model={self._config.model!r})"

    def _prepare_system_one(
        self,
        state: Any,
        questions: Mapping[str, Any],
        *,
        model: str | None,
        retry: RetryPolicy | None,
        timeout: Timeout | None,
        extra_headers: Mapping[str, str] | None,
        extra_body: Mapping[str, Any] | None,
        response_model: type[BaseModel] | None,
        deadline: Deadline | None,
        idempotency_key: str | None,
    ) -> Prepared[Any]:
        body: dict[str, Any] = {
            "state": state,
            "model": self._config.model if model is None else model,
            "questions": questions_to_wire(questions),
        }
        if extra_body is not None:
            body.update(extra_body)
        return prepare(
            self._config,
            "POST",
            SYSTEM_ONE_PATH,
            body=body,
            parse_as=SystemOneResponse if response_model is None else response_model,
            retry=retry,
            timeout=timeout,
            extra_headers=extra_headers,
            deadline=deadline,
            idempotency_key=idempotency_key or _header(extra_headers, "idempotency-key") or new_idempotency_key(),
            now_wall=self._clock.time(),
        )

    def _prepare_get(
        self,
        path: str,
        parse_as: Any,
        retry: RetryPolicy | None,
        timeout: Timeout | None,
        extra_headers: Mapping[str, str] | None,
        deadline: Deadline | None,
        params: Mapping[str, str] | None = None,
    ) -> Prepared[Any]:
        if params:
            path = f"{path}?{urlencode(params)}"
        return prepare(
            self._config,
            "GET",
            path,
            parse_as=parse_as,
            retry=retry,
            timeout=timeout,
            extra_headers=extra_headers,
            deadline=deadline,
            now_wall=self._clock.time(),
        )


class Client(_Base):
    """Synchronous client (also exported as ``TypeSafeClient``).

    Settings: explicit arguments, else ``SERVICE_BASE_URL`` / ``SERVICE_API_KEY`` (blank values are
    ignored); default model ``legacy-latest``; 10 s per attempt; retries per :class:`RetryPolicy`.
    """

    def __init__(
        self,
        *,
        api_key: str | None = None,
        model: str | None = None,
        retry: RetryPolicy | None = None,
        timeout: Timeout | None = None,
        headers: Mapping[str, str] | None = None,
        transport: httpx.BaseTransport | None = None,
        http_client: httpx.Client | None = None,
        base_url: str | None = None,
        _clock: Clock | None = None,
    ) -> None:
        self._init(
            api_key=api_key,
            base_url=base_url,
            model=model,
            timeout=timeout,
            retry=retry,
            headers=headers,
            transport=transport,
            http_client=http_client,
            clock=_clock,
        )
        self._http = http_client if http_client is not None else httpx.Client(transport=transport, timeout=self._config.timeout)

    @cached_property
    def models(self) -> Models:
        """``client.models.list()``."""
        return Models(self)

    @overload
    def system_one(
        self,
        state: JSONContent,
        questions: Mapping[str, Question],
        *,
        model: str | None = None,
        retry: RetryPolicy | None = None,
        timeout: Timeout | None = None,
        extra_headers: Mapping[str, str] | None = None,
        extra_body: Mapping[str, JSONValue | None] | None = None,
        response_model: None = None,
        deadline: Deadline | None = None,
        idempotency_key: str | None = None,
    ) -> SystemOneResponse: ...

    @overload
    def system_one(
        self,
        state: JSONContent,
        questions: Mapping[str, Question],
        *,
        model: str | None = None,
        retry: RetryPolicy | None = None,
        timeout: Timeout | None = None,
        extra_headers: Mapping[str, str] | None = None,
        extra_body: Mapping[str, JSONValue | None] | None = None,
        response_model: type[ResponseT],
        deadline: Deadline | None = None,
        idempotency_key: str | None = None,
    ) -> ResponseT: ...

    def system_one(
        self,
        state: JSONContent,
        questions: Mapping[str, Question],
        *,
        model: str | None = None,
        retry: RetryPolicy | None = None,
        timeout: Timeout | None = None,
        extra_headers: Mapping[str, str] | None = None,
        extra_body: Mapping[str, JSONValue | None] | None = None,
        response_model: type[BaseModel] | None = None,
        deadline: Deadline | None = None,
        idempotency_key: str | None = None,
    ) -> Any:
        """Answer named questions about ``state`` (``POST /v1/systemone``).

        Args:
            state: text, a JSON object or an array.
            questions: question name → ``Noul`` / ``Choice`` / ``Score`` or a raw dict.
            model: model or alias for this call (default: the client's).
            retry: a :class:`RetryPolicy` for this call.
            timeout: per-attempt timeout for this call, seconds or ``httpx.Timeout``.
            extra_headers: further request headers.
            extra_body: top-level body fields merged last (they can override state/model/questions).
            response_model: a Pydantic model to parse the body into instead of ``SystemOneResponse``.
            deadline: overall budget for the call, retries and waits included: seconds from now, or an
                aware ``datetime``. Past it, :class:`DeadlineExceededError` is raised.
            idempotency_key: sent as ``Idempotency-Key`` on every attempt (default: a new random key
                per call), so a retried request is charged once.
        """
        prepared = self._prepare_system_one(
            state,
            questions,
            model=model,
            retry=retry,
            timeout=timeout,
            extra_headers=extra_headers,
            extra_body=extra_body,
            response_model=response_model,
            deadline=deadline,
            idempotency_key=idempotency_key,
        )
        return run_sync(self._http, prepared, self._clock)

    # The TypeScript client's spelling, for symmetry.
    systemOne = system_one  # noqa: N815

    def usage(
        self,
        *,
        month: str | None = None,
        retry: RetryPolicy | None = None,
        timeout: Timeout | None = None,
        extra_headers: Mapping[str, str] | None = None,
        deadline: Deadline | None = None,
    ) -> AccountUsage:
        """The caller's account usage (``GET /v1/usage``); ``month`` (``YYYY-MM``) picks a past month."""
        params = {"month": month} if month else None
        prepared = self._prepare_get(USAGE_PATH, AccountUsage, retry, timeout, extra_headers, deadline, params)
        return run_sync(self._http, prepared, self._clock)

    def close(self) -> None:
        """Close the HTTP client (including one passed in)."""
        self._http.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        self.close()


class AsyncClient(_Base):
    """Asynchronous twin of :class:`Client` (also exported as ``AsyncTypeSafeClient``)."""

    def __init__(
        self,
        *,
        api_key: str | None = None,
        model: str | None = None,
        retry: RetryPolicy | None = None,
        timeout: Timeout | None = None,
        headers: Mapping[str, str] | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
        http_client: httpx.AsyncClient | None = None,
        base_url: str | None = None,
        _clock: Clock | None = None,
    ) -> None:
        self._init(
            api_key=api_key,
            base_url=base_url,
            model=model,
            timeout=timeout,
            retry=retry,
            headers=headers,
            transport=transport,
            http_client=http_client,
            clock=_clock,
        )
        self._http = (
            http_client if http_client is not None else httpx.AsyncClient(transport=transport, timeout=self._config.timeout)
        )

    @cached_property
    def models(self) -> AsyncModels:
        """``await client.models.list()``."""
        return AsyncModels(self)

    @overload
    async def system_one(
        self,
        state: JSONContent,
        questions: Mapping[str, Question],
        *,
        model: str | None = None,
        retry: RetryPolicy | None = None,
        timeout: Timeout | None = None,
        extra_headers: Mapping[str, str] | None = None,
        extra_body: Mapping[str, JSONValue | None] | None = None,
        response_model: None = None,
        deadline: Deadline | None = None,
        idempotency_key: str | None = None,
    ) -> SystemOneResponse: ...

    @overload
    async def system_one(
        self,
        state: JSONContent,
        questions: Mapping[str, Question],
        *,
        model: str | None = None,
        retry: RetryPolicy | None = None,
        timeout: Timeout | None = None,
        extra_headers: Mapping[str, str] | None = None,
        extra_body: Mapping[str, JSONValue | None] | None = None,
        response_model: type[ResponseT],
        deadline: Deadline | None = None,
        idempotency_key: str | None = None,
    ) -> ResponseT: ...

    async def system_one(
        self,
        state: JSONContent,
        questions: Mapping[str, Question],
        *,
        model: str | None = None,
        retry: RetryPolicy | None = None,
        timeout: Timeout | None = None,
        extra_headers: Mapping[str, str] | None = None,
        extra_body: Mapping[str, JSONValue | None] | None = None,
        response_model: type[BaseModel] | None = None,
        deadline: Deadline | None = None,
        idempotency_key: str | None = None,
    ) -> Any:
        """Async :meth:`Client.system_one`."""
        prepared = self._prepare_system_one(
            state,
            questions,
            model=model,
            retry=retry,
            timeout=timeout,
            extra_headers=extra_headers,
            extra_body=extra_body,
            response_model=response_model,
            deadline=deadline,
            idempotency_key=idempotency_key,
        )
        return await run_async(self._http, prepared, self._clock)

    systemOne = system_one  # noqa: N815

    async def usage(
        self,
        *,
        month: str | None = None,
        retry: RetryPolicy | None = None,
        timeout: Timeout | None = None,
        extra_headers: Mapping[str, str] | None = None,
        deadline: Deadline | None = None,
    ) -> AccountUsage:
        """The caller's account usage (``GET /v1/usage``); ``month`` (``YYYY-MM``) picks a past month."""
        params = {"month": month} if month else None
        prepared = self._prepare_get(USAGE_PATH, AccountUsage, retry, timeout, extra_headers, deadline, params)
        return await run_async(self._http, prepared, self._clock)

    async def close(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None) -> None:
        await self.close()


class Models:
    """``client.models``."""

    def __init__(self, client: Client) -> None:
        self._client = client

    def list(
        self,
        *,
        retry: RetryPolicy | None = None,
        timeout: Timeout | None = None,
        extra_headers: Mapping[str, str] | None = None,
        deadline: Deadline | None = None,
    ) -> ListModelsResponse:
        """Every model name a request may use (``GET /v1/models``)."""
        c = self._client
        return run_sync(c._http, c._prepare_get(MODELS_PATH, ListModelsResponse, retry, timeout, extra_headers, deadline), c._clock)


class AsyncModels:
    """``client.models`` of :class:`AsyncClient`."""

    def __init__(self, client: AsyncClient) -> None:
        self._client = client

    async def list(
        self,
        *,
        retry: RetryPolicy | None = None,
        timeout: Timeout | None = None,
        extra_headers: Mapping[str, str] | None = None,
        deadline: Deadline | None = None,
    ) -> ListModelsResponse:
        """Every model name a request may use (``GET /v1/models``)."""
        c = self._client
        prepared = c._prepare_get(MODELS_PATH, ListModelsResponse, retry, timeout, extra_headers, deadline)
        return await run_async(c._http, prepared, c._clock)
