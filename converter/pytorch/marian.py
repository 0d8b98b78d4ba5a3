"""A Marian-layout encoder-decoder Transformer in PyTorch: tern's training model and its float reference.

The module and parameter names are those of Hugging Face transformers' MarianMTModel, so that
`state_dict()` (with the "model." prefix) is a checkpoint in the OPUS-MT layout that the C++ converter
reads, and an OPUS-MT checkpoint loads into this module. The semantics follow transformers'
modeling_marian.py (written down here from its behaviour, not copied):

- token embeddings are multiplied by sqrt(d_model) when `scale_embedding` is true;
- positions are MarianSinusoidalPositionalEmbedding: not stored, sin in the first d_model/2 columns and
  cos in the second half, angle = pos / 10000^(2i/d_model), positions counted from 0, the table
  computed in float64 then rounded to float32;
- post-norm layers (the original paper and Marian): x = LN(x + sublayer(x)); with `normalize_before`
  (pre-norm, as in mBART): x = x + sublayer(LN(x)) and a final LayerNorm after the last layer
  (`encoder.layer_norm`, `decoder.layer_norm`);
- queries are scaled by head_dim^-0.5 after their bias;
- activation "swish" is SiLU, "gelu" is the exact erf GELU, "relu" is ReLU;
- LayerNorm epsilon is 1e-5;
- logits = decoder_output @ shared^T + final_logits_bias (the output projection is tied to the
  decoder's token embedding);
- the decoder starts from `decoder_start_token_id` (= pad for Marian), the source ends with `</s>`.

Shapes: B = batch, S = source tokens, T = target tokens, D = d_model, H = n_heads, Dh = head_dim.
"""
from __future__ import annotations

import dataclasses
import json
import math
from typing import Dict, List, Optional, Tuple

import torch
import torch.nn as nn
import torch.nn.functional as F

LAYER_NORM_EPS = 1e-5


@dataclasses.dataclass
class MarianConfig:
    """The subset of transformers' MarianConfig that tern reads (config.json keys)."""
    vocab_size: int = 8000
    decoder_vocab_size: Optional[int] = None  # None: same as vocab_size
    d_model: int = 256
    encoder_layers: int = 3
    decoder_layers: int = 3
    encoder_attention_heads: int = 4
    decoder_attention_heads: int = 4
    encoder_ffn_dim: int = 1024
    decoder_ffn_dim: int = 1024
    activation_function: str = "swish"
    max_position_embeddings: int = 512
    scale_embedding: bool = True
    normalize_before: bool = False
    share_encoder_decoder_embeddings: bool = True
    pad_token_id: int = 7999
    eos_token_id: int = 0
    decoder_start_token_id: int = 7999
    forced_eos_token_id: Optional[int] = 0
    dropout: float = 0.1
    attention_dropout: float = 0.0
    activation_dropout: float = 0.0
    num_beams: int = 4
    max_length: int = 256
    # tern extension (absent from Marian configs): "sinusoidal" (halves, Marian), "sinusoidal_interleaved"
    # (Vaswani et al.: sin in even, cos in odd columns) or "learned" (embed_positions tables stored).
    tern_position_encoding: str = "sinusoidal"

    @property
    def target_vocab_size(self) -> int:
        return self.decoder_vocab_size or self.vocab_size

    def to_json(self) -> Dict:
        d = dataclasses.asdict(self)
        d.update({
            "model_type": "marian",
            "architectures": ["MarianMTModel"],
            "decoder_vocab_size": self.target_vocab_size,
            "bad_words_ids": [[self.pad_token_id]],
            "static_position_embeddings": True,
            "tie_word_embeddings": True,
        })
        return d

    # What transformers' MarianConfig takes for a key config.json lacks (configuration_marian.py); the
    # dataclass defaults above are tern's training defaults, not these. The converter uses the same.
    HF_DEFAULTS = {"vocab_size": 58101, "decoder_vocab_size": None, "max_position_embeddings": 1024,
                   "decoder_attention_heads": 16, "decoder_ffn_dim": 4096, "activation_function": "gelu",
                   "scale_embedding": False, "pad_token_id": 58100, "eos_token_id": 0,
                   "decoder_start_token_id": 58100, "forced_eos_token_id": 0, "share_encoder_decoder_embeddings": True,
                   "normalize_before": False, "tern_position_encoding": "sinusoidal"}
    NULL_OK = {"decoder_vocab_size", "forced_eos_token_id"}  # None is a value MarianConfig accepts for these

    @classmethod
    def from_json(cls, d: Dict) -> "MarianConfig":
        """A config.json as transformers reads it: absent keys take MarianConfig's defaults (HF_DEFAULTS), a
        JSON null is refused where MarianConfig cannot take None."""
        names = {f.name for f in dataclasses.fields(cls)}
        for k, v in d.items():
            if k in names and v is None and k not in cls.NULL_OK:
                raise ValueError(f"config.json: key {k!r} is null")
        keys = {k: v for k, v in cls.HF_DEFAULTS.items() if k in names}
        keys.update({k: v for k, v in d.items() if k in names})
        return cls(**keys)

    @classmethod
    def load(cls, path: str) -> "MarianConfig":
        with open(path) as f:
            return cls.from_json(json.load(f))


