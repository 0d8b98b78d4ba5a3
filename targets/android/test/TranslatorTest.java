import dev.tern.Engine;
import dev.tern.TernException;
import dev.tern.Translator;

/** Runs dev.tern.Translator against the host build: java -Djava.library.path=... TranslatorTest MODEL [EXPECTED_WORD] */
public class TranslatorTest {
  static int passed = 0, failed = 0;

  static void check(boolean ok, String what) {
    if (ok) {
      ++passed;
    } else {
      ++failed;
      System.err.println("FAILED: " + what);
    }
  }

  public static void main(String[] args) throws Exception {
    String model = args[0];
    String expected = args.length > 1 ? args[1] : null;
    try {
      new Translator("/nonexistent.tern", 1, 4);
      check(false, "loading a missing model throws");
    } catch (TernException e) {
      check(e.getMessage().contains("/nonexistent.tern: cannot open"), "the exception names the file");
    }
    try (Translator t = new Translator(model, 1, 2)) {
      check(t.arenaBytes() > 0, "arena bytes");
      String[] in = {"A man in a blue shirt is standing on a ladder.", "bad \uFFFF\uD800 text", "Two dogs play in the snow.",
                     "Über den Wolken."};
      Translator.Result[] r = t.translate(in, new Translator.Options());
      check(r.length == 4, "one result per sentence (split across native batches of 2)");
      check(r[0].ok() && r[0].text != null, "first sentence translated");
      check(r[2].ok() && r[2].text != null, "third sentence translated");
      check(r[3].ok(), "non-ASCII input");
      if (expected != null) check(r[0].text.contains(expected), "translation contains '" + expected + "': " + r[0].text);
      Translator.Options greedy = new Translator.Options();
      greedy.beamSize = 1;
      Translator.Result[] g = t.translate(new String[] {in[0]}, greedy);
      check(g[0].ok(), "greedy");
      System.out.println("en: " + in[0] + "\nout: " + r[0].text + "  (score " + r[0].score + ")");
      // Per-token data: one entry per generated token (</s> included); greedy's score is their sum.
      Translator.Options aligned = new Translator.Options();
      aligned.beamSize = 1;
      aligned.returnAlignment = true;
      Translator.Result[] a = t.translate(new String[] {in[0]}, aligned);
      check(a[0].tokens != null && a[0].tokens.length > 1, "per-token ids");
      check(a[0].tokenLogprobs.length == a[0].tokens.length && a[0].tokenSources.length == a[0].tokens.length,
          "per-token arrays of one length");
      float sum = 0f;
      for (int k = 0; k < a[0].tokens.length; ++k) {
        sum += a[0].tokenLogprobs[k];
        check(a[0].tokenLogprobs[k] <= 0f, "a log-probability is <= 0");
        check(a[0].tokenSources[k] >= 0, "each token aligns to a source token");
      }
      check(Math.abs(sum - a[0].score) < 1e-3f, "greedy score = sum of token log-probabilities: " + sum + " vs " + a[0].score);
      check(a[0].tokenSpans.length == 2 * a[0].tokens.length, "a span per token");
      check(a[0].text.substring(a[0].tokenSpans[2], a[0].tokenSpans[3]).length() > 0, "the second token's text");
      check(Math.abs(a[0].confidenceMean - sum / a[0].tokens.length) < 1e-4f, "confidence: the mean log-probability");
      check(a[0].sourceIds.length * 2 == a[0].sourceSpans.length, "a span per source token");
      int s0 = a[0].tokenSources[1];
      String srcWord = in[0].substring(a[0].sourceSpans[2 * s0], a[0].sourceSpans[2 * s0 + 1]);
      check(srcWord.equals("man"), "'Mann' aligns to 'man': " + srcWord);
      // Markup: the tags come back around the translated words; a broken line fails alone.
      Translator.Options html = new Translator.Options();
      html.beamSize = 1;
      html.markup = "html";
      Translator.Result[] m = t.translate(new String[] {"A <b>man</b> in a blue shirt.", "A <b>man in a shirt."}, html);
      check(m[0].ok() && m[0].text.contains("<b>Mann</b>"), "the tag around the word: " + m[0].text);
      check(!m[1].ok() && m[1].error.contains("<b> at byte 2 is not closed"), "unclosed tag: " + m[1].error);
      html.markup = "html-lenient";
      m = t.translate(new String[] {"A <b>man in a shirt."}, html);
      check(m[0].ok() && m[0].text.contains("<b>") && m[0].text.endsWith("</b>"), "lenient: closed at the end: " + m[0].text);

      // Terminology: the glossary's term once per occurrence; a bad entry names itself; placeholders kept.
      t.setGlossary(new String[] {"dog"}, new String[] {"Köter"}, true);
      Translator.Result[] gl = t.translate(new String[] {"The dog runs.", "Two men talk."}, greedy);
      check(gl[0].ok() && gl[0].text.contains("Köter") && gl[0].text.indexOf("Köter") == gl[0].text.lastIndexOf("Köter"),
          "the term once: " + gl[0].text);
      boolean threw = false;
      try {
        t.setGlossary(new String[] {"dog", "dog"}, new String[] {"Hund", "Köter"}, false);
      } catch (TernException e) {
        threw = e.getMessage().contains("entry 2: source term 'dog' is also entry 1");
      }
      check(threw, "a duplicate source with another target is refused");
      check(t.translate(new String[] {"The dog runs."}, greedy)[0].text.contains("Köter"), "the old glossary stays");
      t.setGlossary(null, null, false);
      Translator.Options keep = new Translator.Options();
      keep.keepPlaceholders = true;
      Translator.Result[] kept = t.translate(new String[] {"A dog runs {0} with %s."}, keep);
      check(kept[0].ok() && kept[0].text.contains("{0}") && kept[0].text.contains("%s"), "placeholders kept: " + kept[0].text);

      // Target prefixes (across native batches of 2), sampling with a seed, the call's own rules.
      Translator.Options pre = new Translator.Options();
      pre.beamSize = 1;
      pre.targetPrefix = new String[] {"Eine Frau", null, "Über"};
      Translator.Result[] pr = t.translate(new String[] {in[0], in[2], in[0]}, pre);
      check(pr[0].ok() && pr[0].text.startsWith("Eine Frau "), "continues the prefix: " + pr[0].text);
      check(pr[1].ok() && pr[1].text.equals(t.translate(new String[] {in[2]}, greedy)[0].text), "no prefix: as without");
      check(pr[2].ok() && pr[2].text.startsWith("Über"), "a prefix in the second native batch: " + pr[2].text);
      pre.targetPrefix = new String[] {"x"};
      threw = false;
      try {
        t.translate(new String[] {in[0], in[2]}, pre);
      } catch (TernException e) {
        threw = e.getMessage().contains("1 prefixes for 2 sentences");
      }
      check(threw, "one prefix per sentence");
      // The native entry points check what the Java wrappers check (any caller of the JNI library): a
      // targetPrefix of another length, keepSpans not in triples. Called through reflection.
      java.lang.reflect.Method nt = Translator.class.getDeclaredMethod("nativeTranslate", long.class, byte[][].class,
          byte[][].class, int[].class, Translator.Options.class, Translator.TokenListener.class, Translator.Result[].class);
      nt.setAccessible(true);
      java.lang.reflect.Field hf = Translator.class.getDeclaredField("handle");
      hf.setAccessible(true);
      final long h = hf.getLong(t);
      byte[][] two = {in[0].getBytes("UTF-8"), in[2].getBytes("UTF-8")};
      Object[][] natives = {
          {two, new byte[][] {"Eine".getBytes("UTF-8")}, null, "targetPrefix: 1 entries for 2 sentences"},
          {two, null, new int[] {0, 0, 2, 1}, "keepSpans: 4 ints (triples of sentence, begin, end)"}};
      for (Object[] c : natives) {
        String got = "nothing";
        try {
          nt.invoke(null, h, c[0], c[1], c[2], greedy, null, new Translator.Result[2]);
        } catch (java.lang.reflect.InvocationTargetException e) {
          got = e.getCause().getMessage();
        }
        check(got.contains((String) c[3]), "the JNI call refuses it: " + got);
      }
      Translator.Options sample = new Translator.Options();
      sample.doSample = true;
      sample.samplingTopK = 0;
      sample.samplingTemperature = 1.5f;
      sample.seed = 11;
      check(t.translate(new String[] {in[0]}, sample)[0].text.equals(t.translate(new String[] {in[0]}, sample)[0].text),
          "the same seed, the same sample");
      // A seeded sampled call of 12 sentences at maxBatch 1, 3 and 12: the same texts (the C API's one chunk loop
      // keys each sentence by its index in the call).
      String[] many = new String[12];
      for (int i = 0; i < 12; ++i) many[i] = "A dog number " + i + " runs on the beach.";
      sample.maxLength = 12;
      String[] firstRun = null;
      for (int mb : new int[] {1, 3, 12}) {
        try (Translator bt = new Translator(model, 1, mb)) {
          Translator.Result[] rs = bt.translate(many, sample);
          String[] texts = new String[rs.length];
          for (int i = 0; i < rs.length; ++i) texts[i] = rs[i].text;
          if (firstRun == null) firstRun = texts;
          check(java.util.Arrays.equals(texts, firstRun), "maxBatch " + mb + ": the sampled texts of maxBatch 1");
        }
      }
      Translator.Options rules = new Translator.Options();
      rules.beamSize = 1;
      rules.disableUnk = true;
      rules.minLength = 12;
      Translator.Result[] rl = t.translate(new String[] {"A dog."}, rules);
      check(rl[0].ok() && rl[0].tokens.length >= 13, "min_length 12: at least 12 tokens before </s>");
      rules.repetitionPenalty = -1f;
      threw = false;
      try {
        t.translate(new String[] {"A dog."}, rules);
      } catch (TernException e) {
        threw = e.getMessage().contains("repetition_penalty -1: must be finite and > 0");
      }
      check(threw, "a bad repetition penalty is refused");

      // Streaming: the texts of each sentence, in order, make up its translation.
      final StringBuilder[] streamed = {new StringBuilder(), new StringBuilder()};
      final int[] lasts = {0};
      Translator.Result[] s = t.translate(new String[] {in[0], in[2]}, greedy, (index, part, token, text, last) -> {
        streamed[index].append(text);
        if (last) ++lasts[0];
        return true;
      });
      check(s[0].ok() && streamed[0].toString().equals(s[0].text), "streamed text 0 equals the result: " + streamed[0]);
      check(s[1].ok() && streamed[1].toString().equals(s[1].text), "streamed text 1 equals the result");
      check(lasts[0] == 2, "one last event per sentence");
      Translator.Options beam4 = new Translator.Options();
      beam4.beamSize = 4;
      final StringBuilder beamText = new StringBuilder();
      Translator.Result[] b = t.translate(new String[] {in[0]}, beam4, (index, part, token, text, last) -> {
        beamText.append(text);
        return true;
      });
      check(b[0].ok() && beamText.toString().equals(b[0].text), "beam search streams its best hypothesis");
      // transformers' beam options: early_stopping, the 4.x rules; a bad value is refused.
      Translator.Options never = new Translator.Options();
      never.beamSize = 4;
      never.earlyStopping = "never";
      never.hfRules = 4;
      check(t.translate(new String[] {in[0]}, never)[0].ok(), "early_stopping never with transformers 4.x's rules");
      try {
        never.earlyStopping = "sometimes";
        t.translate(new String[] {in[0]}, never);
        check(false, "a bad earlyStopping throws");
      } catch (TernException e) {
        check(e.getMessage().contains("earlyStopping"), "a bad earlyStopping is named");
      }

      // Cancellation: the listener stops after 2 tokens; a later native batch is not started.
      final int[] seen = {0};
      Translator.Result[] c = t.translate(new String[] {in[0], in[2], in[3]}, greedy, (index, part, token, text, last) -> ++seen[0] < 2);
      check(c.length == 3, "results for every sentence of a cancelled call");
      check(c[0].cancelled && c[1].cancelled && c[2].cancelled, "unfinished sentences are cancelled");
      check(c[0].error != null && c[0].error.contains("cancelled"), "the cancelled sentence's error says so");
      check(seen[0] == 2, "no event after the listener said stop");

      // A listener that throws: the exception reaches the caller, the VM and the session survive.
      try {
        t.translate(new String[] {in[0]}, greedy, (index, part, token, text, last) -> {
          throw new IllegalStateException("listener failed");
        });
        check(false, "the listener's exception is rethrown");
      } catch (IllegalStateException e) {
        check(e.getMessage().equals("listener failed"), "the listener's own exception");
      }
      check(t.translate(new String[] {in[0]}, greedy)[0].ok(), "the session works after a throwing listener");

      // Bad input through JNI: a null sentence, an empty batch, an over-long sentence.
      try {
        t.translate(new String[] {"ok", null}, greedy);
        check(false, "a null sentence throws");
      } catch (TernException e) {
        check(e.getMessage().contains("sentence 1 is null"), "a null sentence names its index");
      }
      check(t.translate(new String[0], greedy).length == 0, "an empty batch gives no results");
      StringBuilder longLine = new StringBuilder();
      for (int i = 0; i < 2000; ++i) longLine.append("word").append(i).append(' ');
      Translator.Options noSplit = new Translator.Options();
      noSplit.splitSentences = false;
      Translator.Result[] lr = t.translate(new String[] {longLine.toString(), in[2]}, noSplit);
      check(!lr[0].ok() && lr[0].error.contains("max_source_tokens"), "an over-long sentence fails alone: " + lr[0].error);
      check(lr[1].ok(), "the other sentence is translated");
      check(lr[0].tokens == null && lr[0].tokenLogprobs == null, "a failed sentence has no per-token data");

      // Two threads on one Translator: every call is refused as busy or returns its own translation.
      final String wantA = t.translate(new String[] {in[0]}, greedy)[0].text;
      final String wantB = t.translate(new String[] {in[2]}, greedy)[0].text;
      final int[] busy = {0}, own = {0}, wrong = {0};
      Runnable[] work = new Runnable[2];
      for (int k = 0; k < 2; ++k) {
        final String src = k == 0 ? in[0] : in[2], want = k == 0 ? wantA : wantB;
        work[k] = () -> {
          for (int i = 0; i < 300; ++i) {
            try {
              Translator.Result[] x = t.translate(new String[] {src}, greedy);
              synchronized (busy) {
                if (want.equals(x[0].text)) ++own[0]; else ++wrong[0];
              }
            } catch (TernException e) {
              synchronized (busy) {
                if (e.getMessage().contains("busy")) ++busy[0]; else ++wrong[0];
              }
            }
          }
        };
      }
      Thread ta = new Thread(work[0]), tb = new Thread(work[1]);
      ta.start();
      tb.start();
      ta.join();
      tb.join();
      check(wrong[0] == 0 && own[0] + busy[0] == 600, "two threads: " + own[0] + " own, " + busy[0] + " busy, " + wrong[0] + " wrong");
    }
    {
      // A listener that calls back into its own translator: translate gets busy, setGlossary and close refuse;
      // nothing deadlocks, and the outer call completes.
      final Translator t = new Translator(model, 1, 2);
      final String[] seen = new String[3];
      Translator.Result[] r = t.translate(new String[] {"A dog runs."}, new Translator.Options(), (i, part, token, text, last) -> {
        try {
          t.translate(new String[] {"A cat."}, new Translator.Options());
        } catch (TernException e) {
          seen[0] = e.getMessage();
        }
        try {
          t.setGlossary(new String[] {"dog"}, new String[] {"Hund"}, false);
        } catch (TernException e) {
          seen[1] = e.getMessage();
        }
        try {
          t.close();
        } catch (IllegalStateException e) {
          seen[2] = e.getMessage();
        }
        return true;
      });
      check(r[0].ok(), "the call whose listener re-entered completes");
      check(seen[0] != null && seen[0].contains("busy"), "translate from the listener: busy: " + seen[0]);
      check(seen[1] != null && seen[1].contains("its own listener"), "setGlossary from the listener refused: " + seen[1]);
      check(seen[2] != null && seen[2].contains("its own listener"), "close from the listener refused: " + seen[2]);
      Translator.Options inf = new Translator.Options();
      inf.lengthPenalty = Float.POSITIVE_INFINITY;
      try {
        t.translate(new String[] {"A dog."}, inf);
        check(false, "an infinite length penalty is refused");
      } catch (TernException e) {
        check(e.getMessage().contains("length_penalty"), "an infinite length penalty is refused: " + e.getMessage());
      }
      t.close();
    }
    {
      // close() while another thread translates: it waits for the call, which completes normally.
      final Translator t = new Translator(model, 1, 2);
      final boolean[] okCall = {false};
      Thread worker = new Thread(() -> {
        try {
          Translator.Options beam = new Translator.Options();
          beam.beamSize = 4;
          okCall[0] = t.translate(new String[] {"Two young children are playing in the sand."}, beam)[0].ok();
        } catch (TernException e) {
          okCall[0] = e.getMessage().contains("closed");  // close() won the race: refused cleanly
        }
      });
      worker.start();
      t.close();
      worker.join();
      check(okCall[0], "close() during a call: the call completes or is refused, never a crash");
    }
    try {
      Translator closed = new Translator(model, 1, 2);
      closed.close();
      closed.translate(new String[] {"x"}, new Translator.Options());
      check(false, "a closed translator throws");
    } catch (TernException e) {
      check(e.getMessage().contains("closed"), "a closed translator says so");
    }
    {
      // dev.tern.Engine: futures complete on worker threads with Translator's results; a bad sentence fails
      // alone; close() with work queued completes every future.
      String[] in = {"A man in a blue shirt is standing on a ladder.", "Two dogs play in the snow.", "Über den Wolken."};
      Translator.Result[] want;
      try (Translator t = new Translator(model, 1, 8)) {
        want = t.translate(in, new Translator.Options());
      }
      Engine e = new Engine(model, 2, 1, 8);
      java.util.List<java.util.concurrent.CompletableFuture<Translator.Result[]>> fs = new java.util.ArrayList<>();
      for (int k = 0; k < 6; ++k) fs.add(e.submit(in, new Translator.Options()));
      for (java.util.concurrent.CompletableFuture<Translator.Result[]> f : fs) {
        Translator.Result[] got = f.get();
        check(got.length == 3, "engine: a result per sentence");
        for (int i = 0; i < 3; ++i)
          check(got[i].ok() && got[i].text.equals(want[i].text) && got[i].score == want[i].score, "engine: Translator's result");
      }
      String tooLong = new String(new char[600]).replace("\0", "word ");  // over max_source_tokens
      Translator.Result[] bad = e.submit(new String[] {"A dog.", tooLong}, new Translator.Options()).get();
      check(bad[0].ok() && !bad[1].ok() && bad[1].error.contains("max_source_tokens"), "engine: a bad sentence fails alone");
      Translator.Options wrong = new Translator.Options();
      wrong.beamSize = 1000;
      try {
        e.submit(in, wrong);
        check(false, "engine: bad options throw at submit");
      } catch (TernException x) {
        check(x.getMessage().contains("max_beam"), "engine: the exception says why");
      }
      Translator.Options beam = new Translator.Options();
      beam.beamSize = 4;
      fs.clear();
      for (int k = 0; k < 20; ++k) fs.add(e.submit(in, beam));
      e.close();
      for (java.util.concurrent.CompletableFuture<Translator.Result[]> f : fs)
        check(f.isDone() && f.get().length == 3, "engine: close() completes every future (some cancelled)");
      e.close();
      try {
        e.submit(in, beam);
        check(false, "a closed engine throws");
      } catch (TernException x) {
        check(x.getMessage().contains("closed"), "a closed engine says so");
      }
    }
    {
      // auto_protect (default true): a URL and a {0} come out verbatim without keepPlaceholders.
      try (Translator t = new Translator(model, 1, 2)) {
        Translator.Options o = new Translator.Options();
        Translator.Result r = t.translate(new String[] {"A man runs {0} km to https://example.com/run."}, o)[0];
        check(r.ok() && r.text.contains("https://example.com/run") && r.text.contains("{0}"), "autoProtect: verbatim by default");
        o.autoProtect = false;
        check(t.translate(new String[] {"A man runs {0} km to https://example.com/run."}, o)[0].ok(), "autoProtect false");
      }
    }
    {
      // The packed-weights cache: the first Translator writes it, the second maps it; same output, and an
      // Engine with the same Config maps it too.
      java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("tern-java-packed-cache");
      Translator.Config cfg = new Translator.Config();
      cfg.threads = 1;
      cfg.packedCacheDir = dir.toString();
      String[] in = {"A man in a blue shirt is standing on a ladder."};
      Translator.Result first, second;
      try (Translator t = new Translator(model, cfg)) {
        first = t.translate(in, new Translator.Options())[0];
      }
      java.io.File[] files = dir.toFile().listFiles((d, name) -> name.endsWith(".ternpack"));
      check(files != null && files.length == 1, "packedCacheDir: one cache file written");
      try (Translator t = new Translator(model, cfg)) {
        second = t.translate(in, new Translator.Options())[0];
      }
      check(first.ok() && second.ok() && first.text.equals(second.text) && first.score == second.score,
          "packedCacheDir: the same translation from mapped weights");
      try (Engine e = new Engine(model, 1, cfg)) {
        check(e.submit(in, new Translator.Options()).get()[0].text.equals(first.text), "packedCacheDir: the Engine too");
      }
      for (java.io.File f : dir.toFile().listFiles()) f.delete();
      dir.toFile().delete();
    }
    {
      // Issue 41's results and rules: n-best, alternatives (chunked by maxBatch / N), suppress sequences, end
      // tokens, forced </s> per call, attention, scoring; and the Engine with the same limits.
      Translator.Config cfg = new Translator.Config();
      cfg.threads = 1;
      cfg.maxBatch = 6;
      cfg.maxBeam = 4;
      cfg.maxNBest = 3;
      cfg.attention = true;
      String[] in = {"A man in a blue shirt is standing on a ladder.", "Two dogs play in the snow.", "A girl reads a book."};
      try (Translator t = new Translator(model, cfg)) {
        Translator.Options o = new Translator.Options();
        o.beamSize = 4;
        o.nBest = 2;
        Translator.Result r = t.translate(new String[] {in[0]}, o)[0];
        check(r.ok() && r.hypotheses.length == 2, "nBest 2: two hypotheses");
        check(r.hypotheses[0].text.equals(r.text) && r.hypotheses[0].score >= r.hypotheses[1].score
            && !r.hypotheses[0].text.equals(r.hypotheses[1].text), "best first, distinct");
        Translator.Options alt = new Translator.Options();
        alt.beamSize = 1;
        alt.alternatives = 3;
        alt.targetPrefix = new String[] {"Ein", "Zwei", "Ein"};
        Translator.Result[] a = t.translate(in, alt);  // 3 sentences x 3 > maxBatch 6: two chunks (tern_translate)
        for (int i = 0; i < 3; ++i) {
          check(a[i].ok() && a[i].hypotheses.length == 3, "alternatives: 3 hypotheses for sentence " + i);
          for (int k = 0; a[i].ok() && k < 3; ++k) {
            check(a[i].hypotheses[k].text.startsWith(alt.targetPrefix[i]), "an alternative continues the prefix: " + a[i].hypotheses[k].text);
            if (k > 0) check(a[i].hypotheses[k].tokens[1] != a[i].hypotheses[k - 1].tokens[1], "alternatives differ after the prefix");
          }
        }
        Translator.Options greedy = new Translator.Options();
        greedy.beamSize = 1;
        Translator.Result g = t.translate(new String[] {in[0]}, greedy)[0];
        Translator.Options sup = new Translator.Options();
        sup.beamSize = 1;
        sup.suppressSequences = new int[][] {{g.tokens[0]}};
        check(t.translate(new String[] {in[0]}, sup)[0].tokens[0] != g.tokens[0], "a suppressed first token is not generated");
        sup.suppressSequences = new int[][] {{-1}};
        boolean threw = false;
        try {
          t.translate(new String[] {in[0]}, sup);
        } catch (TernException e) {
          threw = e.getMessage().contains("outside the target vocabulary");
        }
        check(threw, "a negative id is refused as outside the vocabulary");
        Translator.Options end = new Translator.Options();
        end.beamSize = 1;
        end.endTokens = new int[] {g.tokens[1]};
        Translator.Result e1 = t.translate(new String[] {in[0]}, end)[0];
        check(e1.ok() && e1.tokens.length == 2 && e1.tokens[1] == g.tokens[1], "an end token ends the hypothesis");
        Translator.Options layer = new Translator.Options();
        layer.returnAlignment = true;
        layer.alignmentLayer = 99;
        threw = false;
        try {
          t.translate(new String[] {in[0]}, layer);
        } catch (TernException e) {
          threw = e.getMessage().startsWith("alignment_layer 99: the decoder has");
        }
        check(threw, "alignmentLayer beyond the decoder's layers is refused");
        layer.alignmentLayer = 0;
        check(t.translate(new String[] {in[0]}, layer)[0].tokenSources[0] >= 0, "alignmentLayer 0 aligns");
        Translator.Options spans = new Translator.Options();
        spans.beamSize = 1;
        spans.keepSpans = new int[] {1, 5, 23};  // String offsets: "Über " is 5 chars, 6 UTF-8 bytes
        Translator.Result[] ks = t.translate(new String[] {in[0], "Über Qwertzuiop Blorvak läuft ein Hund."}, spans);
        check(ks[1].ok() && ks[1].text.contains("Qwertzuiop Blorvak"), "a keep span comes back verbatim: " + ks[1].text);
        check(ks[0].ok(), "a sentence without spans");
        spans.keepSpans = new int[] {3, 0, 1};
        threw = false;
        try {
          t.translate(new String[] {in[0]}, spans);
        } catch (TernException e) {
          threw = e.getMessage().equals("keepSpans: sentence 3 of 1");
        }
        check(threw, "a span of a sentence the call does not have");
        Translator.Options shell = new Translator.Options();
        shell.keepPlaceholders = true;
        shell.placeholderSyntaxes = "default,shell";
        Translator.Result sh = t.translate(new String[] {"A dog runs to $HOME."}, shell)[0];
        check(sh.ok() && sh.text.indexOf("$HOME") >= 0 && sh.text.indexOf("$HOME") == sh.text.lastIndexOf("$HOME"), "shell syntax kept once: " + sh.text);
        shell.placeholderSyntaxes = "bogus";
        threw = false;
        try {
          t.translate(new String[] {"A dog."}, shell);
        } catch (TernException e) {
          threw = e.getMessage().startsWith("placeholder syntax 'bogus'");
        }
        check(threw, "an unknown syntax name is refused");
        Translator.Options cut = new Translator.Options();
        cut.beamSize = 1;
        cut.maxLength = 3;
        Translator.Result withEos = t.translate(new String[] {in[0]}, cut)[0];
        cut.forcedEos = Boolean.FALSE;
        Translator.Result noEos = t.translate(new String[] {in[0]}, cut)[0];
        check(withEos.tokens.length == 3 && noEos.tokens.length == 3 && withEos.tokens[2] != noEos.tokens[2]
            && noEos.tokens[2] == g.tokens[2], "forcedEos FALSE: cut at maxLength without </s>");
        Translator.Options att = new Translator.Options();
        att.beamSize = 1;
        att.returnAttention = true;
        Translator.Result at = t.translate(new String[] {in[0]}, att)[0];
        Translator.Hypothesis h = at.hypotheses[0];
        check(h.attention != null && h.attentionRows == at.tokens.length && h.attentionCols == at.sourceIds.length
            && h.attention.length == h.attentionRows * h.attentionCols, "attention: tokens x source tokens");
        float row0 = 0f;
        for (int c = 0; h.attention != null && c < h.attentionCols; ++c) row0 += h.attention[c];
        check(Math.abs(row0 - 1f) < 1e-3f, "an attention row sums to 1: " + row0);
        check(g.hypotheses[0].attention == null, "no attention unless asked for");
        Translator.Result[] sc = t.score(new String[] {in[0], in[1]}, new String[] {g.text, ""}, new Translator.Options());
        check(sc[0].ok() && java.util.Arrays.equals(sc[0].tokens, g.tokens), "score: the target's tokens");
        check(sc[0].ok() && Math.abs(sc[0].score - g.score) < 1e-3f, "score of the greedy output = its greedy score: "
            + sc[0].score + " vs " + g.score);
        check(sc[1].ok() && sc[1].tokens.length == 1, "an empty target scores </s> alone");
        threw = false;
        try {
          t.score(new String[] {in[0], in[1]}, new String[] {g.text, null}, new Translator.Options());
        } catch (TernException e) {
          threw = e.getMessage().contains("pair 1 is null");
        }
        check(threw, "a null target is named");
        // A Java logits processor banning the greedy first token gives what suppressSequences gives.
        Translator.Options g1 = new Translator.Options();
        g1.beamSize = 1;
        final int first = t.translate(new String[] {in[0]}, g1)[0].tokens[0];
        Translator.Options banned = new Translator.Options();
        banned.beamSize = 1;
        final int[] rows = {0};
        banned.logitsProcessors = new Translator.LogitsProcessor[] {row -> {
          rows[0]++;
          int col = row.column(first);
          if (col >= 0) row.scores[col] = Float.NEGATIVE_INFINITY;
        }};
        Translator.Options suppressed = new Translator.Options();
        suppressed.beamSize = 1;
        suppressed.suppressSequences = new int[][] {{first}};
        Translator.Result viaProcessor = t.translate(new String[] {in[0]}, banned)[0];
        Translator.Result viaSuppress = t.translate(new String[] {in[0]}, suppressed)[0];
        check(rows[0] > 0 && java.util.Arrays.equals(viaProcessor.tokens, viaSuppress.tokens)
            && viaProcessor.tokens[0] != first, "a Java logits processor bans a token as suppressSequences does");
        banned.logitsProcessors = new Translator.LogitsProcessor[] {row -> { throw new IllegalStateException("processor failed"); }};
        threw = false;
        try {
          t.translate(new String[] {in[0]}, banned);
        } catch (IllegalStateException ex) {
          threw = ex.getMessage().equals("processor failed");
        }
        check(threw, "a processor's exception reaches the caller");
        Translator.Result[] icu = t.translateIcuMessages(
            new String[] {"{n, plural, one {# dog runs} other {# dogs run}}", "{n, plural, one {A dog"}, new Translator.Options());
        check(icu[0].ok() && icu[0].text.startsWith("{n, plural, one {") && icu[0].text.contains("} other {")
            && icu[0].text.contains("#"), "ICU message: its structure comes back: " + icu[0].text);
        check(!icu[1].ok() && icu[1].error.contains("ICU MessageFormat"), "a malformed ICU message fails alone: " + icu[1].error);
      }
      Engine e = new Engine(model, 1, cfg);
      Translator.Options o = new Translator.Options();
      o.beamSize = 4;
      o.nBest = 3;
      Translator.Result[] er = e.submit(in, o).get();
      check(er[0].ok() && er[0].hypotheses.length == 3, "engine: nBest 3 within the Config's maxNBest");
      // Round four: every Options field is an engine option: a target prefix, and logits processors run on a
      // worker thread (one that throws fails its request with the exception's text).
      Translator.Options pre = new Translator.Options();
      pre.targetPrefix = new String[] {"Eine Frau"};
      Translator.Result[] pr = e.submit(new String[] {"A man rides a bike on the street."}, pre).get();
      check(pr[0].ok() && pr[0].text.startsWith("Eine Frau"), "engine: the target prefix: " + pr[0].text);
      Translator.Options banned = new Translator.Options();
      banned.beamSize = 1;
      final int firstToken = pr[0].tokens[0];
      banned.logitsProcessors = new Translator.LogitsProcessor[] {row -> {
        int c = row.column(firstToken);
        if (c >= 0) row.scores[c] = Float.NEGATIVE_INFINITY;
      }};
      Translator.Result[] br = e.submit(new String[] {"A woman rides a bike."}, banned).get();
      check(br[0].ok() && br[0].tokens[0] != firstToken, "engine: a logits processor on the worker thread bans a token");
      Translator.Options throwing = new Translator.Options();
      throwing.logitsProcessors = new Translator.LogitsProcessor[] {row -> { throw new IllegalStateException("processor failed"); }};
      boolean failedWith = false;
      try {
        e.submit(new String[] {"A dog."}, throwing).get();
      } catch (java.util.concurrent.ExecutionException ex) {
        failedWith = ex.getCause().getMessage().contains("processor failed");
      }
      check(failedWith, "engine: a processor's exception fails its request, named");
      // A future's dependent may close the engine (it returned without waiting for itself before: a hang).
      Engine closing = new Engine(model, 1, cfg);
      java.util.concurrent.CountDownLatch closed = new java.util.concurrent.CountDownLatch(1);
      closing.submit(new String[] {"A dog."}, new Translator.Options()).thenRun(() -> { closing.close(); closed.countDown(); });
      check(closed.await(60, java.util.concurrent.TimeUnit.SECONDS), "engine: close() from a future's dependent returns");
      closing.close();
      e.close();
    }
    fieldsTest(model);
    resultsTest(model);
    System.out.println(passed + " passed, " + failed + " failed");
    System.exit(failed == 0 ? 0 : 1);
  }

