"""Bad input raises the right exception, with the library's message, and never takes the interpreter down.
The damaged files are made here, at test time."""

import os
import subprocess
import sys
import threading

import numpy as np
import pytest

import tern


def test_wrong_types(translator):
    with pytest.raises(TypeError, match="expected a list of str"):
        translator.translate_batch("A dog.")
    with pytest.raises(TypeError, match=r"texts\[1\]: expected str or bytes, got NoneType"):
        translator.translate_batch(["A dog.", None])
    with pytest.raises(TypeError):
        translator.translate_batch(None)
    with pytest.raises(TypeError):
        translator.translate_batch(["A dog."], beam_size="4")
    with pytest.raises(TypeError):
        translator.translate_batch(["A dog."], beam_size=-1)
    with pytest.raises(TypeError, match="integer ids"):
        translator.translate_ids([np.array([1.5, 2.0])])
    with pytest.raises(TypeError):
        tern.Model.load(None)
    with pytest.raises(TypeError):
        tern.Translator(None)


def test_invalid_utf8_fails_alone(translator):
    with pytest.raises(tern.InvalidArgumentError, match=r"input 1: invalid UTF-8 at byte 4") as e:
        translator.translate_batch(["A dog.", b"bad \xff text", "A cat."])
    assert e.value.index == 1 and isinstance(e.value, ValueError)
    assert [r.ok for r in e.value.results] == [True, False, True]
    kept = translator.translate_batch(["A dog.", b"bad \xff text", "A cat."], on_error="keep")
    assert kept[0].text and kept[2].text and isinstance(kept[1].error, tern.InvalidArgumentError)
    with pytest.raises(tern.InvalidArgumentError):
        kept[1].text
    with pytest.raises(tern.InvalidArgumentError, match=r"input 0: invalid UTF-8 at byte 4 \(a lone surrogate"):
        translator.translate_batch(["bad \udcff"])
    with pytest.raises(tern.InvalidArgumentError, match="NUL"):
        translator.translate_batch(["a\0b"])


def test_too_long_text_fails_alone(translator):
    r = translator.translate_batch(["word " * 400, "A dog."], on_error="keep", split_sentences=False)
    assert isinstance(r[0].error, tern.TernError) and "max_source_tokens" in r[0].error.message and r[1].ok


def test_bad_options(translator, model):
    for kw, msg in [({"hf_rules": 3}, "hf_rules 3"), ({"early_stopping": "sometimes"}, "early_stopping"),
                    ({"on_error": "ignore"}, "on_error"), ({"markup": "xhtml"}, "markup"),
                    ({"n_best": 5}, "n_best"), ({"target_lang": "xx"}, "xx"),
                    ({"keep_spans": [(3, 0, 1)]}, "keep_spans")]:
        with pytest.raises(tern.InvalidArgumentError, match=msg):
            translator.translate_batch(["A dog."], **kw)
    with pytest.raises(tern.InvalidArgumentError, match="2 dimensions"):
        translator.translate_ids([np.zeros((2, 2), dtype=np.int64)])
    with pytest.raises(tern.InvalidArgumentError, match="not a token id"):
        translator.translate_ids([[-1, 0]])
    r = translator.translate_ids([[10**9, 0]], on_error="keep")[0]
    assert isinstance(r.error, tern.InvalidArgumentError)
    with pytest.raises(tern.InvalidArgumentError):
        tern.Translator(model, max_source_tokens=10**6)
    with pytest.raises(tern.InvalidArgumentError, match="side"):
        tern.Tokenizer(model, "middle")
    with pytest.raises(tern.InvalidArgumentError, match="outside the target vocabulary"):
        tern.detokenize(model, [10**6])


