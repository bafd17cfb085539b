"""Python port of the service's text rendering and marker layout.

Mirrors ``service/src/engine/render.ts`` and ``service/src/engine/layout.ts`` token for token, so that
training builds exactly the sequences the service feeds the model at inference time:

    [CLS] "<type> question: <instructions>" [SEP] [MASK] opt0 [MASK] opt1 ... [SEP] <state> [SEP]

What the service sees is a JSON request parsed by JavaScript, so this port follows JavaScript where it
differs from Python's ``json.dumps``:
- numbers are written as JavaScript's ``String(n)`` (``1.0`` -> ``1``, ``1e-7``, ``1e+21``; NaN/inf -> null);
- object keys that are array indices ("0", "7", "42") come first in ascending numeric order, then the
  other keys in insertion order (``Object.entries`` order) - this also decides the order of choice options;
- lone surrogates read as U+FFFD (``String.prototype.toWellFormed`` before tokenizing).
Separators are Python's defaults (``", "`` and ``": "``), ``ensure_ascii=False``.

``training/tests/test_training.py`` checks the ids against the Node implementation.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Sequence

QTYPE_ID = {"choice": 0, "score": 1, "noul": 2}
NOUL_FALSE_DEFAULT = "no, the statement does not hold"
NOUL_TRUE_DEFAULT = "yes, the statement holds"

_INDEX_KEY = re.compile(r"^(0|[1-9][0-9]*)$")
_SURROGATE = re.compile("[\ud800-\udfff]")


# ------------------------------------------------------------------------------------ rendering


def js_number(x: float | int) -> str:
    """JavaScript's ``String(n)`` for a JSON number (shortest round-trip digits)."""
    if isinstance(x, bool):
        return "true" if x else "false"
    try:
        x = float(x)  # JavaScript numbers are doubles
    except OverflowError:
        return "null"
    if not math.isfinite(x):
        return "null"
    if x == 0:
        return "0"
    r = repr(float(x))
    sign = "-" if r.startswith("-") else ""
    r = r.lstrip("-")
    mant, _, exp = r.partition("e")
    e = int(exp) if exp else 0
    ip, _, fp = mant.partition(".")
    digits = (ip + fp).lstrip("0")
    # position of the decimal point relative to the first significant digit
    lead_zeros = len(ip + fp) - len((ip + fp).lstrip("0"))
    point = len(ip) + e - lead_zeros  # n in the ECMAScript algorithm
    digits = digits.rstrip("0") or "0"
    k = len(digits)
    n = point
    if k <= n <= 21:
        s = digits + "0" * (n - k)
    elif 0 < n <= 21:
        s = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:
        s = "0." + "0" * (-n) + digits
    else:
        e2 = n - 1
        es = ("+" if e2 >= 0 else "-") + str(abs(e2))
        s = digits[0] + ("." + digits[1:] if k > 1 else "") + "e" + es
    return sign + s


def js_entries(obj: dict) -> list[tuple[str, Any]]:
    """``Object.entries`` order: array-index keys ascending, then the rest in insertion order."""
    idx, rest = [], []
    for k, v in obj.items():
        k = str(k)
        if _INDEX_KEY.match(k) and int(k) < 2**32 - 1:
            idx.append((int(k), k, v))
        else:
            rest.append((k, v))
    idx.sort(key=lambda t: t[0])
    # a later duplicate of a key cannot occur in a parsed object; keep the insertion order otherwise
    return [(k, v) for _, k, v in idx] + rest


def _json_string(s: str) -> str:
    return json.dumps(s, ensure_ascii=False)


def python_json(value: Any) -> str:
    """render.ts ``pythonJson``: ``json.dumps(v, ensure_ascii=False)`` as the service writes it."""
    if value is None:
        return "null"
    if isinstance(value, str):
        return _json_string(value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return js_number(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(python_json(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{_json_string(k)}: {python_json(v)}" for k, v in js_entries(value)) + "}"
    return _json_string(str(value))


def render_content(value: Any) -> str:
    return value if isinstance(value, str) else python_json(value)


def _blank(value: Any) -> bool:
    return value is None or value == ""


def render_options(question: dict) -> list[str]:
    """Option texts in marker order. Noul is always [false, true]."""
    t, criteria = question["type"], question.get("criteria")
    if t == "choice":
        return [k if _blank(d) else f"{k}: {render_content(d)}" for k, d in js_entries(criteria)]
    if t == "score":
        return [f"level {i}" if _blank(d) else f"level {i}: {render_content(d)}" for i, d in enumerate(criteria)]
    if t == "noul":
        c = criteria or {}
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
        return [k for k, _ in js_entries(question["criteria"])]
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
