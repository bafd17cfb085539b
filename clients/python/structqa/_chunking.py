"""Asking about a state too long for one call: split it into chunks that fit, ask each, combine.

The service never truncates. When a state does not fit, it answers ``413 state_too_long`` with the
state's length in the checkpoint's tokens and each question's room. :func:`ask_in_chunks` uses that:

1. Ask with the whole state. If it fits, that is the (single-chunk) answer.
2. Otherwise estimate tokens per character as ``state_tokens / len(state)`` and cut the text into
   chunks of at most ``safety × min(room)`` tokens, on paragraph boundaries first (blank lines), then
   sentences, then words (a single over-long word is cut by characters as a last resort). Chunks are
   self-contained pieces of the text; nothing is dropped.
3. Ask each chunk with the same questions. A chunk that still overflows (the estimate is an average)
   is split again with the estimate from its own error, up to ``max_splits`` levels.
4. Combine per question, chunks weighted equally:

   - noul: the **max** of the chunks' P(yes) by default ("is this anywhere in the text?");
     ``noul="mean"`` averages instead, ``noul="min"`` asks "is this true of every part?".
   - choice: the mean of the chunks' probabilities, renormalised to sum to 1; ``choice`` is the most
     probable option; ``confidence`` is recomputed from the combined probabilities with the service's
     formula ``(m − 1/n) / (1 − 1/n)`` (m = top probability, n = options).
   - score: the mean of the chunks' level probabilities, renormalised; ``score`` is the expectation
     ``Σ i·pᵢ``; ``confidence`` is ``max(0, 1 − Σ pᵢ·|i − k| / D)`` (k = most probable level,
     ``D = (1/n)·Σ|i − (n−1)/2|``); ``legend`` is the first chunk's.

A chunk that fits every room but makes ``questions × longest sequence`` exceed the checkpoint's cap
(``processed_token_cap``) is split too, in the ratio ``cap / cost``. (Questions whose own text is
over the cap cannot be helped by splitting: send fewer questions per call.)

Only a string state is split; an object or array state re-raises the error.
"""

from __future__ import annotations

import math
import re
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any, Literal

from structqa._core import SYSTEM_CLOCK
from structqa._exceptions import ProcessedTokenCapError, StateTooLongError, StructqaError
from structqa._response import Answer, ChoiceAnswer, NoulAnswer, ScoreAnswer, SystemOneResponse, Usage

__all__ = [
    "ChunkAnswer",
    "ChunkedResponse",
    "ask_in_chunks",
    "ask_in_chunks_async",
    "chunk_limit_chars",
    "combine_answers",
    "split_text",
]

NoulCombine = Literal["max", "mean", "min"]

_PARAGRAPH = re.compile(r"\n[ \t]*\n\s*")
_SENTENCE = re.compile(r"(?<=[.!?;:。！？；])\s+|(?<=[。！？])")
_WORD = re.compile(r"\s+")


# --------------------------------------------------------------------------- splitting (pure)


def split_text(text: str, max_chars: int) -> list[str]:
    """Cut ``text`` into pieces of at most ``max_chars`` characters, preferring paragraph, then
    sentence, then word boundaries. Whitespace at the cuts is dropped; no other text is."""
    if max_chars < 1:
        raise ValueError("max_chars must be at least 1")
    text = text.strip()
    if not text:
        return []
    return _split(text, max_chars, 0)


_LEVELS: tuple[tuple[re.Pattern[str], str], ...] = ((_PARAGRAPH, "\n\n"), (_SENTENCE, " "), (_WORD, " "))


