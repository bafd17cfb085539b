"""Checks on the training pipeline (issue 6).

Run from the repo root:  /tmp/bb-venv/bin/python -m pytest training/tests/test_training.py -q
(any venv made from training/requirements.txt works). The parity test needs node and the service's
node_modules; it is skipped only when node is unavailable.
"""
from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "training"))

from layout import Layout, answer_index, option_keys, python_json, render_options  # noqa: E402

FIXTURES = ROOT / "service" / ".cache" / "fixtures"

# ~20 varied questions: all three types, null/empty/object descriptions, index-like keys (JavaScript
# orders them first), object instructions, literal mask tokens, numbers JavaScript prints differently
# from Python (1.0, 1e-7, 1e21), unicode, emoji, control characters, CJK, RTL.
QUESTIONS = [
    # what JavaScript's JSON.parse loses: integer-like keys out of order, 1.0, 1e-07, a 20-digit integer
    {"type": "choice", "instructions": {"10": 1.0, "2": 1e-7}, "criteria": {"10": None, "2": {"n": 12345678901234567890}, "b": "bee"}},
    {"type": "score", "instructions": "rate", "criteria": [None, "", {"x": -0.0}]},
    {"type": "choice", "instructions": "Route this ticket: which department owns it?",
     "criteria": {"billing": "Charges, invoices, refunds", "technical_support": "Bugs and crashes", "other": None}},
    {"type": "choice", "instructions": "Pick one", "criteria": {"A": "", "B": None, "C": "third"}},
    {"type": "choice", "instructions": {"question": "Which tier?", "note": "use the plan field", "limits": [1.0, 2.5, 1e-7]},
     "criteria": {"free": {"price": 0, "seats": 1}, "pro": {"price": 12.50, "seats": 10}, "enterprise": ["sso", "audit"]}},
    {"type": "choice", "instructions": "Numbered keys", "criteria": {"b": "bee", "10": "ten", "2": "two", "a": "ay", "01": "zero-one"}},
    {"type": "choice", "instructions": "Masks [MASK] and <mask> inside", "criteria": {"x[MASK]y": "has [MASK] in it", "z": "<mask> too"}},
    {"type": "choice", "instructions": None, "criteria": {"yes": None, "no": None}},
    {"type": "choice", "instructions": "", "criteria": {f"opt{i}": f"option number {i}" for i in range(12)}},
    {"type": "choice", "instructions": "Quelle catégorie ? Élément très « spécial »", "criteria": {"été": "saison chaude", "hiver": "saison froide"}},
    {"type": "choice", "instructions": "选择一个类别", "criteria": {"账单": "付款和退款", "技术": "错误和崩溃", "其他": None}},
    {"type": "choice", "instructions": "ما هو القسم المسؤول؟", "criteria": {"مالي": "الفواتير", "تقني": "الأعطال"}},
    {"type": "score", "instructions": "How severe is the alert?", "criteria": ["none", "low", "medium", "high", "critical"]},
    {"type": "score", "instructions": "Rate", "criteria": [None, "", "ok", {"detail": "great", "weight": 1e21}]},
    {"type": "score", "instructions": {"rubric": "tone", "scale": [0, 1, 2]}, "criteria": ["rude", "neutral", "warm"]},
    {"type": "noul", "instructions": "Is this a refund request?", "criteria": None},
    {"type": "noul", "instructions": "Is the customer angry?", "criteria": {"true": "clearly angry", "false": None}},
    {"type": "noul", "instructions": "Does it hold?", "criteria": {"false": "", "true": ""}},
    {"type": "noul", "instructions": "Tabs\tand\nnewlines\r\nand \u0007 bell", "criteria": {"true": {"rule": "amount > 100.0"}}},
    {"type": "noul", "instructions": "Emoji 🙂✅ and ½ and ﬁ ligature, ＦＵＬＬ width", "criteria": {"false": "nope 👎"}},
    {"type": "noul", "instructions": "Выполнено ли условие?", "criteria": {"true": "да", "false": "нет"}},
    {"type": "choice", "instructions": "Ünïcödé Straße İstanbul ÀÉÎ", "criteria": {"ja": "Ja, genau", "nein": "Nein"}},
]
STATES = [
    "Only two of the three items in order #22296 came.",
    [{"role": "user", "content": "I was charged twice 💳"}, {"role": "assistant", "content": "Sorry! [MASK] <mask>"}],
    {"amount": 1.0, "tiny": 1e-7, "big": 12345678901234567890, "neg": -0.5, "ok": True, "none": None, "3": "three", "1": "one"},
    "",
    "これは日本語のテキストです。\n\n第二段落。",
    {"nested": {"list": [1, 2.0, "x"], "s": "quote \" and backslash \\"}},
    "Line one\r\nLine two\twith tab \u2028 separator",
    "שלום עולם، مرحبا بالعالم",
]


