"""Greedy and beam search for MarianMTModel with Hugging Face generate() semantics (the reference that
tern's search is tested against). Incremental decoding with a KV cache; batch of sentences.

Semantics (transformers' GreedySearch and BeamSearchScorer/BeamHypotheses with early_stopping=False):
- greedy: argmax of the logits with pad / bad_words_ids masked and, at the last allowed step, only
  </s> allowed (forced_eos_token_id); score = sum of log_softmax of the raw logits at the chosen tokens.
- beam: log_softmax, masks applied after it (not renormalized), running score added, top 2 x beam per
  sentence; </s> candidates within the first `beam` ranks finish with score sum_logprob /
  generated_len ** length_penalty (generated_len counts the </s>); done when `beam` are finished and
  the worst finished >= best candidate / generated_len ** length_penalty; at max_length the running
  beams finish as they are. Results: ids without the decoder start token and without the final </s>.
"""
from __future__ import annotations

import math
from typing import List, Optional, Sequence, Tuple

import torch

from marian import MarianMTModel

NEG_INF = float("-inf")


def _pad_batch(srcs: Sequence[Sequence[int]], pad: int) -> torch.Tensor:
    s = max(len(x) for x in srcs)
    out = torch.full((len(srcs), s), pad, dtype=torch.long)
    for i, x in enumerate(srcs):
        out[i, : len(x)] = torch.tensor(list(x), dtype=torch.long)
    return out


def _max_len(max_length: int, ratio: float, src_len: int) -> int:
    cap = max_length
    if ratio > 0:
        cap = min(cap, math.ceil(ratio * src_len) + 10)
    return max(cap, 1)


def _bad_mask(model: MarianMTModel, bad_words: Sequence[int]) -> torch.Tensor:
    v = model.cfg.target_vocab_size
    m = torch.zeros(v, dtype=torch.bool)
    m[model.cfg.pad_token_id] = True
    for t in bad_words:
        m[t] = True
    return m


@torch.no_grad()
def greedy(model: MarianMTModel, srcs: Sequence[Sequence[int]], max_length: int = 256, ratio: float = 0.0,
           forced_eos: bool = True, bad_words: Sequence[int] = ()) -> List[Tuple[List[int], float]]:
    """srcs: source ids (each ending in </s>). Returns (ids, sum_logprob) per sentence."""
    cfg = model.cfg
    model.eval()
    src = _pad_batch(srcs, cfg.pad_token_id)
    enc = model.encode(src)
    cross = model.cross_kv(enc)
    mask = model.padding_mask(src, cfg.pad_token_id)
    bad = _bad_mask(model, bad_words)
    caps = [_max_len(max_length, ratio, len(s)) for s in srcs]
    n = len(srcs)
    out: List[List[int]] = [[] for _ in range(n)]
    scores = [0.0] * n
    done = [False] * n
    caches = [dict() for _ in cfg_layers(model)]
    tok = torch.full((n, 1), cfg.decoder_start_token_id, dtype=torch.long)
    for pos in range(max(caps)):
        logits = model.decode(tok, cross, mask, caches, offset=pos)[:, -1, :]
        logp = torch.log_softmax(logits, dim=-1)
        nxt = []
        for i in range(n):
            if done[i]:
                nxt.append(cfg.pad_token_id)
                continue
            last = pos + 1 >= caps[i]
            if last and forced_eos:
                t = cfg.eos_token_id
            else:
                t = int(torch.argmax(logits[i].masked_fill(bad, NEG_INF)))
            scores[i] += float(logp[i, t])
            if t == cfg.eos_token_id or last:
                done[i] = True
                if t != cfg.eos_token_id:
                    out[i].append(t)
            else:
                out[i].append(t)
            nxt.append(t)
        if all(done):
            break
        tok = torch.tensor(nxt, dtype=torch.long)[:, None]
    return [(out[i], scores[i]) for i in range(n)]


def cfg_layers(model: MarianMTModel):
    return model.model.decoder.layers


class _Hyps:
    """transformers' BeamHypotheses (early_stopping=False)."""

    def __init__(self, num_beams: int, length_penalty: float):
        self.num_beams, self.lp = num_beams, length_penalty
        self.beams: List[Tuple[float, List[int]]] = []
        self.worst = 1e9

    def add(self, hyp: List[int], sum_logprobs: float, generated_len: int):
        score = sum_logprobs / (generated_len ** self.lp)
        if len(self.beams) < self.num_beams or score > self.worst:
            self.beams.append((score, hyp))
            if len(self.beams) > self.num_beams:
                ranked = sorted([(s, i) for i, (s, _) in enumerate(self.beams)])
                del self.beams[ranked[0][1]]
                self.worst = ranked[1][0]
            else:
                self.worst = min(score, self.worst)

    def is_done(self, best_sum_logprobs: float, generated_len: int) -> bool:
        if len(self.beams) < self.num_beams:
            return False
        return self.worst >= best_sum_logprobs / generated_len ** self.lp