def _split(text: str, max_chars: int, level: int) -> list[str]:
    if len(text) <= max_chars:
        return [text]
    if level >= len(_LEVELS):
        return [text[i : i + max_chars] for i in range(0, len(text), max_chars)]
    pattern, joiner = _LEVELS[level]
    units = [u.strip() for u in pattern.split(text) if u and u.strip()]
    if len(units) <= 1:
        return _split(text, max_chars, level + 1)
    chunks: list[str] = []
    current = ""
    for unit in units:
        if len(unit) > max_chars:
            if current:
                chunks.append(current)
                current = ""
            chunks.extend(_split(unit, max_chars, level + 1))
            continue
        candidate = f"{current}{joiner}{unit}" if current else unit
        if len(candidate) <= max_chars:
            current = candidate
        else:
            chunks.append(current)
            current = unit
    if current:
        chunks.append(current)
    return chunks


def chunk_limit_chars(text: str, error: StateTooLongError, safety: float = 0.9) -> int:
    """Characters per chunk so that every question's room holds it, estimated from the error's
    ``state_tokens`` for this ``text``."""
    room = error.min_room
    tokens = error.state_tokens
    if room is None or not tokens or not text:
        raise error
    tokens_per_char = tokens / len(text)
    limit = int(math.floor(max(room, 1) * safety / tokens_per_char))
    # The text overflowed, so a chunk must be shorter than it; guard against odd estimates.
    return max(1, min(limit, len(text) - 1)) if len(text) > 1 else 1


# --------------------------------------------------------------------------- combining (pure)


def _normalise(probabilities: Mapping[Any, float]) -> dict[Any, float]:
    total = sum(probabilities.values())
    if total <= 0 or not math.isfinite(total):
        n = len(probabilities)
        return {k: 1.0 / n for k in probabilities} if n else {}
    return {k: v / total for k, v in probabilities.items()}


def _mean_probabilities(maps: list[Mapping[Any, float]]) -> dict[Any, float]:
    keys: list[Any] = []
    for m in maps:
        for k in m:
            if k not in keys:
                keys.append(k)
    return _normalise({k: sum(m.get(k, 0.0) for m in maps) / len(maps) for k in keys})


def choice_confidence(probabilities: Mapping[str, float]) -> float:
    n = len(probabilities)
    if n <= 1:
        return 1.0
    m = max(probabilities.values())
    return min(1.0, max(0.0, (m - 1.0 / n) / (1.0 - 1.0 / n)))


def score_confidence(probabilities: Mapping[int, float]) -> float:
    n = len(probabilities)
    if n <= 1:
        return 1.0
    levels = sorted(probabilities)
    k = max(levels, key=lambda i: probabilities[i])
    spread = sum(abs(i - (n - 1) / 2) for i in range(n)) / n
    if spread <= 0:
        return 1.0
    return max(0.0, 1.0 - sum(probabilities[i] * abs(i - k) for i in levels) / spread)


def combine_answers(answers: list[Answer], noul: NoulCombine = "max") -> Answer:
    """Combine one question's answers from several chunks (see the module docs for the rules)."""
    if not answers:
        raise ValueError("no answers to combine")
    first = answers[0]
    if not all(type(a) is type(first) for a in answers):
        raise StructqaError("Cannot combine answers of different types.")
    if isinstance(first, NoulAnswer):
        values = [a.noul for a in answers]  # type: ignore[union-attr]
        if noul == "max":
            value = max(values)
        elif noul == "min":
            value = min(values)
        elif noul == "mean":
            value = sum(values) / len(values)
        else:
            raise ValueError(f"unknown noul combination {noul!r}")
        return NoulAnswer(noul=value)
    if isinstance(first, ChoiceAnswer):
        probs = _mean_probabilities([a.probabilities for a in answers])  # type: ignore[union-attr]
        best = max(probs, key=lambda k: probs[k])
        return ChoiceAnswer(choice=best, probabilities=probs, confidence=choice_confidence(probs))
    assert isinstance(first, ScoreAnswer)
    probs_i = _mean_probabilities([a.probabilities for a in answers])  # type: ignore[union-attr]
    probs_i = {k: probs_i[k] for k in sorted(probs_i)}
    return ScoreAnswer(
        score=sum(i * p for i, p in probs_i.items()),
        legend=first.legend,
        probabilities=probs_i,
        confidence=score_confidence(probs_i),
    )


