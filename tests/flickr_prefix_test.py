"""Target prefixes on the bundled model, f32, against the PyTorch reference decoder (converter/pytorch/
generate.py = transformers' generate(decoder_input_ids=[start] + prefix)): the first N test_2016_flickr
lines, each with a prefix of its reference translation's first 1-3 words; greedy (ids, score) and beam 4
with n-best 4 (ids, scores) equal, the prefix's tokens tern's own target tokenization (score_batch's
hypothesis ids); and score_batch of the N (source, reference translation) pairs equal to generate.score
within 1e-4 per token and in the sum. Usage: flickr_prefix_test.py F32_TERN CHECKPOINT_DIR SHARED_DIR [N]"""

import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "converter", "pytorch"))

import generate  # noqa: E402
import tern  # noqa: E402

MAX_LENGTH = 64


def main():
    f32, ckpt, shared = sys.argv[1:4]
    n = int(sys.argv[4]) if len(sys.argv) > 4 else 200
    data = os.path.join(shared, "data", "multi30k")
    if not os.path.isdir(data):
        print("flickr_prefix_test: skipped (no %s)" % data)
        return 77
    en = open(os.path.join(data, "test_2016_flickr.en"), encoding="utf-8").read().splitlines()[:n]
    de = open(os.path.join(data, "test_2016_flickr.de"), encoding="utf-8").read().splitlines()[:n]
    prefixes = [" ".join(d.split()[: 1 + i % 3]) for i, d in enumerate(de)]
    t = tern.Translator(tern.Model.load(f32), threads=2, max_beam=4, max_n_best=4)
    t0 = time.time()
    greedy = t.translate_batch(en, beam_size=1, max_length=MAX_LENGTH, split_sentences=False, target_prefix=prefixes)
    beam = t.translate_batch(en, beam_size=4, n_best=4, max_length=MAX_LENGTH, split_sentences=False,
                             target_prefix=prefixes)
    prefix_ids = [[int(i) for i in r.hypotheses[0].ids] for r in t.score_batch(en, prefixes)]
    scored = t.score_batch(en, de, max_length=MAX_LENGTH)  # the reference translations' log-probabilities
    srcs = [[int(i) for i in r.source_ids] for r in greedy]
    t_tern = time.time() - t0
    model = generate.load(ckpt)
    procs = generate.processors_of(model, ckpt)
    t0 = time.time()
    ref_greedy = generate.greedy(model, srcs, max_length=MAX_LENGTH, procs=procs, prefixes=prefix_ids)
    ref_beam = generate.beam_search(model, srcs, beam=4, length_penalty=1.0, max_length=MAX_LENGTH, procs=procs,
                                    n_best=4, prefixes=prefix_ids)
    ref_scores = generate.score(model, srcs, [[int(i) for i in r.hypotheses[0].ids] for r in scored],
                                max_length=MAX_LENGTH, procs=procs)
    t_ref = time.time() - t0
    worst = 0.0  # score_batch: each token's log-probability and the sum within 1e-4 (relative beyond 1)
    for r, (lps, total) in zip(scored, ref_scores):
        got = [float(x) for x in r.hypotheses[0].token_logprobs] + [float(r.hypotheses[0].score)]
        for a, b in zip(got, lps + [total]):
            worst = max(worst, abs(a - b) / max(1.0, abs(b)))
        if len(got) != len(lps) + 1:
            worst = float("inf")
    bad = 0
    for i in range(n):
        g = greedy[i].hypotheses[0]
        ids, score = ref_greedy[i]
        ok = [int(x) for x in g.ids] == ids and abs(g.score - score) <= 1e-3 * max(1.0, abs(score))
        ok = ok and [int(x) for x in g.ids[: len(prefix_ids[i])]] == prefix_ids[i]
        hyps = beam[i].hypotheses
        ok = ok and len(hyps) == len(ref_beam[i])
        for h, (rids, rscore) in zip(hyps, ref_beam[i]):
            ok = ok and [int(x) for x in h.ids] == rids and abs(h.score - rscore) <= 1e-3 * max(1.0, abs(rscore))
        if not ok:
            bad += 1
            if bad <= 5:
                print("line %d (prefix %r): tern greedy %s %.5f, reference %s %.5f; beam %s vs %s" % (
                    i + 1, prefixes[i], list(g.ids), g.score, ids, score, [list(h.ids) for h in hyps],
                    [h for h, _ in ref_beam[i]]))
    print("flickr_prefix_test: %d lines, %d prefix tokens; greedy and beam 4 x 4-best: %d differ; score_batch of "
          "the reference translations: largest difference %.2g (tern %.1f s, reference %.1f s)" % (
              n, sum(map(len, prefix_ids)), bad, worst, t_tern, t_ref))
    return 1 if bad or not worst <= 1e-4 else 0


if __name__ == "__main__":
    sys.exit(main())
