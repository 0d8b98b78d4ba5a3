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
    }
    System.out.println(passed + " passed, " + failed + " failed");
    System.exit(failed == 0 ? 0 : 1);
  }
}
