"""Writes a tiny, seeded, random checkpoint in the Hugging Face MarianMT layout, for tests.

    /usr/bin/python3 converter/pytorch/make_tiny.py OUT_DIR [--activation swish|relu|gelu] [--pre-norm]
        [--positions sinusoidal|sinusoidal_interleaved|learned] [--separate-vocab] [--legacy-copies]
        [--seed N] [--language-tokens por,pob] [--generation JSON]

The SentencePiece models are trained on a few built-in English and German sentences (vocabulary ~100).
Weights are drawn with a large spread (and final_logits_bias is random) so that the best tokens at each
step are far apart: id comparisons between implementations then test semantics, not rounding.
`--legacy-copies` also stores what older OPUS-MT exports carry (per-side embed_tokens, lm_head,
embed_positions), which the converter must accept, check and drop.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile

import sentencepiece as spm
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from marian import MarianConfig, MarianMTModel, sinusoidal_positions  # noqa: E402
import export  # noqa: E402
import safetensors_io  # noqa: E402

TEXT = """A man in a blue shirt is standing on a ladder.
Two young children are playing in the sand at the beach.
A woman with a red hat rides a bicycle down the street.
The dog runs through the green grass after a ball.
People are walking along the river in the city.
A group of men are working on a building.
Ein Mann in einem blauen Hemd steht auf einer Leiter.
Zwei kleine Kinder spielen am Strand im Sand.
Eine Frau mit einem roten Hut fährt mit dem Fahrrad die Straße entlang.
Der Hund läuft einem Ball hinterher durch das grüne Gras.
Menschen gehen in der Stadt am Fluss entlang.
Eine Gruppe von Männern arbeitet an einem Gebäude.
"""


def train_spm(prefix: str, vocab_size: int) -> spm.SentencePieceProcessor:
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
        f.write(TEXT * 4)
        path = f.name
    spm.SentencePieceTrainer.train(input=path, model_prefix=prefix, vocab_size=vocab_size, model_type="bpe",
                                   character_coverage=1.0, bos_id=-1, eos_id=-1, unk_id=0,
                                   hard_vocab_limit=False, minloglevel=2)
    os.unlink(path)
    return spm.SentencePieceProcessor(model_file=prefix + ".model")


def vocab_of(sp: spm.SentencePieceProcessor):
    vocab = {"</s>": 0, "<unk>": 1}
    for i in range(sp.get_piece_size()):
        if not (sp.is_unknown(i) or sp.is_control(i)):
            vocab.setdefault(sp.id_to_piece(i), len(vocab))
    vocab["<pad>"] = len(vocab)
    return vocab


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out")
    ap.add_argument("--activation", default="swish")
    ap.add_argument("--pre-norm", action="store_true")
    ap.add_argument("--positions", default="sinusoidal",
                    choices=["sinusoidal", "sinusoidal_interleaved", "learned"])
    ap.add_argument("--separate-vocab", action="store_true")
    ap.add_argument("--legacy-copies", action="store_true")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--d-model", type=int, default=32)
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--language-tokens", default="",
                    help="comma-separated target languages whose >>xxx<< tokens the vocabulary gets (multilingual)")
    ap.add_argument("--generation", default="{}",
                    help="JSON merged into generation_config.json (e.g. renormalize_logits, repetition_penalty)")
    args = ap.parse_args()

    torch.manual_seed(args.seed)
    os.makedirs(args.out, exist_ok=True)
    work = tempfile.mkdtemp()
    sp_src = train_spm(os.path.join(work, "src"), 100)
    src_vocab = vocab_of(sp_src)
    if args.separate_vocab:
        sp_tgt = train_spm(os.path.join(work, "tgt"), 80)
        tgt_vocab = vocab_of(sp_tgt)
        # Separate vocabularies keep their own pad; Marian requires the same pad id on both sides.
        pad = max(len(src_vocab), len(tgt_vocab)) - 1
        for v in (src_vocab, tgt_vocab):
            del v["<pad>"]
            while len(v) < pad:
                v[f"<extra_{len(v)}>"] = len(v)
            v["<pad>"] = pad
    else:
        sp_tgt, tgt_vocab = sp_src, src_vocab
    if args.language_tokens and not args.separate_vocab:  # before <pad>, which stays the last id
        del src_vocab["<pad>"]
        for lang in args.language_tokens.split(","):
            src_vocab[f">>{lang}<<"] = len(src_vocab)
        src_vocab["<pad>"] = len(src_vocab)
    pad = src_vocab["<pad>"]
    cfg = MarianConfig(vocab_size=len(src_vocab), decoder_vocab_size=len(tgt_vocab), d_model=args.d_model,
                       encoder_layers=args.layers, decoder_layers=args.layers, encoder_attention_heads=4,
                       decoder_attention_heads=4, encoder_ffn_dim=2 * args.d_model,
                       decoder_ffn_dim=2 * args.d_model, activation_function=args.activation,
                       max_position_embeddings=128, normalize_before=args.pre_norm,
                       share_encoder_decoder_embeddings=not args.separate_vocab, pad_token_id=pad,
                       decoder_start_token_id=pad, eos_token_id=0, forced_eos_token_id=0, dropout=0.0,
                       num_beams=4, max_length=40, tern_position_encoding=args.positions)
    model = MarianMTModel(cfg)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if "layer_norm" in name:
                p.copy_(1.0 + 0.2 * torch.randn_like(p) if name.endswith("weight") else 0.2 * torch.randn_like(p))
            elif "embed" in name or "shared" in name:
                p.normal_(0.0, 1.0)
            elif p.dim() == 2:
                p.normal_(0.0, 2.0 / p.shape[1] ** 0.5)
            else:
                p.normal_(0.0, 0.3)
        model.final_logits_bias.normal_(0.0, 0.5)
        model.final_logits_bias[0, pad] = 0.0
        model.final_logits_bias[0, cfg.eos_token_id] = 11.0  # sentences end at different lengths
    export.export(model, os.path.join(work, "src.model"), os.path.join(work, "tgt.model" if args.separate_vocab else "src.model"),
                  src_vocab, args.out, target_vocab=tgt_vocab if args.separate_vocab else None,
                  provenance={"tiny": True, "seed": args.seed})
    extra = json.loads(args.generation)
    if extra:
        path = os.path.join(args.out, "generation_config.json")
        with open(path) as f:
            gen = json.load(f)
        gen.update(extra)
        with open(path, "w") as f:
            json.dump(gen, f, indent=2)
    if args.legacy_copies:
        tensors = safetensors_io.load(os.path.join(args.out, "model.safetensors"))
        shared = tensors["model.shared.weight"]
        tensors["model.encoder.embed_tokens.weight"] = shared.clone()
        if not args.separate_vocab:
            tensors["model.decoder.embed_tokens.weight"] = shared.clone()
        tensors["lm_head.weight"] = tensors.get("model.decoder.embed_tokens.weight", shared).clone()
        if args.positions != "learned":
            for side in ("encoder", "decoder"):
                tensors[f"model.{side}.embed_positions.weight"] = sinusoidal_positions(
                    cfg.max_position_embeddings, cfg.d_model, args.positions == "sinusoidal_interleaved")
        safetensors_io.save(tensors, os.path.join(args.out, "model.safetensors"))


if __name__ == "__main__":
    main()
