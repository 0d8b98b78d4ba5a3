#!/usr/bin/env bash
# End-to-end checks of the command-line tools on the tiny test models:
#   tern inspect (text and --json), tern translate (ids, n-best, a failing line keeps the output aligned
#   and the exit status non-zero), tern-convert errors (one line, exit 1, no partial output).
# Usage: cli_test.sh TERN TERN_CONVERT MODELS_DIR   ($TERN_EMULATOR, if set, runs the binaries: qemu)
set -uo pipefail
models=$3
tern_bin=$1 convert_bin=$2
tern() { ${TERN_EMULATOR:-} "$tern_bin" "$@"; }
convert() { ${TERN_EMULATOR:-} "$convert_bin" "$@"; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
check() {  # check NAME CONDITION...
  local name=$1; shift
  if "$@"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAILED: $name" >&2; fi
}

# the core cpuinfo detected (under qemu the test preset names the core it emulates)
if [ -n "${TERN_EXPECT_CORE:-}" ]; then
  echo "A dog." | tern translate -m "$models/post-swish.int8.tern" --verbose > /dev/null 2> "$tmp/verbose"
  check "--verbose names the core ($TERN_EXPECT_CORE)" grep -q "^tern: cpu: .*($TERN_EXPECT_CORE" "$tmp/verbose"
fi

# inspect
tern inspect --json "$models/post-swish.int8.tern" > "$tmp/inspect.json"
check "inspect --json exit 0" test $? -eq 0
check "inspect --json has d_model 32" grep -q '"d_model": 32' "$tmp/inspect.json"
check "inspect --json has arena_bytes" grep -q '"arena_bytes": [1-9]' "$tmp/inspect.json"
check "inspect --json has int8 tensors" grep -q '"int8"' "$tmp/inspect.json"
tern inspect "$models/pre-relu.f32.tern" > "$tmp/inspect.txt"
check "inspect text" grep -q '^hparams.norm_placement: pre-norm' "$tmp/inspect.txt"
check "inspect prints the arena plan" grep -q '^arena_plan.decoder.self_k (KV cache): [0-9]* bytes at offset [0-9]*, live in decoder$' "$tmp/inspect.txt"
tern inspect /nonexistent.tern 2> "$tmp/err"; rc=$?
check "inspect of a missing file exits 2" test $rc -eq 2
check "inspect error is one line" test "$(wc -l < "$tmp/err")" -eq 1
tern translate --beam x < /dev/null 2> "$tmp/err"; rc=$?
check "a bad argument exits 2 (CLI11 alone gave 104)" test $rc -eq 2
check "a bad argument names it" grep -q -- '--beam' "$tmp/err"
tern translate --help > /dev/null; rc=$?
check "--help exits 0" test $rc -eq 0
# A string in the file (provenance.converter_version) that is not UTF-8: printed with U+FFFD, never
# std::terminate in the JSON writer (this aborted with exit 134 before).
cp "$models/post-swish.int8.tern" "$tmp/bad-utf8.tern"
at=$(LC_ALL=C grep -obaF 'tern-convert ' "$tmp/bad-utf8.tern" | head -1 | cut -d: -f1)
printf '\xff\xfe\xc3' | dd of="$tmp/bad-utf8.tern" bs=1 seek="$at" conv=notrunc status=none
tern inspect --json "$tmp/bad-utf8.tern" > "$tmp/bad-utf8.json"; rc=$?
check "inspect --json of a string that is not UTF-8 exits 0" test $rc -eq 0
check "inspect --json prints it with U+FFFD" grep -q $'"converter_version": "\xef\xbf\xbd' "$tmp/bad-utf8.json"
tern inspect "$tmp/bad-utf8.tern" > /dev/null; rc=$?
check "inspect (text) of a string that is not UTF-8 exits 0" test $rc -eq 0

# translate --ids with a failing line in the middle: output stays aligned, exit 1.
printf '5 6 0\n5 x 0\n7 8 9 0\n' | tern translate -m "$models/post-swish.int8.tern" --ids --beam 1 > "$tmp/out" 2> "$tmp/err"; rc=$?
check "translate exits 1 when a line fails" test $rc -eq 1
check "translate output keeps 3 lines" test "$(wc -l < "$tmp/out")" -eq 3
check "failed line is empty" test -z "$(sed -n 2p "$tmp/out")"
check "error names the line" grep -q "^tern: line 2: 'x' is not a token id" "$tmp/err"
printf '5 6 0\n' | tern translate -m "$models/post-swish.int8.tern" --ids --beam 4 --n-best 3 > "$tmp/nbest"
check "n-best 3 gives 3 lines with scores" test "$(grep -c $'\t' "$tmp/nbest")" -eq 3

# text translation
printf 'A man in a blue shirt.\nbad \xff\n' | tern translate -m "$models/post-swish.int8.tern" > "$tmp/out" 2> "$tmp/err"; rc=$?
check "text: invalid UTF-8 line fails alone" grep -q "^tern: line 2: invalid UTF-8 at byte 4" "$tmp/err"
check "text: exit 1" test $rc -eq 1
check "text: 2 output lines" test "$(wc -l < "$tmp/out")" -eq 2

# --format json: one object per line (a failing line included), tokens with log-probabilities, spans, sources
printf 'A man in a blue shirt.\nbad \xff\n' | tern translate -m "$models/post-swish.int8.tern" --beam 1 --format json \
  > "$tmp/out.json" 2> "$tmp/err"; rc=$?
check "json: exit 1 (line 2 fails)" test $rc -eq 1
check "json: objects with text, tokens, confidence and source; an error object for line 2" /usr/bin/python3 -c '
import json, sys
a, b = [json.loads(l) for l in open(sys.argv[1], encoding="utf-8")]
t = a["tokens"]
assert a["line"] == 1 and isinstance(a["text"], str) and t and t[-1]["id"] == 0, a
assert all("logprob" in x and "span" in x and 0 <= x["source"] < len(a["source"]) for x in t), t
assert abs(a["confidence"]["mean"] - sum(x["logprob"] for x in t) / len(t)) < 1e-4
assert a["source"][-1]["id"] == 0 and a["source"][0]["span"] == [0, 1]
assert b == {"line": 2, "error": "invalid UTF-8 at byte 4"}, b
' "$tmp/out.json"
tern translate -m "$models/post-swish.int8.tern" --format yaml < /dev/null 2> /dev/null; rc=$?
check "json: an unknown --format exits 2" test $rc -eq 2

# --html: the tags come back, well formed; broken markup fails its line (strict) or is repaired (lenient)
printf 'A <b>man</b> in a <a href="/x?a=1&amp;b=2" title="a > b">blue shirt</a>.<br>A dog.\nA <b>man.\n' |
  tern translate -m "$models/post-swish.int8.tern" --beam 1 --html > "$tmp/out.html" 2> "$tmp/err"; rc=$?
check "html: exit 1 (line 2 is not well formed)" test $rc -eq 1
check "html: line 1 holds exactly its tags, in order" test "$(sed -n 1p "$tmp/out.html" | grep -o '<[^<>]*\(>\|"[^"]*"[^<>]*>\)' | tr '\n' ' ')" \
  = '<b> </b> <a href="/x?a=1&amp;b=2" title="a > b"> </a> <br> '
check "html: line 2 is empty" test -z "$(sed -n 2p "$tmp/out.html")"
check "html: strict error names the tag and byte" grep -q "^tern: line 2: markup: <b> at byte 2 is not closed" "$tmp/err"
printf 'A <b>man.\n' | tern translate -m "$models/post-swish.int8.tern" --beam 1 --html=lenient > "$tmp/out.html"; rc=$?
check "html=lenient: exit 0" test $rc -eq 0
check "html=lenient: closed at the end" grep -q '^[^<]*<b>.*</b>$' "$tmp/out.html"
# --glossary: the term comes out once per occurrence; a bad file is named with its line, exit 2
printf 'dog\tKater\n' > "$tmp/terms.tsv"
printf 'The dog runs.\nA man.\n' | tern translate -m "$models/post-swish.int8.tern" --beam 1 --glossary "$tmp/terms.tsv" \
  > "$tmp/out.terms"; rc=$?
check "glossary: exit 0" test $rc -eq 0
check "glossary: the term once in line 1" test "$(sed -n 1p "$tmp/out.terms" | grep -o Kater | wc -l)" -eq 1
check "glossary: no term in line 2" test "$(sed -n 2p "$tmp/out.terms" | grep -c Kater)" -eq 0
printf 'dog\tKater\ncat\n' > "$tmp/bad.tsv"
echo 'A dog.' | tern translate -m "$models/post-swish.int8.tern" --glossary "$tmp/bad.tsv" > /dev/null 2> "$tmp/err"; rc=$?
check "glossary: a bad file exits 2" test $rc -eq 2
check "glossary: the error names file and line" grep -q "^tern: glossary: $tmp/bad.tsv:2: no tab" "$tmp/err"
echo 'A man runs {0} km.' | tern translate -m "$models/post-swish.int8.tern" --beam 1 --keep-placeholders > "$tmp/out.keep"
check "keep-placeholders: {0} verbatim" grep -q '{0}' "$tmp/out.keep"
echo 'A man runs {0} km to https://example.com/run.' | tern translate -m "$models/post-swish.int8.tern" --beam 1 > "$tmp/out.auto"
check "auto_protect: {0} and the URL verbatim without --keep-placeholders" grep -q '{0}.*https://example.com/run\|https://example.com/run.*{0}' "$tmp/out.auto"
echo 'A man runs {0} km to https://example.com/run.' | tern translate -m "$models/post-swish.int8.tern" --beam 1 --no-auto-protect > "$tmp/out.noauto"
check "--no-auto-protect: the line is translated as it is" test -s "$tmp/out.noauto"
echo 'A man runs to $HOME.' | tern translate -m "$models/post-swish.int8.tern" --beam 1 --keep-placeholders --placeholder-syntaxes default,shell > "$tmp/out.shell"
check "placeholder-syntaxes shell: \$HOME verbatim" grep -qF '$HOME' "$tmp/out.shell"
printf '%s\n' '{n, plural, one {A man runs.} other {# men run.}}' 'A man {x' | tern translate -m "$models/post-swish.int8.tern" --beam 1 --icu-messages > "$tmp/out.icu" 2> "$tmp/err.icu"; rc=$?
check "icu-messages: a bad line fails alone (exit 1)" test $rc -eq 1
check "icu-messages: the plural's syntax rebuilt" grep -q '^{n, plural, one {.*} other {# .*}}$' "$tmp/out.icu"
check "icu-messages: the error names the byte" grep -q "line 2: ICU MessageFormat: '{' at byte 6 is not closed" "$tmp/err.icu"
echo 'x' | tern translate -m "$models/post-swish.int8.tern" --icu-messages --format json > /dev/null 2>&1; rc=$?
check "icu-messages + json: exit 2" test $rc -eq 2
echo 'A man.' | tern translate -m "$models/post-swish.int8.tern" --keep-placeholders --placeholder-syntaxes bogus > /dev/null 2> "$tmp/err"; rc=$?
check "placeholder-syntaxes bogus: exit 2, named" test $rc -eq 2 -a "$(grep -c "placeholder syntax 'bogus'" "$tmp/err")" -ge 1
printf 'A <b>man</b> and {count} dogs.\n' | tern translate -m "$models/post-swish.int8.tern" --keep-placeholders --html=xml > "$tmp/out.kh" 2> "$tmp/err"; rc=$?
check "keep-placeholders + html: placeholders and tags kept once" test $rc -eq 0 -a "$(grep -o '{count}' "$tmp/out.kh" | wc -l)" -eq 1 -a "$(grep -o '<b>' "$tmp/out.kh" | wc -l)" -eq 1
echo 'A man.' | tern translate -m "$models/post-swish.int8.tern" --keep-placeholders --stream > /dev/null 2> "$tmp/err"; rc=$?
check "keep-placeholders + stream: exit 2" test $rc -eq 2
echo 'A man.' | tern translate -m "$models/post-swish.int8.tern" --html --stream > /dev/null 2> "$tmp/err"; rc=$?
check "html + stream: exit 2" test $rc -eq 2
check "html + stream: says why" grep -q "cannot be combined with --stream" "$tmp/err"

# a long file streams through, line for line
lines=3000
[ -n "${TERN_EMULATOR:-}" ] && lines=300  # under qemu: fewer, same check
seq 1 $lines | sed 's/.*/A man in a blue shirt number &./' > "$tmp/long.en"
tern translate -m "$models/post-swish.int8.tern" --beam 1 --batch 16 --input "$tmp/long.en" --output "$tmp/long.out"
check "long file: exit 0" test $? -eq 0
check "long file: every line out" test "$(wc -l < "$tmp/long.out")" -eq $lines
tern translate -m "$models/post-swish.int8.tern" --threads 0 < /dev/null 2> "$tmp/err"
check "threads 0 is refused" test $? -ne 0
check "threads 0 message" grep -q "threads" "$tmp/err"

# converter errors leave nothing behind
mkdir "$tmp/ckpt" && cp "$models/post-swish/"* "$tmp/ckpt/"
sed -i 's/"swish"/"tanh"/' "$tmp/ckpt/config.json"
convert "$tmp/ckpt" "$tmp/out.tern" 2> "$tmp/err"; rc=$?
check "convert: unsupported activation exits 1" test $rc -eq 1
check "convert: message names the key" grep -q 'activation_function "tanh"' "$tmp/err"
check "convert: no partial output" test -z "$(ls "$tmp" | grep 'out.tern')"

# shortlists: built from a parallel corpus, imported from Marian's format, used and reported by translate
printf 'A man in a blue shirt.\nTwo dogs play.\n' > "$tmp/sl.en"
printf 'Ein Mann in einem blauen Hemd.\nZwei Hunde spielen.\n' > "$tmp/sl.de"
convert -q "$models/post-swish" "$tmp/sl.tern" --shortlist "$tmp/sl.en" "$tmp/sl.de" --shortlist-frequent 5 --shortlist-best 3
check "convert --shortlist exit 0" test $? -eq 0
tern inspect "$tmp/sl.tern" > "$tmp/sl.txt"
check "inspect shows the shortlist" grep -q '^shortlist.method: IBM Model 1 (5 EM iterations, NULL word) over 2 sentence pairs' "$tmp/sl.txt"
check "inspect shows the frequent count" grep -q '^shortlist.frequent: 5$' "$tmp/sl.txt"
tern translate -m "$tmp/sl.tern" --profile --input "$tmp/sl.en" --output "$tmp/sl.out" 2> "$tmp/err"
check "translate with a shortlist exit 0" test $? -eq 0
check "profile reports the mean shortlist size" grep -q '^shortlist: mean shortlist size [0-9]* of [0-9]* target tokens' "$tmp/err"
check "profile reports the weights read" grep -q '^floor: a decoder step reads [0-9.]* MiB of weights' "$tmp/err"
tern translate -m "$tmp/sl.tern" --no-shortlist --input "$tmp/sl.en" --output "$tmp/sl.full" 2> /dev/null
check "translate --no-shortlist exit 0" test $? -eq 0
convert "$models/post-swish" "$tmp/sl2.tern" --shortlist "$tmp/sl.en" "$tmp/nonexistent.de" 2> "$tmp/err"; rc=$?
check "convert --shortlist with a missing file exits 1" test $rc -eq 1
check "convert --shortlist names the missing file" grep -q "$tmp/nonexistent.de: cannot open" "$tmp/err"
check "convert --shortlist failure leaves no output" test ! -e "$tmp/sl2.tern"
printf 'not a lexical table\n' > "$tmp/lex.s2t"
convert "$models/post-swish" "$tmp/sl3.tern" --shortlist-marian "$tmp/lex.s2t" 2> "$tmp/err"; rc=$?
check "convert --shortlist-marian: a bad line exits 1" test $rc -eq 1
check "convert --shortlist-marian names the line" grep -q "lex.s2t:1: expected 'target source probability'" "$tmp/err"
convert "$models/post-swish" "$tmp/sl4.tern" --shortlist "$tmp/sl.en" "$tmp/sl.de" --shortlist-marian "$tmp/lex.s2t" 2> /dev/null
check "convert: --shortlist and --shortlist-marian exclude each other" test $? -ne 0

# outputs are never lost (issue 18): failed writes, directories, the input as output, temporary files
printf 'A man.\nA dog.\n' > "$tmp/io.en"
if [ -w /dev/full ]; then
  tern translate -m "$models/post-swish.int8.tern" -i "$tmp/io.en" -o /dev/full 2> "$tmp/err"; rc=$?
  check "output to /dev/full fails" test $rc -ne 0
  check "output to /dev/full names the error" grep -q "/dev/full: write failed: No space left on device" "$tmp/err"
  tern translate -m "$models/post-swish.int8.tern" -i "$tmp/io.en" > /dev/full 2> "$tmp/err"; rc=$?
  check "stdout on a full device fails" test $rc -ne 0
  check "stdout failure is named" grep -q "standard output: write failed" "$tmp/err"
fi
tern translate -m "$models/post-swish.int8.tern" -i "$tmp" -o "$tmp/x.out" 2> "$tmp/err"; rc=$?
check "a directory as input fails" test $rc -ne 0
check "a directory as input is named" grep -q "not a regular file (a directory)" "$tmp/err"
cp "$tmp/io.en" "$tmp/same.en"
tern translate -m "$models/post-swish.int8.tern" -i "$tmp/same.en" -o "$tmp/./same.en" 2> "$tmp/err"; rc=$?
check "the input as output is refused" test $rc -ne 0
check "the input is untouched" cmp -s "$tmp/io.en" "$tmp/same.en"
ln -s same.en "$tmp/link.en"
tern translate -m "$models/post-swish.int8.tern" -i "$tmp/same.en" -o "$tmp/link.en" 2> "$tmp/err"; rc=$?
check "the input through a symlink is refused" grep -q "is the input file" "$tmp/err"
echo "old output" > "$tmp/keep.out"
tern translate -m "$models/post-swish.int8.tern" -i "$tmp/io.en" -o "$tmp/keep.out"
check "output written on success" test "$(wc -l < "$tmp/keep.out")" -eq 2
check "no temporary output left" bash -c "! ls '$tmp'/keep.out.tmp.* > /dev/null 2>&1"
tern translate -m "$models/post-swish.int8.tern" -i "$tmp/io.en" --threads 1000 -o "$tmp/t.out" 2> "$tmp/err"
check "threads beyond the CPU: a warning" grep -q "warning: --threads 1000: this CPU has [0-9]* hardware threads; using [0-9]*" "$tmp/err"

# --stream prints the same lines as without it
printf 'A man in a blue shirt.\nTwo dogs play.\n' > "$tmp/st.en"
tern translate -m "$models/post-rules.int8.tern" -i "$tmp/st.en" -o "$tmp/st.plain"
tern translate -m "$models/post-rules.int8.tern" -i "$tmp/st.en" --stream > "$tmp/st.stream"
check "--stream exit 0" test $? -eq 0
check "--stream prints what translate prints" cmp -s "$tmp/st.plain" "$tmp/st.stream"

# transformers' beam options (issue 26): the file's early_stopping and length penalty, per call
printf 'A man in a blue shirt.\nTwo dogs play.\n' > "$tmp/beam.en"
for opts in "--early-stopping never" "--early-stopping true --hf-rules 4" "--length-penalty 0.6 --early-stopping false"; do
  tern translate -m "$models/post-swish.f32.tern" --beam 4 $opts -i "$tmp/beam.en" -o "$tmp/beam.out"; rc=$?
  check "translate $opts exits 0" test $rc -eq 0 -a "$(wc -l < "$tmp/beam.out")" -eq 2
done
tern translate -m "$models/post-swish.f32.tern" --early-stopping sometimes < /dev/null 2> "$tmp/err"; rc=$?
check "--early-stopping sometimes exits 2" test $rc -eq 2
tern translate -m "$models/post-swish.f32.tern" --hf-rules 3 < /dev/null 2> "$tmp/err"; rc=$?
check "--hf-rules 3 exits 2" test $rc -eq 2
printf '{"early_stopping": "never", "num_beams": 4, "forced_eos_token_id": 0, "bad_words_ids": [[101]]}' > "$tmp/ck2gen.json"
mkdir -p "$tmp/ckes" && cp "$models/post-swish/"* "$tmp/ckes/" && cp "$tmp/ck2gen.json" "$tmp/ckes/generation_config.json"
convert -q "$tmp/ckes" "$tmp/es.tern"; rc=$?
check "convert: early_stopping \"never\" is kept" test $rc -eq 0
tern inspect "$tmp/es.tern" > "$tmp/es.txt"
check "inspect: generation.early_stopping never" grep -q '^generation.early_stopping: never$' "$tmp/es.txt"
check "inspect: format_version 4" grep -q '^format_version: 4$' "$tmp/es.txt"

# --- hostile input, round two (issue 25) ---
# --beam 0 and --max-length 0 were taken as the model's default: a range error now, exit 2.
for opt in "--beam 0" "--beam 65" "--max-length 0"; do
  tern translate -m "$models/post-swish.int8.tern" $opt < /dev/null 2> "$tmp/err"; rc=$?
  check "$opt exits 2" test $rc -eq 2
  check "$opt names the option" grep -q -- "${opt% *}" "$tmp/err"
done
# --ids --stream printed text: it prints ids, as --ids without --stream does.
printf '5 6 7 0\n9 12 0\n' > "$tmp/ids.in"
tern translate -m "$models/post-swish.int8.tern" --ids --beam 1 -i "$tmp/ids.in" -o "$tmp/ids.plain"
tern translate -m "$models/post-swish.int8.tern" --ids --beam 1 --stream -i "$tmp/ids.in" > "$tmp/ids.stream"
check "--ids --stream prints the ids --ids prints" cmp -s "$tmp/ids.plain" "$tmp/ids.stream"
tern translate -m "$models/post-swish.int8.tern" --ids --beam 4 --stream -i "$tmp/ids.in" > "$tmp/ids.stream4"
tern translate -m "$models/post-swish.int8.tern" --ids --beam 4 -i "$tmp/ids.in" > "$tmp/ids.plain4"
check "--ids --stream with beam 4 too" cmp -s "$tmp/ids.plain4" "$tmp/ids.stream4"
# --stream: a line whose second sentence is too long printed the first one's translation: an empty line.
long=$(for i in $(seq 300); do printf 'word%d ' $i; done)
printf 'A man in a blue shirt. Then %s.\nTwo dogs play.\n' "$long" > "$tmp/toolong.en"
tern translate -m "$models/post-swish.int8.tern" -i "$tmp/toolong.en" --stream > "$tmp/toolong.stream" 2> "$tmp/err"; rc=$?
tern translate -m "$models/post-swish.int8.tern" -i "$tmp/toolong.en" > "$tmp/toolong.plain" 2> /dev/null
check "--stream: a line that fails exits 1" test $rc -eq 1
check "--stream: a failing line is an empty line" test -z "$(sed -n 1p "$tmp/toolong.stream")"
check "--stream prints what translate prints when a line fails" cmp -s "$tmp/toolong.plain" "$tmp/toolong.stream"
# (-v's output to a file first: with pipefail, grep -q leaving early could SIGPIPE a slow tern under qemu)
echo | tern translate -m "$models/post-swish.int8.tern" -v > "$tmp/verbose" 2>&1
if grep -q "has no ICU" "$tmp/verbose"; then
  check "--stream: the error names the line (no ICU: not split)" grep -q "^tern: line 1: .*exceed max_source_tokens" "$tmp/err"
else
  check "--stream: the error names sentence 2 of 2" grep -q "^tern: line 1: sentence 2 of 2: .*exceed max_source_tokens" "$tmp/err"
fi
# A line longer than the reader's bound (1 MiB) fails alone; memory stays bounded.
{ echo "A dog."; head -c 1500000 /dev/zero | tr '\0' 'a'; echo; echo "A cat."; } > "$tmp/huge.en"
tern translate -m "$models/post-swish.int8.tern" -i "$tmp/huge.en" -o "$tmp/huge.out" 2> "$tmp/err"; rc=$?
check "an over-long line: exit 1" test $rc -eq 1
check "an over-long line is named" grep -q "^tern: line 2: line longer than 1048576 bytes (skipped)" "$tmp/err"
check "an over-long line keeps the output aligned" test "$(wc -l < "$tmp/huge.out")" -eq 3
# A device as --input is refused (it can have no end); a FIFO is read.
tern translate -m "$models/post-swish.int8.tern" -i /dev/zero 2> "$tmp/err"; rc=$?
check "--input /dev/zero is refused" test $rc -eq 2
check "--input /dev/zero: the message says why" grep -q "/dev/zero: not a regular file (a character device) (a regular file or a pipe is read as input)" "$tmp/err"
mkfifo "$tmp/in.fifo"
(printf 'A dog.\n' > "$tmp/in.fifo") &
tern translate -m "$models/post-swish.int8.tern" -i "$tmp/in.fifo" > "$tmp/fifo.out"; rc=$?
check "--input FIFO is read" test $rc -eq 0 -a "$(wc -l < "$tmp/fifo.out")" -eq 1
# The model file as --output is refused before anything is written.
cp "$models/post-swish.int8.tern" "$tmp/self.tern"
printf 'A dog.\n' | tern translate -m "$tmp/self.tern" -o "$tmp/self.tern" 2> "$tmp/err"; rc=$?
check "the model as output is refused" test $rc -eq 2
check "the model as output: named" grep -q "is the model" "$tmp/err"
check "the model is untouched" cmp -s "$models/post-swish.int8.tern" "$tmp/self.tern"
# tern-convert never writes over an input, a device or a FIFO (CKPT/vocab.json was replaced before).
mkdir "$tmp/ck2" && cp "$models/post-swish/"* "$tmp/ck2/"
cp "$tmp/ck2/vocab.json" "$tmp/vocab.before"
convert "$tmp/ck2" "$tmp/ck2/vocab.json" 2> "$tmp/err"; rc=$?
check "convert: an input as output exits 1" test $rc -eq 1
check "convert: an input as output is named" grep -q "is an input of this conversion" "$tmp/err"
check "convert: the input is untouched" cmp -s "$tmp/vocab.before" "$tmp/ck2/vocab.json"
mkfifo "$tmp/out.fifo"
convert "$tmp/ck2" "$tmp/out.fifo" 2> "$tmp/err"; rc=$?
check "convert: a FIFO as output is refused" test $rc -eq 1 -a -p "$tmp/out.fifo"
convert "$tmp/ck2" /dev/null 2> "$tmp/err"; rc=$?
check "convert: /dev/null as output is refused" test $rc -eq 1 -a -c /dev/null
check "convert: /dev/null: the message says why" grep -q "/dev/null: not a regular file" "$tmp/err"
# tern-convert --shortlist-marian /dev/zero grew to gigabytes: refused before reading.
convert "$tmp/ck2" "$tmp/z.tern" --shortlist-marian /dev/zero 2> "$tmp/err"; rc=$?
check "convert --shortlist-marian /dev/zero is refused" test $rc -eq 1
check "convert --shortlist-marian /dev/zero: named" grep -q "/dev/zero: not a regular file" "$tmp/err"
convert "$tmp/ck2" "$tmp/z.tern" --shortlist /dev/zero /dev/zero 2> "$tmp/err"; rc=$?
check "convert --shortlist /dev/zero is refused" test $rc -eq 1
# --stream --output, interrupted (Ctrl-C while it waits for the next line, with two lines translated):
# the old output file is kept (it was replaced by the lines written so far), tern ends with 130 (it went
# on waiting, and dropped the next line as "cancelled by the caller").
mkfifo "$tmp/sig.fifo"
exec 7<>"$tmp/sig.fifo"
echo "old output" > "$tmp/sig.out"
( exec ${TERN_EMULATOR:-} "$tern_bin" translate -m "$models/post-swish.int8.tern" --stream -o "$tmp/sig.out" < "$tmp/sig.fifo" 2> "$tmp/sig.err" ) &
pid=$!
( sleep 60; kill -9 $pid 2> /dev/null ) > /dev/null 2>&1 &
watchdog=$!
printf 'A man in a blue shirt.\nTwo dogs play.\n' >&7
for _ in $(seq 200); do [ "$(cat "$tmp"/sig.out.tmp.* 2> /dev/null | wc -l)" -ge 2 ] && break; sleep 0.05; done
check "--stream --output: the lines so far are in the temporary file" test "$(cat "$tmp"/sig.out.tmp.* 2> /dev/null | wc -l)" -eq 2
kill -INT $pid
wait $pid; rc=$?
kill $watchdog 2> /dev/null
exec 7>&-
check "--stream: Ctrl-C while waiting for input exits 130" test $rc -eq 130
check "--stream: Ctrl-C says so" grep -q "^tern: interrupted" "$tmp/sig.err"
check "--stream --output: Ctrl-C keeps the old output" test "$(cat "$tmp/sig.out")" = "old output"
check "--stream --output: no temporary file left" bash -c "! ls '$tmp'/sig.out.tmp.* > /dev/null 2>&1"

# a model file truncated while --no-mmap translation runs: it goes on (with the default mapping the
# file must not change in place: docs/api.md "Streaming, cancellation and callbacks")
cp "$models/post-swish.int8.tern" "$tmp/moving.tern"
lines=20000
[ -n "${TERN_EMULATOR:-}" ] && lines=2000
seq 1 $lines | sed 's/.*/A man in a blue shirt number &./' > "$tmp/many.en"
tern translate -m "$tmp/moving.tern" --no-mmap --beam 1 -i "$tmp/many.en" -o "$tmp/many.out" &
pid=$!
sleep 1
truncate -s 4096 "$tmp/moving.tern"
wait $pid; rc=$?
check "--no-mmap: truncating the model file mid-run does not stop it" test $rc -eq 0
check "--no-mmap: every line translated" test "$(wc -l < "$tmp/many.out")" -eq $lines

# converter interrupted while writing: no partial .tern, no temporary file
TERN_CONVERT_TEST_PAUSE_MS=3000 ${TERN_EMULATOR:-} "$convert_bin" -q "$models/post-swish" "$tmp/int.tern" &
pid=$!
for _ in $(seq 50); do ls "$tmp"/int.tern.tmp.* > /dev/null 2>&1 && break; sleep 0.1; done
check "convert: temporary file exists while writing" bash -c "ls '$tmp'/int.tern.tmp.* > /dev/null 2>&1"
kill -INT $pid
wait $pid; rc=$?
check "convert: SIGINT ends it with a failure status" test $rc -ne 0
check "convert: SIGINT leaves no .tern" test ! -e "$tmp/int.tern"
check "convert: SIGINT leaves no temporary file" bash -c "! ls '$tmp'/int.tern.tmp.* > /dev/null 2>&1"
# the same for SIGHUP (a closed terminal)
TERN_CONVERT_TEST_PAUSE_MS=3000 ${TERN_EMULATOR:-} "$convert_bin" -q "$models/post-swish" "$tmp/hup.tern" &
pid=$!
for _ in $(seq 50); do ls "$tmp"/hup.tern.tmp.* > /dev/null 2>&1 && break; sleep 0.1; done
kill -HUP $pid
wait $pid
check "convert: SIGHUP leaves no .tern" test ! -e "$tmp/hup.tern"
check "convert: SIGHUP leaves no temporary file" bash -c "! ls '$tmp'/hup.tern.tmp.* > /dev/null 2>&1"

# Round three: arguments are checked before anything is written; float options refuse NaN; every command
# that writes reports a full disk; TERN_DUMP_OPS never writes into one of tern's inputs.
m="$models/post-swish.int8.tern"
printf 'a man\n' > "$tmp/r3.en"
printf 'old output\n' > "$tmp/r3.out"
layers=$(tern inspect --json "$m" | sed -n 's/.*"decoder_layers": \([0-9]*\).*/\1/p')
tern translate -m "$m" --alignment-layer "$layers" -i "$tmp/r3.en" -o "$tmp/r3.out" 2> "$tmp/err"; rc=$?
check "--alignment-layer out of range exits 2" test $rc -eq 2
check "--alignment-layer out of range names the valid range" grep -q "the decoder has $layers layers (0 to $((layers - 1)))" "$tmp/err"
check "--alignment-layer out of range keeps the old output" grep -qx "old output" "$tmp/r3.out"
for opt in --length-penalty --low-token --low-sentence; do
  for v in nan -nan inf; do
    tern translate -m "$m" $opt $v --format json < "$tmp/r3.en" > /dev/null 2> "$tmp/err"; rc=$?
    check "$opt $v exits 2" test $rc -eq 2
  done
done
if [ -w /dev/full ]; then
  for cmd in "tokenize -m $m" "inspect $m" "inspect --json $m"; do
    # shellcheck disable=SC2086
    tern $cmd < "$tmp/r3.en" > /dev/full 2> "$tmp/err"; rc=$?
    check "tern $cmd > /dev/full exits 2" test $rc -eq 2
    check "tern $cmd > /dev/full says why" grep -q "No space left on device" "$tmp/err"
  done
fi
cp "$m" "$tmp/dump-model.tern"
TERN_DUMP_OPS="$tmp/dump-model.tern" tern translate -m "$tmp/dump-model.tern" < "$tmp/r3.en" > /dev/null 2> "$tmp/err"
check "TERN_DUMP_OPS naming the model: refused" grep -q "is the model file" "$tmp/err"
check "TERN_DUMP_OPS naming the model: the model is unchanged" cmp -s "$m" "$tmp/dump-model.tern"
TERN_DUMP_OPS="$tmp/r3.en" tern translate -m "$m" < "$tmp/r3.en" > /dev/null 2> "$tmp/err"
check "TERN_DUMP_OPS naming a text: refused" grep -q "holds something other than an op dump" "$tmp/err"
check "TERN_DUMP_OPS naming a text: the text is unchanged" test "$(cat "$tmp/r3.en")" = "a man"
TERN_DUMP_OPS="$tmp/ops.bin" tern translate -m "$m" < "$tmp/r3.en" > /dev/null
TERN_DUMP_OPS="$tmp/ops.bin" tern translate -m "$m" < "$tmp/r3.en" > /dev/null 2> "$tmp/err"
check "TERN_DUMP_OPS appends to a dump" test ! -s "$tmp/err"

# target prefixes and scoring
echo '5 6 0' | tern translate -m "$models/post-swish.int8.tern" --ids --beam 1 --target-prefix '9 10' > "$tmp/prefixed"
check "--target-prefix with --ids: the output starts with it" grep -q '^9 10' "$tmp/prefixed"
echo '5 6 0' | tern translate -m "$models/post-swish.int8.tern" --ids --beam 1 --target-prefix '9 x' > /dev/null 2> "$tmp/err"; rc=$?
check "--target-prefix with a bad id: exit 2" test $rc -eq 2
check "--target-prefix with a bad id: says which" grep -q "'x' is not a token id" "$tmp/err"
printf '5 6 0\n7 8 0\n' | tern translate -m "$models/post-swish.int8.tern" --ids --beam 1 --target-prefix '9' --alternatives 3 > "$tmp/alts"
check "--alternatives 3: 3 lines per input, each with a score" test "$(grep -c $'\t' "$tmp/alts")" -eq 6
check "--alternatives: every one starts with the prefix" test "$(grep -c '^9 ' "$tmp/alts")" -eq 6
check "--alternatives: three different second tokens" test "$(head -3 "$tmp/alts" | cut -d' ' -f2 | sort -u | wc -l)" -eq 3
first=$(echo '5 6 0' | tern translate -m "$models/post-swish.int8.tern" --ids --beam 1 | cut -d' ' -f1)
echo '5 6 0' | tern translate -m "$models/post-swish.int8.tern" --ids --beam 1 --suppress "$first" --disable-unk > "$tmp/suppressed"
check "--suppress: the banned first token is gone" test "$(cut -d' ' -f1 "$tmp/suppressed")" != "$first"
echo '5 6 0' | tern translate -m "$models/post-swish.int8.tern" --ids --suppress 'x' > /dev/null 2> "$tmp/err"; rc=$?
check "--suppress with a bad id: exit 2" test $rc -eq 2
echo '5 6 0' | tern translate -m "$models/post-swish.int8.tern" --ids --alternatives 2 --n-best 2 > /dev/null 2> "$tmp/err"; rc=$?
check "--alternatives with --n-best 2: exit 2, says why" grep -q "n_best 2: the alternatives are the hypotheses" "$tmp/err"
printf '5 6 0\t9 10\n5 6 0\n5 6 0\t%s\n' "$(printf '9 %.0s' $(seq 300))" | tern score -m "$models/post-swish.int8.tern" --ids > "$tmp/scores" 2> "$tmp/err"; rc=$?
check "score: exit 1 with failing lines" test $rc -eq 1
check "score: one output line per input line" test "$(wc -l < "$tmp/scores")" -eq 3
check "score: the first line is a negative number" grep -qE '^-[0-9.e-]+$' <(head -1 "$tmp/scores")
check "score: a line without a tab fails alone" grep -q "line 2: no tab" "$tmp/err"
check "score: a target too long fails alone" grep -q "line 3: target: 300 tokens and </s> exceed" "$tmp/err"
printf '5 6 0\t9 10\n' | tern score -m "$models/post-swish.int8.tern" --ids --format json > "$tmp/scores.json"
check "score --format json: three tokens (</s> last)" grep -q '"tokens":\[{"id":9,.*},{"id":10,.*},{"id":0,' "$tmp/scores.json"

# sampling: the same seed, the same output; beam search with it is a bad argument
for i in 1 2; do
  printf '5 6 0\n7 8 9 0\n' | tern translate -m "$models/post-swish.int8.tern" --ids --sample-temperature 1.5 --sample-topk 0 --seed 9 > "$tmp/sample$i"
done
check "--seed: the same sampled output twice" cmp -s "$tmp/sample1" "$tmp/sample2"
echo '5 6 0' | tern translate -m "$models/post-swish.int8.tern" --ids --sample --beam 4 > /dev/null 2> "$tmp/err"; rc=$?
check "--sample --beam 4: exit 2" test $rc -eq 2
check "--sample --beam 4: says why" grep -q "beam sampling is not supported" "$tmp/err"

# a call's own logits rules
echo '5 6 0' | tern translate -m "$models/post-swish.int8.tern" --ids --beam 1 --min-length 7 > "$tmp/minlen"
check "--min-length 7: at least 7 tokens" test "$(wc -w < "$tmp/minlen")" -ge 7
echo '5 6 0' | tern translate -m "$models/post-swish.int8.tern" --ids --repetition-penalty 0 > /dev/null 2> "$tmp/err"; rc=$?
check "--repetition-penalty 0: exit 2" test $rc -eq 2
printf '%s 0\n' "$(printf '5 %.0s' $(seq 300))" | tern translate -m "$models/post-swish.int8.tern" --ids --beam 1 --max-input-length 10 > /dev/null 2> "$tmp/err"; rc=$?
check "--max-input-length: a 301-token line is cut, not failed" test $rc -eq 0

# round four (docs/reliability.md): an empty source is scored from its </s>; a temperature that overflows the
# scores is a bad argument; sampled output does not depend on how lines are batched; a FIFO without a reader
# as the output is refused at once
printf '\tEin Hund.\n' | tern score -m "$models/post-swish.int8.tern" > "$tmp/empty-src" 2> "$tmp/err"; rc=$?
check "score with an empty source: exit 0" test $rc -eq 0
check "score with an empty source: a negative score, not 0" grep -qE '^-[0-9.e-]+$' "$tmp/empty-src"
echo 'A dog.' | tern translate -m "$models/post-swish.int8.tern" --sample-temperature 1e-38 > /dev/null 2> "$tmp/err"; rc=$?
check "--sample-temperature 1e-38: exit 2" test $rc -eq 2
check "--sample-temperature 1e-38: says the range" grep -q "sampling_temperature 1e-38: must be finite and >= 1e-06" "$tmp/err"
for b in 1 8; do
  printf 'A dog runs.\nTwo cats.\nA man.\n' | tern translate -m "$models/post-swish.int8.tern" --sample --seed 3 --batch $b > "$tmp/sampled$b"
done
check "--sample --seed: the same output at --batch 1 and 8" cmp -s "$tmp/sampled1" "$tmp/sampled8"
# 1 MB of a character the vocabulary lacks: one unknown piece, in linear time (SentencePiece's merging took ~30 s)
head -c 1000000 /dev/zero | tr '\0' '{' > "$tmp/braces"; echo >> "$tmp/braces"
tern tokenize -m "$models/post-swish.int8.tern" < "$tmp/braces" > "$tmp/braces.ids"; rc=$?
check "tokenize 1 MB of '{': exit 0, at most 3 ids" test $rc -eq 0 -a "$(wc -w < "$tmp/braces.ids")" -le 3
if mkfifo "$tmp/fifo" 2> /dev/null; then
  echo 'A dog.' | timeout 60 ${TERN_EMULATOR:-} "$tern_bin" translate -m "$models/post-swish.int8.tern" -o "$tmp/fifo" > /dev/null 2> "$tmp/err"; rc=$?
  check "-o FIFO without a reader: exit 2, not a hang" test $rc -eq 2
  check "-o FIFO without a reader: says so" grep -q "a FIFO with no reader" "$tmp/err"
fi

# the per-user packed-weights cache is on by default ($XDG_CACHE_HOME/tern/packed); --no-packed-cache and
# TERN_PACKED_CACHE=off turn it off
for i in 1 2; do
  echo 'A dog.' | env -u TERN_PACKED_CACHE_DIR XDG_CACHE_HOME="$tmp/xdg" ${TERN_EMULATOR:-} "$tern_bin" translate -m "$models/post-swish.f32.tern" --verbose > /dev/null 2> "$tmp/cache$i"
done
check "default packed cache: the first run writes it" grep -q "packed weights: packed at load (cache: none yet); wrote $tmp/xdg/tern/packed/" "$tmp/cache1"
check "default packed cache: the second run maps it" grep -q "packed weights: mapped from $tmp/xdg/tern/packed/" "$tmp/cache2"
echo 'A dog.' | env -u TERN_PACKED_CACHE_DIR XDG_CACHE_HOME="$tmp/xdg" ${TERN_EMULATOR:-} "$tern_bin" translate -m "$models/post-swish.f32.tern" --verbose --no-packed-cache > /dev/null 2> "$tmp/cache3"
check "--no-packed-cache: none" grep -q "packed weights: packed at load (no packed-weights cache directory)" "$tmp/cache3"
echo 'A dog.' | env -u TERN_PACKED_CACHE_DIR TERN_PACKED_CACHE=off XDG_CACHE_HOME="$tmp/xdg" ${TERN_EMULATOR:-} "$tern_bin" translate -m "$models/post-swish.f32.tern" --verbose > /dev/null 2> "$tmp/cache4"
check "TERN_PACKED_CACHE=off: none" grep -q "packed weights: packed at load (no packed-weights cache directory)" "$tmp/cache4"

# a read error of the input (a directory as stdin: EISDIR at the first read) names the line it came at; every
# line before it was translated and written first (translate_cmd.cc flushes before it reports)
${TERN_EMULATOR:-} "$tern_bin" translate -m "$models/post-swish.int8.tern" < "$tmp" > /dev/null 2> "$tmp/err"; rc=$?
check "stdin read error: exit 2" test $rc -eq 2
check "stdin read error: names the line" grep -q "standard input: read failed at line 1: Is a directory" "$tmp/err"
${TERN_EMULATOR:-} "$tern_bin" score -m "$models/post-swish.int8.tern" < "$tmp" > /dev/null 2> "$tmp/err"; rc=$?
check "score: stdin read error names the line" grep -q "standard input: read failed at line 1: Is a directory" "$tmp/err"

echo "$pass passed, $fail failed"
test $fail -eq 0
