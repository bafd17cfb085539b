"""Fixtures: the fake clock, ``mock_transport`` (an ``httpx.MockTransport`` over a fake server) and
``twin``: every behaviour test taking ``twin`` runs once with ``Client`` and once with
``AsyncClient``; the wrapper makes both look async so one test body serves both."""

from __future__ import annotations

import httpx
import pytest
from helpers import FakeClock, FakeServer, Twin


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def mock_transport(clock: FakeClock) -> tuple[FakeServer, httpx.MockTransport]:
    """The fake server and the ``httpx.MockTransport`` that routes the client's requests to it."""
    server = FakeServer(clock=clock)
    return server, httpx.MockTransport(server.handle)


@pytest.fixture(params=["sync", "async"])
def twin(
    request: pytest.FixtureRequest, mock_transport: tuple[FakeServer, httpx.MockTransport], clock: FakeClock, clean_env: None
) -> Twin:
    """``Client`` or ``AsyncClient`` on the mock transport, with the fake clock."""
    _, transport = mock_transport
    return Twin(request.param, transport, clock).make()


@pytest.fixture
def server(mock_transport: tuple[FakeServer, httpx.MockTransport]) -> FakeServer:
    return mock_transport[0]


@pytest.fixture
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """No SERVICE_* settings leak in from the shell (restored after the test, so live tests that
    read them are unaffected)."""
    for name in ("SERVICE_BASE_URL", "SERVICE_API_KEY", "SERVICE_DEFAULT_MODEL"):
        monkeypatch.delenv(name, raising=False)
