"""tern.tokenize / tern.detokenize against SentencePiece's own behaviour: ids sized by what the tokenizer
gives (NFKC can make one character many), and byte-fallback pieces that end inside a character decoded as
SentencePiece decodes them (U+FFFD for each byte that begins no character), never an exception."""

import json
import shutil

import pytest

import tern

spm = pytest.importorskip("sentencepiece")


def test_nfkc_expansion_is_not_limited_by_the_text_bytes(model_path, checkpoint_dir):
    # U+FDFA's 3 bytes become 18 characters under NFKC: 4 of them need more ids than 2 per input byte.
    m = tern.Model.load(model_path)
    sp = spm.SentencePieceProcessor(model_file=str(checkpoint_dir / "source.spm"))
    for text in ["\ufdfa" * 4, "\ufdfa" * 40, "\u3300", "\u3300" * 30 + " \ufdfa", "x\ufdfa\u3300"]:
        ids = tern.tokenize(m, text)
        pieces = sp.encode(text, out_type=str)
        assert len(ids) == len(pieces) + 1  # </s>
        assert [m.source_vocab[i] for i in ids[:-1]] == [p if p in m.source_vocab else "<unk>" for p in pieces]


def test_a_byte_fallback_tokenizer_takes_a_character_nfkc_makes_twelve_bytes(tmp_path, checkpoint_dir):
    # U+3300 (3 bytes) is four katakana under NFKC, twelve byte pieces for a model that knows none of them:
    # 14 ids where 2 per input byte made room for 10.
    import io
    proto = io.BytesIO()
    spm.SentencePieceTrainer.train(sentence_iterator=iter(["a dog runs on the beach", "two cats sleep"] * 40),
                                   model_writer=proto, vocab_size=300, byte_fallback=True, hard_vocab_limit=False,
                                   minloglevel=2)
    ck = tmp_path / "checkpoint"
    shutil.copytree(checkpoint_dir, ck)
    (ck / "source.spm").write_bytes(proto.getvalue())
    tern.convert(str(ck), str(tmp_path / "m.tern"), weights="int8")
    m = tern.Model.load(str(tmp_path / "m.tern"))
    sp = spm.SentencePieceProcessor(model_proto=proto.getvalue())
    for text in ["\u3300", "\u3300\u3300 a dog", "\ufdfa"]:
        assert len(tern.tokenize(m, text)) == len(sp.encode(text)) + 1, text
    assert len(tern.tokenize(m, "\u3300")) == 14


def _opus_assets():
    """$TERN_OPUS_ASSETS, else opus-assets in the data beside the repository, else ~/.cache/tern/opus-assets."""
    import os
    import pathlib
    root = pathlib.Path(__file__).resolve().parents[2]
    for p in [os.environ.get("TERN_OPUS_ASSETS"),
              pathlib.Path(os.environ.get("TERN_SHARED_DIR", root.parent / "shared")) / "opus-assets",
              pathlib.Path(os.environ.get("XDG_CACHE_HOME", pathlib.Path.home() / ".cache")) / "tern/opus-assets"]:
        if p and (pathlib.Path(p) / "en-mg/source.spm").exists():
            return pathlib.Path(p)
    pytest.skip("the real OPUS-MT tokenizers are not here (TERN_OPUS_ASSETS)")


def test_a_real_opus_mt_tokenizer_takes_what_the_model_takes(tmp_path, checkpoint_dir):
    # opus-mt-en-mg's source.spm: "\ufdfa" * 4 (12 bytes) is 32 pieces; it failed "33 source tokens exceed
    # max_source_tokens 28" though the model takes 512 positions. The bundled checkpoint with that source.spm.
    spm_path = _opus_assets() / "en-mg/source.spm"
    ck = tmp_path / "checkpoint"
    shutil.copytree(checkpoint_dir, ck)
    shutil.copy(spm_path, ck / "source.spm")
    tern.convert(str(ck), str(tmp_path / "m.tern"), weights="int8")
    m = tern.Model.load(str(tmp_path / "m.tern"))
    sp = spm.SentencePieceProcessor(model_file=str(spm_path))
    assert len(tern.tokenize(m, "\ufdfa" * 4)) == len(sp.encode("\ufdfa" * 4)) + 1 == 33


@pytest.fixture(scope="module")
def byte_model(tmp_path_factory, checkpoint_dir):
    """The bundled checkpoint with three rare target pieces renamed to byte-fallback pieces."""
    d = tmp_path_factory.mktemp("byte-pieces")
    ck = d / "checkpoint"
    shutil.copytree(checkpoint_dir, ck)
    vocab = json.loads((ck / "vocab.json").read_text(encoding="utf-8"))
    by_id = {i: p for p, i in vocab.items()}
    ids = sorted(vocab.values())[-4:-1]
    for piece, i in zip(["<0xE6>", "<0x85>", "<0xA5>"], ids):
        del vocab[by_id[i]]
        vocab[piece] = i
    (ck / "vocab.json").write_text(json.dumps(vocab, ensure_ascii=False), encoding="utf-8")
    tern.convert(str(ck), str(d / "bytes.tern"), weights="int8")
    return tern.Model.load(str(d / "bytes.tern")), ids


def test_byte_pieces_inside_a_character_become_u_fffd_as_sentencepiece_gives(byte_model):
    m, (e6, x85, a5) = byte_model
    the = m.target_vocab.index("\u2581the") if "\u2581the" in m.target_vocab else None
    cases = [([e6], "\ufffd"), ([e6, x85], "\ufffd\ufffd"), ([e6, x85, a5], "\u6165"), ([x85, a5], "\ufffd\ufffd"),
             ([e6, e6, x85, a5], "\ufffd\u6165")]
    if the is not None:
        cases += [([the, x85], "the\ufffd"), ([e6, x85, the], "\ufffd\ufffd the")]
    for ids, want in cases:
        assert tern.detokenize(m, ids) == want, ids  # raised UnicodeDecodeError
        assert tern.Tokenizer(m, "target").decode(ids) == want
    # A hypothesis cut by max_length inside a character: a Translator's text is the same.
    assert tern.detokenize(m, [e6, x85, m.hparams["eos_id"]]) == "\ufffd\ufffd"
