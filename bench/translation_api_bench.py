"""The costs of the translation API's extras on the bundled int8 model, one thread, 100 test_2016_flickr lines:
alternatives (two passes), return_attention (one more decoder pass per hypothesis), generate_tokens (a thread
and a queue) against the plain calls, interleaved, best of 3, two rounds. Prints the CPU and the arena bytes.
Usage: PYTHONPATH=build/python /usr/bin/python3 bench/translation_api_bench.py [SHARED_DIR]"""
import sys
import time, tern
m = tern.Model.load("models/en-de/en-de.int8.tern")
lines = open((sys.argv[1] if len(sys.argv) > 1 else "../shared") + "/data/multi30k/test_2016_flickr.en").read().splitlines()[:100]
print("cpu:", tern.cpu_summary())
plain = tern.Translator(m, threads=1, max_beam=4, max_n_best=3)
att = tern.Translator(m, threads=1, max_beam=4, max_n_best=3, attention=True)
print("arena bytes: default limits %d, with attention=True %d" % (plain.arena_bytes, att.arena_bytes))
def t(f, reps=3):
    best = 1e9
    for _ in range(reps):
        t0 = time.perf_counter(); f(); best = min(best, time.perf_counter() - t0)
    return best
for round_ in range(2):
    g = t(lambda: plain.translate_batch(lines, beam_size=1, split_sentences=False))
    a3 = t(lambda: plain.translate_batch(lines, beam_size=1, alternatives=3, split_sentences=False))
    b4 = t(lambda: att.translate_batch(lines, beam_size=4, split_sentences=False))
    b4a = t(lambda: att.translate_batch(lines, beam_size=4, return_attention=True, split_sentences=False))
    loop = t(lambda: [plain.translate_batch([l], beam_size=1, split_sentences=False) for l in lines[:50]], 2)
    gen = t(lambda: [list(plain.generate_tokens(l, beam_size=1)) for l in lines[:50]], 2)
    print("round %d: greedy %.3f s, alternatives 3 %.3f s (x%.2f); beam 4 %.3f s, + return_attention %.3f s (x%.2f); "
          "50 lines one call each %.3f s, generate_tokens %.3f s (x%.2f)" % (round_, g, a3, a3 / g, b4, b4a, b4a / b4, loop, gen, gen / loop))
