"""The one chunked-call loop (tern/call_chunks.h): a call of more texts than a Translator's max_batch runs in
chunks, each text keyed by its index in the call, so a seeded sampled call gives the same output whatever
max_batch is (Translator and Engine; the C API, Java and JavaScript tests check their bindings the same way)."""

import tern

TEXTS = ["A dog number %d runs on the beach." % i for i in range(24)]
SAMPLED = dict(do_sample=True, sampling_topk=0, sampling_temperature=1.5, seed=7, max_length=16)


def test_a_seeded_sampled_call_is_the_same_at_any_max_batch(model):
    outputs = {}
    for max_batch in (1, 3, 8):
        t = tern.Translator(model, threads=1, max_batch=max_batch)
        outputs[max_batch] = [r.text for r in t.translate_batch(TEXTS, **SAMPLED)]
    assert outputs[3] == outputs[1] and outputs[8] == outputs[1]
    with tern.Engine(model, replicas=1, threads=1, max_batch=3) as e:
        assert [r.text for r in e.translate_batch(TEXTS, **SAMPLED)] == outputs[1]