def _checkpoints():
    out = []
    for name in ("fixture-en", "fixture-multilingual"):
        d = FIXTURES / name
        if (d / "tokenizer.json").exists():
            out.append((str(d / "tokenizer.json"), json.loads((d / "manifest.json").read_text())["special_tokens"]))
    cache = Path(os.environ.get("STRUCTQA_BACKBONE_CACHE", Path.home() / ".cache" / "structqa" / "backbones"))
    for name, sp in (("minilm-l6-en", dict(cls="[CLS]", sep="[SEP]", mask="[MASK]", pad="[PAD]")),
                     ("me5-small", dict(cls="<s>", sep="</s>", mask="<mask>", pad="<pad>"))):
        if (cache / name / "tokenizer.json").exists():
            out.append((str(cache / name / "tokenizer.json"), sp))
    return out


NODE_SCRIPT = r"""
import fs from 'node:fs';
import { buildHeads, tokenizeState } from './src/engine/layout.ts';
import { parseSourceJson } from './src/engine/source-json.ts';
import { CheckpointTokenizer } from './src/engine/tokenizer.ts';
// parsed as the HTTP layer parses a body: the key order and number forms the text depends on are kept
const job = parseSourceJson(fs.readFileSync(process.argv[1], 'utf8'));
const out = [];
for (const c of job.checkpoints) {
  // the implementation the service picks (the synchronous JS one for WordPiece tokenizers)
  const tok = await CheckpointTokenizer.fromFile(c.tokenizer, { name: 'parity', special_tokens: c.special });
  const heads = await buildHeads(tok, job.questions);
  const states = [];
  for (const s of job.states) states.push(await tokenizeState(tok, s));
  out.push({ heads: heads.map((h) => ({ ids: h.ids, markers: h.markers, keys: h.keys })), states });
}
process.stdout.write(JSON.stringify(out));
"""


