"""Greedy and beam search for MarianMTModel with Hugging Face generate() semantics (the reference that
tern's search is tested against). Incremental decoding with a KV cache; batch of sentences.

Semantics (transformers' greedy search, and beam search by the rules of transformers 5.x's
GenerationMixin._beam_search, or of 4.x's BeamSearchScorer/BeamHypotheses, with early_stopping false,
true or "never"; processors from processors.py in transformers' order):
- greedy: processors on the raw logits (pad and bad_words_ids masked, ..., at the last allowed step only
  </s>), argmax; score = sum over the chosen tokens of log_softmax(processed logits) (transformers'
  compute_transition_scores with normalize_logits=True; a forced </s> adds 0).
- beam: log_softmax, then the processors (ForcedEOS sets </s> to 0, so a forced </s> adds 0 to the
  hypothesis), log_softmax again when renormalize_logits, running score added, top 2 x beam per
  sentence; a hypothesis' score is sum_logprob / generated_len ** length_penalty (generated_len counts
  the </s>).
  5.x: the best `beam` candidates not ending in </s> run on; candidates ranked within the first `beam`
  that end (</s>, or the cap) are merged into the finished set (its top `beam`, equal scores in order:
  the old ones first); a sentence stops for good when its set is full and the best running beam /
  L ** length_penalty cannot beat its worst (L: tokens generated; the cap for "never" with a positive
  length penalty), or, with early_stopping true, once its set is full.
  4.x: candidates in rank order, </s> within the first `beam` ranks finishes, the others fill the beams;
  done when `beam` are finished and (early_stopping true, or) the worst finished >= best candidate /
  L ** length_penalty; at the cap the running beams finish as they are; n-best by a stable sort read
  from the end. Results: ids without the decoder start token and without the final </s>.
- target prefixes (transformers' generate() with decoder_input_ids = [start] + prefix): the prefix is
  input, so its tokens add nothing to the score and beam search divides by the tokens after it
  (cur_len + 1 - decoder_prompt_len; early_stopping "never": max_length - decoder_prompt_len); the
  processors see it as history and the cap counts it. Results hold the prefix first. Beam search runs the
  prefix through beam 0 (the others hold -1e9, as in transformers). score(): the target and </s> forced,
  every token's log_softmax(processed logits) summed (greedy search's score of the same tokens).
- tern's extension: each sentence has its own cap (max_length, or ceil(ratio * source length) + 10), and
  ForcedEOS fires at that sentence's cap.
"""
from __future__ import annotations

import math
from typing import List, Optional, Sequence, Tuple

import torch

from marian import MarianMTModel
from processors import Processors, transition_score  # noqa: F401 (Processors: for callers)

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


def default_processors(model: MarianMTModel, gen: Optional[dict] = None) -> Processors:
    """Processors for a generation config dict (generation_config.json's keys); default: Marian's
    bad_words_ids = [[pad]] and forced_eos_token_id = eos."""
    cfg = model.cfg
    if gen is None:
        gen = {"bad_words_ids": [[cfg.pad_token_id]], "forced_eos_token_id": cfg.eos_token_id}
    return Processors(gen, cfg.target_vocab_size, cfg.pad_token_id, cfg.eos_token_id)


def processors_of(model: MarianMTModel, ckpt_dir: str) -> Processors:
    """Processors for a checkpoint: its generation_config.json, else Marian's defaults."""
    import json
    import os
    path = os.path.join(ckpt_dir, "generation_config.json")
    gen = None
    if os.path.exists(path):
        with open(path) as f:
            gen = json.load(f)
    return default_processors(model, gen)


def _input_ids(start: int, seqs: Sequence[Sequence[int]]) -> torch.Tensor:
    """transformers' input_ids of each row: the start token, then the row's tokens (rows of equal length)."""
    return torch.tensor([[start] + list(s) for s in seqs], dtype=torch.long)


