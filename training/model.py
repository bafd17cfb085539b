"""The marker model: a pretrained encoder with a small head that scores each option's mask token.

    hidden = encoder(input_ids, attention_mask)                      [B,T,H]
    m_k    = hidden[b, marker_pos[b,k]]                               [B,K,H]  the option's mask token
    s_k    = mean of hidden over option k's span                      [B,K,H]  (head "span", default)
             = from its mask token up to the next mask or [SEP] token (found from input_ids in the graph)
    h_k    = [m_k ; s_k] + type_emb[qtype[b]]                         [B,K,2H] (head "marker": m_k only)
    logit  = w2 . gelu(W1 . LayerNorm(h_k) + b1) + b2                 [B,K]
    logits = where(marker_mask, logit, -1e4)
    act_logits = Linear(H,2)(hidden[:,0])                             [B,2] (part of the I/O contract;
                                                                       not trained, unused by the service)

Probabilities are softmax(logits / T) over a question's markers. The head is per-marker: a row's
outputs depend only on its own tokens (BERT attention masks padded keys), never on padding or batch-mates.
"""

from __future__ import annotations

import math

import torch
from torch import nn

SEED = 20261122
MASKED_LOGIT = -1e4


def option_spans(input_ids, marker_pos, sep_id: int, mask_id: int):
    """[B,K,T] bool: option k's tokens, from its mask token up to (excluding) the next mask or sep token.

    A real row always has such a boundary (the options end with [SEP]); without one argmax gives 0 and
    the span is empty (pooled = 0)."""
    t = input_ids.size(1)
    ar = torch.arange(t, device=input_ids.device).view(1, 1, t)
    start = marker_pos.unsqueeze(-1)                                          # [B,K,1]
    boundary = (input_ids == sep_id) | (input_ids == mask_id)                 # [B,T]
    after = boundary.unsqueeze(1) & (ar > start)                              # [B,K,T]
    end = torch.argmax(after.to(torch.int32), dim=-1, keepdim=True)          # first boundary after start
    return (ar >= start) & (ar < end)


