"""ask_in_chunks: splitting (pure), combining (pure), and the whole loop against a fake server that
counts tokens and rejects over-long state the way the service does."""

from __future__ import annotations

import json
import math
import re

import httpx
import pytest
import structqa
from helpers import REQUEST_ID, FakeServer, Twin
from structqa import ChoiceAnswer, NoulAnswer, ScoreAnswer, StateTooLongError, split_text
from structqa._chunking import choice_confidence, chunk_limit_chars, combine_answers, score_confidence

# --------------------------------------------------------------------------- split_text


def test_split_prefers_paragraphs() -> None:
    text = "Para one is here.\n\nPara two is here.\n\n\nPara three."
    assert split_text(text, 40) == ["Para one is here.\n\nPara two is here.", "Para three."]
    assert split_text(text, 17) == ["Para one is here.", "Para two is here.", "Para three."]


def test_split_falls_back_to_sentences_then_words_then_characters() -> None:
    paragraph = "First sentence here. Second one! Third? Fourth sentence is quite a bit longer than the rest."
    chunks = split_text(paragraph, 40)
    assert chunks == ["First sentence here. Second one! Third?", "Fourth sentence is quite a bit longer", "than the rest."]
    assert split_text("abcdefghij", 4) == ["abcd", "efgh", "ij"]
    assert split_text("short", 10) == ["short"]
    assert split_text("   ", 10) == []


@pytest.mark.parametrize("limit", [5, 13, 40, 100, 1000])
def test_split_keeps_every_word_in_order_and_respects_the_limit(limit: int) -> None:
    text = "\n\n".join(
        " ".join(f"Sentence {p}.{s} has some words in it." for s in range(4)) for p in range(6)
    ) + " " + "x" * 30
    chunks = split_text(text, limit)
    assert all(len(c) <= limit for c in chunks)
    assert "".join("".join(chunks).split()) == "".join(text.split())


def test_split_cjk_sentences() -> None:
    assert split_text("今日は晴れです。明日は雨です。", 8) == ["今日は晴れです。", "明日は雨です。"]


def test_split_rejects_bad_limit() -> None:
    with pytest.raises(ValueError):
        split_text("abc", 0)


def too_long(state_tokens: int, rooms: dict[str, int]) -> StateTooLongError:
    return StateTooLongError(413, {"detail": {"error_type": "state_too_long", "message": "m", "model": "core-0.3.20",
        "state_tokens": state_tokens, "questions": {k: {"room": r, "overflow": max(0, state_tokens - r)} for k, r in rooms.items()}}},
        {"x-service-error-code": "state_too_long"})


@pytest.mark.parametrize(
    ("chars", "state_tokens", "rooms", "safety", "expected"),
    [
        (3000, 1500, {"a": 476}, 1.0, 952),  # 0.5 tokens/char
        (3000, 1500, {"a": 476, "b": 400}, 1.0, 800),  # the smallest room wins
        (3000, 1500, {"a": 476}, 0.9, 856),
        (1000, 3000, {"a": 100}, 1.0, 33),  # 3 tokens/char
        (10, 1000, {"a": 1}, 1.0, 1),  # never below one character
        (100, 101, {"a": 100}, 1.0, 99),  # always shorter than the text that overflowed
    ],
)
def test_chunk_limit_chars(chars: int, state_tokens: int, rooms: dict[str, int], safety: float, expected: int) -> None:
    assert chunk_limit_chars("x" * chars, too_long(state_tokens, rooms), safety) == expected


# --------------------------------------------------------------------------- combine_answers


def noul(p: float) -> NoulAnswer:
    return NoulAnswer(noul=p)


def choice(probs: dict[str, float]) -> ChoiceAnswer:
    return ChoiceAnswer(choice=max(probs, key=probs.__getitem__), probabilities=probs, confidence=0.0)


def score(probs: list[float]) -> ScoreAnswer:
    return ScoreAnswer(
        score=sum(i * p for i, p in enumerate(probs)),
        legend={i: f"L{i}" for i in range(len(probs))},
        probabilities=dict(enumerate(probs)),
        confidence=0.0,
    )


@pytest.mark.parametrize(
    ("how", "values", "expected"),
    [("max", [0.1, 0.9, 0.3], 0.9), ("mean", [0.1, 0.9, 0.2], 0.4), ("min", [0.1, 0.9, 0.3], 0.1), ("max", [0.42], 0.42)],
)
def test_combine_nouls(how: str, values: list[float], expected: float) -> None:
    combined = combine_answers([noul(v) for v in values], how)  # type: ignore[arg-type]
    assert isinstance(combined, NoulAnswer) and combined.noul == pytest.approx(expected)


def test_combine_choices_mean_renormalised() -> None:
    combined = combine_answers([choice({"a": 0.9, "b": 0.1, "c": 0.0}), choice({"a": 0.2, "b": 0.7, "c": 0.1}), choice({"a": 0.4, "b": 0.4})])
    assert isinstance(combined, ChoiceAnswer)
    # sums: a 1.5, b 1.2, c 0.1 → /3 then renormalised over total 2.8/3
    assert combined.probabilities == pytest.approx({"a": 1.5 / 2.8, "b": 1.2 / 2.8, "c": 0.1 / 2.8})
    assert combined.choice == "a"
    assert combined.confidence == pytest.approx((1.5 / 2.8 - 1 / 3) / (1 - 1 / 3))


