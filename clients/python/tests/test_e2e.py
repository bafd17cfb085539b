"""End-to-end: the Python client (``Client`` and ``AsyncClient``, as twins) against the real service.

The service runs as a child process (``node service/bin/structqa.js serve``) on a free port with a
temporary data folder and the fixture checkpoints (random weights: these tests prove mechanics, not
answer quality). One server per module answers most tests; the start-up test starts its own servers
held in ``starting`` (529) until the checkpoints are copied in.

Every error code of contract §6 a request can produce is checked through the client, except
500 ``internal_error``: only a bug in the service produces it, so it cannot be caused on purpose (its
mapping to ``InternalServerError`` is covered by test_errors.py against the fake server). 529
``overloaded`` (queue full) is not forced either: it needs the batch queue saturated, which depends
on machine speed; it shares its class and retry path with ``starting``.

Skipped when ``node`` is not on PATH. The checkpoints are built into service/.cache/fixtures when
missing (``structqa fixtures build``).
"""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import socket
import subprocess
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
import helpers
import structqa
from structqa import (
    AllowanceExhaustedError,
    AuthenticationError,
    BadRequestError,
    Choice,
    Noul,
    OverloadedError,
    PayloadTooLargeError,
    PermissionDeniedError,
    ProcessedTokenCapError,
    RateLimitError,
    RetryPolicy,
    Score,
    StateTooLongError,
    TooManyQuestionsError,
    UnprocessableEntityError,
)
from structqa._exceptions import api_error

NODE = shutil.which("node")
pytestmark = pytest.mark.skipif(NODE is None, reason="needs node to run the service")

REPO = Path(__file__).resolve().parents[3]
BIN = REPO / "service" / "bin" / "structqa.js"
FIXTURES = REPO / "service" / ".cache" / "fixtures"
CHECKPOINTS = ("fixture-en", "fixture-multilingual")
ADMIN_TOKEN = "e2e-admin-token-0123456789abcdef"
REQUEST_ID = re.compile(r"^req_[0-9a-f]{32}$")
NO_RETRY = RetryPolicy(max_retries=0)


# ---------------------------------------------------------------------------------------------------
# The live server