@torch.no_grad()
def beam_search(model: MarianMTModel, srcs: Sequence[Sequence[int]], beam: int = 4, length_penalty: float = 1.0,
                max_length: int = 256, ratio: float = 0.0, forced_eos: bool = True, bad_words: Sequence[int] = (),
                n_best: int = 1) -> List[List[Tuple[List[int], float]]]:
    """Returns, per sentence, up to n_best (ids, score) best first."""
    cfg = model.cfg
    model.eval()
    n = len(srcs)
    src = _pad_batch(srcs, cfg.pad_token_id)
    enc = model.encode(src)
    # Each sentence's beams share its cross K/V: expand to [n * beam, ...].
    cross = [(k.repeat_interleave(beam, 0), v.repeat_interleave(beam, 0)) for k, v in model.cross_kv(enc)]
    mask = model.padding_mask(src, cfg.pad_token_id).repeat_interleave(beam, 0)
    bad = _bad_mask(model, bad_words)
    caps = [_max_len(max_length, ratio, len(s)) for s in srcs]
    V = cfg.target_vocab_size
    hyps = [_Hyps(beam, length_penalty) for _ in range(n)]
    done = [False] * n
    beam_scores = torch.zeros(n, beam)
    beam_scores[:, 1:] = -1e9
    seqs: List[List[int]] = [[] for _ in range(n * beam)]
    caches = [dict() for _ in cfg_layers(model)]
    tok = torch.full((n * beam, 1), cfg.decoder_start_token_id, dtype=torch.long)
    for pos in range(max(caps)):
        logits = model.decode(tok, cross, mask, caches, offset=pos)[:, -1, :]
        scores = torch.log_softmax(logits, dim=-1)
        scores = scores.masked_fill(bad[None, :], NEG_INF)
        for b in range(n):
            if forced_eos and pos + 1 >= caps[b]:
                rows = slice(b * beam, (b + 1) * beam)
                eos_col = scores[rows, cfg.eos_token_id].clone()
                scores[rows] = NEG_INF
                scores[rows, cfg.eos_token_id] = eos_col
        scores = scores + beam_scores.view(-1, 1)
        flat = scores.view(n, beam * V)
        top_s, top_i = torch.topk(flat, 2 * beam, dim=1, largest=True, sorted=True)
        new_seqs = [[] for _ in range(n * beam)]
        new_scores = torch.full((n, beam), NEG_INF)
        parents = list(range(n * beam))
        next_tok = [cfg.pad_token_id] * (n * beam)
        gen_len = pos + 1
        for b in range(n):
            if done[b]:
                continue
            filled = 0
            for r in range(2 * beam):
                s, idx = float(top_s[b, r]), int(top_i[b, r])
                parent, t = b * beam + idx // V, idx % V
                if t == cfg.eos_token_id:
                    if r >= beam:
                        continue
                    hyps[b].add(list(seqs[parent]), s, gen_len)
                else:
                    slot = b * beam + filled
                    new_seqs[slot] = seqs[parent] + [t]
                    new_scores[b, filled] = s
                    parents[slot] = parent
                    next_tok[slot] = t
                    filled += 1
                if filled == beam:
                    break
            if hyps[b].is_done(float(top_s[b].max()), gen_len):
                done[b] = True
            elif pos + 1 >= caps[b]:
                for j in range(beam):
                    hyps[b].add(list(new_seqs[b * beam + j]), float(new_scores[b, j]), gen_len)
                done[b] = True
        if all(done):
            break
        # Reorder the KV caches by parent.
        idx = torch.tensor(parents, dtype=torch.long)
        for c in caches:
            c["k"], c["v"] = c["k"][idx], c["v"][idx]
        seqs = new_seqs
        beam_scores = new_scores
        tok = torch.tensor(next_tok, dtype=torch.long)[:, None]
    results = []
    for b in range(n):
        ranked = sorted(hyps[b].beams, key=lambda x: x[0])
        out = []
        for _ in range(min(n_best, len(ranked))):
            s, h = ranked.pop()
            out.append((h, s))
        results.append(out)
    return results


def load(ckpt_dir: str) -> MarianMTModel:
    """Loads an HF Marian-layout checkpoint directory (F32/F16/BF16 safetensors, widened to f32)."""
    import os
    import safetensors_io
    from marian import MarianConfig
    cfg = MarianConfig.load(os.path.join(ckpt_dir, "config.json"))
    model = MarianMTModel(cfg)
    tensors = {k: v.float() for k, v in safetensors_io.load(os.path.join(ckpt_dir, "model.safetensors")).items()}
    model.load_checkpoint_tensors(tensors)
    model.eval()
    return model
