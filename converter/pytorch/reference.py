"""Float reference outputs of a Marian-layout checkpoint, for tern's parity tests (in the spirit of
llama2.c's test_all.py: runtime against PyTorch on a tiny model, token for token).

    /usr/bin/python3 converter/pytorch/reference.py CKPT_DIR OUT.json [--sentences N] [--seed S]

Writes JSON: {"cases": [{"src": ids, "encoder_out": [S*D floats], "tgt_in": ids, "logits": [T*V floats],
"greedy": ids, "greedy_score": f, "beam": [[ids, score], ...] (n-best 2, beam 4, length penalty 1,
transformers 5.x's rules), "beam_rules": {NAME: [[ids, score], ...]} for the configurations of
BEAM_CONFIGS}, "prefix": ids (1-3 random target tokens), "prefix_greedy": [ids, score, token_logprobs (null: -inf)],
"prefix_beam": {NAME: [[ids, score], ...]} for PREFIX_CONFIGS (n-best 4), "score": [{"tgt": ids,
"logprobs": [...], "score": f}] for the greedy output and for random targets, "call_rules": {"greedy": [ids,
score], "beam": [[ids, score], ...]} with CALL_RULES in place of the file's rules, "alternatives": {"k": 3,
"greedy" / "beam" (beam 4): [[ids, score], ...]} (generate.alternatives after "prefix"), "suppress": {"sequences": [[id], [id, id]] (the greedy output's first
token, its second and third), "greedy": [ids, score], "beam": [[ids, score], ...]} with them suppressed,
"end_tokens": {"tokens": [id] (the greedy output's second token), "greedy": [ids, score], "beam": [[ids, score],
...]} with it ending hypotheses as </s> does, and CALL_RULES (min_length holds it back too), "forced_eos": {"on":
bool (the file's switched), "max_length": 5, "greedy": [ids, score], "beam": [[ids, score], ...]}}], "batch": {"greedy": [...],
"beam": [...]} for all cases decoded together}. Source ids are drawn at random from the vocabulary (no pad,
no </s>) and end in </s>.
"""
from __future__ import annotations

import argparse
import json
import math
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import generate  # noqa: E402

# Beam configurations checked besides the default (keyword arguments of generate.beam_search; beam 4, n-best
# 4): each transformers version's rules, each early_stopping, a length penalty other than 1.
BEAM_CONFIGS = {
    "hf5": {"rules": 5},
    "hf4": {"rules": 4},
    "hf5_early_true": {"rules": 5, "early_stopping": True},
    "hf5_never": {"rules": 5, "early_stopping": "never"},
    "hf4_early_true": {"rules": 4, "early_stopping": True},
    "hf4_never": {"rules": 4, "early_stopping": "never"},
    "hf5_lp0.6": {"rules": 5, "length_penalty": 0.6},
    "hf5_never_lp2": {"rules": 5, "early_stopping": "never", "length_penalty": 2.0},
}

# Beam configurations run with a target prefix.
PREFIX_CONFIGS = {
    "hf5": {"rules": 5},
    "hf4": {"rules": 4},
    "hf5_never_lp2": {"rules": 5, "early_stopping": "never", "length_penalty": 2.0},
    "hf4_never_lp0.6": {"rules": 4, "early_stopping": "never", "length_penalty": 0.6},
}

# A call's own logits rules (TranslateOptions::repetition_penalty, no_repeat_ngram_size, min_length) in place
# of the file's; transformers' min_length counts the start token (tern's min_length 5 = 6 here).
CALL_RULES = {"repetition_penalty": 1.3, "no_repeat_ngram_size": 3, "min_length": 6}