def ensure_fixtures() -> Path:
    """Build the fixture checkpoints into service/.cache/fixtures unless they are there."""
    if all((FIXTURES / name / "manifest.json").exists() for name in CHECKPOINTS):
        return FIXTURES
    FIXTURES.parent.mkdir(parents=True, exist_ok=True)
    build = Path(tempfile.mkdtemp(prefix="fixtures-build-", dir=FIXTURES.parent))
    subprocess.run([NODE, str(BIN), "fixtures", "build", "--out", str(build)], check=True, cwd=REPO, timeout=600)
    FIXTURES.mkdir(exist_ok=True)
    for entry in build.iterdir():
        target = FIXTURES / entry.name
        if not target.exists():
            entry.rename(target)  # whole folders, so a concurrent reader never sees half of one
    shutil.rmtree(build, ignore_errors=True)
    return FIXTURES


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class LiveServer:
    """``structqa serve`` in a child process; mirrors service/test/helpers/server.ts."""

    def __init__(self, *, hold_starting: bool = False, env: dict[str, str] | None = None) -> None:
        models = ensure_fixtures()
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.data_dir = Path(tempfile.mkdtemp(prefix="structqa-e2e-py-"))
        self.pending = self.data_dir / "models-pending"
        full_env = {
            **os.environ,
            "PORT": str(self.port),
            "HOST": "127.0.0.1",
            "STRUCTQA_DATA_DIR": str(self.data_dir),
            # Held: an empty models folder, so the service listens but answers 529 `starting`.
            "STRUCTQA_MODELS_DIR": str(self.pending if hold_starting else models),
            "STRUCTQA_ENGLISH_DIR": "fixture-en",
            "STRUCTQA_MULTILINGUAL_DIR": "fixture-multilingual",
            "STRUCTQA_BUILD_FIXTURES": "0",
            "STRUCTQA_ADMIN_TOKEN": ADMIN_TOKEN,
            "LOG_LEVEL": "warn",
            **(env or {}),
        }
        self._log = open(self.data_dir / "server.log", "w+b")  # noqa: SIM115 (closed in stop())
        self.process = subprocess.Popen(
            [NODE, str(BIN), "serve"], env=full_env, cwd=REPO, stdout=self._log, stderr=subprocess.STDOUT
        )
        try:
            self._wait("/livez", 60, "listening")
            key_file = self.data_dir / "first-api-key.txt"
            match = re.search(r"sqa_live_[A-Za-z0-9]+", key_file.read_text()) if key_file.exists() else None
            self.first_key = match.group(0) if match else ""
        except BaseException:
            self.stop()
            raise

    def output(self) -> str:
        self._log.flush()
        return (self.data_dir / "server.log").read_text(errors="replace")

    def _wait(self, path: str, timeout: float, what: str) -> None:
        until = time.monotonic() + timeout
        while time.monotonic() < until:
            if self.process.poll() is not None:
                raise RuntimeError(f"server exited ({self.process.returncode}) before {what}:\n{self.output()}")
            try:
                if httpx.get(self.url + path, timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.1)
        raise RuntimeError(f"server not {what} within {timeout} s:\n{self.output()}")

    def wait_ready(self, timeout: float = 120) -> None:
        self._wait("/readyz", timeout, "ready")

    def create_key(self, **limits: int) -> str:
        """A new key of a new account with these limits (admin route)."""
        r = httpx.post(
            self.url + "/admin/keys",
            headers={"authorization": f"Bearer {ADMIN_TOKEN}"},
            json={"account": f"acct-{uuid.uuid4().hex[:10]}", "create_account": True, **limits},
            timeout=10,
        )
        assert r.status_code == 201, f"admin key creation failed: {r.status_code} {r.text}"
        return str(r.json()["key"])

    def install_checkpoints(self) -> None:
        """Copy the fixtures aside, then move each folder in whole, so the service never loads half a copy."""
        staging = self.data_dir / "models-staging"
        self.pending.mkdir(parents=True, exist_ok=True)
        for name in CHECKPOINTS:
            shutil.copytree(FIXTURES / name, staging / name)
            (staging / name).rename(self.pending / name)

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
        self._log.close()
        shutil.rmtree(self.data_dir, ignore_errors=True)


@pytest.fixture(scope="module")
def server() -> Iterator[LiveServer]:
    s = LiveServer()
    try:
        s.wait_ready()
        yield s
    finally:
        s.stop()


# ---------------------------------------------------------------------------------------------------
# Sync and async twins


class Hook:
    """Sees every request a client sends: records it, may rewrite it, may "lose" the first POST's
    response (the request reached the service and was answered; the answer never came back)."""

    def __init__(self, rewrite: Callable[[httpx.Request], httpx.Request] | None = None, lose_first_post: bool = False) -> None:
        self.rewrite = rewrite
        self.lose_first_post = lose_first_post
        self.requests: list[httpx.Request] = []
        self.lost = 0

    def before(self, request: httpx.Request) -> httpx.Request:
        if self.rewrite is not None:
            request = self.rewrite(request)
        self.requests.append(request)
        return request

    def should_lose(self, request: httpx.Request) -> bool:
        if self.lose_first_post and request.method == "POST" and self.lost == 0:
            self.lost += 1
            return True
        return False

    def sync_transport(self) -> httpx.HTTPTransport:
        hook = self

        class Transport(httpx.HTTPTransport):
            def handle_request(self, request: httpx.Request) -> httpx.Response:
                request = hook.before(request)
                response = super().handle_request(request)
                if hook.should_lose(request):
                    response.read()
                    response.close()
                    raise httpx.ReadError("connection reset (simulated)", request=request)
                return response

        return Transport()

    def async_transport(self) -> httpx.AsyncHTTPTransport:
        hook = self

        class Transport(httpx.AsyncHTTPTransport):
            async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
                request = hook.before(request)
                response = await super().handle_async_request(request)
                if hook.should_lose(request):
                    await response.aread()
                    await response.aclose()
                    raise httpx.ReadError("connection reset (simulated)", request=request)
                return response

        return Transport()


