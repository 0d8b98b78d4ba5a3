"""Converts a MarianMT checkpoint directory (config.json, model.safetensors, vocab.json: what
converter/pytorch/make_opus_shape.py writes, or models/en-de/checkpoint) to a CTranslate2 model with
CTranslate2's own MarianMTLoader, for the side-by-side benchmarks (bench/serving.py, bench/cold_start.py,
bench/vs_ctranslate2.py), on a machine without the transformers package:

    PYTHONPATH=CT2/python /usr/bin/python3 bench/ct2_convert.py CHECKPOINT_DIR OUT_DIR [--quantization int8]

The loader reads a transformers model's module tree (model.model.encoder.layers[i].self_attn.q_proj.weight, ...);
this script hands it the same tensors through tern's PyTorch reference model (converter/pytorch/marian.py),
which loads the checkpoint as transformers would, and a stand-in for the `transformers` module (the loader only
asks it for Conv1D, which Marian does not use). CTranslate2 is not part of tern: build it outside this repository
(docs/performance.md says how); OUT_DIR is written by CTranslate2's own spec.save.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import types
from types import SimpleNamespace as NS

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def module_tree(m, cfg):
    """The attributes MarianMTLoader reads, from tern's reference model `m`."""
    def linear(l):
        return NS(weight=l.weight.detach(), bias=l.bias.detach())

    def attention(a):
        return NS(q_proj=linear(a.q_proj), k_proj=linear(a.k_proj), v_proj=linear(a.v_proj), out_proj=linear(a.out_proj))

    def layer(l, decoder):
        d = dict(self_attn=attention(l.self_attn), self_attn_layer_norm=linear(l.self_attn_layer_norm),
                 fc1=linear(l.fc1), fc2=linear(l.fc2), final_layer_norm=linear(l.final_layer_norm))
        if decoder:
            d.update(encoder_attn=attention(l.encoder_attn), encoder_attn_layer_norm=linear(l.encoder_attn_layer_norm))
        return NS(**d)

    def stack(s, decoder):
        table = s.embed_positions.weight.detach() if s.embed_positions is not None else m.positions
        return NS(embed_scale=m.embed_scale, embed_positions=NS(weight=table),
                  embed_tokens=NS(weight=s.embed_tokens.weight.detach()), layers=[layer(l, decoder) for l in s.layers])

    config = NS(encoder_layers=cfg.encoder_layers, decoder_layers=cfg.decoder_layers,
                encoder_attention_heads=cfg.encoder_attention_heads, activation_function=cfg.activation_function,
                vocab_size=cfg.vocab_size, d_model=cfg.d_model, scale_embedding=cfg.scale_embedding)
    return NS(config=config, model=NS(encoder=stack(m.model.encoder, False), decoder=stack(m.model.decoder, True)),
              lm_head=NS(weight=m.model.decoder.embed_tokens.weight.detach(), bias=None), final_logits_bias=m.final_logits_bias)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("checkpoint")
    ap.add_argument("out")
    ap.add_argument("--quantization", default="int8")
    args = ap.parse_args()
    stand_in = types.ModuleType("transformers")
    stand_in.Conv1D = type("Conv1D", (), {})
    sys.modules.setdefault("transformers", stand_in)
    import torch
    sys.path.insert(0, os.path.join(ROOT, "converter", "pytorch"))
    from marian import MarianConfig, MarianMTModel
    import safetensors_io
    from ctranslate2.converters import transformers as ct2_transformers
    ct2_transformers.transformers, ct2_transformers.torch = sys.modules["transformers"], torch

    cfg = MarianConfig.load(os.path.join(args.checkpoint, "config.json"))
    m = MarianMTModel(cfg)
    m.load_checkpoint_tensors(safetensors_io.load(os.path.join(args.checkpoint, "model.safetensors")))
    m.eval()
    with open(os.path.join(args.checkpoint, "vocab.json"), encoding="utf-8") as f:
        vocab = json.load(f)

    class Tokenizer:  # what MarianMTLoader asks of a MarianTokenizer
        eos_token, unk_token = "</s>", "<unk>"

        def get_vocab(self):
            return vocab

    with torch.no_grad():
        spec = ct2_transformers.MarianMTLoader()(module_tree(m, cfg), Tokenizer())
    spec.validate()
    spec.optimize(quantization=args.quantization)
    os.makedirs(args.out, exist_ok=True)
    spec.save(args.out)
    print("wrote", args.out)


if __name__ == "__main__":
    main()