def test_combine_scores_mean_then_expectation() -> None:
    combined = combine_answers([score([0.8, 0.2, 0.0]), score([0.0, 0.2, 0.8])])
    assert isinstance(combined, ScoreAnswer)
    assert combined.probabilities == pytest.approx({0: 0.4, 1: 0.2, 2: 0.4})
    assert combined.score == pytest.approx(1.0)
    assert combined.legend == {0: "L0", 1: "L1", 2: "L2"}
    assert combined.confidence == pytest.approx(score_confidence({0: 0.4, 1: 0.2, 2: 0.4}))


@pytest.mark.parametrize(
    ("probs", "expected"),
    [({"a": 1.0, "b": 0.0}, 1.0), ({"a": 0.5, "b": 0.5}, 0.0), ({"a": 0.85, "b": 0.0, "c": 0.15}, 0.775), ({"a": 1.0}, 1.0)],
)
def test_choice_confidence_formula(probs: dict[str, float], expected: float) -> None:
    assert choice_confidence(probs) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("probs", "expected"),
    [({0: 0.0, 1: 1.0, 2: 0.0}, 1.0), ({0: 1.0, 1: 0.0, 2: 0.0}, 1.0), ({0: 0.5, 1: 0.0, 2: 0.5}, 0.0)],
)
def test_score_confidence_formula(probs: dict[int, float], expected: float) -> None:
    assert score_confidence(probs) == pytest.approx(expected)


def test_combine_refuses_mixed_types() -> None:
    with pytest.raises(structqa.StructqaError):
        combine_answers([noul(0.1), choice({"a": 1.0, "b": 0.0})])


# --------------------------------------------------------------------------- the loop, on a fake service


ROOMS = {"urgent": 100, "tone": 90, "level": 80}  # tokens of state each question can hold
QUESTIONS = {
    "urgent": structqa.Noul(instructions="Is anything urgent?"),
    "tone": structqa.Choice(instructions="Tone?", criteria={"calm": None, "angry": None}),
    "level": structqa.Score(instructions="Severity?", criteria=["low", "mid", "high"]),
}


def word_tokens(text: str) -> int:
    """The fake checkpoint's tokenizer: one token per 4 characters of each word (at least one)."""
    return sum(max(1, math.ceil(len(w) / 4)) for w in text.split())


