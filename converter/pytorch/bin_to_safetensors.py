"""Converts a checkpoint directory's pytorch_model.bin into model.safetensors (what tern-convert reads).

    /usr/bin/python3 converter/pytorch/bin_to_safetensors.py CHECKPOINT_DIR

Tensors shared in the .bin (tied embeddings) are written once per name, as the file names them; the
converter checks that copies agree and stores them once. Float tensors keep their dtype (F32/F16/BF16
are all accepted by tern-convert).
"""
from __future__ import annotations

import argparse
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import safetensors_io  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("checkpoint_dir")
    args = ap.parse_args()
    src = os.path.join(args.checkpoint_dir, "pytorch_model.bin")
    dst = os.path.join(args.checkpoint_dir, "model.safetensors")
    if not os.path.exists(src):
        print(f"bin_to_safetensors: {src}: not found", file=sys.stderr)
        return 1
    state = torch.load(src, map_location="cpu")
    if not isinstance(state, dict):
        print(f"bin_to_safetensors: {src}: not a state dict", file=sys.stderr)
        return 1
    tensors = {}
    for name, t in state.items():
        if not torch.is_tensor(t):
            continue
        if t.dtype == torch.bfloat16:
            t = t.float()
        tensors[name] = t.contiguous().clone()
    tmp = dst + ".tmp"
    safetensors_io.save(tensors, tmp, {"format": "pt", "converted_from": "pytorch_model.bin"})
    os.replace(tmp, dst)
    print(f"wrote {dst}: {len(tensors)} tensors")
    return 0


if __name__ == "__main__":
    sys.exit(main())