def rebuilt(request: httpx.Request, *, content: bytes | None = None, drop: tuple[str, ...] = ()) -> httpx.Request:
    """A copy of ``request`` with another body and/or without some headers."""
    body = request.read() if content is None else content
    skip = {"content-length", *(h.lower() for h in drop)}
    headers = [(k, v) for k, v in request.headers.multi_items() if k.lower() not in skip]
    return httpx.Request(request.method, request.url, headers=headers, content=body)


class Twin(helpers.Twin):
    """One face over ``Client`` and ``AsyncClient`` (the delegation of helpers.Twin). Sync calls run in a
    worker thread so that concurrent calls (in-flight limit, start-up) overlap for both kinds."""

    # a live server: no fake transport or clock, so helpers.Twin.__init__ is not used
    def __init__(self, kind: str, **kwargs: Any) -> None:
        self.kind = kind
        hook: Hook | None = kwargs.pop("hook", None)
        if hook is not None:
            kwargs["transport"] = hook.sync_transport() if kind == "sync" else hook.async_transport()
        cls = structqa.Client if kind == "sync" else structqa.AsyncClient
        self.client: Any = cls(**kwargs)

    async def _call(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
        if self.kind == "async":
            return await fn(*args, **kwargs)
        return await asyncio.to_thread(fn, *args, **kwargs)


@pytest.fixture(params=["sync", "async"])
def kind(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
async def make(server: LiveServer, kind: str, monkeypatch: pytest.MonkeyPatch) -> Any:
    """``make(**kwargs)``: a twin on the shared server (first key, no retries unless given)."""
    for name in ("SERVICE_BASE_URL", "SERVICE_API_KEY", "SERVICE_DEFAULT_MODEL"):
        monkeypatch.delenv(name, raising=False)
    made: list[Twin] = []

    def _make(**kwargs: Any) -> Twin:
        kwargs.setdefault("base_url", server.url)
        kwargs.setdefault("api_key", server.first_key)
        kwargs.setdefault("retry", NO_RETRY)
        twin = Twin(kind, **kwargs)
        made.append(twin)
        return twin

    yield _make
    for twin in made:
        await twin.close()


# ---------------------------------------------------------------------------------------------------
# Questions and checks

QUESTIONS: dict[str, Any] = {
    # descriptions: an object and None; instructions: text and an object
    "urgent": Noul(instructions="Does the customer need help urgently?", criteria={"true": {"signal": "time-sensitive"}, "false": None}),
    "department": Choice(
        instructions={"task": "route the ticket", "note": "pick one team"},
        criteria={"billing": "payments, refunds", "technical": None, "shipping": {"covers": ["delivery", "tracking"]}},
    ),
    "frustration": Score(instructions="How frustrated is the customer?", criteria=["calm", {"level": "annoyed"}, "angry", "furious"]),
}


def assert_distribution(probabilities: dict[Any, float], keys: set[Any]) -> None:
    assert set(probabilities) == keys
    for p in probabilities.values():
        assert 0 <= p <= 1
    assert abs(sum(probabilities.values()) - 1) < 1e-6


def assert_answers(r: Any) -> None:
    assert set(r.answers) == set(QUESTIONS)
    urgent = r.nouls["urgent"]
    assert 0 <= urgent.noul <= 1
    assert not hasattr(urgent, "confidence")

    dept = r.choices["department"]
    assert_distribution(dept.probabilities, {"billing", "technical", "shipping"})
    assert dept.choice == max(dept.probabilities, key=dept.probabilities.__getitem__)
    assert 0 <= dept.confidence <= 1

    frus = r.scores["frustration"]
    assert_distribution(frus.probabilities, {0, 1, 2, 3})
    assert abs(frus.score - sum(i * p for i, p in frus.probabilities.items())) < 1e-6
    assert set(frus.legend) == {0, 1, 2, 3}
    assert 0 <= frus.confidence <= 1

    assert r.request_id and REQUEST_ID.match(r.request_id)
    assert r.usage.processed_tokens and r.usage.processed_tokens > 0


async def rejection(awaitable: Any) -> BaseException:
    try:
        await awaitable
    except Exception as exc:  # noqa: BLE001
        return exc
    raise AssertionError("expected the call to fail")


# ---------------------------------------------------------------------------------------------------
# Answers, models, usage

STATES: dict[str, Any] = {
    "string": "I was charged twice this month and nobody answers my emails!",
    "object": {"customer": "Ana", "message": "My parcel never arrived.", "order": {"id": 42, "items": ["lamp", "desk"]}},
    "array": ["Order 42 placed.", {"event": "shipped", "late": True}, "Customer asked for a refund."],
}


@pytest.mark.parametrize("state_kind", list(STATES))
async def test_every_question_type(make: Any, state_kind: str) -> None:
    r = await make().system_one(STATES[state_kind], QUESTIONS, deadline=30)
    assert r.model == "core-0.3.20"  # legacy-latest, English → the English checkpoint
    assert_answers(r)
    assert "action" not in r.raw_http_response.text


async def test_score_levels_as_bare_numbers(make: Any) -> None:
    # laya's form, a structqa extension: the legend echoes such a level as laya writes it
    r = await make().system_one("The parcel is two weeks late.", {"q": Score(instructions="How late, in weeks?", criteria=["none", 1, 2.5, True])}, deadline=30)
    a = r.answers["q"]
    assert a.type == "score"
    assert a.legend == {0: "none", 1: "1", 2: "2.5", 3: "true"}
    assert abs(sum(a.probabilities.values()) - 1) < 1e-6


async def test_aliases_route_by_language(make: Any) -> None:
    c = make()
    fr = await c.system_one(
        "Bonjour, je voudrais un remboursement pour ma commande qui est arrivée en retard.",
        {"q": Noul(instructions="Le client demande-t-il un remboursement ?")},
    )
    assert fr.model == "core-multilingual-0.3.20"
    named = await c.system_one("Hello there.", {"q": {"type": "noul"}}, model="core-multilingual-0.3.20")
    assert named.model == "core-multilingual-0.3.20"
    jev = await c.system_one("Hello there.", {"q": Noul(instructions="A greeting?")}, model="jev-latest")
    assert jev.model == "core-0.3.20"


async def test_models_list(make: Any) -> None:
    listed = await make().models_list()
    names = listed.names
    for name in ("legacy-latest", "legacy-preview", "legacy-1.13.0", "core-latest", "jev-latest", "core-0.3.20", "core-multilingual-0.3.20"):
        assert name in names
    for card in listed.models:
        assert isinstance(card.description, str)
        assert re.match(r"^\d{4}-\d{2}-\d{2}$", card.release_date)


async def test_usage(server: LiveServer, make: Any) -> None:
    c = make(api_key=server.create_key(monthly_allowance=100_000))
    before = await c.usage()
    assert (before.allowance, before.used, before.requests) == (100_000, 0, 0)
    r = await c.system_one("Where is my order?", {"q": Noul(instructions="Is this about an order?")})
    after = await c.usage()
    assert after.requests == 1
    assert after.used == r.usage.processed_tokens
    assert after.remaining == 100_000 - r.usage.processed_tokens
    assert re.match(r"^\d{4}-\d{2}-01T00:00:00(\.000)?Z$", after.resets_at or "")
    assert [(m.model, m.requests) for m in after.by_model] == [("core-0.3.20", 1)]
    assert (await c.usage(month="2020-01")).used == 0


# ---------------------------------------------------------------------------------------------------
# Errors (contract §6) through the client


async def test_422_invalid_json(server: LiveServer, make: Any) -> None:
    # system_one always sends valid JSON, so the transport swaps in a broken body.
    hook = Hook(rewrite=lambda req: rebuilt(req, content=b'{"state": "x", "questions": '))
    err = await rejection(make(hook=hook).system_one("x", {"q": Noul()}))
    assert isinstance(err, UnprocessableEntityError), repr(err)
    assert (err.status, err.code) == (422, "invalid_json")
    assert err.request_id and REQUEST_ID.match(err.request_id)
    # The mapping function on a response fetched directly.
    raw = httpx.post(
        server.url + "/v1/systemone",
        headers={"authorization": f"Bearer {server.first_key}", "content-type": "application/json"},
        content=b"not json",
    )
    mapped = api_error(raw.status_code, raw.json(), raw.headers)
    assert isinstance(mapped, UnprocessableEntityError) and mapped.code == "invalid_json"


async def test_422_invalid_request(make: Any) -> None:
    c = make()
    err = await rejection(c.system_one("x", {"pick": {"type": "choice", "instructions": "x", "criteria": {"only": None}}}))
    assert isinstance(err, UnprocessableEntityError), repr(err)
    assert (err.status, err.code) == (422, "invalid_request")
    assert any("pick" in issue.get("loc", []) for issue in err.issues), err.issues
    eleven = await rejection(c.system_one("x", {"s": Score(instructions="How much?", criteria=[f"level {i}" for i in range(11)])}))
    assert isinstance(eleven, UnprocessableEntityError), repr(eleven)
    unknown = await rejection(c.system_one("x", {"q": {"type": "maybe", "instructions": "x"}}))
    assert isinstance(unknown, UnprocessableEntityError), repr(unknown)


async def test_400_unknown_model(make: Any) -> None:
    err = await rejection(make(model="gpt-nope").system_one("x", {"q": Noul(instructions="x?")}))
    assert isinstance(err, BadRequestError), repr(err)
    assert err.code == "unknown_model"
    assert err.accepted_models and "legacy-latest" in err.accepted_models and "core-0.3.20" in err.accepted_models


async def test_403_missing_and_401_invalid_key(make: Any) -> None:
    # The client will not run without a key, so the transport drops the header it sends.
    hook = Hook(rewrite=lambda req: rebuilt(req, drop=("authorization",)))
    missing = await rejection(make(hook=hook).system_one("x", {"q": Noul(instructions="x?")}))
    assert isinstance(missing, PermissionDeniedError), repr(missing)
    assert (missing.status, missing.code) == (403, "missing_api_key")
    assert missing.headers.get("www-authenticate", "").startswith("Bearer")
    for key in ("sqa_live_" + "x" * 40, "not-a-key", "ts_" + "a" * 40):
        err = await rejection(make(api_key=key).system_one("x", {"q": Noul(instructions="x?")}))
        assert isinstance(err, AuthenticationError), f"{key}: {err!r}"
        assert err.code == "invalid_api_key"
        assert err.headers.get("www-authenticate", "").startswith("Bearer")


async def test_402_allowance_exhausted_not_retried(server: LiveServer, make: Any) -> None:
    hook = Hook()
    c = make(api_key=server.create_key(monthly_allowance=10), hook=hook, retry=RetryPolicy(max_retries=5))
    err = await rejection(c.system_one("Hello there, please help me.", QUESTIONS))
    assert isinstance(err, AllowanceExhaustedError), repr(err)
    assert (err.status, err.code) == (402, "allowance_exhausted")
    assert len(hook.requests) == 1, "a 402 is not retried"
    assert err.allowance == 10 and isinstance(err.used, int)
    assert (err.resets_at or "").endswith("Z")
    assert err.usage_view == "/app/usage"
    assert (await c.usage()).requests == 0, "a rejected request is not charged"


async def test_413_state_too_long_exposes_room_per_question(make: Any) -> None:
    qs = {
        "short": Noul(instructions="Urgent?"),
        "long": Choice(
            instructions="Which of the following teams should handle this ticket, given everything the customer wrote?",
            criteria={"billing": "payments, refunds, invoices and anything about money", "technical": "bugs, outages, errors"},
        ),
    }
    err = await rejection(make().system_one("word " * 800, qs))
    assert isinstance(err, StateTooLongError), repr(err)
    assert (err.status, err.code, err.model) == (413, "state_too_long", "core-0.3.20")
    assert err.state_tokens and err.state_tokens >= 800
    assert set(err.questions) == {"short", "long"}
    for room in err.questions.values():
        assert room.room > 0 and room.overflow > 0
        assert room.room + room.overflow == err.state_tokens
    assert err.questions["long"].room < err.questions["short"].room
    assert err.min_room == err.questions["long"].room


async def test_413_too_many_questions(make: Any) -> None:
    err = await rejection(make().system_one("x", {f"q{i}": Noul(instructions="Urgent?") for i in range(33)}))
    assert isinstance(err, TooManyQuestionsError), repr(err)
    assert (err.code, err.limit) == ("too_many_questions", 32)


async def test_413_processed_token_cap(make: Any) -> None:
    err = await rejection(make().system_one("word " * 300, {f"q{i}": Noul(instructions="Is it urgent?") for i in range(20)}))
    assert isinstance(err, ProcessedTokenCapError), repr(err)
    assert (err.code, err.cap, err.model) == ("processed_token_cap", 3500, "core-0.3.20")
    assert err.cost and err.cost > 3500


async def test_413_payload_too_large(make: Any) -> None:
    err = await rejection(make().system_one("a" * 1_200_000, {"q": Noul(instructions="x?")}))
    # the service drains the rest of an oversized body before answering, so the 413 always arrives
    assert isinstance(err, PayloadTooLargeError) and not isinstance(err, StateTooLongError), repr(err)
    assert (err.code, err.limit_bytes) == ("payload_too_large", 1024 * 1024)


async def test_429_rate_limited_then_ridden_out(server: LiveServer, make: Any) -> None:
    key = server.create_key(requests_per_second=1)
    q = {"q": Noul(instructions="Urgent?")}
    await make(api_key=key).system_one("first", q)
    err = await rejection(make(api_key=key).system_one("second", q))
    assert isinstance(err, RateLimitError), repr(err)
    assert (err.status, err.code) == (429, "rate_limited")
    assert err.retry_after_ms and 0 < err.retry_after_ms <= 1000
    assert int(err.headers["retry-after"]) >= 1

    hook = Hook()
    r = await make(api_key=key, hook=hook, retry=RetryPolicy(max_retries=5)).system_one("third", q, deadline=20)
    assert r.nouls["q"].noul >= 0
    assert len(hook.requests) >= 2, "rode the rate limit out"
    assert hook.requests[1].headers["x-retry-count"] == "1"
    assert hook.requests[1].headers["idempotency-key"] == hook.requests[0].headers["idempotency-key"]


async def test_429_in_flight_limit_then_ridden_out(server: LiveServer, make: Any) -> None:
    key = server.create_key(in_flight=1)
    # Eight calls at once of ~300 tokens × 3 questions: long enough on the fixtures that they overlap.
    # Only the one admitted runs the model; the others are turned away at once.
    heavy = "The parcel was late again and the support line kept me waiting for an hour. " * 20
    clients = [make(api_key=key) for _ in range(8)]
    results = await asyncio.gather(*(c.system_one(heavy, QUESTIONS) for c in clients), return_exceptions=True)
    limited = [r for r in results if isinstance(r, BaseException)]
    assert limited, "at least one concurrent call is over the in-flight limit"
    for err in limited:
        assert isinstance(err, RateLimitError), repr(err)
        assert err.code == "in_flight_limit"
        assert err.retry_after_ms and err.retry_after_ms > 0
    # With retries, concurrent calls all complete (each waits out the others' slot).
    state = "The parcel was late again and the support line kept me waiting for an hour. " * 8
    patient = [make(api_key=key, retry=RetryPolicy(max_retries=20)) for _ in range(4)]
    done = await asyncio.gather(*(c.system_one(state, QUESTIONS, deadline=30) for c in patient))
    for r in done:
        assert_answers(r)


# ---------------------------------------------------------------------------------------------------
# Idempotency


async def test_retry_after_lost_response_is_charged_once(server: LiveServer, make: Any) -> None:
    hook = Hook(lose_first_post=True)
    c = make(api_key=server.create_key(), hook=hook, retry=RetryPolicy(max_retries=2, backoff_initial=0.01))
    before = await c.usage()
    r = await c.system_one("Please refund my order.", {"q": Noul(instructions="Refund?")})
    assert r.raw_http_response.headers.get("x-idempotent-replay") == "true"
    posts = [req for req in hook.requests if req.method == "POST"]
    assert len(posts) == 2
    assert posts[0].headers["idempotency-key"] == posts[1].headers["idempotency-key"]
    after = await c.usage()
    assert after.requests - before.requests == 1, "charged once"
    assert after.used - before.used == r.usage.processed_tokens
    # The same key on a new call replays the answer without a second charge.
    again = await c.system_one("Please refund my order.", {"q": Noul(instructions="Refund?")}, idempotency_key=posts[0].headers["idempotency-key"])
    assert again.answers == r.answers
    assert (await c.usage()).requests == after.requests


# ---------------------------------------------------------------------------------------------------
# Chunking


def long_text(words: int = 1500) -> str:
    subjects = ["The parcel", "My invoice", "The support agent", "Your website", "The refund", "Our order"]
    verbs = ["arrived late again", "was wrong twice", "never answered my emails", "showed an error page", "took three weeks", "went missing"]
    tails = ["and I am upset about it.", "so please fix this soon.", "which is not acceptable.", "though the driver was kind."]
    sentences: list[str] = []
    i = 0
    while sum(len(s.split()) for s in sentences) < words:
        sentences.append(f"{subjects[i % 6]} {verbs[(i * 5 + 1) % 6]} on day {i + 1} {tails[i % 4]}")
        i += 1
    return "".join(s + ("\n\n" if n % 12 == 11 else " ") for n, s in enumerate(sentences)).strip()


async def test_ask_in_chunks_three_times_too_long(make: Any) -> None:
    text = long_text()
    c = make(retry=RetryPolicy(max_retries=2))
    first = await rejection(c.system_one(text, QUESTIONS))
    assert isinstance(first, StateTooLongError), repr(first)
    assert first.state_tokens and first.min_room and first.state_tokens >= 3 * first.min_room

    result = await c.ask_in_chunks(text, QUESTIONS, deadline=120)
    assert result.split and len(result.chunks) >= 3
    for chunk in result.chunks:
        assert chunk.text in text
        assert_answers(chunk.response)  # answered, so it fitted every question's room
    assert " ".join(ch.text for ch in result.chunks).split() == text.split(), "nothing lost, in order"
    assert result.answers["urgent"].noul == max(a.noul for a in result.per_chunk("urgent"))
    assert_distribution(result.choices["department"].probabilities, {"billing", "technical", "shipping"})
    assert_distribution(result.scores["frustration"].probabilities, {0, 1, 2, 3})
    assert result.usage.processed_tokens == sum(ch.response.usage.processed_tokens for ch in result.chunks)
    assert result.model == "core-0.3.20"


# ---------------------------------------------------------------------------------------------------
# Start-up


async def test_529_starting_ridden_out(kind: str, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("SERVICE_BASE_URL", "SERVICE_API_KEY", "SERVICE_DEFAULT_MODEL"):
        monkeypatch.delenv(name, raising=False)
    # A shorter retry-after for `starting` (default 2 s) keeps the test quick; the client honours it.
    starting = await asyncio.to_thread(LiveServer, hold_starting=True, env={"STRUCTQA_STARTING_RETRY_MS": "500"})
    twins: list[Twin] = []
    try:
        base = {"base_url": starting.url, "api_key": starting.first_key}
        twins.append(Twin(kind, retry=NO_RETRY, **base))
        err = await rejection(twins[0].system_one("Is the service up yet?", {"q": Noul(instructions="A question?")}))
        assert isinstance(err, OverloadedError), repr(err)
        assert (err.status, err.code) == (529, "starting")
        assert err.retry_after_ms and err.retry_after_ms > 0

        hook = Hook()
        twins.append(Twin(kind, hook=hook, retry=RetryPolicy(max_retries=30), **base))
        call = asyncio.ensure_future(twins[1].system_one("Is the service up yet?", {"q": Noul(instructions="A question?")}, deadline=30))
        await asyncio.sleep(0.3)  # let the call meet 529 first
        await asyncio.to_thread(starting.install_checkpoints)
        r = await call
        assert r.model == "core-0.3.20"
        assert len(hook.requests) >= 2, "answered after at least one retry"
        assert len({req.headers["idempotency-key"] for req in hook.requests}) == 1
    finally:
        for twin in twins:
            await twin.close()
        await asyncio.to_thread(starting.stop)


def test_server_logged_no_errors(server: LiveServer) -> None:
    """Nothing the tests above sent made the shared service fail: no error-level log line (pino level
    50 or 60), so every rejection was a deliberate 4xx/429 and no 500 ``internal_error`` happened."""
    for line in server.output().splitlines():
        if line.startswith("{"):
            assert json.loads(line).get("level", 0) < 50, line
