"""What every family's converter shares (training/laya/convert.py, training/decima/convert.py and compose.py).

The converters talk to `structqa models import` (service/src/checkpoints/convert.ts) through stderr, one
line per message, prefixed by its kind:

    step: <what starts now>            shown with the elapsed time
    progress: <done>/<total> <unit>    within the current step (rows, bytes)
    warning: <plain words>             the checkpoint loads, as its runtime loads it, with this caveat
    refused: <file>: <what was found, what was expected>    exit status 2: the checkpoint is broken or unsupported
    failed: <type>: <message>          exit status 3: anything else; --verbose adds the traceback

Everything else on stderr (the libraries' own chatter) is shown only with --verbose. The converters never
write into the source folder: they read it, and what their runtime would patch in place is patched in a
copy (training/laya/convert.py's shadow folder).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import traceback
from pathlib import Path

# torch's OpenMP threads wait for work without spinning (unless the caller says otherwise): on a machine that
# also runs a server or other jobs, spinning threads take the cores their own next operation needs (a
# 376-token row of a ModernBERT-large forward: 4–9.5 s spinning, 3.4–4.1 s passive, side by side on a shared
# host). Set before torch loads libgomp, which reads it once.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

INPUTS = ["input_ids", "attention_mask", "marker_pos", "marker_mask", "qtype"]
VERBOSE = False


def return_freed_memory() -> None:
    """glibc's malloc raises its mmap threshold as large blocks are freed, after which weight-sized tensors
    come from the heap and stay with the process when freed; a fixed threshold keeps every tensor above
    128 KiB in its own mapping, returned to the system the moment the model that held it is dropped (a
    converter frees a model of a few GB before ONNX Runtime loads the graph)."""
    import ctypes
    import ctypes.util

    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        libc.mallopt(-3, 128 * 1024)  # M_MMAP_THRESHOLD
    except (OSError, AttributeError):
        pass  # not glibc: nothing to tune


return_freed_memory()


class Refused(Exception):
    """A checkpoint the importer cannot take; the message names the file, the field or tensor, what was found
    and what was expected."""


def step(text: str) -> None:
    extra = ""
    if VERBOSE:
        try:
            status = Path("/proc/self/status").read_text()
            rss = int(next(l.split()[1] for l in status.splitlines() if l.startswith("VmRSS:"))) // 1024
            hwm = int(next(l.split()[1] for l in status.splitlines() if l.startswith("VmHWM:"))) // 1024
            extra = f" (converter RSS {rss} MiB, peak {hwm} MiB)"
        except (OSError, StopIteration):
            pass
    print(f"step: {text}{extra}", file=sys.stderr, flush=True)


_last_progress = [0.0]


def progress(done: int, total: int, unit: str) -> None:
    """At most a few lines a second (the importer draws its bar from them), and always the last one."""
    import time

    now = time.monotonic()
    if done < total and now - _last_progress[0] < 0.25:
        return
    _last_progress[0] = now
    print(f"progress: {done}/{total} {unit}", file=sys.stderr, flush=True)


def warn(text: str) -> None:
    print(f"warning: {text}", file=sys.stderr, flush=True)


def read_json(path: Path, label: str, kind: type = dict):
    """A JSON file the checkpoint's runtime reads, or a refusal naming it and the first syntax error."""
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as e:
        raise Refused(f"{label}: not UTF-8 text (byte {e.start}); expected a JSON file") from None
    try:
        value = json.loads(text)
    except json.JSONDecodeError as e:
        raise Refused(f"{label}: not valid JSON: {e.msg} at line {e.lineno}, column {e.colno}") from None
    if not isinstance(value, kind):
        raise Refused(f"{label}: holds a JSON {json_kind(value)}; expected a JSON {json_kind(kind())}")
    return value


def json_kind(v) -> str:
    return {dict: "object", list: "array", str: "string", bool: "boolean", type(None): "null"}.get(type(v), "number")


