package touche.lucene;

import java.io.IOException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.custom.CustomAnalyzer;
import org.apache.lucene.analysis.tokenattributes.CharTermAttribute;

/**
 * Builds Lucene analyzers from our YAML analyzer spec, through Lucene's own factories
 * (CustomAnalyzer), so a chain is exactly what Lucene would build from the same names.
 *
 * <p>Each filter arrives as one string {@code name|key=value|key=value} because pyjnius does
 * not pass Java maps or varargs conveniently.
 */
public final class Analyzers {
  private Analyzers() {}

  /**
   * @param resourceDir directory against which relative resource names (stoplists) resolve;
   *     names not found there fall back to the classpath (Lucene's bundled lists)
   */
  public static Analyzer build(String resourceDir, String tokenizer, String[] filters) throws IOException {
    Path dir = Paths.get(resourceDir);
    CustomAnalyzer.Builder builder = CustomAnalyzer.builder(dir);
    String[] tok = tokenizer.split("\\|");
    builder.withTokenizer(tok[0], params(tok));
    for (String filter : filters) {
      String[] parts = filter.split("\\|");
      if (parts[0].equals(CloseGapsFilter.Factory.NAME)) {  // ours: not among Lucene's named factories
        builder.addTokenFilter(CloseGapsFilter.Factory.class, params(parts));
      } else {
        builder.addTokenFilter(parts[0], params(parts));
      }
    }
    return builder.build();
  }

  private static Map<String, String> params(String[] parts) {
    Map<String, String> map = new HashMap<>();
    for (int i = 1; i < parts.length; i++) {
      int eq = parts[i].indexOf('=');
      map.put(parts[i].substring(0, eq), parts[i].substring(eq + 1));
    }
    return map;
  }

  /** The tokens the analyzer emits for {@code text} in {@code field}, in order. */
  public static String[] tokens(Analyzer analyzer, String field, String text) throws IOException {
    List<String> out = new ArrayList<>();
    try (TokenStream stream = analyzer.tokenStream(field, text)) {
      CharTermAttribute term = stream.addAttribute(CharTermAttribute.class);
      stream.reset();
      while (stream.incrementToken()) {
        out.add(term.toString());
      }
      stream.end();
    }
    return out.toArray(new String[0]);
  }
}