class MarkerModel(nn.Module):
    def __init__(self, encoder: nn.Module, hidden: int, head_hidden: int | None = None, dropout: float = 0.1,
                 head: str = "span", sep_id: int = 0, mask_id: int = 0):
        super().__init__()
        self.encoder = encoder
        self.head = head
        self.sep_id, self.mask_id = int(sep_id), int(mask_id)
        head_hidden = head_hidden or hidden
        width = 2 * hidden if head == "span" else hidden
        self.type_emb = nn.Embedding(3, width)
        self.norm = nn.LayerNorm(width)
        self.dense = nn.Linear(width, head_hidden)
        self.act = nn.GELU()
        self.drop = nn.Dropout(dropout)
        self.out = nn.Linear(head_hidden, 1)
        self.act_head = nn.Linear(hidden, 2)
        nn.init.normal_(self.type_emb.weight, std=0.02)
        nn.init.normal_(self.out.weight, std=0.02)
        nn.init.zeros_(self.out.bias)

    def forward(self, input_ids, attention_mask, marker_pos, marker_mask, qtype):
        hidden = self.encoder(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
        return self.head_logits(hidden, input_ids, marker_pos, marker_mask, qtype)

    def lower(self, input_ids, attention_mask, layers: int):
        """Token states after the embeddings and the lowest ``layers`` encoder layers. With those frozen
        they are a fixed function of the row, so training can compute them once (``train.py --cache-below``)."""
        hidden = self.encoder.embeddings(input_ids=input_ids)
        return self.run_layers(hidden, attention_mask, 0, layers)

    def upper(self, hidden, attention_mask, layers: int):
        """The encoder layers above the lowest ``layers``: ``upper(lower(x, n), n)`` is the encoder's output."""
        return self.run_layers(hidden, attention_mask, layers, len(self.encoder.encoder.layer))

    def run_layers(self, hidden, attention_mask, start: int, stop: int):
        additive = torch.zeros(attention_mask.shape, dtype=hidden.dtype).masked_fill(
            attention_mask == 0, torch.finfo(hidden.dtype).min)[:, None, None, :]
        for layer in self.encoder.encoder.layer[start:stop]:
            out = layer(hidden, attention_mask=additive)
            hidden = out[0] if isinstance(out, tuple) else out
        return hidden

    def head_logits(self, hidden, input_ids, marker_pos, marker_mask, qtype):
        idx = marker_pos.unsqueeze(-1).expand(-1, -1, hidden.size(-1))
        h = torch.gather(hidden, 1, idx)
        if self.head == "span":
            span = option_spans(input_ids, marker_pos, self.sep_id, self.mask_id).to(hidden.dtype)
            pooled = torch.bmm(span, hidden) / span.sum(-1, keepdim=True).clamp(min=1.0)
            h = torch.cat([h, pooled], dim=-1)
        h = h + self.type_emb(qtype).unsqueeze(1)
        logit = self.out(self.drop(self.act(self.dense(self.norm(h))))).squeeze(-1)
        logits = torch.where(marker_mask, logit, torch.full_like(logit, MASKED_LOGIT))
        return logits, self.act_head(hidden[:, 0])


def build(backbone: str, seed: int = SEED, head: str = "span", interact: int = 0):
    """(MarkerModel, tokenizer.json path, backbone config), head initialised from ``seed``.

    The head finds option spans from the sep and mask token ids; a pruned vocabulary renumbers them,
    so call ``set_special_ids`` after pruning."""
    from backbones import load_backbone

    encoder, tj, cfg = load_backbone(backbone)
    torch.manual_seed(seed)
    sp = cfg["special_tokens"]
    if head == "segment":
        model = SegmentModel(encoder, cfg["hidden_size"], sep_id=sp["sep"]["id"], mask_id=sp["mask"]["id"], interact=interact)
    else:
        model = MarkerModel(encoder, cfg["hidden_size"], head=head, sep_id=sp["sep"]["id"], mask_id=sp["mask"]["id"])
    return model, tj, cfg


def set_special_ids(model: MarkerModel, sep_id: int, mask_id: int) -> None:
    model.sep_id, model.mask_id = int(sep_id), int(mask_id)


def freeze(model: MarkerModel, layers: int) -> dict:
    """Freeze the embeddings and the lowest ``layers`` encoder layers; returns parameter counts."""
    enc = model.encoder
    for p in enc.embeddings.parameters():
        p.requires_grad_(False)
    for layer in enc.encoder.layer[:layers]:
        for p in layer.parameters():
            p.requires_grad_(False)
    total = sum(p.numel() for p in model.parameters())
    trainable = sum(p.numel() for p in model.parameters() if p.requires_grad)
    return {"parameters": total, "trainable": trainable, "frozen_layers": layers}


def special_tokens(cfg: dict) -> dict:
    return {k: cfg["special_tokens"][k]["token"] for k in ("cls", "sep", "mask", "pad")}


def collate(rows, pad_id: int):
    """Right-pad a list of layout Rows into model inputs (numpy-free, torch tensors)."""
    b = len(rows)
    t = max(len(r.ids) for r in rows)
    k = max(len(r.markers) for r in rows)
    ids = torch.full((b, t), pad_id, dtype=torch.long)
    att = torch.zeros((b, t), dtype=torch.long)
    pos = torch.zeros((b, k), dtype=torch.long)
    mm = torch.zeros((b, k), dtype=torch.bool)
    qt = torch.zeros((b,), dtype=torch.long)
    for i, r in enumerate(rows):
        ids[i, : len(r.ids)] = torch.tensor(r.ids, dtype=torch.long)
        att[i, : len(r.ids)] = 1
        pos[i, : len(r.markers)] = torch.tensor(r.markers, dtype=torch.long)
        mm[i, : len(r.markers)] = True
        qt[i] = r.qtype
    return ids, att, pos, mm, qt


# ----------------------------------------------------------------------------- segment head
SEG_STATE = 255  # segment id of the state (options are 1..K, the question head 0)


def segment_ids(input_ids, attention_mask, marker_pos, marker_mask, sep_id: int):
    """(seg [B,T], position_ids [B,T]) of the marker layout ``[CLS] head [SEP] ([MASK] option)×K [SEP] state [SEP]``.

    Segments come from the marker positions the service computed, not from token ids, so literal
    special-token text inside a question cannot move them: the head runs up to the first marker,
    option k from its marker to the next one, the state from the first [SEP] after the last marker.
    Positions restart at 0 in each segment, as if each text were encoded on its own."""
    b, t = input_ids.shape
    ar = torch.arange(t, device=input_ids.device).view(1, t)
    big = torch.full_like(marker_pos, t)
    starts = torch.where(marker_mask, marker_pos, big)                                   # [B,K]
    seg = (ar.unsqueeze(1) >= starts.unsqueeze(-1)).sum(1)                              # [B,T] 0..K
    last = torch.where(marker_mask, marker_pos, torch.zeros_like(marker_pos)).max(1).values
    after = (input_ids == sep_id) & (ar > last.unsqueeze(1))
    state_start = torch.argmax(after.to(torch.int32), dim=1)                             # [B]
    in_state = ar >= state_start.unsqueeze(1)
    seg = torch.where(in_state, torch.full_like(seg, SEG_STATE), seg)
    opt_start = torch.gather(torch.cat([torch.zeros_like(starts[:, :1]), starts], 1), 1, seg.clamp(max=starts.size(1)))
    start = torch.where(in_state, state_start.unsqueeze(1).expand(b, t), opt_start)
    return seg, ar - start


class Interaction(nn.Module):
    """Late interaction over the frozen encoder's token states: every token of the row (question head,
    options, state) attends to every other in ``layers`` small pre-norm transformer layers of width
    ``width``, each token tagged with its segment kind (head / option / state). The segment encoder
    only compares whole-text vectors, which judges topic well but not whether a statement holds for
    this text; here the state's tokens can read the question's and the reverse.

    Returns a logit correction per option from the re-pooled (q', o'_k, s'):
    ``w . gelu(W . LayerNorm([o'_k ; s' ; o'_k*s' ; q'*s']) + type_emb[qtype])``, with ``w`` zero at
    initialisation so an untrained module leaves the segment head's answers unchanged."""

    def __init__(self, hidden: int, layers: int, width: int = 128, heads: int = 4, head_hidden: int = 256,
                 dropout: float = 0.1):
        super().__init__()
        self.proj = nn.Linear(hidden, width)
        self.kind = nn.Embedding(3, width)
        self.blocks = nn.ModuleList(_Block(width, heads, 2 * width, dropout) for _ in range(layers))
        self.norm = nn.LayerNorm(4 * width)
        self.dense = nn.Linear(4 * width, head_hidden)
        self.type_emb = nn.Embedding(3, head_hidden)
        self.act = nn.GELU()
        self.drop = nn.Dropout(dropout)
        self.out = nn.Linear(head_hidden, 1)
        nn.init.normal_(self.kind.weight, std=0.02)
        nn.init.normal_(self.type_emb.weight, std=0.02)
        nn.init.zeros_(self.out.weight)
        nn.init.zeros_(self.out.bias)

    def mix(self, hidden, seg, valid):
        """[B,T,W]: every token after attending to the whole row (padding is never attended to)."""
        kind = torch.where(seg == 0, 0, torch.where(seg == SEG_STATE, 2, 1))
        x = self.proj(hidden) + self.kind(kind)
        bias = torch.zeros(valid.shape, dtype=x.dtype).masked_fill(~valid, torch.finfo(x.dtype).min)[:, None, None, :]
        for block in self.blocks:
            x = block(x, bias)
        return x

    def forward(self, hidden, seg, valid, member, qtype):
        x = self.mix(hidden, seg, valid)
        pooled = torch.bmm(member, x) / member.sum(-1, keepdim=True).clamp(min=1.0)   # [B,K+2,W]
        k = member.size(1) - 2
        q, o, s = pooled[:, :1], pooled[:, 1:k + 1], pooled[:, k + 1:]
        f = torch.cat([o, s.expand_as(o), o * s, (q * s).expand_as(o)], -1)
        h = self.act(self.dense(self.norm(f)) + self.type_emb(qtype).unsqueeze(1))
        return self.out(self.drop(h)).squeeze(-1)


class _Block(nn.Module):
    """Pre-norm self-attention + feed-forward (written out rather than nn.TransformerEncoderLayer,
    whose inference fast path does not export to ONNX)."""

    def __init__(self, width: int, heads: int, ff: int, dropout: float):
        super().__init__()
        self.heads = heads
        self.ln1, self.ln2 = nn.LayerNorm(width), nn.LayerNorm(width)
        self.qkv = nn.Linear(width, 3 * width)
        self.o = nn.Linear(width, width)
        self.ff = nn.Sequential(nn.Linear(width, ff), nn.GELU(), nn.Linear(ff, width))
        self.drop = nn.Dropout(dropout)

    def forward(self, x, bias):
        b, t, w = x.shape
        hd = w // self.heads
        q, k, v = self.qkv(self.ln1(x)).view(b, t, 3, self.heads, hd).permute(2, 0, 3, 1, 4)
        att = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(hd) + bias, -1)
        x = x + self.drop(self.o((att @ v).transpose(1, 2).reshape(b, t, w)))
        return x + self.drop(self.ff(self.ln2(x)))