# --------------------------------------------------------------------------- results


@dataclass(frozen=True)
class ChunkAnswer:
    """One chunk of the state and the service's response for it."""

    text: str
    response: SystemOneResponse

    @property
    def answers(self) -> dict[str, Answer]:
        return self.response.answers


@dataclass(frozen=True)
class ChunkedResponse:
    """Per-chunk answers plus their combination (same accessors as :class:`SystemOneResponse`)."""

    chunks: list[ChunkAnswer]
    answers: dict[str, Answer]
    """Combined answers per question name."""
    noul_combination: NoulCombine = "max"
    models: list[str] = field(default_factory=list)

    @property
    def split(self) -> bool:
        """Whether the state had to be split."""
        return len(self.chunks) > 1

    @property
    def model(self) -> str:
        return self.chunks[0].response.model

    @property
    def usage(self) -> Usage:
        """Token counts summed over the chunks."""

        def total(name: str) -> int | None:
            values = [getattr(c.response.usage, name) for c in self.chunks]
            return None if any(v is None for v in values) else sum(values)

        return Usage(
            input_tokens=total("input_tokens"),
            output_tokens=total("output_tokens"),
            processed_tokens=total("processed_tokens"),
        )

    @property
    def nouls(self) -> dict[str, NoulAnswer]:
        return {k: a for k, a in self.answers.items() if isinstance(a, NoulAnswer)}

    @property
    def choices(self) -> dict[str, ChoiceAnswer]:
        return {k: a for k, a in self.answers.items() if isinstance(a, ChoiceAnswer)}

    @property
    def scores(self) -> dict[str, ScoreAnswer]:
        return {k: a for k, a in self.answers.items() if isinstance(a, ScoreAnswer)}

    @property
    def request_ids(self) -> list[str | None]:
        return [c.response.request_id for c in self.chunks]

    def per_chunk(self, name: str) -> list[Answer]:
        """The answers to question ``name``, one per chunk, in text order."""
        return [c.answers[name] for c in self.chunks if name in c.answers]


def _combine(chunks: list[ChunkAnswer], noul: NoulCombine) -> ChunkedResponse:
    names: list[str] = []
    for chunk in chunks:
        for name in chunk.answers:
            if name not in names:
                names.append(name)
    combined = {name: combine_answers([c.answers[name] for c in chunks if name in c.answers], noul) for name in names}
    models: list[str] = []
    for chunk in chunks:
        if chunk.response.model not in models:
            models.append(chunk.response.model)
    return ChunkedResponse(chunks=chunks, answers=combined, noul_combination=noul, models=models)


# --------------------------------------------------------------------------- the plan (sans I/O)


class _Plan:
    """Which text to ask next; shared by the sync and async helpers."""

    def __init__(self, state: str, safety: float, max_splits: int) -> None:
        self.pending: deque[tuple[str, int]] = deque([(state, 0)])
        self.done: list[ChunkAnswer] = []
        self.safety = safety
        self.max_splits = max_splits
        self.index = 0

    def next(self) -> tuple[str, int] | None:
        if not self.pending:
            return None
        self.index += 1  # one per request sent, so no two requests share an idempotency key
        return self.pending[0]

    def answered(self, response: SystemOneResponse) -> None:
        text, _ = self.pending.popleft()
        self.done.append(ChunkAnswer(text, response))

    def too_long(self, error: StateTooLongError) -> None:
        text, depth = self.pending.popleft()
        if depth >= self.max_splits:
            raise error
        pieces = split_text(text, chunk_limit_chars(text, error, self.safety))
        if len(pieces) <= 1:
            raise error
        self.pending.extendleft(reversed([(piece, depth + 1) for piece in pieces]))

    def too_costly(self, error: ProcessedTokenCapError) -> None:
        """The chunk fits every room, but questions × longest sequence is over the cap: cut the text
        in the ratio cap / cost (and again if that is still not enough)."""
        text, depth = self.pending.popleft()
        cost, cap = error.cost, error.cap
        if depth >= self.max_splits or not cost or not cap or cost <= cap:
            raise error
        limit = max(1, min(len(text) - 1, int(len(text) * cap / cost * self.safety)))
        pieces = split_text(text, limit)
        if len(pieces) <= 1:
            raise error
        self.pending.extendleft(reversed([(piece, depth + 1) for piece in pieces]))