def _finite_or_none(xs):
    """JSON has no -Infinity: a token the rules banned (log-probability -inf) is written as null."""
    return [x if math.isfinite(x) else None for x in xs]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("ckpt")
    ap.add_argument("out")
    ap.add_argument("--sentences", type=int, default=5)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--max-length", type=int, default=20)
    args = ap.parse_args()
    torch.manual_seed(args.seed)
    model = generate.load(args.ckpt)
    cfg = model.cfg
    with open(os.path.join(args.ckpt, "generation_config.json")) as f:
        gen = json.load(f)
    procs = generate.Processors(gen, cfg.target_vocab_size, cfg.pad_token_id, cfg.eos_token_id)
    call_procs = generate.Processors(dict(gen, **CALL_RULES), cfg.target_vocab_size, cfg.pad_token_id, cfg.eos_token_id)
    special = {cfg.pad_token_id, cfg.eos_token_id}
    allowed = [i for i in range(cfg.vocab_size) if i not in special]
    srcs = []
    for i in range(args.sentences):
        n = [1, 3, 7, 12, 5, 9, 2, 15][i % 8]
        ids = [allowed[int(j)] for j in torch.randint(len(allowed), (n,))]
        srcs.append(ids + [cfg.eos_token_id])
    cases = []
    for src in srcs:
        s = torch.tensor([src])
        enc = model.encode(s)[0]
        (g_ids, g_score), = generate.greedy(model, [src], max_length=args.max_length, procs=procs)
        tgt_in = [cfg.decoder_start_token_id] + g_ids
        logits = model.decode(torch.tensor([tgt_in]), model.cross_kv(enc[None]),
                              model.padding_mask(s, cfg.pad_token_id))[0]
        beams = generate.beam_search(model, [src], beam=4, length_penalty=1.0, max_length=args.max_length,
                                     procs=procs, n_best=2)[0]
        rules = {}
        for name, kw in BEAM_CONFIGS.items():
            kw = dict(kw)
            lp = kw.pop("length_penalty", 1.0)
            rules[name] = [[h, s] for h, s in generate.beam_search(model, [src], beam=4, length_penalty=lp,
                                                                    max_length=args.max_length, procs=procs,
                                                                    n_best=4, **kw)[0]]
        tgt_allowed = [i for i in range(cfg.target_vocab_size) if i not in special]
        prefix = [tgt_allowed[int(j)] for j in torch.randint(len(tgt_allowed), (1 + len(cases) % 3,))]
        lps = []
        (p_ids, p_score), = generate.greedy(model, [src], max_length=args.max_length, procs=procs, prefixes=[prefix],
                                            token_logprobs=lps)
        p_beam = {}
        for name, kw in PREFIX_CONFIGS.items():
            kw = dict(kw)
            lp = kw.pop("length_penalty", 1.0)
            p_beam[name] = [[h, s] for h, s in generate.beam_search(model, [src], beam=4, length_penalty=lp,
                                                                     max_length=args.max_length, procs=procs, n_best=4,
                                                                     prefixes=[prefix], **kw)[0]]
        scored = []
        rnd = [tgt_allowed[int(j)] for j in torch.randint(len(tgt_allowed), (1 + len(cases) % 5,))]
        for tgt in (g_ids, rnd):
            (tlp, ts), = generate.score(model, [src], [tgt], max_length=args.max_length, procs=procs)
            scored.append({"tgt": tgt, "logprobs": _finite_or_none(tlp), "score": ts if math.isfinite(ts) else None})
        (r_ids, r_score), = generate.greedy(model, [src], max_length=args.max_length, procs=call_procs)
        r_beam = generate.beam_search(model, [src], beam=4, max_length=args.max_length, procs=call_procs, n_best=2)[0]
        call_rules = {"greedy": [r_ids, r_score], "beam": [[h, s] for h, s in r_beam]}
        sup = [[g_ids[0]]] + ([g_ids[1:3]] if len(g_ids) >= 3 else []) if g_ids else [[allowed[0]]]
        sup_procs = generate.Processors(dict(gen, suppress_sequences=sup), cfg.target_vocab_size, cfg.pad_token_id,
                                        cfg.eos_token_id)
        (s_ids, s_score), = generate.greedy(model, [src], max_length=args.max_length, procs=sup_procs)
        s_beam = generate.beam_search(model, [src], beam=4, max_length=args.max_length, procs=sup_procs, n_best=2)[0]
        ends = [g_ids[1]] if len(g_ids) > 2 else [allowed[1]]  # an end token the greedy output would meet
        end_procs = generate.Processors(dict(gen, **CALL_RULES, end_tokens=ends), cfg.target_vocab_size, cfg.pad_token_id,
                                        cfg.eos_token_id)
        (e_ids, e_score), = generate.greedy(model, [src], max_length=args.max_length, procs=end_procs, ends=ends)
        e_beam = generate.beam_search(model, [src], beam=4, max_length=args.max_length, procs=end_procs, n_best=2,
                                      ends=ends)[0]
        end_case = {"tokens": ends, "greedy": [e_ids, e_score], "beam": [[h, s] for h, s in e_beam]}
        f_on = gen.get("forced_eos_token_id") is None  # the file's forced </s> switched (TranslateOptions::forced_eos)
        f_procs = generate.Processors(dict(gen, forced_eos_token_id=cfg.eos_token_id if f_on else None),
                                      cfg.target_vocab_size, cfg.pad_token_id, cfg.eos_token_id)
        (f_ids, f_score), = generate.greedy(model, [src], max_length=5, procs=f_procs)
        f_beam = generate.beam_search(model, [src], beam=4, max_length=5, procs=f_procs, n_best=2)[0]
        forced = {"on": f_on, "max_length": 5, "greedy": [f_ids, f_score], "beam": [[h, s] for h, s in f_beam]}
        suppress = {"sequences": sup, "greedy": [s_ids, s_score], "beam": [[h, s] for h, s in s_beam]}
        alts = {"k": 3, "greedy": [[h, s] for h, s in generate.alternatives(model, src, prefix, 3, 1, args.max_length, procs)],
                "beam": [[h, s] for h, s in generate.alternatives(model, src, prefix, 3, 4, args.max_length, procs)]}
        cases.append({"call_rules": call_rules, "src": src, "encoder_out": enc.flatten().tolist(), "tgt_in": tgt_in,
                      "logits": logits.flatten().tolist(), "greedy": g_ids, "greedy_score": g_score,
                      "beam": [[h, s] for h, s in beams], "beam_rules": rules, "prefix": prefix,
                      "prefix_greedy": [p_ids, p_score, _finite_or_none(lps[0])], "prefix_beam": p_beam, "score": scored,
                      "alternatives": alts, "suppress": suppress, "end_tokens": end_case,
                      "forced_eos": forced})
    batch_greedy = [g for g, _ in generate.greedy(model, srcs, max_length=args.max_length, procs=procs)]
    batch_beam = [[h for h, _ in r] for r in generate.beam_search(model, srcs, beam=4, max_length=args.max_length,
                                                                   procs=procs, n_best=2)]
    with open(args.out, "w") as f:
        json.dump({"max_length": args.max_length, "d_model": cfg.d_model, "vocab": cfg.target_vocab_size,
                   "cases": cases, "batch": {"greedy": batch_greedy, "beam": batch_beam}}, f)


if __name__ == "__main__":
    main()
