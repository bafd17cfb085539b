"""Test helpers: a fake clock, canned replies, a fake server for ``httpx.MockTransport`` and the
sync/async twin wrapper (the fixtures that use them are in ``conftest.py``)."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx
import structqa
from structqa._core import Clock

REQUEST_ID = "req_" + "0123456789abcdef" * 2


class FakeClock(Clock):
    """Time stands still except when the client sleeps; sleeps are recorded, never waited."""

    def __init__(self, start_wall: float = 1_800_000_000.0, draw: float = 0.0) -> None:
        self.now = 0.0
        self.start_wall = start_wall
        self.draw = draw
        self.sleeps: list[float] = []

    def monotonic(self) -> float:
        return self.now

    def time(self) -> float:
        return self.start_wall + self.now

    def random(self) -> float:
        return self.draw

    def advance(self, seconds: float) -> None:
        self.now += seconds

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(round(seconds, 6))
        self.now += seconds

    async def asleep(self, seconds: float) -> None:
        self.sleep(seconds)


def answers_body(model: str = "core-0.3.20", **extra: Any) -> dict[str, Any]:
    return {
        "model": model,
        "answers": {
            "urgent": {"type": "noul", "noul": 0.9},
            "tone": {"type": "choice", "choice": "calm", "probabilities": {"calm": 0.8, "angry": 0.2}, "confidence": 0.6},
            "level": {
                "type": "score",
                "score": 1.2,
                "legend": {"0": "low", "1": "mid", "2": "high"},
                "probabilities": {"0": 0.1, "1": 0.6, "2": 0.3},
                "confidence": 0.7,
            },
        },
        "usage": {"input_tokens": 40, "output_tokens": 3, "processed_tokens": 120},
        **extra,
    }


QUESTIONS = {
    "urgent": structqa.Noul(instructions="Is it urgent?"),
    "tone": structqa.Choice(instructions="Tone?", criteria={"calm": None, "angry": None}),
    "level": structqa.Score(instructions="Level?", criteria=["low", "mid", "high"]),
}


def ok(body: dict[str, Any] | None = None, status: int = 200, **headers: str) -> httpx.Response:
    return httpx.Response(status, json=answers_body() if body is None else body, headers={"x-request-id": REQUEST_ID, **headers})


def error(status: int, code: str, message: str = "nope", extra: dict[str, Any] | None = None, **headers: str) -> httpx.Response:
    body = {"detail": {"error_type": code, "message": message, **(extra or {})}}
    hdrs = {"x-service-error-code": code, "x-request-id": REQUEST_ID, "x-typesafe-request-id": REQUEST_ID}
    hdrs.update({k.replace("_", "-"): v for k, v in headers.items()})
    return httpx.Response(status, json=body, headers=hdrs)


Reply = httpx.Response | BaseException | Callable[[httpx.Request], httpx.Response]


@dataclass
class FakeServer:
    """Replies in order (the last one repeats); records every request."""

    replies: list[Reply] = field(default_factory=list)
    requests: list[httpx.Request] = field(default_factory=list)
    clock: FakeClock | None = None
    took: float = 0.0
    """Seconds each request takes on the fake clock."""

    def reply(self, *replies: Reply) -> FakeServer:
        self.replies.extend(replies)
        return self

    def handle(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        if self.clock is not None and self.took:
            self.clock.advance(self.took)
        if not self.replies:
            return ok()
        reply = self.replies.pop(0) if len(self.replies) > 1 else self.replies[0]
        if isinstance(reply, BaseException):
            raise reply
        if callable(reply) and not isinstance(reply, httpx.Response):
            return reply(request)
        return reply

    def bodies(self) -> list[Any]:
        return [json.loads(r.content) if r.content else None for r in self.requests]


class Twin:
    """One face over ``Client`` and ``AsyncClient``: every method is awaitable."""

    def __init__(self, kind: str, transport: httpx.MockTransport, clock: FakeClock) -> None:
        self.kind = kind
        self.transport = transport
        self.clock = clock
        self.client: Any = None

    def make(self, **kwargs: Any) -> Twin:
        kwargs.setdefault("api_key", "sq_test_key")
        kwargs.setdefault("base_url", "http://structqa.test")
        if "http_client" not in kwargs:
            kwargs.setdefault("transport", self.transport)
        cls = structqa.Client if self.kind == "sync" else structqa.AsyncClient
        self.client = cls(_clock=self.clock, **kwargs)
        return self

    async def _call(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        result = fn(*args, **kwargs)
        return await result if self.kind == "async" else result

    async def system_one(self, *args: Any, **kwargs: Any) -> Any:
        return await self._call(self.client.system_one, *args, **kwargs)

    async def models_list(self, **kwargs: Any) -> Any:
        return await self._call(self.client.models.list, **kwargs)

    async def usage(self, **kwargs: Any) -> Any:
        return await self._call(self.client.usage, **kwargs)

    async def ask_in_chunks(self, *args: Any, **kwargs: Any) -> Any:
        fn = structqa.ask_in_chunks if self.kind == "sync" else structqa.ask_in_chunks_async
        return await self._call(fn, self.client, *args, **kwargs)

    async def close(self) -> None:
        await self._call(self.client.close)