class SegmentModel(nn.Module):
    """Question, each option and the state are encoded as separate texts in one pass: attention stays
    inside a segment (a block-diagonal mask built in the graph) and positions restart per segment, so
    each segment's mean-pooled vector is the backbone's own sentence embedding of that text. The head
    scores option k from (question q, option o_k, state s):

        f_k   = [q ; o_k ; s ; o_k*s ; q*s ; o_k*q]                     6H
        logit = w2 . gelu(W1 . LayerNorm(f_k) + type_emb[qtype]) + b2 + a[qtype] * cos(o_k, s)

    The encoder can stay frozen (the backbone's similarity is the prior the head starts from), which
    lets training precompute the segment vectors once (``encode_segments``) and fit the head on them.
    """

    def __init__(self, encoder: nn.Module, hidden: int, head_hidden: int = 512, dropout: float = 0.1,
                 sep_id: int = 0, mask_id: int = 0, interact: int = 0):
        super().__init__()
        self.encoder = encoder
        self.head = "segment"
        self.sep_id, self.mask_id = int(sep_id), int(mask_id)
        width = 6 * hidden
        self.norm = nn.LayerNorm(width)
        self.dense = nn.Linear(width, head_hidden)
        self.type_emb = nn.Embedding(3, head_hidden)
        self.act = nn.GELU()
        self.drop = nn.Dropout(dropout)
        self.out = nn.Linear(head_hidden, 1)
        self.cos_scale = nn.Embedding(3, 1)
        self.act_head = nn.Linear(hidden, 2)
        nn.init.normal_(self.type_emb.weight, std=0.02)
        nn.init.normal_(self.out.weight, std=0.02)
        nn.init.zeros_(self.out.bias)
        nn.init.constant_(self.cos_scale.weight, 10.0)
        # Mean segment vector of the training data, removed before comparing: contrastively trained
        # encoders (e5 especially) put every text in a narrow cone, where raw cosines barely differ.
        self.register_buffer("center", torch.zeros(hidden))
        # created last, so the segment head's initial weights do not depend on it
        self.interaction = Interaction(hidden, interact) if interact > 0 else None

    def encode_tokens(self, input_ids, attention_mask, marker_pos, marker_mask):
        """(hidden [B,T,H], seg [B,T], valid [B,T]): token states with attention kept inside each segment."""
        seg, pos = segment_ids(input_ids, attention_mask, marker_pos, marker_mask, self.sep_id)
        valid = attention_mask.bool()
        same = (seg.unsqueeze(2) == seg.unsqueeze(1)) & valid.unsqueeze(1)               # [B,T,T]
        dtype = next(self.encoder.parameters()).dtype
        additive = torch.zeros(same.shape, dtype=dtype).masked_fill(~same, torch.finfo(dtype).min).unsqueeze(1)
        hidden = self.encoder(input_ids=input_ids, attention_mask=additive, position_ids=pos).last_hidden_state
        return hidden, seg, valid

    @staticmethod
    def membership(seg, valid, k: int, dtype):
        """[B,K+2,T]: 1 where token t belongs to the head (row 0), option k (rows 1..K) or the state (last row)."""
        ids = torch.cat([torch.zeros_like(seg[:, :1]), torch.arange(1, k + 1, device=seg.device).view(1, k).expand(seg.size(0), k),
                         torch.full_like(seg[:, :1], SEG_STATE)], 1)                      # [B,K+2]
        return ((seg.unsqueeze(1) == ids.unsqueeze(-1)) & valid.unsqueeze(1)).to(dtype)

    def pool(self, hidden, seg, valid, k: int):
        """(q [B,H], options [B,K,H], s [B,H], member): mean-pooled vectors of each segment."""
        member = self.membership(seg, valid, k, hidden.dtype)
        pooled = torch.bmm(member, hidden) / member.sum(-1, keepdim=True).clamp(min=1.0)
        return pooled[:, 0], pooled[:, 1:k + 1], pooled[:, k + 1], member

    def encode_segments(self, input_ids, attention_mask, marker_pos, marker_mask):
        """(q [B,H], options [B,K,H], s [B,H]): mean-pooled vectors of each segment."""
        hidden, seg, valid = self.encode_tokens(input_ids, attention_mask, marker_pos, marker_mask)
        q, o, s, _ = self.pool(hidden, seg, valid, marker_pos.size(1))
        return q, o, s

    def score_tokens(self, hidden, seg, valid, marker_mask, qtype):
        """Option logits from token states: the segment head, plus the interaction's correction if any."""
        q, o, s, member = self.pool(hidden, seg, valid, marker_mask.size(1))
        logit = self.score(q, o, s, marker_mask, qtype)
        if self.interaction is not None:
            logit = logit + self.interaction(hidden, seg, valid, member, qtype)
            logit = torch.where(marker_mask, logit, torch.full_like(logit, MASKED_LOGIT))
        return logit, s

    def score(self, q, options, s, marker_mask, qtype):
        qn = nn.functional.normalize(q - self.center, dim=-1).unsqueeze(1).expand_as(options)
        on = nn.functional.normalize(options - self.center, dim=-1)
        sn = nn.functional.normalize(s - self.center, dim=-1).unsqueeze(1).expand_as(options)
        f = torch.cat([qn, on, sn, on * sn, qn * sn, on * qn], -1)
        h = self.act(self.dense(self.norm(f)) + self.type_emb(qtype).unsqueeze(1))
        cos = (on * sn).sum(-1)
        logit = self.out(self.drop(h)).squeeze(-1) + self.cos_scale(qtype) * cos
        return torch.where(marker_mask, logit, torch.full_like(logit, MASKED_LOGIT))

    def forward(self, input_ids, attention_mask, marker_pos, marker_mask, qtype):
        hidden, seg, valid = self.encode_tokens(input_ids, attention_mask, marker_pos, marker_mask)
        logit, s = self.score_tokens(hidden, seg, valid, marker_mask, qtype)
        return logit, self.act_head(s)