@torch.no_grad()
def greedy(model: MarianMTModel, srcs: Sequence[Sequence[int]], max_length: int = 256, ratio: float = 0.0,
           procs: Optional[Processors] = None, prefixes: Optional[Sequence[Sequence[int]]] = None,
           scored: bool = False, token_logprobs: Optional[List[List[float]]] = None,
           ends: Sequence[int] = ()) -> List[Tuple[List[int], float]]:
    """srcs: source ids (each ending in </s>). Returns (ids, score) per sentence. prefixes: target ids each
    sentence starts with (not scored); scored: the prefixes are whole targets, </s> follows and every token
    counts (score()). token_logprobs: filled with each sentence's per-token log-probabilities. ends: more
    tokens that end a sentence as </s> does (transformers' eos_token_id as a list)."""
    cfg = model.cfg
    model.eval()
    procs = procs or default_processors(model)
    src = _pad_batch(srcs, cfg.pad_token_id)
    enc = model.encode(src)
    cross = model.cross_kv(enc)
    mask = model.padding_mask(src, cfg.pad_token_id)
    caps = [_max_len(max_length, ratio, len(s)) for s in srcs]
    n = len(srcs)
    out: List[List[int]] = [[] for _ in range(n)]
    gen: List[List[int]] = [[] for _ in range(n)]  # tokens fed back (every row the same length)
    scores = [0.0] * n
    done = [False] * n
    caches = [dict() for _ in cfg_layers(model)]
    if token_logprobs is not None:
        token_logprobs[:] = [[] for _ in range(n)]
    tok = torch.full((n, 1), cfg.decoder_start_token_id, dtype=torch.long)
    for pos in range(max(caps)):
        logits = model.decode(tok, cross, mask, caches, offset=pos)[:, -1, :]
        processed = procs(_input_ids(cfg.decoder_start_token_id, gen), logits, [pos + 1 >= c for c in caps])
        nxt = []
        for i in range(n):
            if done[i]:
                nxt.append(cfg.pad_token_id)
                continue
            last = pos + 1 >= caps[i]
            forced = prefixes[i] if prefixes else []
            if pos < len(forced) or (scored and pos == len(forced)):
                t = forced[pos] if pos < len(forced) else cfg.eos_token_id
                lse = torch.logsumexp(processed[i], dim=-1)
                lp = float(processed[i, t] - lse) if math.isfinite(float(lse)) else NEG_INF
                if scored:
                    scores[i] += lp
            else:
                t = int(torch.argmax(processed[i]))
                if not math.isfinite(float(processed[i, t])):
                    t = cfg.eos_token_id  # everything masked (tern's ArgMax falls back to </s>)
                lp = transition_score(processed[i], t)
                scores[i] += lp
            if token_logprobs is not None:
                token_logprobs[i].append(lp)
            if t == cfg.eos_token_id or t in ends or last:
                done[i] = True
                if t != cfg.eos_token_id and t not in ends:
                    out[i].append(t)
            else:
                out[i].append(t)
            nxt.append(t)
        for i in range(n):
            gen[i].append(nxt[i])
        if all(done):
            break
        tok = torch.tensor(nxt, dtype=torch.long)[:, None]
    return [(out[i], scores[i]) for i in range(n)]


def score(model: MarianMTModel, srcs: Sequence[Sequence[int]], tgts: Sequence[Sequence[int]], max_length: int = 256,
          ratio: float = 0.0, procs: Optional[Processors] = None) -> List[Tuple[List[float], float]]:
    """Per pair: each target token's log-probability (</s> last) and their sum (greedy's score of them)."""
    lps: List[List[float]] = []
    res = greedy(model, srcs, max_length, ratio, procs, prefixes=tgts, scored=True, token_logprobs=lps)
    return [(lps[i], res[i][1]) for i in range(len(srcs))]


