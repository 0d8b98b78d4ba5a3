"""scripts/bleu.py against hand-computed cases (sacreBLEU defaults: 13a, mixed case, exp smoothing)."""
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "scripts"))
import bleu  # noqa: E402


def test_13a_tokenization():
    assert bleu.tokenize_13a("Hello, world.") == "Hello , world ."
    assert bleu.tokenize_13a("It costs 3.5 euros, 1,000 in all.") == "It costs 3.5 euros , 1,000 in all ."
    assert bleu.tokenize_13a("pages 1-2 (see \"x\")") == 'pages 1 - 2 ( see " x " )'
    assert bleu.tokenize_13a("a &amp; b") == "a & b"
    assert bleu.tokenize_13a("Ein Mann fährt.") == "Ein Mann fährt ."


def test_identical_is_100():
    s, p, bp, hl, rl = bleu.bleu(["The cat sat on the mat."], ["The cat sat on the mat."])
    assert math.isclose(s, 100.0) and p == [100.0] * 4 and bp == 1.0 and hl == rl == 7


def test_no_4gram_possible_is_0():
    assert bleu.bleu(["the cat"], ["the cat sat"])[0] == 0.0


def test_exp_smoothing_and_brevity_penalty_by_hand():
    # hyp "a b c d", ref "a b x d e": p1 = 3/4, p2 = 1/3, p3: 0 of 2 -> 100 / (2 * 2), p4: 0 of 1 -> 100 / (4 * 1);
    # BP = exp(1 - 5/4).
    s, p, bp, hl, rl = bleu.bleu(["a b c d"], ["a b x d e"])
    assert p == [75.0, 100.0 / 3, 25.0, 25.0]
    assert math.isclose(bp, math.exp(-0.25))
    want = math.exp(-0.25) * (75.0 * (100.0 / 3) * 25.0 * 25.0) ** 0.25
    assert math.isclose(s, want, rel_tol=1e-12)
    assert abs(s - 27.53) < 0.01


def test_corpus_level_counts_are_summed_not_averaged():
    hyps = ["a b c d e", "x y"]
    refs = ["a b c d e", "x z"]
    correct, total, hl, rl = bleu.corpus_stats(hyps, refs)
    assert correct == [6, 4, 3, 2] and total == [7, 5, 3, 2] and hl == rl == 7
    s = bleu.bleu(hyps, refs)[0]
    assert math.isclose(s, 100 * (6 / 7 * 4 / 5 * 1 * 1) ** 0.25)


def test_case_matters():
    assert bleu.bleu(["The dog runs fast today"], ["the dog runs fast today"])[1][0] == 80.0