def _prepare_kwargs(kwargs: dict[str, Any], clock_time: Callable[[], float]) -> tuple[dict[str, Any], str | None]:
    if kwargs.get("response_model") is not None:
        raise StructqaError("ask_in_chunks parses SystemOneResponse; response_model is not supported.")
    kwargs = dict(kwargs)
    key = kwargs.pop("idempotency_key", None)
    deadline = kwargs.get("deadline")
    if isinstance(deadline, (int, float)) and not isinstance(deadline, bool):
        # One overall deadline for all the chunks.
        kwargs["deadline"] = datetime.fromtimestamp(clock_time(), timezone.utc) + timedelta(seconds=float(deadline))
    return kwargs, key


def _check_state(state: Any) -> None:
    if not isinstance(state, str):
        raise StructqaError("ask_in_chunks splits a string state only.")


def ask_in_chunks(
    client: Any,
    state: str,
    questions: Mapping[str, Any],
    *,
    noul: NoulCombine = "max",
    safety: float = 0.9,
    max_splits: int = 4,
    **kwargs: Any,
) -> ChunkedResponse:
    """Ask ``questions`` about ``state`` with a :class:`~structqa.Client`, splitting the state into
    chunks that fit when the service answers ``state_too_long``.

    Args:
        client: a :class:`structqa.Client` (use :func:`ask_in_chunks_async` for ``AsyncClient``).
        state: the text.
        questions: as for ``system_one``.
        noul: how noul answers combine: ``"max"`` (default), ``"mean"`` or ``"min"``.
        safety: fraction of the reported room a chunk aims to fill (token counts are estimated).
        max_splits: how many times a chunk that still overflows may be split again.
        **kwargs: passed to ``system_one`` (``model``, ``retry``, ``timeout``, ``deadline`` — one
            deadline for all chunks —, ``idempotency_key`` — suffixed per chunk —, …).
    """
    _check_state(state)
    clock = getattr(client, "_clock", SYSTEM_CLOCK)
    call_kwargs, key = _prepare_kwargs(kwargs, clock.time)
    plan = _Plan(state, safety, max_splits)
    while (item := plan.next()) is not None:
        text, _ = item
        try:
            response = client.system_one(
                text, questions, idempotency_key=f"{key}.{plan.index}" if key else None, **call_kwargs
            )
        except StateTooLongError as error:
            plan.too_long(error)
            continue
        except ProcessedTokenCapError as error:
            plan.too_costly(error)
            continue
        plan.answered(response)
    return _combine(plan.done, noul)


async def ask_in_chunks_async(
    client: Any,
    state: str,
    questions: Mapping[str, Any],
    *,
    noul: NoulCombine = "max",
    safety: float = 0.9,
    max_splits: int = 4,
    **kwargs: Any,
) -> ChunkedResponse:
    """:func:`ask_in_chunks` for :class:`~structqa.AsyncClient` (chunks are asked one after another)."""
    _check_state(state)
    clock = getattr(client, "_clock", SYSTEM_CLOCK)
    call_kwargs, key = _prepare_kwargs(kwargs, clock.time)
    plan = _Plan(state, safety, max_splits)
    while (item := plan.next()) is not None:
        text, _ = item
        try:
            response = await client.system_one(
                text, questions, idempotency_key=f"{key}.{plan.index}" if key else None, **call_kwargs
            )
        except StateTooLongError as error:
            plan.too_long(error)
            continue
        except ProcessedTokenCapError as error:
            plan.too_costly(error)
            continue
        plan.answered(response)
    return _combine(plan.done, noul)
