"""Smoke test against a running service. Skipped unless SERVICE_BASE_URL and SERVICE_API_KEY are set:

    SERVICE_BASE_URL=http://127.0.0.1:8080 SERVICE_API_KEY=sq_... python -m pytest clients/python/tests/test_live.py
"""

from __future__ import annotations

import os

import pytest
import structqa

pytestmark = pytest.mark.skipif(
    not (os.environ.get("SERVICE_BASE_URL", "").strip() and os.environ.get("SERVICE_API_KEY", "").strip()),
    reason="set SERVICE_BASE_URL and SERVICE_API_KEY to run against a live service",
)

QUESTIONS = {
    "billing": structqa.Noul(instructions="Is this about billing?"),
    "tone": structqa.Choice(instructions="What is the tone?", criteria={"calm": None, "angry": None}),
    "frustration": structqa.Score(instructions="How frustrated?", criteria=["calm", "annoyed", "furious"]),
}


def test_live_sync() -> None:
    with structqa.Client() as client:
        names = client.models.list().names
        assert "legacy-latest" in names
        r = client.system_one("I was charged twice for my order. Please refund me now.", QUESTIONS, deadline=60)
        assert r.model in names and not r.model.startswith("legacy")
        assert r.request_id and r.request_id.startswith("req_")
        assert 0 <= r.nouls["billing"].noul <= 1
        assert set(r.choices["tone"].probabilities) == {"calm", "angry"}
        assert set(r.scores["frustration"].probabilities) == {0, 1, 2}
        assert abs(sum(r.scores["frustration"].probabilities.values()) - 1) < 1e-6


async def test_live_async() -> None:
    async with structqa.AsyncClient() as client:
        r = await client.system_one("The parcel arrived on time.", QUESTIONS, deadline=60)
        assert set(r.answers) == set(QUESTIONS)


def test_live_chunking() -> None:
    text = "\n\n".join(f"Paragraph {i}: the order was late and the customer wrote again about it." for i in range(150))
    with structqa.Client() as client:
        result = structqa.ask_in_chunks(client, text, {"late": structqa.Noul(instructions="Was something late?")}, deadline=300)
        assert result.split
        assert 0 <= result.answers["late"].noul <= 1
