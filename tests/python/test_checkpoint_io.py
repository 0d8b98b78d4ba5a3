"""The Python side's checkpoint I/O: safetensors round trip, bin -> safetensors, and that an exported
checkpoint loads back into the reference model unchanged."""
import os
import subprocess
import sys

import torch

HERE = os.path.dirname(__file__)
PY = os.path.join(HERE, "..", "..", "converter", "pytorch")
sys.path.insert(0, PY)
import safetensors_io  # noqa: E402
from marian import MarianConfig, MarianMTModel  # noqa: E402


def test_safetensors_round_trip(tmp_path):
    t = {"a": torch.randn(3, 5), "b": torch.randn(7).half(), "c": torch.arange(4, dtype=torch.int64)}
    p = str(tmp_path / "m.safetensors")
    safetensors_io.save(t, p, {"k": "v"})
    back = safetensors_io.load(p)
    assert set(back) == set(t)
    for k in t:
        assert back[k].dtype == t[k].dtype and torch.equal(back[k], t[k])


def test_bin_to_safetensors(tmp_path):
    cfg = MarianConfig(vocab_size=20, d_model=8, encoder_layers=1, decoder_layers=1, encoder_attention_heads=2,
                       decoder_attention_heads=2, encoder_ffn_dim=16, decoder_ffn_dim=16, pad_token_id=19,
                       decoder_start_token_id=19)
    m = MarianMTModel(cfg)
    torch.save(m.state_dict(), tmp_path / "pytorch_model.bin")
    subprocess.run([sys.executable, os.path.join(PY, "bin_to_safetensors.py"), str(tmp_path)], check=True)
    back = safetensors_io.load(str(tmp_path / "model.safetensors"))
    for k, v in m.state_dict().items():
        assert torch.equal(back[k], v)
    m2 = MarianMTModel(cfg)
    m2.load_checkpoint_tensors(back)
    for k, v in m.state_dict().items():
        assert torch.equal(m2.state_dict()[k], v)


def test_legacy_position_tables_are_checked():
    """Older exports carry embed_positions copies of the sinusoid: accepted when they match the config's
    layout, refused when they do not (the converter applies the same rule)."""
    import pytest
    from marian import sinusoidal_positions
    cfg = MarianConfig(vocab_size=20, d_model=8, encoder_layers=1, decoder_layers=1, encoder_attention_heads=2,
                       decoder_attention_heads=2, encoder_ffn_dim=16, decoder_ffn_dim=16, pad_token_id=19,
                       decoder_start_token_id=19, max_position_embeddings=16)
    m = MarianMTModel(cfg)
    good = dict(m.checkpoint_tensors())
    good["model.encoder.embed_positions.weight"] = sinusoidal_positions(16, 8)
    MarianMTModel(cfg).load_checkpoint_tensors(dict(good))
    bad = dict(good)
    bad["model.decoder.embed_positions.weight"] = sinusoidal_positions(16, 8, interleaved=True)
    with pytest.raises(ValueError, match="decoder.embed_positions.weight differs"):
        MarianMTModel(cfg).load_checkpoint_tensors(bad)