  // The echo line of `entry` in the TERN_ECHO_OPTIONS file ("" if none).
  static String echoLine(String path, String entry) throws java.io.IOException {
    java.nio.file.Path p = java.nio.file.Paths.get(path);
    if (!java.nio.file.Files.exists(p)) return "";
    for (String line : java.nio.file.Files.readAllLines(p, java.nio.charset.StandardCharsets.UTF_8))
      if (line.startsWith(entry + " ")) return line + " ";
    return "";
  }

  // The field table through JNI (runtime/fields/fields.py): a non-default value of every Options field arrives
  // in the library's call and in the engine's submission, as its echo (TERN_ECHO_OPTIONS, set by CTest) shows.
  static void fieldsTest(String model) throws Exception {
    String path = System.getenv("TERN_ECHO_OPTIONS");
    if (path == null) return;
    Translator.Config cfg = new Translator.Config();
    cfg.maxNBest = 4;
    cfg.attention = true;
    Translator.Options o = new Translator.Options();
    FieldValues.set(o);
    o.targetPrefix = new String[] {"Ein"};
    o.targetPrefixIds = new int[][] {{5}};
    o.suppressSequences = new int[][] {{5}};
    o.endTokens = new int[] {7};
    o.keepSpans = new int[] {0, 0, 1};
    o.samplingKeys = new long[] {42};
    o.logitsProcessors = new Translator.LogitsProcessor[] {row -> {}};
    String[] special = {"on_token=set", "logits_processors=1", "target_prefix=1", "target_prefix_ids=1",
                        "suppress_sequences=1", "end_tokens=1", "keep_spans=1", "sampling_keys=1"};
    java.nio.file.Files.deleteIfExists(java.nio.file.Paths.get(path));
    try (Translator t = new Translator(model, cfg)) {
      try {
        t.translate(new String[] {"A dog runs."}, o, (index, part, token, text, last) -> false);
      } catch (TernException ex) {
        // the values together are no valid call: the echo came first
      }
    }
    String line = echoLine(path, "translate");
    check(!line.isEmpty(), "fields: the call reached the library");
    for (String pair : FieldValues.ECHO) check(line.contains(" " + pair + " "), "fields: " + pair + " arrives");
    for (String pair : special) check(line.contains(" " + pair + " "), "fields: " + pair + " arrives");
    o.targetPrefixIds = null;  // the engine takes one kind of prefix
    try (Engine e = new Engine(model, 1, cfg)) {
      try {
        e.submit(new String[] {"A dog runs."}, o).get();
      } catch (Exception ex) {
        // refused as a whole (the values together), after the engine received them
      }
    }
    line = echoLine(path, "submit");
    check(!line.isEmpty(), "fields: the engine received the request");
    for (String pair : FieldValues.ECHO) check(line.contains(" " + pair + " "), "fields: " + pair + " reaches the engine");
    for (String pair : new String[] {"target_prefix=1", "logits_processors=1", "suppress_sequences=1", "end_tokens=1",
                                     "keep_spans=1", "sampling_keys=1"})
      check(line.contains(" " + pair + " "), "fields: " + pair + " reaches the engine");
  }

