"""Reads and writes the safetensors format (8-byte little-endian header length, a JSON header of
{name: {dtype, shape, data_offsets: [begin, end]}}, then the raw little-endian data), so that the
Python side needs no package beyond torch and numpy. Format: huggingface/safetensors README."""
from __future__ import annotations

import json
import struct
from typing import Dict, Optional

import numpy as np
import torch

_DTYPES = {
    torch.float32: ("F32", np.float32),
    torch.float16: ("F16", np.float16),
    torch.int64: ("I64", np.int64),
    torch.int32: ("I32", np.int32),
    torch.int8: ("I8", np.int8),
}
_BY_NAME = {name: (dt, np_dt) for dt, (name, np_dt) in _DTYPES.items()}
_BY_NAME["BF16"] = (torch.bfloat16, None)


def save(tensors: Dict[str, torch.Tensor], path: str, metadata: Optional[Dict[str, str]] = None) -> None:
    """Writes `tensors` to `path` in name order, each contiguous, offsets relative to the data start."""
    header: Dict = {}
    if metadata:
        header["__metadata__"] = metadata
    blobs = []
    offset = 0
    for name in sorted(tensors):
        t = tensors[name].detach().cpu().contiguous()
        if t.dtype not in _DTYPES:
            raise ValueError(f"{name}: unsupported dtype {t.dtype}")
        raw = t.numpy().tobytes()
        header[name] = {"dtype": _DTYPES[t.dtype][0], "shape": list(t.shape),
                        "data_offsets": [offset, offset + len(raw)]}
        blobs.append(raw)
        offset += len(raw)
    h = json.dumps(header, separators=(",", ":")).encode()
    h += b" " * (-len(h) % 8)  # keep the data 8-byte aligned
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", len(h)))
        f.write(h)
        for b in blobs:
            f.write(b)


def load(path: str) -> Dict[str, torch.Tensor]:
    """Reads every tensor of a safetensors file (BF16 is widened to F32)."""
    with open(path, "rb") as f:
        data = f.read()
    (n,) = struct.unpack("<Q", data[:8])
    header = json.loads(data[8: 8 + n])
    base = 8 + n
    out = {}
    for name, info in header.items():
        if name == "__metadata__":
            continue
        b, e = info["data_offsets"]
        raw = data[base + b: base + e]
        dt, np_dt = _BY_NAME[info["dtype"]]
        if dt is torch.bfloat16:
            u16 = np.frombuffer(raw, dtype=np.uint16).astype(np.uint32) << 16
            arr = u16.view(np.float32)
        else:
            arr = np.frombuffer(raw, dtype=np_dt)
        out[name] = torch.from_numpy(arr.copy()).reshape(info["shape"])
    return out
