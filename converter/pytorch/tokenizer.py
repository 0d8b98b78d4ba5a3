"""MarianTokenizer semantics for a checkpoint directory: SentencePiece (source.spm / target.spm) splits
text into pieces, pieces map to ids through vocab.json (target_vocab.json when the vocabularies are
separate), unknown pieces map to <unk>, and the source gets </s> appended. Ids are never SentencePiece's
own ids. Matches transformers' MarianTokenizer (without its language-code handling)."""
from __future__ import annotations

import json
import os
from typing import List

import sentencepiece as spm


class MarianTokenizer:
    def __init__(self, ckpt_dir: str):
        self.src_spm = spm.SentencePieceProcessor(model_file=os.path.join(ckpt_dir, "source.spm"))
        self.tgt_spm = spm.SentencePieceProcessor(model_file=os.path.join(ckpt_dir, "target.spm"))
        with open(os.path.join(ckpt_dir, "vocab.json")) as f:
            self.src_vocab = json.load(f)
        tv = os.path.join(ckpt_dir, "target_vocab.json")
        if os.path.exists(tv):
            with open(tv) as f:
                self.tgt_vocab = json.load(f)
        else:
            self.tgt_vocab = self.src_vocab
        self.tgt_pieces = {i: p for p, i in self.tgt_vocab.items()}
        self.eos_id = self.src_vocab["</s>"]
        self.unk_id = self.src_vocab["<unk>"]
        self.pad_id = self.src_vocab["<pad>"]

    def encode_source(self, text: str) -> List[int]:
        pieces = self.src_spm.encode(text, out_type=str)
        return [self.src_vocab.get(p, self.unk_id) for p in pieces] + [self.eos_id]

    def encode_target(self, text: str) -> List[int]:
        pieces = self.tgt_spm.encode(text, out_type=str)
        unk = self.tgt_vocab["<unk>"]
        return [self.tgt_vocab.get(p, unk) for p in pieces] + [self.tgt_vocab["</s>"]]

    def decode_target(self, ids: List[int]) -> str:
        special = {self.tgt_vocab["</s>"], self.tgt_vocab["<pad>"]}
        pieces = [self.tgt_pieces[i] for i in ids if i not in special]
        return self.tgt_spm.decode_pieces(pieces)