def test_missing_and_corrupt_model_files(model_path, tmp_path):
    with pytest.raises(tern.TernError) as e:
        tern.Model.load(tmp_path / "absent.tern")
    assert isinstance(e.value, OSError) and "absent.tern" in str(e.value)
    data = bytearray(model_path.read_bytes())
    bad_id = tmp_path / "bad_id.tern"
    bad_id.write_bytes(bytes(data[:4]) + b"XXXX" + bytes(data[8:]))
    with pytest.raises(tern.InvalidModelError, match="identifier"):
        tern.Model.load(bad_id)
    truncated = tmp_path / "truncated.tern"
    truncated.write_bytes(bytes(data[: len(data) // 3]))
    with pytest.raises(tern.InvalidModelError):
        tern.Model.load(truncated)
    # Every byte of the header region flipped in turn on a few offsets: an error or a model, never a crash.
    for off in range(8, 4096, 97):
        flipped = bytearray(data)
        flipped[off] ^= 0xFF
        try:
            tern.Model.from_bytes(bytes(flipped), "flipped")
        except tern.TernError:
            pass
    with pytest.raises(tern.InvalidModelError):
        tern.Model.from_bytes(b"\0" * 100)
    with pytest.raises(tern.ResourceExhaustedError):
        tern.Translator(tern.Model.load(model_path, memory_budget=1 << 20))


def test_cancelled_stream(translator):
    # The callback returns True: CancelledError, with what finished.
    with pytest.raises(tern.CancelledError) as e:
        translator.translate_batch(["A dog runs on the beach.", "Two men."], beam_size=1, callback=lambda ev: ev.index == 0)
    assert len(e.value.results) == 2 and all(isinstance(r.error, tern.CancelledError) for r in e.value.results)
    # The callback raises: that exception, unchanged.
    def boom(ev):
        raise KeyError("from the callback")
    with pytest.raises(KeyError, match="from the callback"):
        translator.translate_batch(["A dog runs."], beam_size=1, callback=boom)
    with pytest.raises(TypeError, match="callable"):
        translator.translate_batch(["A dog."], callback=42)
    # A CancelToken cancelled from another thread stops a long call.
    token = tern.CancelToken()
    timer = threading.Timer(0.2, token.cancel)
    timer.start()
    with pytest.raises(tern.CancelledError) as e:
        translator.translate_batch(["A dog runs on the beach."] * 2000, beam_size=4, cancel=token)
    timer.join()
    done = sum(r.ok for r in e.value.results)
    assert token.cancelled and len(e.value.results) == 2000 and done < 2000
    token.reset()
    assert translator.translate_batch(["A dog."], cancel=token)[0].ok  # usable again


def test_ctrl_c_interrupts_a_translation(model_path):
    # A child interpreter translating a long batch gets SIGINT: KeyboardInterrupt, promptly, no crash.
    code = ("import tern, sys, signal, threading, os\n"
            "t = tern.Translator(tern.Model.load(sys.argv[1]), threads=1)\n"
            "threading.Timer(0.3, lambda: os.kill(os.getpid(), signal.SIGINT)).start()\n"
            "try:\n"
            "    t.translate_batch(['A dog runs on the beach.'] * 5000, beam_size=4)\n"
            "    print('finished')\n"
            "except KeyboardInterrupt:\n"
            "    print('interrupted')\n")
    out = subprocess.run([sys.executable, "-c", code, str(model_path)], capture_output=True, text=True, timeout=120,
                         env=dict(os.environ))
    assert out.returncode == 0 and out.stdout.strip() == "interrupted", out.stderr


def test_glossary_errors(model, model_path, tmp_path):
    with pytest.raises(tern.InvalidArgumentError, match="2"):
        tern.Glossary.from_entries(model, [("dog", "Hund"), ("", "x")])
    bad = tmp_path / "bad.tsv"
    bad.write_text("dog\tHund\ncat\n", encoding="utf-8")
    with pytest.raises(tern.InvalidArgumentError, match="bad.tsv:2"):
        tern.Glossary.load(model, bad)
    with pytest.raises(tern.TernError):
        tern.Glossary.load(model, tmp_path / "absent.tsv")
    # A glossary of other vocabularies: test_reentry_and_ranges.py.


def test_convert_errors(checkpoint_dir, tmp_path, model_path):
    with pytest.raises(tern.TernError, match="absent"):
        tern.convert(tmp_path / "absent", tmp_path / "out.tern")
    with pytest.raises(tern.InvalidArgumentError, match="weights|float"):
        tern.convert(checkpoint_dir, tmp_path / "out.tern", weights="float7")
    with pytest.raises(tern.InvalidArgumentError, match="input"):
        tern.convert(checkpoint_dir, checkpoint_dir / "config.json")
    # A failed conversion leaves an existing output as it was.
    existing = tmp_path / "keep.tern"
    existing.write_bytes(b"user's file")
    broken = tmp_path / "ckpt"
    broken.mkdir()
    for f in checkpoint_dir.iterdir():
        (broken / f.name).write_bytes(f.read_bytes())
    (broken / "config.json").write_text('{"d_model": "wide"}')
    with pytest.raises(tern.TernError, match="config.json"):
        tern.convert(broken, existing)
    assert existing.read_bytes() == b"user's file"
    assert not [p for p in tmp_path.iterdir() if ".tmp." in p.name]