  // The last block of `entry` in the TERN_ECHO_RESULTS file ("" if none).
  static String echoBlock(String path, String entry) throws java.io.IOException {
    java.nio.file.Path p = java.nio.file.Paths.get(path);
    if (!java.nio.file.Files.exists(p)) return "";
    String all = "\n" + new String(java.nio.file.Files.readAllBytes(p), java.nio.charset.StandardCharsets.UTF_8);
    int at = all.lastIndexOf("\nresults " + entry + " ");
    if (at < 0) return "";
    int end = all.indexOf("\nresults ", at + 1);
    return all.substring(at + 1, end < 0 ? all.length() : end + 1);
  }

  // The result table through JNI: every field of Translator.Result and Translator.Hypothesis, from a call and
  // from an engine request, is what the library made (TERN_ECHO_RESULTS, set by CTest), bit for bit.
  static void resultsTest(String model) throws Exception {
    String path = System.getenv("TERN_ECHO_RESULTS");
    if (path == null) return;
    java.nio.file.Files.deleteIfExists(java.nio.file.Paths.get(path));
    Translator.Config cfg = new Translator.Config();
    cfg.maxNBest = 2;
    cfg.attention = true;
    Translator.Options o = new Translator.Options();
    o.beamSize = 2;
    o.nBest = 2;
    o.returnScores = true;
    o.returnAlignment = true;
    o.returnAttention = true;
    String[] texts = {"A dog runs on the grass.", "", "Two men play music, \u00e9t\u00e9."};
    String sync;
    try (Translator t = new Translator(model, cfg)) {
      sync = FieldResults.dump("translate", texts, t.translate(texts, o));
    }
    check(sync.equals(echoBlock(path, "translate")), "results: every field through JNI is the library's");
    if (!sync.equals(echoBlock(path, "translate")))
      System.err.println("JNI read:\n" + sync + "the library made:\n" + echoBlock(path, "translate"));
    try (Engine e = new Engine(model, 1, cfg)) {
      String engine = FieldResults.dump("complete", texts, e.submit(texts, o).get());
      check(engine.equals(echoBlock(path, "complete")), "results: every field through the JNI engine is the library's");
      check(engine.replace("results complete", "results translate").equals(sync), "results: the engine's are the call's");
    }
  }
}
