"""Python port of the service's text rendering and marker layout.

Mirrors ``service/src/engine/render.ts`` and ``service/src/engine/layout.ts`` token for token, so that
training builds exactly the sequences the service feeds the model at inference time:

    [CLS] "<type> question: <instructions>" [SEP] [MASK] opt0 [MASK] opt1 ... [SEP] <state> [SEP]

The text is what Laya's Python runtime builds from the same JSON (laya/common.py, issue 22), and the
service builds the same from the request's text (engine/source-json.ts keeps the key order and number
forms that JavaScript's JSON.parse loses): ``json.dumps(v, ensure_ascii=False)`` with ``", "`` and
``": "``, keys in the order they were written (integer-like keys too; this also decides the order of
choice options), numbers as Python writes them (``1.0``, ``1e-07``, exact big integers), every score level
as ``level i: <description>`` (``level 0: null`` for a null one), noul criteria keys lower-cased.
Lone surrogates read as U+FFFD (``String.prototype.toWellFormed`` before tokenizing).

``training/tests/test_training.py`` checks the ids against the Node implementation.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

QTYPE_ID = {"choice": 0, "score": 1, "noul": 2}
NOUL_FALSE_DEFAULT = "no, the statement does not hold"
NOUL_TRUE_DEFAULT = "yes, the statement holds"

_SURROGATE = re.compile("[\ud800-\udfff]")


# ------------------------------------------------------------------------------------ rendering


def python_json(value: Any) -> str:
    """render.ts ``pythonJson``: ``json.dumps(v, ensure_ascii=False)``, which is what laya writes (keys in
    the order they were read, numbers as Python's repr)."""
    return json.dumps(value, ensure_ascii=False)


def render_content(value: Any) -> str:
    return value if isinstance(value, str) else python_json(value)


def _blank(value: Any) -> bool:
    return value is None or value == ""


def render_options(question: dict) -> list[str]:
    """Option texts in marker order. Noul is always [false, true]."""
    t, criteria = question["type"], question.get("criteria")
    if t == "choice":
        return [k if _blank(d) else f"{k}: {render_content(d)}" for k, d in criteria.items()]
    if t == "score":
        # laya writes every level as "level i: <description>", an empty or null one included
        return [f"level {i}: {render_content(d)}" for i, d in enumerate(criteria)]
    if t == "noul":
        c = {str(k).lower(): v for k, v in (criteria or {}).items()}
        f = NOUL_FALSE_DEFAULT if _blank(c.get("false")) else render_content(c.get("false"))
        tr = NOUL_TRUE_DEFAULT if _blank(c.get("true")) else render_content(c.get("true"))
        return [f"false: {f}", f"true: {tr}"]
    raise ValueError(f"unknown question type {t!r}")


def render_head(question: dict) -> str:
    ins = question.get("instructions")
    return f"{question['type']} question: {'' if _blank(ins) else render_content(ins)}"


def option_keys(question: dict) -> list[str]:
    t = question["type"]
    if t == "choice":
        return list(question["criteria"].keys())
    if t == "score":
        return [str(i) for i in range(len(question["criteria"]))]
    return ["false", "true"]


def answer_index(question: dict, answer: Any) -> int:
    """Index of the gold option among the markers."""
    t = question["type"]
    if t == "choice":
        return option_keys(question).index(str(answer))
    if t == "score":
        return int(answer)
    return 1 if answer is True or answer == "true" else 0


# ---------------------------------------------------------------------------------------- layout


@dataclass
class Row:
    ids: list[int]
    markers: list[int]
    qtype: int
    head_len: int
    keys: list[str] = field(default_factory=list)


class Layout:
    """The service's layout with one checkpoint's tokenizer (``tokenizers.Tokenizer``)."""

    def __init__(self, tokenizer_json: str | Path, special_tokens: dict[str, str], window: int = 512):
        from tokenizers import Tokenizer

        self.tok = Tokenizer.from_file(str(tokenizer_json))
        self.tok.no_truncation()
        self.tok.no_padding()
        self.window = window
        ids = {}
        for name in ("cls", "sep", "mask", "pad"):
            tid = self.tok.token_to_id(special_tokens[name])
            if tid is None:
                raise ValueError(f"special token {special_tokens[name]!r} is not in {tokenizer_json}")
            ids[name] = tid
        self.cls, self.sep, self.mask, self.pad = ids["cls"], ids["sep"], ids["mask"], ids["pad"]
        self.mask_text = special_tokens["mask"]

    def _scrub(self, text: str) -> str:
        if self.mask_text:
            text = text.replace(self.mask_text, " ")
        return _SURROGATE.sub("\ufffd", text)

    def encode(self, texts: Sequence[str]) -> list[list[int]]:
        if not texts:
            return []
        return [e.ids for e in self.tok.encode_batch(list(texts), add_special_tokens=False)]

    def head(self, question: dict) -> tuple[list[int], list[int], list[str]]:
        options = render_options(question)
        enc = self.encode([self._scrub(render_head(question))] + [self._scrub(" " + o) for o in options])
        ids = [self.cls, *enc[0], self.sep]
        markers = []
        for k in range(len(options)):
            markers.append(len(ids))
            ids.append(self.mask)
            ids.extend(enc[1 + k])
        ids.append(self.sep)
        return ids, markers, option_keys(question)

    def state(self, state: Any) -> list[int]:
        return self.encode([self._scrub(render_content(state))])[0]

    def row(self, question: dict, state: Any) -> Row:
        """One model row; raises ValueError when the sequence exceeds the window (nothing is cut)."""
        ids, markers, keys = self.head(question)
        st = self.state(state)
        seq = ids + st + [self.sep]
        if len(seq) > self.window:
            raise ValueError(f"sequence of {len(seq)} tokens exceeds the window {self.window}")
        return Row(seq, markers, QTYPE_ID[question["type"]], len(ids), keys)

    def item_row(self, item: dict) -> Row:
        return self.row(item["question"], item["state"])
