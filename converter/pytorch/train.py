"""Trains a Marian-layout Transformer on Multi30k and exports it as an HF MarianMT checkpoint directory.

    /usr/bin/python3 converter/pytorch/train.py --data ../shared/data/multi30k --src en --tgt de \
        --work build/train-en-de --out models/en-de

Steps: a joint SentencePiece unigram model on the train split of both languages (used as both
source.spm and target.spm, like OPUS-MT's shared vocabulary), token batches sorted by length, label
smoothing, Adam with inverse-square-root warm-up, a progress line with loss and tokens/s, a checkpoint
after every epoch (`--work/last.pt`, resumed from automatically), and the epoch with the lowest
validation loss exported to `--out` (export.py).
"""
from __future__ import annotations

import argparse
import json
import math
import os
import random
import sys
import time

import sentencepiece as spm
import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from marian import MarianConfig, MarianMTModel  # noqa: E402
import export  # noqa: E402


def read_lines(path):
    with open(path, encoding="utf-8") as f:
        return [l.rstrip("\n") for l in f]


def build_vocab(work, data, src, tgt, vocab_size):
    """Trains the joint SentencePiece model and writes vocab.json: </s>=0, <unk>=1, the pieces in
    SentencePiece order, <pad> last (the OPUS-MT convention)."""
    prefix = os.path.join(work, "spm")
    if not os.path.exists(prefix + ".model"):
        spm.SentencePieceTrainer.train(
            input=[os.path.join(data, f"train.{src}"), os.path.join(data, f"train.{tgt}")],
            model_prefix=prefix, vocab_size=vocab_size - 2, model_type="unigram",
            character_coverage=1.0, bos_id=-1, eos_id=-1, unk_id=0, num_threads=2,
            minloglevel=2)
    sp = spm.SentencePieceProcessor(model_file=prefix + ".model")
    vocab = {"</s>": 0, "<unk>": 1}
    for i in range(sp.get_piece_size()):
        if sp.is_unknown(i) or sp.is_control(i):
            continue
        vocab.setdefault(sp.id_to_piece(i), len(vocab))
    vocab["<pad>"] = len(vocab)
    return prefix + ".model", sp, vocab


def encode(sp, vocab, lines):
    unk = vocab["<unk>"]
    return [[vocab.get(p, unk) for p in sp.encode(l, out_type=str)] + [vocab["</s>"]] for l in lines]


def make_batches(pairs, max_tokens, shuffle):
    """Groups (src, tgt) id pairs of similar length into batches of at most max_tokens padded tokens."""
    order = sorted(range(len(pairs)), key=lambda i: (len(pairs[i][1]), len(pairs[i][0])))
    batches, cur, cur_max = [], [], 0
    for i in order:
        m = max(cur_max, len(pairs[i][0]), len(pairs[i][1]))
        if cur and m * (len(cur) + 1) > max_tokens:
            batches.append(cur)
            cur, m = [], max(len(pairs[i][0]), len(pairs[i][1]))
        cur.append(i)
        cur_max = m
    if cur:
        batches.append(cur)
    if shuffle:
        random.shuffle(batches)
    return batches


def collate(pairs, idx, pad, start):
    src = [pairs[i][0] for i in idx]
    tgt = [pairs[i][1] for i in idx]
    s_len, t_len = max(map(len, src)), max(map(len, tgt))
    src_t = torch.full((len(idx), s_len), pad, dtype=torch.long)
    tin = torch.full((len(idx), t_len), pad, dtype=torch.long)
    tout = torch.full((len(idx), t_len), pad, dtype=torch.long)
    for j, (s, t) in enumerate(zip(src, tgt)):
        src_t[j, : len(s)] = torch.tensor(s)
        tin[j, 0] = start
        tin[j, 1: len(t)] = torch.tensor(t[:-1])
        tout[j, : len(t)] = torch.tensor(t)
    return src_t, tin, tout