class TokenCountingService:
    """Answers like the service: 413 state_too_long when the state overflows any room, and
    413 processed_token_cap when questions × (head + state) is over ``cap``."""

    HEAD = 10  # tokens of each question's own sequence

    def __init__(self, cap: int | None = None) -> None:
        self.states: list[str] = []
        self.accepted: list[str] = []
        self.cap = cap

    def __call__(self, request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        state = body["state"]
        self.states.append(state)
        tokens = word_tokens(state)
        if tokens > min(ROOMS.values()):
            detail = {"error_type": "state_too_long", "message": "too long", "model": "core-0.3.20", "state_tokens": tokens,
                      "questions": {k: {"room": r, "overflow": max(0, tokens - r)} for k, r in ROOMS.items()}}
            return httpx.Response(413, json={"detail": detail}, headers={"x-service-error-code": "state_too_long", "x-request-id": REQUEST_ID})
        cost = len(body["questions"]) * (self.HEAD + tokens)
        if self.cap is not None and cost > self.cap:
            detail = {"error_type": "processed_token_cap", "message": "over cap", "model": "core-0.3.20", "cost": cost, "cap": self.cap}
            return httpx.Response(413, json={"detail": detail}, headers={"x-service-error-code": "processed_token_cap"})
        self.accepted.append(state)
        angry = "furious" in state
        return httpx.Response(200, headers={"x-request-id": f"req_{len(self.accepted):032x}"}, json={
            "model": "core-0.3.20",
            "answers": {
                "urgent": {"type": "noul", "noul": 0.95 if "URGENT" in state else 0.05},
                "tone": {"type": "choice", "choice": "angry" if angry else "calm",
                         "probabilities": {"calm": 0.2, "angry": 0.8} if angry else {"calm": 0.9, "angry": 0.1}, "confidence": 0.5},
                "level": {"type": "score", "score": 1.0, "legend": {"0": "low", "1": "mid", "2": "high"},
                          "probabilities": {"0": 0.0, "1": 1.0, "2": 0.0} if not angry else {"0": 0.0, "1": 0.0, "2": 1.0}, "confidence": 1.0},
            },
            "usage": {"input_tokens": tokens + 10, "output_tokens": 3, "processed_tokens": 3 * (tokens + 20)},
        })


def long_text(target_tokens: int) -> str:
    paragraphs = []
    n = 0
    while word_tokens("\n\n".join(paragraphs)) < target_tokens:
        n += 1
        sentences = [f"Paragraph {n} sentence {s} talks about the order and the delivery." for s in range(3)]
        if n == 2:
            sentences.append("This is URGENT now.")
        if n == 5:
            sentences.append("The customer is furious.")
        paragraphs.append(" ".join(sentences))
    return "\n\n".join(paragraphs)


async def test_state_three_times_too_long_is_split_and_combined(twin: Twin, server: FakeServer) -> None:
    service = TokenCountingService()
    server.reply(service)
    state = long_text(3 * min(ROOMS.values()))
    assert word_tokens(state) >= 3 * 80

    result = await twin.ask_in_chunks(state, QUESTIONS, idempotency_key="job-7")

    assert result.split and len(result.chunks) >= 3
    assert service.states[0] == state  # first the whole state, as asked
    assert all(word_tokens(c.text) <= 80 for c in result.chunks)  # every chunk fits every room
    # nothing lost, nothing reordered
    assert " ".join(c.text for c in result.chunks).split() == state.split()
    # self-contained: chunks end at sentence ends
    assert all(re.search(r"[.!?]$", c.text) for c in result.chunks)
    # every request its own idempotency key, derived from the caller's
    keys = [r.headers["idempotency-key"] for r in server.requests]
    assert len(set(keys)) == len(keys) and all(k.startswith("job-7.") for k in keys)

    # combination
    per_chunk = result.per_chunk("urgent")
    assert len(per_chunk) == len(result.chunks)
    assert result.answers["urgent"].noul == 0.95  # max: urgent somewhere
    n_angry = sum(1 for c in result.chunks if "furious" in c.text)
    assert n_angry == 1
    n = len(result.chunks)
    tone = result.choices["tone"]
    assert tone.probabilities["angry"] == pytest.approx((0.8 + 0.1 * (n - 1)) / n)
    assert tone.choice == "calm"
    level = result.scores["level"]
    assert level.probabilities == pytest.approx({0: 0.0, 1: (n - 1) / n, 2: 1 / n})
    assert level.score == pytest.approx(1 + 1 / n)
    assert result.model == "core-0.3.20" and result.models == ["core-0.3.20"]
    assert result.usage.output_tokens == 3 * n
    assert len(result.request_ids) == n

    mean = structqa._chunking._combine(result.chunks, "mean")
    assert mean.answers["urgent"].noul == pytest.approx((0.95 + 0.05 * (n - 1)) / n)


async def test_chunk_that_still_overflows_is_split_again(twin: Twin, server: FakeServer) -> None:
    service = TokenCountingService()
    server.reply(service)
    # dense text (short words: many tokens per character) after sparse text (4-letter words): the
    # average estimate is too generous for the dense part, so its chunks overflow and are split again
    sparse = " ".join("Word word word word." for _ in range(75))
    dense = " ".join("a b c d." for _ in range(50))
    state = sparse + "\n\n" + dense
    result = await twin.ask_in_chunks(state, QUESTIONS, safety=1.0)
    rejected = [s for s in service.states[1:] if word_tokens(s) > 80]
    assert rejected, "expected at least one chunk to be re-split"
    assert all(word_tokens(c.text) <= 80 for c in result.chunks)
    assert " ".join(c.text for c in result.chunks).split() == state.split()


async def test_chunk_over_the_processed_token_cap_is_split(twin: Twin, server: FakeServer) -> None:
    service = TokenCountingService(cap=150)  # 3 questions × (10 + state) ≤ 150 → state ≤ 40 tokens
    server.reply(service)
    state = long_text(3 * 80)
    result = await twin.ask_in_chunks(state, QUESTIONS)
    assert any(3 * (10 + word_tokens(s)) > 150 and word_tokens(s) <= 80 for s in service.states)
    assert all(3 * (10 + word_tokens(c.text)) <= 150 for c in result.chunks)
    assert " ".join(c.text for c in result.chunks).split() == state.split()


async def test_questions_alone_over_the_cap_raise(twin: Twin, server: FakeServer) -> None:
    server.reply(TokenCountingService(cap=20))  # 3 × 10 tokens of heads > 20: no split can help
    with pytest.raises(structqa.ProcessedTokenCapError):
        await twin.ask_in_chunks("A few words here. And a few more there.", QUESTIONS)


async def test_state_that_fits_is_one_chunk(twin: Twin, server: FakeServer) -> None:
    service = TokenCountingService()
    server.reply(service)
    result = await twin.ask_in_chunks("Short and URGENT.", QUESTIONS)
    assert not result.split and len(server.requests) == 1
    assert result.answers["urgent"].noul == 0.95


async def test_only_text_state_is_split(twin: Twin, server: FakeServer) -> None:
    with pytest.raises(structqa.StructqaError):
        await twin.ask_in_chunks({"not": "text"}, QUESTIONS)
    assert server.requests == []


async def test_other_errors_pass_through(twin: Twin, server: FakeServer) -> None:
    server.reply(httpx.Response(402, json={"detail": {"error_type": "allowance_exhausted", "message": "m"}},
                                headers={"x-service-error-code": "allowance_exhausted"}))
    with pytest.raises(structqa.AllowanceExhaustedError):
        await twin.ask_in_chunks("x " * 10, QUESTIONS)
