"""The evaluation scripts' own pieces against hand-computed cases: chrF (confidence_eval.py), the word
splitting and IBM Model 1 (lexicon.py), and the seeded markup (markup_eval.py): well formed, and its plain
text is the sentence it marks up."""
import math
import os
import random
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "scripts"))
import confidence_eval  # noqa: E402
import lexicon  # noqa: E402
import app_strings_eval  # noqa: E402
import markup_eval  # noqa: E402


def test_chrf_by_hand():
    assert math.isclose(confidence_eval.chrf("a cat", "a cat"), 100.0)
    assert confidence_eval.chrf("xyz", "abc") == 0.0
    # hyp "ab", ref "abc": order 1 p = 2/2, r = 2/3; order 2 p = 1/1, r = 1/2; orders 3..6 have no
    # hypothesis n-grams. P = 1, R = 7/12, F2 = 5 P R / (4 P + R) = 35/55.
    assert math.isclose(confidence_eval.chrf("ab", "abc"), 100.0 * 35 / 55)
    # whitespace is not a character of chrF
    assert math.isclose(confidence_eval.chrf("a b", "ab"), 100.0)


def test_f1_and_threshold():
    assert confidence_eval.f1([True, True, False], [True, False, True]) == (0.5, 0.5, 0.5)
    t, f = confidence_eval.best_threshold([-2.0, -1.5, -0.1, -0.2], [True, True, False, False])
    assert f == 1.0 and -1.5 < t <= -0.2


def test_words_and_byte_spans():
    assert lexicon.words("A dog's ball.") == [("a", 0, 1), ("dog", 2, 5), ("s", 6, 7), ("ball", 8, 12)]
    assert lexicon.byte_words("Grüne Hüte") == [("grüne", 0, 6), ("hüte", 7, 12)]


def test_ibm_model_1_learns_a_dictionary():
    src = ["the dog", "the cat", "a dog", "a cat runs"]
    tgt = ["der hund", "die katze", "ein hund", "eine katze rennt"]
    lex = lexicon.Lexicon.train(src, tgt, iterations=10)
    assert lex.best_target("dog") == "hund"
    assert lex.best_target("cat") == "katze"
    assert lex.best_source("hund", ["the", "dog"]) == 1


def test_markup_is_well_formed_and_marks_up_the_sentence():
    rng = random.Random(7)
    lines = ["A man in a blue shirt is standing on a ladder, and a dog watches.",
             "Two children's toys are on the floor while a woman reads.", "Dogs", "A man & a woman."]
    for line in lines:
        marked, bold, link = markup_eval.mark_up(line, rng)
        assert markup_eval.well_formed(marked), marked
        assert "<b>" in marked and bold
        # the text the markup represents is the sentence (an " and " may have become "&amp;")
        assert markup_eval.plain_text(marked) in (line, line.replace(" and ", " & ", 1)), marked
    assert markup_eval.strip_output('Ein <a href="/x" title="a > b">Mann</a>&#39;s <br>Hut') == "Ein Mann's Hut"
    assert not markup_eval.well_formed("<b><i>x</b></i>")
    assert markup_eval.tags('<a title="a > b">x</a><br>') == ['<a title="a > b">', "</a>", "<br>"]


def test_spearman_by_hand():
    assert confidence_eval.ranks([3.0, 1.0, 2.0, 1.0]) == [4.0, 1.5, 3.0, 1.5]
    assert math.isclose(confidence_eval.spearman([1, 2, 3, 4], [10, 20, 30, 40]), 1.0)
    assert math.isclose(confidence_eval.spearman([1, 2, 3, 4], [4, 3, 2, 1]), -1.0)
    # ranks (1, 2, 3) and (2, 1, 3): d^2 = 1 + 1 + 0, rho = 1 - 6 * 2 / (3 * 8) = 0.5
    assert math.isclose(confidence_eval.spearman([1, 2, 3], [5, 4, 6]), 0.5)


def test_terminology_counts_whole_words():
    import terminology_eval
    assert terminology_eval.count_word("Flip-flops and flops. FLOPS!", "flops") == 2
    assert terminology_eval.count_word("Der Köter und der Köterich", "Köter") == 1
    assert terminology_eval.casing(["der Hund", "Der Hund", "Hund", "der"])["hund"] == "Hund"


def test_app_strings_catalogs_and_icu_skeleton(tmp_path):
    po = tmp_path / "m.po"
    po.write_text('msgid ""\nmsgstr ""\n\nmsgid "Today is {0}"\nmsgstr ""\n\nmsgid "one "\n"file"\nmsgid_plural "%d files"\n'
                  'msgstr[0] ""\n', encoding="utf-8")
    assert app_strings_eval.read_catalog(str(po)) == ["Today is {0}", "one file", "%d files"]
    xml = tmp_path / "strings.xml"
    xml.write_text('<resources><string name="a">Don\\\'t delete %1$s</string><plurals name="p"><item quantity="one">'
                   '%d song</item></plurals></resources>', encoding="utf-8")
    assert app_strings_eval.read_catalog(str(xml)) == ["Don't delete %1$s", "%d song"]
    js = tmp_path / "en.json"
    js.write_text('{"a": {"b": "Hi {{name}}"}, "c": "$t(a.b) now"}', encoding="utf-8")
    assert app_strings_eval.read_catalog(str(js)) == ["Hi {{name}}", "$t(a.b) now"]
    src = "{n, plural, =0 {No files} one {# file} other {# files}} in {folder}"
    out = "{n, plural, =0 {Keine Dateien} one {# Datei} other {# Dateien}} in {folder}"
    assert app_strings_eval.icu_skeleton(src) == app_strings_eval.icu_skeleton(out)
    assert app_strings_eval.icu_skeleton(src) != app_strings_eval.icu_skeleton("Keine Dateien in {folder}")
    assert [m.group(0) for m in app_strings_eval.PLACEHOLDER.finditer("%(n)d of %s, %{u} in { $f } {{x}} $t(k)")] == \
        ["%(n)d", "%s", "%{u}", "{ $f }", "{{x}}", "$t(k)"]