# safetensors' element sizes (its `Dtype`), for checking a header against the file before anything loads it
DTYPE_BYTES = {"BOOL": 1, "U8": 1, "I8": 1, "F8_E5M2": 1, "F8_E4M3": 1, "I16": 2, "U16": 2, "F16": 2, "BF16": 2,
               "I32": 4, "U32": 4, "F32": 4, "F64": 8, "I64": 8, "U64": 8}


def safetensors_index(path: Path, label: str) -> dict[str, tuple[str, tuple[int, ...]]]:
    """Every tensor of a safetensors file, `name → (dtype, shape)`, read from its header alone; a truncated or
    malformed file is refused here with where it breaks (the safetensors library would raise on it, or worse,
    laya would load part of it)."""
    size = path.stat().st_size
    if size < 8:
        raise Refused(f"{label}: {size} bytes; expected a safetensors file (an 8-byte header length, a JSON header, the tensors)")
    with open(path, "rb") as f:
        n = int.from_bytes(f.read(8), "little")
        if n > size - 8:
            raise Refused(f"{label}: truncated or not a safetensors file: its first 8 bytes announce a {n:,}-byte header "
                          f"and the whole file has {size:,} bytes")
        raw = f.read(n)
    try:
        header = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise Refused(f"{label}: malformed safetensors header: not valid JSON ({e})") from None
    if not isinstance(header, dict):
        raise Refused(f"{label}: malformed safetensors header: a JSON {json_kind(header)}; expected an object of tensors")
    data = size - 8 - n
    tensors: dict[str, tuple[str, tuple[int, ...]]] = {}
    spans = []
    for name, info in header.items():
        if name == "__metadata__":
            continue
        dtype = info.get("dtype") if isinstance(info, dict) else None
        shape = info.get("shape") if isinstance(info, dict) else None
        offsets = info.get("data_offsets") if isinstance(info, dict) else None
        if dtype not in DTYPE_BYTES or not isinstance(shape, list) or not all(isinstance(d, int) and d >= 0 for d in shape) \
                or not (isinstance(offsets, list) and len(offsets) == 2 and all(isinstance(o, int) for o in offsets)):
            raise Refused(f"{label}: malformed safetensors header: tensor {name} is {json.dumps(info)[:120]}; expected "
                          '{"dtype": "F16"|"F32"|…, "shape": [ints], "data_offsets": [begin, end]}')
        need = math.prod(shape) * DTYPE_BYTES[dtype]
        if offsets[1] - offsets[0] != need:
            raise Refused(f"{label}: tensor {name} ({dtype} {shape}) spans {offsets[1] - offsets[0]:,} bytes in the header; "
                          f"expected {need:,}")
        tensors[name] = (dtype, tuple(shape))
        spans.append((offsets[0], offsets[1], name))
    spans.sort()
    end = 0
    for begin, stop, name in spans:
        if begin != end:
            raise Refused(f"{label}: malformed safetensors header: tensor {name} starts at data byte {begin:,}; expected "
                          f"{end:,} (tensors follow each other)")
        end = stop
    if end > data:
        last = next(name for b, s, name in spans if s > data)
        raise Refused(f"{label}: truncated: {size:,} bytes, but its header needs {8 + n + end:,} (tensor {last} and the "
                      f"ones after it are cut off)")
    if end < data:
        raise Refused(f"{label}: {data - end:,} bytes after the last tensor; expected the file to end at byte {8 + n + end:,}")
    return tensors


def converter_args(doc: str) -> argparse.ArgumentParser:
    """The arguments every family's converter takes (convert.ts passes them the same way)."""
    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--src", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--check-rows", type=int, default=48)
    ap.add_argument("--external-data-mb", type=int, default=1024)
    ap.add_argument("--seed", type=int, default=22)
    ap.add_argument("--verbose", action="store_true", help="a traceback on failure, the libraries' messages, memory per step")
    return ap