def loss_fn(logits, target, pad, smoothing):
    """Label-smoothed cross entropy summed over non-pad target tokens; returns (loss, nll, n_tokens)."""
    lp = F.log_softmax(logits.float(), dim=-1).view(-1, logits.shape[-1])
    t = target.view(-1)
    keep = t != pad
    lp, t = lp[keep], t[keep]
    nll = -lp.gather(1, t[:, None]).squeeze(1)
    smooth = -lp.mean(dim=-1)
    loss = (1 - smoothing) * nll + smoothing * smooth
    return loss.sum(), nll.sum(), int(keep.sum())


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", default="../shared/data/multi30k")
    ap.add_argument("--src", default="en")
    ap.add_argument("--tgt", default="de")
    ap.add_argument("--work", required=True, help="checkpoints and SentencePiece model (resumed from)")
    ap.add_argument("--out", required=True, help="exported checkpoint directory (HF Marian layout)")
    ap.add_argument("--vocab-size", type=int, default=8000)
    ap.add_argument("--d-model", type=int, default=256)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--ffn-dim", type=int, default=1024)
    ap.add_argument("--layers", type=int, default=3)
    ap.add_argument("--activation", default="swish")
    ap.add_argument("--pre-norm", action="store_true")
    ap.add_argument("--epochs", type=int, default=12)
    ap.add_argument("--max-tokens", type=int, default=3000, help="padded tokens per batch")
    ap.add_argument("--lr", type=float, default=1e-3, help="peak learning rate")
    ap.add_argument("--warmup", type=int, default=800, help="warm-up steps")
    ap.add_argument("--label-smoothing", type=float, default=0.1)
    ap.add_argument("--dropout", type=float, default=0.1)
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--max-steps", type=int, default=0, help="stop after this many steps (smoke tests)")
    args = ap.parse_args()

    torch.set_num_threads(args.threads)
    random.seed(args.seed)
    torch.manual_seed(args.seed)
    os.makedirs(args.work, exist_ok=True)

    spm_path, sp, vocab = build_vocab(args.work, args.data, args.src, args.tgt, args.vocab_size)
    pad = vocab["<pad>"]
    cfg = MarianConfig(vocab_size=len(vocab), d_model=args.d_model, encoder_layers=args.layers,
                       decoder_layers=args.layers, encoder_attention_heads=args.heads,
                       decoder_attention_heads=args.heads, encoder_ffn_dim=args.ffn_dim,
                       decoder_ffn_dim=args.ffn_dim, activation_function=args.activation,
                       normalize_before=args.pre_norm, pad_token_id=pad, decoder_start_token_id=pad,
                       eos_token_id=vocab["</s>"], forced_eos_token_id=vocab["</s>"], dropout=args.dropout)

    def load_split(split):
        s = encode(sp, vocab, read_lines(os.path.join(args.data, f"{split}.{args.src}")))
        t = encode(sp, vocab, read_lines(os.path.join(args.data, f"{split}.{args.tgt}")))
        return [(a[:cfg.max_position_embeddings], b[:cfg.max_position_embeddings]) for a, b in zip(s, t)]

    train, val = load_split("train"), load_split("val")
    model = MarianMTModel(cfg)
    opt = torch.optim.Adam(model.parameters(), lr=args.lr, betas=(0.9, 0.98), eps=1e-9)
    n_params = sum(p.numel() for p in model.parameters())
    print(f"model: {n_params / 1e6:.2f}M parameters, vocab {len(vocab)}, {len(train)} training pairs",
          flush=True)

    state = {"epoch": 0, "step": 0, "best_val": float("inf"), "history": []}
    last = os.path.join(args.work, "last.pt")
    if os.path.exists(last):
        ck = torch.load(last)
        model.load_state_dict(ck["model"])
        opt.load_state_dict(ck["opt"])
        state = ck["state"]
        print(f"resumed from {last}: epoch {state['epoch']}, step {state['step']}", flush=True)

    def lr_at(step):
        step = max(step, 1)
        return args.lr * min(step / args.warmup, math.sqrt(args.warmup / step))

    def evaluate():
        model.eval()
        tot, n = 0.0, 0
        with torch.no_grad():
            for idx in make_batches(val, args.max_tokens, False):
                src, tin, tout = collate(val, idx, pad, cfg.decoder_start_token_id)
                _, nll, k = loss_fn(model(src, tin), tout, pad, 0.0)
                tot, n = tot + float(nll), n + k
        model.train()
        return tot / n

    model.train()
    while state["epoch"] < args.epochs:
        batches = make_batches(train, args.max_tokens, True)
        t0, seen, run_loss, run_tok = time.time(), 0, 0.0, 0
        for bi, idx in enumerate(batches):
            src, tin, tout = collate(train, idx, pad, cfg.decoder_start_token_id)
            logits = model(src, tin)
            loss, nll, k = loss_fn(logits, tout, pad, args.label_smoothing)
            opt.zero_grad()
            (loss / k).backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            state["step"] += 1
            for g in opt.param_groups:
                g["lr"] = lr_at(state["step"])
            opt.step()
            with torch.no_grad():
                model.model.shared.weight[pad].zero_()
            seen += int((src != pad).sum()) + k
            run_loss, run_tok = run_loss + float(nll), run_tok + k
            if bi % 10 == 0 or bi == len(batches) - 1:
                el = time.time() - t0
                done = (bi + 1) / len(batches)
                bar = "#" * int(30 * done) + "." * (30 - int(30 * done))
                sys.stdout.write(f"\repoch {state['epoch'] + 1}/{args.epochs} [{bar}] {bi + 1}/{len(batches)} "
                                 f"loss {run_loss / max(run_tok, 1):.3f} {seen / el:.0f} tok/s "
                                 f"lr {lr_at(state['step']):.2e} eta {el / done - el:.0f}s ")
                sys.stdout.flush()
            if args.max_steps and state["step"] >= args.max_steps:
                break
        state["epoch"] += 1
        v = evaluate()
        state["history"].append({"epoch": state["epoch"], "step": state["step"],
                                 "train_nll": run_loss / max(run_tok, 1), "val_nll": v,
                                 "seconds": time.time() - t0})
        print(f"\nepoch {state['epoch']}: val nll {v:.3f} (ppl {math.exp(v):.2f}) "
              f"in {time.time() - t0:.0f}s", flush=True)
        if v < state["best_val"]:
            state["best_val"] = v
            torch.save(model.state_dict(), os.path.join(args.work, "best.pt"))
        torch.save({"model": model.state_dict(), "opt": opt.state_dict(), "state": state}, last + ".tmp")
        os.replace(last + ".tmp", last)
        if args.max_steps and state["step"] >= args.max_steps:
            break

    model.load_state_dict(torch.load(os.path.join(args.work, "best.pt")))
    export.export(model, spm_path, spm_path, vocab, args.out, dtype=torch.float16,
                  provenance={"data": f"multi30k train.{args.src}-{args.tgt}", "history": state["history"],
                              "command": " ".join(sys.argv)})
    print(f"exported {args.out}", flush=True)


if __name__ == "__main__":
    main()
