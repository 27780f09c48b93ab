package touche.lucene;

import java.util.logging.Level;
import java.util.logging.Logger;

/** Silences Lucene's start-up INFO lines (e.g. which MMap implementation it picked). */
final class Quiet {
  private static final Logger LUCENE = Logger.getLogger("org.apache.lucene");

  private Quiet() {}

  static void lucene() {
    LUCENE.setLevel(Level.WARNING);  // the strong reference keeps the level from being collected
  }
}