def sinusoidal_positions(n_positions: int, dim: int, interleaved: bool = False) -> torch.Tensor:
    """[n_positions, dim] f32 table: column i < dim/2 holds sin(p / 10000^(2i/dim)), column dim/2 + i the
    cos of the same angle (matches transformers' MarianSinusoidalPositionalEmbedding); with `interleaved`,
    sin in column 2i and cos in column 2i + 1 (Vaswani et al. 2017). Computed in f64."""
    pos = torch.arange(n_positions, dtype=torch.float64)[:, None]
    i = torch.arange(dim // 2, dtype=torch.float64)[None, :]
    angle = pos / torch.pow(torch.tensor(10000.0, dtype=torch.float64), 2.0 * i / dim)
    out = torch.zeros(n_positions, dim, dtype=torch.float64)
    if interleaved:
        out[:, 0: 2 * (dim // 2): 2] = torch.sin(angle)
        out[:, 1: 2 * (dim // 2): 2] = torch.cos(angle)
    else:
        out[:, : dim // 2] = torch.sin(angle)
        out[:, dim // 2: 2 * (dim // 2)] = torch.cos(angle)
    return out.to(torch.float32)


def activation(name: str):
    if name in ("swish", "silu"):
        return F.silu
    if name == "gelu":
        return F.gelu  # exact (erf) GELU
    if name == "relu":
        return F.relu
    raise ValueError(f"unsupported activation_function {name!r} (relu, swish, gelu)")


class Attention(nn.Module):
    """Multi-head attention with q/k/v/out projections named as in transformers' MarianAttention."""

    def __init__(self, d_model: int, n_heads: int, dropout: float):
        super().__init__()
        self.n_heads = n_heads
        self.head_dim = d_model // n_heads
        self.scaling = self.head_dim ** -0.5
        self.dropout = dropout
        self.q_proj = nn.Linear(d_model, d_model)
        self.k_proj = nn.Linear(d_model, d_model)
        self.v_proj = nn.Linear(d_model, d_model)
        self.out_proj = nn.Linear(d_model, d_model)

    def split(self, x: torch.Tensor) -> torch.Tensor:
        # [B, L, D] -> [B, H, L, Dh]
        b, l, _ = x.shape
        return x.view(b, l, self.n_heads, self.head_dim).transpose(1, 2)

    def project_kv(self, kv_in: torch.Tensor) -> Tuple[torch.Tensor, torch.Tensor]:
        return self.split(self.k_proj(kv_in)), self.split(self.v_proj(kv_in))

    def forward(self, x: torch.Tensor, k: torch.Tensor, v: torch.Tensor,
                mask: Optional[torch.Tensor]) -> torch.Tensor:
        """x: [B, Lq, D]; k, v: [B, H, Lk, Dh]; mask: additive, broadcastable to [B, H, Lq, Lk]."""
        b, lq, d = x.shape
        q = self.split(self.q_proj(x) * self.scaling)
        scores = torch.matmul(q, k.transpose(-1, -2))
        if mask is not None:
            scores = scores + mask
        probs = torch.softmax(scores, dim=-1)
        probs = F.dropout(probs, p=self.dropout, training=self.training)
        out = torch.matmul(probs, v).transpose(1, 2).reshape(b, lq, d)
        return self.out_proj(out)


def residual(x: torch.Tensor, norm: nn.LayerNorm, pre_norm: bool, sublayer) -> torch.Tensor:
    """Post-norm: LN(x + sublayer(x)); pre-norm: x + sublayer(LN(x))."""
    h = sublayer(norm(x) if pre_norm else x)
    return x + h if pre_norm else norm(x + h)


class FeedForwardMixin:
    """fc1 -> activation -> fc2 with Marian's dropouts; the owner holds fc1, fc2 and the settings."""

    def feed_forward(self, h: torch.Tensor) -> torch.Tensor:
        h = F.dropout(self.act(self.fc1(h)), self.activation_dropout, self.training)
        return F.dropout(self.fc2(h), self.dropout, self.training)

    def init_feed_forward(self, cfg: MarianConfig, ffn_dim: int):
        self.fc1 = nn.Linear(cfg.d_model, ffn_dim)
        self.fc2 = nn.Linear(ffn_dim, cfg.d_model)
        self.final_layer_norm = nn.LayerNorm(cfg.d_model, eps=LAYER_NORM_EPS)
        self.act = activation(cfg.activation_function)
        self.dropout = cfg.dropout
        self.activation_dropout = cfg.activation_dropout


class EncoderLayer(nn.Module, FeedForwardMixin):
    def __init__(self, cfg: MarianConfig):
        super().__init__()
        self.pre_norm = cfg.normalize_before
        self.self_attn = Attention(cfg.d_model, cfg.encoder_attention_heads, cfg.attention_dropout)
        self.self_attn_layer_norm = nn.LayerNorm(cfg.d_model, eps=LAYER_NORM_EPS)
        self.init_feed_forward(cfg, cfg.encoder_ffn_dim)

    def forward(self, x: torch.Tensor, mask: Optional[torch.Tensor]) -> torch.Tensor:
        def self_attention(h):
            k, v = self.self_attn.project_kv(h)
            return F.dropout(self.self_attn(h, k, v, mask), self.dropout, self.training)
        x = residual(x, self.self_attn_layer_norm, self.pre_norm, self_attention)
        return residual(x, self.final_layer_norm, self.pre_norm, self.feed_forward)


class DecoderLayer(nn.Module, FeedForwardMixin):
    def __init__(self, cfg: MarianConfig):
        super().__init__()
        d = cfg.d_model
        self.pre_norm = cfg.normalize_before
        self.self_attn = Attention(d, cfg.decoder_attention_heads, cfg.attention_dropout)
        self.self_attn_layer_norm = nn.LayerNorm(d, eps=LAYER_NORM_EPS)
        self.encoder_attn = Attention(d, cfg.decoder_attention_heads, cfg.attention_dropout)
        self.encoder_attn_layer_norm = nn.LayerNorm(d, eps=LAYER_NORM_EPS)
        self.init_feed_forward(cfg, cfg.decoder_ffn_dim)

    def forward(self, x: torch.Tensor, self_mask: Optional[torch.Tensor], cross_k: torch.Tensor,
                cross_v: torch.Tensor, cross_mask: Optional[torch.Tensor],
                cache: Optional[Dict[str, torch.Tensor]] = None) -> torch.Tensor:
        """x: [B, T, D]. With `cache` (incremental decoding), x holds only the new positions and the
        self-attention K/V of earlier positions are read from and appended to cache["k"], cache["v"]."""
        def self_attention(h):
            k, v = self.self_attn.project_kv(h)
            if cache is not None:
                if "k" in cache:
                    k = torch.cat([cache["k"], k], dim=2)
                    v = torch.cat([cache["v"], v], dim=2)
                cache["k"], cache["v"] = k, v
            return F.dropout(self.self_attn(h, k, v, self_mask), self.dropout, self.training)

        def cross_attention(h):
            return F.dropout(self.encoder_attn(h, cross_k, cross_v, cross_mask), self.dropout, self.training)

        x = residual(x, self.self_attn_layer_norm, self.pre_norm, self_attention)
        x = residual(x, self.encoder_attn_layer_norm, self.pre_norm, cross_attention)
        return residual(x, self.final_layer_norm, self.pre_norm, self.feed_forward)


class Stack(nn.Module):
    """Holds `embed_tokens` (tied to model.shared when embeddings are shared), the layers and, for
    pre-norm, the final `layer_norm`."""

    def __init__(self, cfg: MarianConfig, layer_cls, n_layers: int, embed: nn.Embedding):
        super().__init__()
        self.embed_tokens = embed
        self.layers = nn.ModuleList([layer_cls(cfg) for _ in range(n_layers)])
        self.layer_norm = nn.LayerNorm(cfg.d_model, eps=LAYER_NORM_EPS) if cfg.normalize_before else None
        self.embed_positions = (nn.Embedding(cfg.max_position_embeddings, cfg.d_model)
                                if cfg.tern_position_encoding == "learned" else None)


class MarianModel(nn.Module):
    def __init__(self, cfg: MarianConfig):
        super().__init__()
        self.cfg = cfg
        self.shared = nn.Embedding(cfg.vocab_size, cfg.d_model, padding_idx=cfg.pad_token_id)
        if cfg.share_encoder_decoder_embeddings:
            enc_embed = dec_embed = self.shared
        else:
            enc_embed = self.shared
            dec_embed = nn.Embedding(cfg.target_vocab_size, cfg.d_model, padding_idx=cfg.pad_token_id)
        self.encoder = Stack(cfg, EncoderLayer, cfg.encoder_layers, enc_embed)
        self.decoder = Stack(cfg, DecoderLayer, cfg.decoder_layers, dec_embed)


class MarianMTModel(nn.Module):
    """state_dict keys: model.shared.weight, model.encoder.layers.{i}.self_attn.q_proj.weight, ...,
    final_logits_bias [1, target_vocab]; lm_head is tied to the decoder embedding and not stored."""

    def __init__(self, cfg: MarianConfig):
        super().__init__()
        self.cfg = cfg
        self.model = MarianModel(cfg)
        self.register_buffer("final_logits_bias", torch.zeros(1, cfg.target_vocab_size))
        self.embed_scale = math.sqrt(cfg.d_model) if cfg.scale_embedding else 1.0
        self.register_buffer("positions", sinusoidal_positions(
            cfg.max_position_embeddings, cfg.d_model, cfg.tern_position_encoding == "sinusoidal_interleaved"),
            persistent=False)
        self.reset_parameters()

    def reset_parameters(self):
        for name, p in self.named_parameters():
            if p.dim() == 2:
                nn.init.xavier_uniform_(p) if "embed" not in name and "shared" not in name \
                    else nn.init.normal_(p, 0.0, self.cfg.d_model ** -0.5)
            elif name.endswith("bias"):
                nn.init.zeros_(p)
        with torch.no_grad():
            self.model.shared.weight[self.cfg.pad_token_id].zero_()

    # --- pieces -------------------------------------------------------------------------------
    def embed(self, stack: Stack, ids: torch.Tensor, offset: int = 0) -> torch.Tensor:
        """ids [B, L] -> [B, L, D] = embed_tokens(ids) * embed_scale + positions[offset : offset + L]."""
        x = stack.embed_tokens(ids) * self.embed_scale
        table = stack.embed_positions.weight if stack.embed_positions is not None else self.positions
        return x + table[offset: offset + ids.shape[1]]

    @staticmethod
    def padding_mask(src_ids: torch.Tensor, pad: int) -> torch.Tensor:
        """[B, 1, 1, S] additive mask: -inf-like at padding positions."""
        m = (src_ids == pad)[:, None, None, :]
        return torch.zeros(m.shape, dtype=torch.float32).masked_fill(m, torch.finfo(torch.float32).min)

    def encode(self, src_ids: torch.Tensor) -> torch.Tensor:
        """src_ids [B, S] (ending in </s>, right-padded with pad) -> encoder output [B, S, D]."""
        enc = self.model.encoder
        x = F.dropout(self.embed(enc, src_ids), self.cfg.dropout, self.training)
        mask = self.padding_mask(src_ids, self.cfg.pad_token_id)
        for layer in enc.layers:
            x = layer(x, mask)
        if enc.layer_norm is not None:
            x = enc.layer_norm(x)
        return x

    def cross_kv(self, enc_out: torch.Tensor) -> List[Tuple[torch.Tensor, torch.Tensor]]:
        """Per decoder layer, cross-attention K and V [B, H, S, Dh], computed once per source."""
        return [layer.encoder_attn.project_kv(enc_out) for layer in self.model.decoder.layers]

    def decode(self, tgt_ids: torch.Tensor, cross: List[Tuple[torch.Tensor, torch.Tensor]],
               src_mask: torch.Tensor, caches: Optional[List[Dict[str, torch.Tensor]]] = None,
               offset: int = 0) -> torch.Tensor:
        """tgt_ids [B, T] (positions offset..offset+T-1) -> logits [B, T, V_tgt]. With `caches`, the
        self-attention K/V of positions < offset come from the caches (incremental decoding)."""
        dec = self.model.decoder
        t = tgt_ids.shape[1]
        x = F.dropout(self.embed(dec, tgt_ids, offset), self.cfg.dropout, self.training)
        self_mask = None
        if t > 1:
            causal = torch.full((t, offset + t), torch.finfo(torch.float32).min).triu(offset + 1)
            self_mask = causal[None, None]
        for i, layer in enumerate(dec.layers):
            x = layer(x, self_mask, cross[i][0], cross[i][1], src_mask,
                      caches[i] if caches is not None else None)
        if dec.layer_norm is not None:
            x = dec.layer_norm(x)
        return self.logits(x)

    def logits(self, x: torch.Tensor) -> torch.Tensor:
        return F.linear(x, self.model.decoder.embed_tokens.weight) + self.final_logits_bias

    def forward(self, src_ids: torch.Tensor, tgt_in: torch.Tensor) -> torch.Tensor:
        """Teacher forcing: src_ids [B, S], tgt_in [B, T] (decoder start + shifted target) -> [B, T, V]."""
        enc = self.encode(src_ids)
        return self.decode(tgt_in, self.cross_kv(enc), self.padding_mask(src_ids, self.cfg.pad_token_id))

    # --- checkpoints --------------------------------------------------------------------------
    def checkpoint_tensors(self) -> Dict[str, torch.Tensor]:
        """The tensors of an HF Marian checkpoint (model.safetensors): tied matrices stored once."""
        out = {}
        for k, v in self.state_dict().items():
            if k == "model.encoder.embed_tokens.weight" or (
                    k == "model.decoder.embed_tokens.weight" and self.cfg.share_encoder_decoder_embeddings):
                continue
            out[k] = v.detach().contiguous()
        return out

    def load_checkpoint_tensors(self, tensors: Dict[str, torch.Tensor]) -> None:
        """Loads an HF Marian checkpoint's tensors; tolerates the optional copies older exports carry
        (embed_positions, lm_head, per-side embed_tokens) after checking they agree."""
        state = dict(tensors)
        shared = state["model.shared.weight"]
        for k in ("model.encoder.embed_tokens.weight",):
            if k in state and not torch.equal(state.pop(k), shared):
                raise ValueError(f"{k} differs from model.shared.weight")
        if self.cfg.share_encoder_decoder_embeddings:
            k = "model.decoder.embed_tokens.weight"
            if k in state and not torch.equal(state.pop(k), shared):
                raise ValueError(f"{k} differs from model.shared.weight")
        dec_embed = state.get("model.decoder.embed_tokens.weight", shared)
        if "lm_head.weight" in state and not torch.equal(state.pop("lm_head.weight"), dec_embed):
            raise ValueError("lm_head.weight differs from the decoder embedding")
        if self.cfg.tern_position_encoding != "learned":
            for side in ("encoder", "decoder"):
                table = state.pop(f"model.{side}.embed_positions.weight", None)
                if table is not None:
                    want = self.positions[: table.shape[0]]
                    if table.shape[1:] != want.shape[1:] or not torch.allclose(table.float(), want, rtol=0, atol=1e-3):
                        raise ValueError(f"model.{side}.embed_positions.weight differs from the "
                                         f"{self.cfg.tern_position_encoding} table the config implies")
        state.setdefault("final_logits_bias", torch.zeros(1, self.cfg.target_vocab_size))
        state["model.encoder.embed_tokens.weight"] = shared
        if self.cfg.share_encoder_decoder_embeddings:
            state["model.decoder.embed_tokens.weight"] = shared
        self.load_state_dict(state, strict=True)
