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
    }
    try {
      Translator closed = new Translator(model, 1, 2);
      closed.close();
      closed.translate(new String[] {"x"}, new Translator.Options());
      check(false, "a closed translator throws");
    } catch (TernException e) {
      check(e.getMessage().contains("closed"), "a closed translator says so");
    }
    System.out.println(passed + " passed, " + failed + " failed");
    System.exit(failed == 0 ? 0 : 1);
  }
}