def run_converter(body, verbose: bool) -> int:
    """Runs a converter's body: exit 0, 2 with `refused: …` (the checkpoint), or 3 with `failed: …` (anything
    else, its traceback only with --verbose)."""
    global VERBOSE
    VERBOSE = verbose
    try:
        return body()
    except Refused as e:
        print(f"refused: {e}", file=sys.stderr, flush=True)
        return 2
    except Exception as e:  # noqa: BLE001 — the operator gets one line; --verbose the traceback
        if verbose:
            traceback.print_exc()
        print(f"failed: {type(e).__name__}: {one_line(e, 400)}", file=sys.stderr, flush=True)
        return 3


def one_line(e: BaseException, limit: int = 300) -> str:
    """An exception's message on one line (a library's message often says on its second line what was wrong)."""
    text = " ".join(str(e).split())
    return text if len(text) <= limit else text[:limit - 1] + "…"


def write_facts(out: Path, name: str, facts: dict) -> int:
    """The converter's report, read by convert.ts to write the manifest."""
    (out / name).write_text(json.dumps(facts, indent=2, ensure_ascii=False) + "\n")
    return 0


def save_graph(path: Path, out: Path, external_mb: int) -> Path:
    """Rewrite a graph as one file, or with its weights in one external-data file above `external_mb` (for
    graphs the converters build in memory; the Laya converter streams its weights instead, weights.py)."""
    import onnx

    model = onnx.load(str(path), load_external_data=True)
    weight_bytes = sum(len(t.raw_data) for t in model.graph.initializer)
    for f in out.iterdir():
        if f.name != "model.onnx" and f.suffix != ".json" and f.is_file() and f.name != "tokenizer.json":
            f.unlink()  # the exporter's own external-data shards, if any: rewritten below as one file
    if weight_bytes > external_mb * 1024 * 1024:
        # One external-data file next to the graph: onnxruntime maps it instead of copying the protobuf.
        onnx.save_model(model, str(path), save_as_external_data=True, all_tensors_to_one_file=True,
                        location="model.onnx.data", size_threshold=1024)
    else:
        onnx.save_model(model, str(path))
    return path


def batched_logits(sess, items, pad_id: int, batch: int = 8):
    """Each ``(ids, markers, qtype, …)`` item with its row of the graph's logits (float64), run ``batch``
    rows at a time, right-padded with ``pad_id`` as the engine pads them, so padding and batch-mates are
    part of what an agreement check compares."""
    import numpy as np

    for lo in range(0, len(items), batch):
        chunk = items[lo:lo + batch]
        T, K = max(len(c[0]) for c in chunk), max(len(c[1]) for c in chunk)
        ids = np.full((len(chunk), T), pad_id, np.int64); att = np.zeros((len(chunk), T), np.int64)
        pos = np.zeros((len(chunk), K), np.int64); mm = np.zeros((len(chunk), K), bool)
        for r, c in enumerate(chunk):
            i, m = c[0], c[1]
            ids[r, :len(i)], att[r, :len(i)], pos[r, :len(m)], mm[r, :len(m)] = i, 1, m, True
        feed = {"input_ids": ids, "attention_mask": att, "marker_pos": pos, "marker_mask": mm,
                "qtype": np.array([c[2] for c in chunk], np.int64)}
        yield from zip(chunk, sess.run(["logits"], feed)[0].astype(np.float64))


def softmax(z):
    import numpy as np

    e = np.exp(z - z.max())
    return e / e.sum()


def private_tmp(out: Path) -> Path:
    """The converter's temporary folder inside its output folder (convert.ts sets TMPDIR to it as well), so a
    failed import leaves nothing in the system's temporary folder: convert.ts removes the output folder."""
    tmp = out / ".tmp"
    tmp.mkdir(parents=True, exist_ok=True)
    os.environ["TMPDIR"] = str(tmp)
    import tempfile

    tempfile.tempdir = str(tmp)
    return tmp
