"""Logits processors with the semantics of Hugging Face transformers (generation/logits_process.py), for
the reference decoder (generate.py). Each takes transformers' `input_ids` (the decoder start token first,
then the generated tokens) of every row and a [rows, vocab] score tensor, and returns the processed
scores, as transformers' processors do. The list is built in transformers' order
(generation/utils.py, _get_logits_processor): RepetitionPenalty, NoRepeatNGram, NoBadWords, MinLength,
ForcedEOS, then LogitNormalization when renormalize_logits.
"""
from __future__ import annotations

import math
from typing import Dict, List, Sequence

import torch

NEG_INF = float("-inf")


class RepetitionPenalty:
    """RepetitionPenaltyLogitsProcessor: gather, scale (negative * penalty, else / penalty), scatter."""

    def __init__(self, penalty: float):
        self.penalty = penalty

    def __call__(self, input_ids: torch.Tensor, scores: torch.Tensor) -> torch.Tensor:
        score = torch.gather(scores, 1, input_ids)
        score = torch.where(score < 0, score * self.penalty, score / self.penalty)
        return scores.scatter(1, input_ids, score)


class NoRepeatNGram:
    """NoRepeatNGramLogitsProcessor: tokens completing an n-gram already in input_ids get -inf."""

    def __init__(self, n: int):
        self.n = n

    def __call__(self, input_ids: torch.Tensor, scores: torch.Tensor) -> torch.Tensor:
        scores = scores.clone()
        cur_len = input_ids.shape[-1]
        if cur_len + 1 < self.n:
            return scores
        for r in range(input_ids.shape[0]):
            toks = input_ids[r].tolist()
            grams: Dict[tuple, List[int]] = {}
            for g in zip(*[toks[i:] for i in range(self.n)]):
                grams.setdefault(tuple(g[:-1]), []).append(g[-1])
            prefix = tuple(toks[cur_len + 1 - self.n:cur_len])
            for t in grams.get(prefix, []):
                scores[r, t] = NEG_INF
        return scores


class NoBadWords:
    """NoBadWordsLogitsProcessor with single-token bad words (and pad, see generate.py)."""

    def __init__(self, ids: Sequence[int], vocab: int):
        self.mask = torch.zeros(vocab, dtype=torch.bool)
        for t in ids:
            self.mask[t] = True

    def __call__(self, input_ids: torch.Tensor, scores: torch.Tensor) -> torch.Tensor:
        return scores.masked_fill(self.mask[None, :], NEG_INF)


class BadSequences:
    """NoBadWordsLogitsProcessor for a call's own sequences of any length (tern's suppress_sequences): a
    sequence's last token gets -inf in a row whose input_ids end with the tokens before it."""

    def __init__(self, seqs: Sequence[Sequence[int]]):
        self.seqs = [list(s) for s in seqs]

    def __call__(self, input_ids: torch.Tensor, scores: torch.Tensor) -> torch.Tensor:
        scores = scores.clone()
        for r in range(input_ids.shape[0]):
            ids = input_ids[r].tolist()
            for s in self.seqs:
                before = s[:-1]
                if len(before) <= len(ids) and ids[len(ids) - len(before):] == before:
                    scores[r, s[-1]] = NEG_INF
        return scores


class MinLength:
    """MinLengthLogitsProcessor: eos gets -inf while input_ids (start token included) is shorter than
    min_length."""

    def __init__(self, min_length: int, eos: int, more_ends: Sequence[int] = ()):
        self.min_length, self.eos, self.more_ends = min_length, eos, list(more_ends)

    def __call__(self, input_ids: torch.Tensor, scores: torch.Tensor) -> torch.Tensor:
        scores = scores.clone()
        if input_ids.shape[-1] < self.min_length:
            scores[:, self.eos] = NEG_INF
            for t in self.more_ends:  # an eos_token_id list: every end token
                scores[:, t] = NEG_INF
        return scores


class ForcedEOS:
    """ForcedEOSTokenLogitsProcessor: at cur_len == max_length - 1 every token gets -inf and eos 0.
    `last` says, per row, whether this step is its last (tern's per-sentence caps, see generate.py)."""

    def __init__(self, eos: int):
        self.eos = eos

    def __call__(self, input_ids: torch.Tensor, scores: torch.Tensor, last: Sequence[bool]) -> torch.Tensor:
        scores = scores.clone()
        for r, is_last in enumerate(last):
            if is_last:
                scores[r, :] = NEG_INF
                scores[r, self.eos] = 0.0
        return scores


class Processors:
    """The list for one generation config (transformers' keys; min_length counts the start token)."""

    def __init__(self, gen: dict, vocab: int, pad: int, eos: int):
        self.steps = []
        rp = gen.get("repetition_penalty")
        if rp is not None and rp != 1.0:
            self.steps.append(RepetitionPenalty(rp))
        n = gen.get("no_repeat_ngram_size")
        if n:
            self.steps.append(NoRepeatNGram(n))
        bad = [w[0] for w in gen.get("bad_words_ids") or []]
        self.steps.append(NoBadWords(sorted(set(bad) | {pad}), vocab))
        if gen.get("suppress_sequences"):
            self.steps.append(BadSequences(gen["suppress_sequences"]))
        min_len = gen.get("min_length") or 0
        if gen.get("min_new_tokens"):
            min_len = 1 + gen["min_new_tokens"]
        if min_len > 0:
            self.steps.append(MinLength(min_len, eos, gen.get("end_tokens") or ()))
        self.forced = ForcedEOS(eos) if gen.get("forced_eos_token_id") is not None else None
        self.renormalize = bool(gen.get("renormalize_logits"))

    def __call__(self, input_ids: torch.Tensor, scores: torch.Tensor, last: Sequence[bool]) -> torch.Tensor:
        for p in self.steps:
            scores = p(input_ids, scores)
        if self.forced is not None:
            scores = self.forced(input_ids, scores, last)
        if self.renormalize:
            scores = torch.log_softmax(scores, dim=-1)
        return scores


def transition_score(processed_row: torch.Tensor, token: int) -> float:
    """log_softmax of one processed row at `token` (compute_transition_scores, normalize_logits=True)."""
    lse = torch.logsumexp(processed_row, dim=-1)
    if not math.isfinite(float(lse)):
        return 0.0
    return float(processed_row[token] - lse)
