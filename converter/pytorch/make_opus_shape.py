"""Writes a random-weight checkpoint with the shapes of a real OPUS-MT model, in the Hugging Face MarianMT
layout, for tests and benchmarks at the size users deploy:

    /usr/bin/python3 converter/pytorch/make_opus_shape.py OUT_DIR --shape classic|tc-big
        [--assets DIR] [--layers N] [--seed S] [--dtype f16|f32]

Shapes (from the real config.json files of the two families):
  classic  opus-mt-xx-yy (e.g. Helsinki-NLP/opus-mt-en-mg): d_model 512, 8 heads, ffn 2048, 6+6 layers,
           swish, 54,688-token shared vocabulary, eos 0, unk 1, pad = decoder start = 54,687
  tc-big   opus-mt-tc-big-xx-yy (e.g. Helsinki-NLP/opus-mt-tc-big-en-pt): d_model 1024, 16 heads, ffn 4096,
           6+6 layers, relu, 54,776 tokens, eos 44,670, unk 52,024, pad = decoder start = 54,775, target
           language tokens >>pob<< and >>por<<, generation_config with renormalize_logits
--assets DIR: a real model's config.json, source.spm, target.spm, vocab.json (and tokenizer_config.json,
generation_config.json when present) are used as they are (only the layer count is changed by
--layers); the weights are random. Without it, stand-in tokenizer files are generated: SentencePiece
models trained on Multi30k (--data, default $TERN_SHARED_DIR/data/multi30k or ../shared/data/multi30k
beside the repository) and a vocab.json of the real size with the special tokens (and language tokens) at
the real ids, filled with placeholder pieces. Without Multi30k (a user's clone), the training text is made
from what the repository ships: the words of the bundled model's SentencePiece vocabulary
(models/en-de/checkpoint/source.spm).
--layers N keeps tests fast (default 6, the real depth).
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile

import sentencepiece as spm
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from marian import MarianConfig, MarianMTModel  # noqa: E402
import safetensors_io  # noqa: E402

SHAPES = {
    "classic": dict(config=dict(model_type="marian", d_model=512, encoder_attention_heads=8, decoder_attention_heads=8,
                                encoder_ffn_dim=2048, decoder_ffn_dim=2048, encoder_layers=6, decoder_layers=6,
                                activation_function="swish", vocab_size=54688, max_position_embeddings=512,
                                scale_embedding=True, pad_token_id=54687, decoder_start_token_id=54687,
                                eos_token_id=0, forced_eos_token_id=0, bad_words_ids=[[54687]], num_beams=4,
                                max_length=512, normalize_before=False, share_encoder_decoder_embeddings=True),
                    unk=1, languages=[], tokenizer=dict(source_lang="en", target_lang="mg"),
                    generation=None),  # the classic models ship no generation_config.json
    "tc-big": dict(config=dict(model_type="marian", d_model=1024, encoder_attention_heads=16, decoder_attention_heads=16,
                               encoder_ffn_dim=4096, decoder_ffn_dim=4096, encoder_layers=6, decoder_layers=6,
                               activation_function="relu", vocab_size=54776, decoder_vocab_size=54776,
                               max_position_embeddings=1024, scale_embedding=True, pad_token_id=54775,
                               decoder_start_token_id=54775, eos_token_id=44670, forced_eos_token_id=44670,
                               bad_words_ids=[[54775]], num_beams=4, max_length=512,
                               share_encoder_decoder_embeddings=True),
                   unk=52024, languages=[">>pob<<", ">>por<<"],
                   tokenizer=dict(source_lang="en", target_lang="pt", clean_up_tokenization_spaces=True),
                   generation=dict(bad_words_ids=[[54775]], bos_token_id=0, decoder_start_token_id=54775,
                                   eos_token_id=44670, forced_eos_token_id=44670, max_length=512, num_beams=4,
                                   pad_token_id=54775, renormalize_logits=True)),
}


def train_spm(path_txt: str, prefix: str, size: int) -> spm.SentencePieceProcessor:
    spm.SentencePieceTrainer.train(input=path_txt, model_prefix=prefix, vocab_size=size, model_type="unigram",
                                   character_coverage=1.0, bos_id=-1, eos_id=0, unk_id=1, pad_id=-1,
                                   hard_vocab_limit=False, minloglevel=2, input_sentence_size=40000,
                                   shuffle_input_sentence=True)
    return spm.SentencePieceProcessor(model_file=prefix + ".model")


def bundled_vocabulary_text(path: str, seed: int) -> str:
    """Training text made from the bundled model's SentencePiece pieces (words of English and German, as that
    model's shared vocabulary holds them): 20,000 lines of 12 pieces each, in a seeded order. Written to path."""
    import random

    sp = spm.SentencePieceProcessor(model_file=os.path.join(HERE, "..", "..", "models", "en-de", "checkpoint", "source.spm"))
    pieces = [sp.id_to_piece(i) for i in range(sp.get_piece_size()) if not (sp.is_control(i) or sp.is_unknown(i))]
    rng = random.Random(seed)
    with open(path, "w", encoding="utf-8") as f:
        for _ in range(20000):
            line = "".join(rng.choice(pieces) for _ in range(12)).replace("\u2581", " ").strip()
            f.write(line + "\n")
    print(f"stand-in tokenizer: no Multi30k; training text from the bundled vocabulary ({len(pieces)} pieces)")
    return path