def _ensure_fixtures():
    if (FIXTURES / "fixture-en" / "tokenizer.json").exists():
        return
    subprocess.run(["node", str(ROOT / "service" / "bin" / "structqa.js"), "fixtures", "build", "--out", str(FIXTURES)],
                   cwd=ROOT, check=True, capture_output=True, timeout=300)


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not available")
def test_layout_parity_with_service(tmp_path):
    _ensure_fixtures()
    cps = _checkpoints()
    assert cps, "no tokenizer to compare with"
    job = {"checkpoints": [{"tokenizer": t, "special": s} for t, s in cps], "questions": QUESTIONS, "states": STATES}
    jf = tmp_path / "job.json"
    jf.write_text(json.dumps(job, ensure_ascii=False), encoding="utf-8")
    script = tmp_path / "parity.mjs"
    script.write_text(NODE_SCRIPT)
    # run inside service/ so that tsx and tokenizers resolve; the script imports the .ts sources
    res = subprocess.run(["node", "--import", "tsx", "--input-type=module", "-e", NODE_SCRIPT, str(jf)],
                         cwd=ROOT / "service", capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr[-3000:]
    got = json.loads(res.stdout)
    # the Python side reads the same JSON text, as the service would
    questions = json.loads(jf.read_text(encoding="utf-8"))["questions"]
    states = json.loads(jf.read_text(encoding="utf-8"))["states"]
    compared = 0
    for (tj, sp), node in zip(cps, got):
        lay = Layout(tj, sp)
        for q, h in zip(questions, node["heads"]):
            ids, markers, keys = lay.head(q)
            assert ids == h["ids"], (tj, q)
            assert markers == h["markers"], (tj, q)
            assert keys == h["keys"], (tj, q)
            compared += 1
        for s, ids in zip(states, node["states"]):
            assert lay.state(s) == ids, (tj, s)
            compared += 1
    assert compared >= len(cps) * (len(QUESTIONS) + len(STATES))


def test_rendering_details():
    # laya's text (issue 22): keys as written, Python's numbers, every score level, noul keys lower-cased
    assert python_json({"b": 1.0, "2": [1e-7, None, True], "a": "é", "n": 12345678901234567890}) == \
        '{"b": 1.0, "2": [1e-07, null, true], "a": "é", "n": 12345678901234567890}'
    q = {"type": "choice", "criteria": {"b": "bee", "10": None, "2": "two"}}
    assert option_keys(q) == ["b", "10", "2"]
    assert render_options(q) == ["b: bee", "10", "2: two"]
    assert answer_index(q, "b") == 0
    assert render_options({"type": "score", "criteria": [None, "", "high"]}) == ["level 0: null", "level 1: ", "level 2: high"]
    n = {"type": "noul", "criteria": {"True": "yes!"}}
    assert render_options(n) == ["false: no, the statement does not hold", "true: yes!"]
    assert answer_index(n, True) == 1 and answer_index(n, False) == 0


def test_calibration_recovers_temperature():
    import random

    from calibrate import calibrate, report

    rng = random.Random(0)
    rows = []
    for i in range(600):
        n = [2, 4, 7][i % 3]
        true = [rng.gauss(0, 1) for _ in range(n)]  # logits of a model calibrated at T = 1
        z = max(true)
        p = [math.exp(x - z) for x in true]
        s = sum(p)
        label = rng.choices(range(n), [x / s for x in p])[0]
        rows.append({"lang": "en", "type": "choice", "label": label, "logits": [3 * x for x in true]})  # overconfident x3
    cal = calibrate(rows, min_items=30)
    for b in ("2", "3-5", "6-10"):
        assert 2.2 < cal["temperature"]["choice"][b] < 4.0
    rep = report(rows, cal)["choice"]
    assert rep["ece_after"] < rep["ece_before"] and rep["nll_after"] < rep["nll_before"]
    assert "by_language" not in cal


def test_ece_floor_is_what_a_calibrated_model_measures_and_shrinks_with_rows():
    import random

    from calibrate import ece, ece_floor

    rng = random.Random(1)

    def calibrated_rows(n):
        rows = []
        for _ in range(n):
            logits = [rng.gauss(0, 1.5) for _ in range(4)]
            z = max(logits)
            p = [math.exp(x - z) for x in logits]
            rows.append({"logits": logits, "label": rng.choices(range(4), p)[0]})
        return rows

    small, large = calibrated_rows(120), calibrated_rows(2000)
    floor_small, floor_large = ece_floor(small, [1.0] * 120, sims=200), ece_floor(large, [1.0] * 2000, sims=50)
    assert floor_small > 2.5 * floor_large > 0
    # a calibrated model's measured ECE is of the floor's size; an overconfident one's is well above it
    assert ece(large, [1.0] * 2000) < 2 * floor_large
    assert ece(large, [0.5] * 2000) > 4 * floor_large


def test_vocab_pruning_is_consistent(tmp_path):
    """Pruning keeps corpus pieces: the corpus tokenizes identically (ids mapped back), specials survive."""
    import vocab
    from tokenizers import Tokenizer

    tj = FIXTURES / "fixture-multilingual" / "tokenizer.json"
    if not tj.exists():
        pytest.skip("fixture-multilingual not built")
    texts = ["Der Dienst beantwortet Fragen.", "サービスは質問に答えます。", "Сервис отвечает на вопросы.",
             "choice question: which one?", " refund: the customer wants money back"]
    new, kept, stats = vocab.prune(tj, texts, ["Montag, Dienstag", "janvier février"])
    out = tmp_path / "tokenizer.json"
    out.write_text(json.dumps(new, ensure_ascii=False), encoding="utf-8")
    old_t, new_t = Tokenizer.from_file(str(tj)), Tokenizer.from_file(str(out))
    for t in texts:
        assert [kept[i] for i in new_t.encode(t, add_special_tokens=False).ids] == old_t.encode(t, add_special_tokens=False).ids
    for sp in ("<s>", "</s>", "<pad>", "<mask>", "<unk>"):
        assert new_t.token_to_id(sp) is not None and kept[new_t.token_to_id(sp)] == old_t.token_to_id(sp)
    assert stats["kept"] < stats["original"]
    res = vocab.check(tj, out, kept, ["Der Dienst antwortet.", "質問"], "<unk>")
    assert res["unk_rate_pruned"] == 0.0


def _tiny_model(vocab_size=200, sep_id=2, mask_id=3, head="span"):
    import torch
    from transformers import BertConfig, BertModel

    from model import MarkerModel, SegmentModel

    torch.manual_seed(0)
    cfg = BertConfig(vocab_size=vocab_size, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                     intermediate_size=64, max_position_embeddings=128)
    enc = BertModel(cfg, add_pooling_layer=False)
    if head.startswith("segment"):
        model = SegmentModel(enc, 32, head_hidden=16, sep_id=sep_id, mask_id=mask_id, interact=int(head == "segment-interact"))
        torch.nn.init.normal_(model.out.weight, std=0.5)  # an untrained head is near zero: make outputs differ
        if model.interaction is not None:
            torch.nn.init.normal_(model.interaction.out.weight, std=0.5)
        return model.eval()
    return MarkerModel(enc, 32, head=head, sep_id=sep_id, mask_id=mask_id).eval()


def _tiny_rows():
    from layout import Row

    # [CLS]=1 head [SEP]=2 [MASK]=3 opt ... [SEP] state [SEP]
    return [Row([1, 10, 11, 2, 3, 20, 21, 3, 22, 2, 40, 41, 42, 2], [4, 7], 0, 10),
            Row([1, 12, 2, 3, 30, 3, 31, 32, 3, 33, 2, 50, 2], [3, 5, 8], 2, 11),
            Row([1, 13, 14, 15, 2, 3, 60, 61, 62, 3, 63, 2, 70, 71, 72, 73, 74, 2], [5, 9], 1, 12)]


def test_option_spans():
    pytest.importorskip("torch")  # the training venv has it (training/requirements.txt); the test venv does not
    from model import collate, option_spans

    ids, att, pos, mm, qt = collate(_tiny_rows(), pad_id=0)
    spans = option_spans(ids, pos, 2, 3)
    got = [[[t for t in range(ids.shape[1]) if spans[b, k, t]] for k in range(int(mm[b].sum()))] for b in range(3)]
    assert got == [[[4, 5, 6], [7, 8]], [[3, 4], [5, 6, 7], [8, 9]], [[5, 6, 7, 8], [9, 10]]]


def test_segment_ids():
    pytest.importorskip("torch")  # the training venv has it (training/requirements.txt); the test venv does not
    from model import SEG_STATE, collate, segment_ids

    ids, att, pos, mm, qt = collate(_tiny_rows(), pad_id=0)
    seg, p = segment_ids(ids, att, pos, mm, sep_id=2)
    S = SEG_STATE
    # row 0: [CLS] 10 11 [SEP] | [MASK] 20 21 | [MASK] 22 | [SEP] 40 41 42 [SEP] | 4 pads (state segment, unattended)
    assert seg[0].tolist() == [0, 0, 0, 0, 1, 1, 1, 2, 2, S, S, S, S, S, S, S, S, S]
    assert p[0].tolist()[:14] == [0, 1, 2, 3, 0, 1, 2, 0, 1, 0, 1, 2, 3, 4]
    # row 1: three options
    assert seg[1].tolist()[:13] == [0, 0, 0, 1, 1, 2, 2, 2, 3, 3, S, S, S]
    assert p[1].tolist()[:13] == [0, 1, 2, 0, 1, 0, 1, 2, 0, 1, 0, 1, 2]


def test_segments_are_encoded_as_separate_texts():
    pytest.importorskip("torch")  # the training venv has it (training/requirements.txt); the test venv does not
    import torch

    from model import collate

    model = _tiny_model(head="segment")
    row = _tiny_rows()[1]
    with torch.no_grad():
        q, o, s = model.encode_segments(*collate([row], 0)[:4])

        def alone(tokens):
            t = torch.tensor([tokens])
            return model.encoder(input_ids=t, attention_mask=torch.ones_like(t)).last_hidden_state.mean(1)[0]

        ids = row.ids
        assert torch.allclose(q[0], alone(ids[:3]), atol=1e-5)
        assert torch.allclose(o[0, 0], alone(ids[3:5]), atol=1e-5)
        assert torch.allclose(o[0, 2], alone(ids[8:10]), atol=1e-5)
        assert torch.allclose(s[0], alone(ids[10:]), atol=1e-5)
        # and the state's vector does not change when an option does
        changed = list(ids)
        changed[4] = 99
        _, o2, s2 = model.encode_segments(*collate([type(row)(changed, row.markers, row.qtype, row.head_len)], 0)[:4])
        assert torch.allclose(s2[0], s[0], atol=1e-6) and not torch.allclose(o2[0, 0], o[0, 0], atol=1e-3)


def test_interaction_reads_question_and_state_together():
    pytest.importorskip("torch")  # the training venv has it (training/requirements.txt); the test venv does not
    import torch

    from model import collate

    model = _tiny_model(head="segment-interact")
    row = _tiny_rows()[0]
    Row = type(row)
    with torch.no_grad():
        hidden, seg, valid = model.encode_tokens(*collate([row], 0)[:4])
        mm, qt = collate([row], 0)[3:5]
        # change one question word: the encoder's state tokens stay the same (segments are encoded
        # apart), the interaction's state tokens do not (they attended to the question)
        other = list(row.ids)
        other[1] = 99
        h2, s2, v2 = model.encode_tokens(*collate([Row(other, row.markers, row.qtype, row.head_len)], 0)[:4])
        state = seg[0] == 255
        assert torch.allclose(h2[0, state], hidden[0, state], atol=1e-6)
        assert not torch.allclose(model.interaction.mix(h2, s2, v2)[0, state], model.interaction.mix(hidden, seg, valid)[0, state], atol=1e-4)
        # an untrained module (zero output layer) leaves the segment head's logits unchanged
        torch.nn.init.zeros_(model.interaction.out.weight)
        with_module, _ = model(*collate([row], 0))
        q, o, s, _ = model.pool(hidden, seg, valid, mm.size(1))
        assert torch.allclose(with_module, model.score(q, o, s, mm, qt), atol=1e-6)


def test_cached_lower_layers_give_the_encoders_output():
    """train.py --cache-below: upper(lower(x, n), n) is the whole encoder, for padded rows too, so a model
    trained on cached lower states is the model export.py writes."""
    pytest.importorskip("torch")  # the training venv has it (training/requirements.txt); the test venv does not
    import torch

    from model import collate

    model = _tiny_model(head="span")
    torch.nn.init.normal_(model.out.weight, std=0.5)  # an untrained head is near zero: make outputs differ
    ids, att, pos, mm, qt = collate(_tiny_rows(), 0)
    with torch.no_grad():
        whole, _ = model(ids, att, pos, mm, qt)
        for n in (0, 1, 2):
            split, _ = model.head_logits(model.upper(model.lower(ids, att, n), att, n), ids, pos, mm, qt)
            assert torch.allclose(split, whole, atol=1e-5), n
        model.encoder.encoder.layer[1].output.dense.weight.normal_(std=1.0)  # the check can fail: layers matter
        moved, _ = model.head_logits(model.upper(model.lower(ids, att, 1), att, 1), ids, pos, mm, qt)
        assert not torch.allclose(moved, whole, atol=1e-3)


@pytest.mark.parametrize("head", ["span", "segment", "segment-interact"])
def test_rows_independent_of_padding_and_batch(head):
    pytest.importorskip("torch")  # the training venv has it (training/requirements.txt); the test venv does not
    import torch

    from model import MASKED_LOGIT, collate

    model = _tiny_model(head=head)
    rows = _tiny_rows()
    with torch.no_grad():
        together, _ = model(*collate(rows, 0))
        for i, r in enumerate(rows):
            alone, _ = model(*collate([r], 0))
            assert torch.allclose(alone[0, : len(r.markers)], together[i, : len(r.markers)], atol=1e-5)
            assert torch.all(together[i, len(r.markers):] == MASKED_LOGIT)


@pytest.mark.parametrize("head", ["span", "segment", "segment-interact"])
def test_onnx_export_roundtrip(tmp_path, head):
    pytest.importorskip("torch")  # the training venv has it (training/requirements.txt); the test venv does not
    pytest.importorskip("onnxruntime")
    from export import compare, compress_weights, export_graph, ort_session

    class E:  # what compare() needs from an Example
        def __init__(self, r):
            self.ids, self.markers, self.qtype, self.n = r.ids, r.markers, r.qtype, len(r.markers)

    model = _tiny_model(head=head)
    fp32 = tmp_path / "m.onnx"
    export_graph(model, fp32)
    import onnx

    g = onnx.load(str(fp32)).graph
    types = {i.name: i.type.tensor_type.elem_type for i in g.input}
    assert types["marker_mask"] == onnx.TensorProto.BOOL and types["input_ids"] == onnx.TensorProto.INT64
    assert [o.name for o in g.output] == ["logits", "act_logits"]
    ex = [E(r) for r in _tiny_rows()] * 4
    res = compare(model, ort_session(fp32), ex, 0)
    assert res["max_abs_diff_logits"] < 1e-4 and res["argmax_agreement"] == 1.0
    for mode, tol in (("fp16", 1e-2), ("int8", 0.1)):
        out = tmp_path / f"m.{mode}.onnx"
        compress_weights(fp32, out, mode, min_elems=1024)
        assert out.stat().st_size < fp32.stat().st_size
        assert compare(model, ort_session(out), ex, 0)["max_abs_diff_logits"] < tol


def _resumable_run(tmp_path, stop_after=None, resume_from=False):
    """Two epochs of a tiny span-head model over the tiny rows; optionally stopped after N steps."""
    import torch

    import resume
    from model import collate
    from train import warmup_linear

    model = _tiny_model(head="span").train()
    torch.manual_seed(1)  # dropout
    opt = torch.optim.AdamW(model.parameters(), lr=1e-2)
    sched, _ = warmup_linear(opt, 8, 0.25)
    rows = _tiny_rows()
    plan = {0: [[rows[0]], [rows[1], rows[2]], [rows[2]], [rows[0], rows[1]]],
            1: [[rows[1]], [rows[0], rows[2]], [rows[2], rows[1]], [rows[0]]]}
    loss_f = torch.nn.CrossEntropyLoss()

    def step_loss(b):
        ids, att, pos, mm, qt = collate(b, 0)
        logits, _ = model(ids, att, pos, mm, qt)
        return loss_f(logits, torch.tensor([r.qtype % 2 for r in b])), ids.numel()

    state = tmp_path / resume.STATE_FILE
    progress = resume.load_state(state, model, opt, sched) if resume_from else resume.Progress()
    steps = iter(range(10**6))
    done = resume.run(model, opt, sched, epoch_batches=plan.__getitem__, step_loss=step_loss, epochs=2, planned=8,
                      progress=progress, state_path=state, save_every_s=0,
                      should_stop=lambda: stop_after is not None and next(steps) >= stop_after)
    return done, progress, model


def test_a_resumed_run_takes_the_same_steps_as_one_that_never_stopped(tmp_path):
    pytest.importorskip("torch")  # the training venv has it (training/requirements.txt); the test venv does not
    import torch

    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    whole_done, whole, whole_model = _resumable_run(tmp_path / "a")
    stopped_done, stopped, _ = _resumable_run(tmp_path / "b", stop_after=3)  # stops inside the first epoch
    assert whole_done and not stopped_done
    assert (stopped.epoch, stopped.batch, stopped.step) == (0, 3, 3)
    done, resumed, model = _resumable_run(tmp_path / "b", resume_from=True)
    assert done and resumed.step == whole.step == 8
    for (name, a), (_, b) in zip(whole_model.state_dict().items(), model.state_dict().items()):
        assert torch.equal(a, b), name


def test_noul_auc_ranks_with_ties_and_needs_both_answers():
    pytest.importorskip("torch")  # train.py imports torch
    from train import noul_auc

    class Row:
        type = "noul"

        def __init__(self, label):
            self.label = label

    rows = [Row(1), Row(0), Row(1), Row(0)]
    assert noul_auc(rows, [[0, 2], [0, 1], [0, 1], [0, 0]]) == 0.875  # one tie between a true and a false row
    assert noul_auc(rows, [[0, 0], [0, 1], [0, 0], [0, 2]]) == 0.0
    assert noul_auc(rows[:1], [[0, 1]]) is None


def test_calibration_merge_replaces_only_the_given_types():
    from calibrate import merge

    old = {"temperature": {"noul": {"2": 4.0}, "choice": {"2": 0.5}, "score": {"3-5": 1.7}},
           "by_language": {"fr": {"noul": {"2": 0.5}, "choice": {"2": 0.5}}, "ja": {"noul": {"2": 2.0}}}}
    new = {"temperature": {"noul": {"2": 5.0}, "choice": {"2": 1.3}, "score": {"3-5": 5.0}},
           "by_language": {"en": {"noul": {"2": 5.0}}}}
    got = merge(old, new, ["noul"])
    assert got["temperature"] == {"noul": {"2": 5.0}, "choice": {"2": 0.5}, "score": {"3-5": 1.7}}
    assert got["by_language"] == {"fr": {"choice": {"2": 0.5}}, "en": {"noul": {"2": 5.0}}}  # ja had only noul
    assert old["temperature"]["noul"] == {"2": 4.0}  # not changed in place


def test_combined_graph_answers_noul_rows_from_the_specialist_and_the_rest_from_the_base(tmp_path):
    pytest.importorskip("torch")  # the training venv has it (training/requirements.txt); the test venv does not
    pytest.importorskip("onnxruntime")
    import numpy as np
    import torch

    from combine import check, combine_graphs
    from export import export_graph, ort_session
    from model import collate

    base, noul = _tiny_model(head="span"), _tiny_model(head="span")
    torch.nn.init.normal_(base.out.weight, std=0.5)
    torch.nn.init.normal_(noul.out.weight, std=0.5)
    noul.encoder.encoder.layer[1].output.dense.weight.data.normal_()  # the two models must differ
    export_graph(base, tmp_path / "base.onnx")
    export_graph(noul, tmp_path / "noul.onnx")
    info = combine_graphs(tmp_path / "base.onnx", tmp_path / "noul.onnx", tmp_path / "both.onnx")
    assert info["shared_initializers"] > 0  # the untouched encoder weights are stored once
    feeds = dict(zip(["input_ids", "attention_mask", "marker_pos", "marker_mask", "qtype"],
                     [t.numpy() for t in collate(_tiny_rows(), 0)]))  # qtypes 0 (choice), 2 (noul), 1 (score)
    got = ort_session(tmp_path / "both.onnx").run(["logits"], feeds)[0]
    with torch.no_grad():
        want_base = base(*collate(_tiny_rows(), 0))[0].numpy()
        want_noul = noul(*collate(_tiny_rows(), 0))[0].numpy()
    assert np.allclose(got[[0, 2]], want_base[[0, 2]], atol=1e-4)
    assert np.allclose(got[1], want_noul[1], atol=1e-4) and not np.allclose(want_noul[1], want_base[1], atol=1e-3)
    assert max(check(tmp_path / "both.onnx", tmp_path / "base.onnx", tmp_path / "noul.onnx", 4, 200)["max_abs_diff"].values()) < 1e-4