@torch.no_grad()
def alternatives(model: MarianMTModel, src: Sequence[int], prefix: Sequence[int], k: int, beam: int = 1,
                 max_length: int = 256, procs: Optional[Processors] = None) -> List[Tuple[List[int], float]]:
    """CTranslate2's return_alternatives (decoding.cc, decode_alternatives) for one sentence: the k most likely
    tokens after the prefix (the processed row with </s> disabled, then log_softmax; equal ones: the lower id
    first), each continued by greedy (beam 1) or beam search from prefix + [token] with n-best 1. Returns
    (ids, the token's log-probability + the continuation's score) per alternative, in the tokens' order."""
    cfg = model.cfg
    model.eval()
    procs = procs or default_processors(model)
    s = _pad_batch([src], cfg.pad_token_id)
    cross = model.cross_kv(model.encode(s))
    mask = model.padding_mask(s, cfg.pad_token_id)
    caches = [dict() for _ in cfg_layers(model)]
    cap = _max_len(max_length, 0.0, len(src))
    logits = None
    for pos, t in enumerate([cfg.decoder_start_token_id] + list(prefix)):
        logits = model.decode(torch.tensor([[t]], dtype=torch.long), cross, mask, caches, offset=pos)[:, -1, :]
    row = procs(_input_ids(cfg.decoder_start_token_id, [list(prefix)]), logits, [len(prefix) + 1 >= cap])[0].clone()
    row[cfg.eos_token_id] = NEG_INF
    lps = torch.log_softmax(row, dim=-1).tolist()
    firsts = sorted((i for i in range(len(lps)) if math.isfinite(lps[i])), key=lambda i: (-lps[i], i))[:k]
    out = []
    for t in firsts:
        p = list(prefix) + [t]
        if beam == 1:
            (ids, sc), = greedy(model, [src], max_length=max_length, procs=procs, prefixes=[p])
        else:
            ids, sc = beam_search(model, [src], beam=beam, max_length=max_length, procs=procs, n_best=1, prefixes=[p])[0][0]
        out.append((ids, lps[t] + sc))
    return out


def cfg_layers(model: MarianMTModel):
    return model.model.decoder.layers


class _Hyps:
    """Finished hypotheses of one sentence: transformers 4.x's BeamHypotheses (rules=4) or 5.x's finished
    set (rules=5: a list sorted by score, a new entry after every one scoring at least as high)."""

    def __init__(self, num_beams: int, length_penalty: float, rules: int = 5, early_stopping=False, cap: int = 0):
        self.num_beams, self.lp, self.rules, self.early, self.cap = num_beams, length_penalty, rules, early_stopping, cap
        self.beams: List[Tuple[float, List[int]]] = []
        self.worst = 1e9

    def full(self) -> bool:
        return len(self.beams) >= self.num_beams

    def add(self, hyp: List[int], sum_logprobs: float, generated_len: int):
        score = sum_logprobs / (generated_len ** self.lp)
        if self.rules == 5:
            at = len(self.beams)
            while at > 0 and self.beams[at - 1][0] < score:
                at -= 1
            if at < self.num_beams:
                self.beams.insert(at, (score, hyp))
                del self.beams[self.num_beams:]
            self.worst = min(s for s, _ in self.beams)
            return
        if len(self.beams) < self.num_beams or score > self.worst:
            self.beams.append((score, hyp))
            if len(self.beams) > self.num_beams:
                ranked = sorted([(s, i) for i, (s, _) in enumerate(self.beams)])
                del self.beams[ranked[0][1]]
                self.worst = ranked[1][0]
            else:
                self.worst = min(score, self.worst)

    def is_done(self, best_sum_logprobs: float, generated_len: int) -> bool:
        """4.x's BeamHypotheses.is_done (5.x's heuristic is in beam_search)."""
        if len(self.beams) < self.num_beams:
            return False
        if self.early is True:
            return True
        length = self.cap if self.early == "never" and self.lp > 0 else generated_len
        return self.worst >= best_sum_logprobs / length ** self.lp

    def ranked(self) -> List[Tuple[float, List[int]]]:
        if self.rules == 5:
            return list(self.beams)
        asc = sorted(self.beams, key=lambda x: x[0])
        return [asc.pop() for _ in range(len(asc))]