def stand_in_tokenizer(shape: dict, out: str, data: str, seed: int) -> None:
    """source.spm / target.spm trained on Multi30k, and a vocab.json of the real size and special ids."""
    cfg = shape["config"]
    work = tempfile.mkdtemp()
    sps = []
    for side, lang in (("source", "en"), ("target", "de")):
        txt = os.path.join(data, f"train.{lang}")
        if not os.path.exists(txt):
            txt = bundled_vocabulary_text(os.path.join(work, f"bundled-words.{lang}"), seed + (lang == "de"))
        sp = train_spm(txt, os.path.join(work, side), 4000)
        shutil.copyfile(os.path.join(work, side + ".model"), os.path.join(out, side + ".spm"))
        sps.append(sp)
    n = cfg["vocab_size"]
    fixed = {"</s>": cfg["eos_token_id"], "<unk>": shape["unk"], "<pad>": cfg["pad_token_id"]}
    taken = set(fixed.values())
    free = (i for i in range(n) if i not in taken)
    for j, code in enumerate(shape["languages"]):  # language tokens spread in the vocabulary, as in the real one
        idx = (n // 3) * (j + 1) + j
        fixed[code] = idx
        taken.add(idx)
        free = (i for i in range(n) if i not in taken)
    vocab = dict(fixed)
    it = iter([i for i in range(n) if i not in taken])
    for sp in sps:
        for i in range(sp.get_piece_size()):
            p = sp.id_to_piece(i)
            if p not in vocab and not (sp.is_unknown(i) or sp.is_control(i)):
                vocab[p] = next(it)
    for i in it:
        vocab[f"<tern_filler_{i}>"] = i
    assert len(vocab) == n and sorted(vocab.values()) == list(range(n))
    with open(os.path.join(out, "vocab.json"), "w") as f:
        json.dump(vocab, f, ensure_ascii=False, indent=0)
    with open(os.path.join(out, "tokenizer_config.json"), "w") as f:
        json.dump(dict(shape["tokenizer"], tokenizer_class="MarianTokenizer"), f, indent=2)
    if shape["generation"] is not None:
        with open(os.path.join(out, "generation_config.json"), "w") as f:
            json.dump(shape["generation"], f, indent=2)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out")
    ap.add_argument("--shape", choices=sorted(SHAPES), required=True)
    ap.add_argument("--assets", help="a real model's tokenizer and config files")
    ap.add_argument("--layers", type=int, default=6)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--dtype", choices=["f16", "f32"], default="f16")
    shared = os.environ.get("TERN_SHARED_DIR", os.path.join(HERE, "..", "..", "..", "shared"))
    ap.add_argument("--data", default=os.path.join(shared, "data", "multi30k"))
    args = ap.parse_args()
    torch.manual_seed(args.seed)
    os.makedirs(args.out, exist_ok=True)
    shape = SHAPES[args.shape]
    if args.assets:
        with open(os.path.join(args.assets, "config.json")) as f:
            config = json.load(f)
        for name in ("source.spm", "target.spm", "vocab.json", "tokenizer_config.json", "generation_config.json"):
            if os.path.exists(os.path.join(args.assets, name)):
                shutil.copyfile(os.path.join(args.assets, name), os.path.join(args.out, name))
    else:
        config = dict(shape["config"])
        stand_in_tokenizer(shape, args.out, args.data, args.seed)
    config["encoder_layers"] = config["decoder_layers"] = args.layers
    with open(os.path.join(args.out, "config.json"), "w") as f:
        json.dump(config, f, indent=2)
    keys = {k: config[k] for k in ("vocab_size", "d_model", "encoder_layers", "decoder_layers", "encoder_attention_heads",
                                   "decoder_attention_heads", "encoder_ffn_dim", "decoder_ffn_dim", "activation_function",
                                   "max_position_embeddings", "pad_token_id", "decoder_start_token_id", "eos_token_id")}
    keys["decoder_vocab_size"] = config.get("decoder_vocab_size") or config["vocab_size"]
    keys["normalize_before"] = bool(config.get("normalize_before", False))
    cfg = MarianConfig(**keys, dropout=0.0)
    model = MarianMTModel(cfg)
    with torch.no_grad():  # transformers' init_std 0.02 for matrices; LayerNorms at 1 / 0
        for name, p in model.named_parameters():
            if "layer_norm" in name:
                p.fill_(1.0 if name.endswith("weight") else 0.0)
            elif p.dim() == 2:
                p.normal_(0.0, 0.02)
            else:
                p.zero_()
    dtype = torch.float16 if args.dtype == "f16" else torch.float32
    tensors = {k: v.to(dtype) for k, v in model.checkpoint_tensors().items()}
    safetensors_io.save(tensors, os.path.join(args.out, "model.safetensors"),
                        {"format": "pt", "tern_provenance": json.dumps({"random": True, "shape": args.shape,
                                                                          "assets": "real" if args.assets else "stand-in"})})
    print(f"{args.out}: {args.shape} shape, {args.layers}+{args.layers} layers, "
          f"{sum(t.numel() for t in tensors.values()) / 1e6:.1f} M parameters, "
          f"{'real' if args.assets else 'stand-in'} tokenizer files")


if __name__ == "__main__":
    main()
