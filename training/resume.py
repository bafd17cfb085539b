"""The fine-tuning loop, resumable across sessions (issue 19).

A run on 2 cores can need more hours than one session has. Every ``save_every_s`` seconds, at the end
of each epoch and when the wall-clock deadline stops it, the loop writes ``OUT/resume.pt``: the model's
and the optimizer's state, the LR schedule's step, the RNG states (dropout) and where it stands (epoch,
batch of that epoch, step, best dev score so far). ``train.py --resume`` loads it and goes on with the
very next batch: batches are a pure function of (examples, budget, seed + epoch), so the rest of the
epoch is the same list, and a resumed run takes the same steps as one that never stopped (tested to
be bitwise equal on a tiny model).

The file is written to a temporary name and renamed, so a run killed while saving leaves the previous
state intact.
"""

from __future__ import annotations

import os
import random
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable

import torch

STATE_FILE = "resume.pt"


@dataclass
class Progress:
    """Where a run stands; ``batch`` is the next batch to run within ``epoch``."""

    epoch: int = 0
    batch: int = 0
    step: int = 0
    tokens_done: int = 0
    train_s: float = 0.0
    best: dict = field(default_factory=lambda: {"acc": -1.0})


def save_state(path: Path, model, opt, sched, progress: Progress) -> None:
    tmp = path.with_suffix(".tmp")
    torch.save({
        "model": model.state_dict(), "opt": opt.state_dict(), "sched": sched.state_dict(),
        "progress": asdict(progress), "torch_rng": torch.get_rng_state(), "py_rng": random.getstate(),
    }, tmp)
    os.replace(tmp, path)


def load_state(path: Path, model, opt, sched) -> Progress:
    s = torch.load(path, weights_only=False)
    model.load_state_dict(s["model"])
    opt.load_state_dict(s["opt"])
    sched.load_state_dict(s["sched"])
    torch.set_rng_state(s["torch_rng"])
    random.setstate(s["py_rng"])
    return Progress(**s["progress"])


def run(model, opt, sched, *, epoch_batches: Callable[[int], list], step_loss: Callable[[list], tuple[torch.Tensor, int]],
        epochs: int, planned: int, progress: Progress, state_path: Path, should_stop: Callable[[], bool] = lambda: False,
        save_every_s: float = 600.0, eval_every: int = 0, evaluate: Callable[[int, int], None] = lambda e, s: None,
        emit: Callable[[dict], None] = lambda r: None) -> bool:
    """Runs steps from ``progress`` on; returns True when the planned run is complete, False when
    ``should_stop()`` (checked before each step: the wall-clock deadline) stopped it. The state is saved
    either way.

    ``epoch_batches(e)`` gives epoch e's batches (deterministic); ``step_loss(batch)`` returns the loss
    of one batch and its padded token count. ``evaluate(epoch, step)`` runs at each epoch's end and,
    with ``eval_every``, every that many steps.
    """
    last_save = time.perf_counter()
    model.train()
    for epoch in range(progress.epoch, epochs):
        bs = epoch_batches(epoch)
        start = progress.batch if epoch == progress.epoch else 0
        for i in range(start, len(bs)):
            if progress.step >= planned:
                break
            if should_stop():
                progress.epoch, progress.batch = epoch, i
                save_state(state_path, model, opt, sched, progress)
                emit({"stopped": True, "epoch": epoch, "batch": i, "step": progress.step, "resume": str(state_path)})
                return False
            ts = time.perf_counter()
            loss, tokens = step_loss(bs[i])
            opt.zero_grad(set_to_none=True)
            loss.backward()
            torch.nn.utils.clip_grad_norm_([p for g in opt.param_groups for p in g["params"]], 1.0)
            opt.step()
            sched.step()
            dt = time.perf_counter() - ts
            progress.step += 1
            progress.train_s += dt
            progress.tokens_done += tokens
            if progress.step % 10 == 0 or progress.step == 1:
                emit({"epoch": epoch, "step": progress.step, "loss": round(loss.item(), 4), "rows": len(bs[i]),
                      "step_s": round(dt, 2), "train_tokens_per_s": round(progress.tokens_done / progress.train_s, 1),
                      "lr": opt.param_groups[0]["lr"]})
            if eval_every and progress.step % eval_every == 0:
                evaluate(epoch, progress.step)
                model.train()
            if time.perf_counter() - last_save >= save_every_s:
                progress.epoch, progress.batch = epoch, i + 1
                save_state(state_path, model, opt, sched, progress)
                last_save = time.perf_counter()
        evaluate(epoch, progress.step)
        model.train()
        progress.epoch, progress.batch = epoch + 1, 0
        save_state(state_path, model, opt, sched, progress)
        last_save = time.perf_counter()
        if progress.step >= planned:
            break
    return True