@torch.no_grad()
def beam_search(model: MarianMTModel, srcs: Sequence[Sequence[int]], beam: int = 4, length_penalty: float = 1.0,
                max_length: int = 256, ratio: float = 0.0, procs: Optional[Processors] = None,
                n_best: int = 1, rules: int = 5, early_stopping=False,
                prefixes: Optional[Sequence[Sequence[int]]] = None, ends: Sequence[int] = ()) -> List[List[Tuple[List[int], float]]]:
    """Returns, per sentence, up to n_best (ids, score) best first. rules: 5 or 4 (transformers' version);
    early_stopping: False, True or "never". prefixes: target ids each sentence starts with."""
    cfg = model.cfg
    model.eval()
    procs = procs or default_processors(model)
    n = len(srcs)
    src = _pad_batch(srcs, cfg.pad_token_id)
    enc = model.encode(src)
    # Each sentence's beams share its cross K/V: expand to [n * beam, ...].
    cross = [(k.repeat_interleave(beam, 0), v.repeat_interleave(beam, 0)) for k, v in model.cross_kv(enc)]
    mask = model.padding_mask(src, cfg.pad_token_id).repeat_interleave(beam, 0)
    caps = [_max_len(max_length, ratio, len(s)) for s in srcs]
    V = cfg.target_vocab_size
    pre = [list(prefixes[b]) if prefixes else [] for b in range(n)]
    hyps = [_Hyps(beam, length_penalty, rules, early_stopping, caps[b] - len(pre[b])) for b in range(n)]
    done = [False] * n
    beam_scores = torch.zeros(n, beam)
    beam_scores[:, 1:] = -1e9
    seqs: List[List[int]] = [[] for _ in range(n * beam)]
    caches = [dict() for _ in cfg_layers(model)]
    tok = torch.full((n * beam, 1), cfg.decoder_start_token_id, dtype=torch.long)
    for pos in range(max(caps)):
        logits = model.decode(tok, cross, mask, caches, offset=pos)[:, -1, :]
        scores = torch.log_softmax(logits, dim=-1)
        rows = [s if len(s) == pos else [cfg.pad_token_id] * pos for s in seqs]  # finished sentences' rows are unused
        scores = procs(_input_ids(cfg.decoder_start_token_id, rows), scores,
                       [pos + 1 >= caps[r // beam] for r in range(n * beam)])
        scores = scores + beam_scores.view(-1, 1)
        flat = scores.view(n, beam * V)
        top_s, top_i = torch.topk(flat, 2 * beam, dim=1, largest=True, sorted=True)
        new_seqs = [[] for _ in range(n * beam)]
        new_scores = torch.full((n, beam), NEG_INF)
        parents = list(range(n * beam))
        next_tok = [cfg.pad_token_id] * (n * beam)
        for b in range(n):
            if done[b]:
                continue
            if pos < len(pre[b]):  # through the prefix: every beam takes the forced token, scores unchanged
                for j in range(beam):
                    slot = b * beam + j
                    new_seqs[slot] = seqs[b * beam] + [pre[b][pos]]
                    new_scores[b, j] = beam_scores[b, j]
                    parents[slot] = b * beam
                    next_tok[slot] = pre[b][pos]
                continue
            gen_len = pos + 1 - len(pre[b])  # decoder_prompt_len: the start token and the prefix
            at_cap = pos + 1 >= caps[b]
            cands = []
            for r in range(2 * beam):
                s, idx = float(top_s[b, r]), int(top_i[b, r])
                cands.append((s, b * beam + idx // V, idx % V))
            filled = 0
            for r, (s, parent, t) in enumerate(cands):
                if t == cfg.eos_token_id or t in ends:
                    if rules == 4 and r < beam:
                        hyps[b].add(list(seqs[parent]), s, gen_len)
                    continue
                slot = b * beam + filled
                new_seqs[slot] = seqs[parent] + [t]
                new_scores[b, filled] = s
                parents[slot] = parent
                next_tok[slot] = t
                filled += 1
                if filled == beam:
                    break
            if rules == 4:
                if hyps[b].is_done(float(top_s[b].max()), gen_len):
                    done[b] = True
                elif at_cap:
                    for j in range(beam):
                        hyps[b].add(list(new_seqs[b * beam + j]), float(new_scores[b, j]), gen_len)
                    done[b] = True
                continue
            # 5.x: merge the candidates ranked within the first `beam` that end, while the sentence is open.
            if not (early_stopping is True and hyps[b].full()):
                for r, (s, parent, t) in enumerate(cands[:beam]):
                    if t == cfg.eos_token_id or t in ends:
                        hyps[b].add(list(seqs[parent]), s, gen_len)
                    elif at_cap:
                        hyps[b].add(seqs[parent] + [t], s, gen_len)
            if at_cap or filled == 0 or (early_stopping is True and hyps[b].full()):
                done[b] = True
            elif hyps[b].full():
                length = caps[b] - len(pre[b]) if early_stopping == "never" and length_penalty > 0 else gen_len
                if not float(new_scores[b, 0]) / length ** length_penalty > hyps[b].worst:
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
        ranked = hyps[b].ranked()
        results.append([(h, s) for s, h in ranked[:n_best]])
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
