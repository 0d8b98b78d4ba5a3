"""Writes a MarianMTModel as a checkpoint directory in the Hugging Face MarianMT (OPUS-MT) layout:
config.json, generation_config.json, model.safetensors, source.spm, target.spm, vocab.json."""
from __future__ import annotations

import json
import os
import shutil
import sys
from typing import Dict, Optional

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from marian import MarianMTModel  # noqa: E402
import safetensors_io  # noqa: E402


def export(model: MarianMTModel, source_spm: str, target_spm: str, vocab: Dict[str, int], out_dir: str,
           dtype: torch.dtype = torch.float32, provenance: Optional[Dict] = None,
           target_vocab: Optional[Dict[str, int]] = None) -> None:
    """`dtype` float16 halves the file; the reference and the converter read it back widened to f32."""
    os.makedirs(out_dir, exist_ok=True)
    cfg = model.cfg
    with open(os.path.join(out_dir, "config.json"), "w") as f:
        json.dump(cfg.to_json(), f, indent=2)
    gen = {"bad_words_ids": [[cfg.pad_token_id]], "decoder_start_token_id": cfg.decoder_start_token_id,
           "eos_token_id": cfg.eos_token_id, "forced_eos_token_id": cfg.forced_eos_token_id,
           "max_length": cfg.max_length, "num_beams": cfg.num_beams, "pad_token_id": cfg.pad_token_id}
    with open(os.path.join(out_dir, "generation_config.json"), "w") as f:
        json.dump(gen, f, indent=2)
    tensors = {k: v.to(dtype) for k, v in model.checkpoint_tensors().items()}
    meta = {"format": "pt"}
    if provenance:
        meta["tern_provenance"] = json.dumps(provenance)
    safetensors_io.save(tensors, os.path.join(out_dir, "model.safetensors"), meta)
    shutil.copyfile(source_spm, os.path.join(out_dir, "source.spm"))
    shutil.copyfile(target_spm, os.path.join(out_dir, "target.spm"))
    with open(os.path.join(out_dir, "vocab.json"), "w") as f:
        json.dump(vocab, f, ensure_ascii=False, indent=0)
    if target_vocab is not None:
        with open(os.path.join(out_dir, "target_vocab.json"), "w") as f:
            json.dump(target_vocab, f, ensure_ascii=False, indent=0)
