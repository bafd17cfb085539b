"""examples/basic.py runs end to end against the fake transport."""

from __future__ import annotations

import functools
import importlib.util
from pathlib import Path

import httpx
import pytest
import structqa
from helpers import answers_body, error, ok

EXAMPLE = Path(__file__).resolve().parents[1] / "examples" / "basic.py"


def load_example():
    spec = importlib.util.spec_from_file_location("basic_example", EXAMPLE)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def fake_service(state_too_long_first: bool):
    calls = {"n": 0}

    def handle(request: httpx.Request) -> httpx.Response:
        if request.url.path == "/v1/models":
            return httpx.Response(200, json={"models": [{"name": "legacy-latest", "description": "alias", "release_date": "2026-09-15"}]})
        if request.url.path == "/v1/usage":
            return httpx.Response(200, json={"allowance": 1000, "used": 10, "resets_at": "2026-12-01T00:00:00Z"})
        calls["n"] += 1
        body = answers_body()
        body["answers"] = {
            "urgent": {"type": "noul", "noul": 0.9},
            "team": {"type": "choice", "choice": "billing", "probabilities": {"billing": 0.8, "technical": 0.1, "sales": 0.1}, "confidence": 0.7},
            "mood": {"type": "score", "score": 1.8, "legend": {"0": "calm", "1": "annoyed", "2": "angry"},
                     "probabilities": {"0": 0.0, "1": 0.2, "2": 0.8}, "confidence": 0.6},
        }
        if state_too_long_first and calls["n"] == 1:
            return error(413, "state_too_long", extra={"model": "core-0.3.20", "state_tokens": 30, "questions": {"urgent": {"room": 12, "overflow": 18}}})
        return ok(body)

    return httpx.MockTransport(handle)


@pytest.mark.parametrize("split", [False, True])
def test_example_runs(split: bool, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    module = load_example()
    monkeypatch.setattr(module, "Client", functools.partial(structqa.Client, api_key="k", transport=fake_service(split)))
    assert module.main() == 0
    out = capsys.readouterr().out
    assert "team:   billing" in out and "mood:   1.80" in out and "angry" in out
    assert ("split into" in out) is split
