package touche.lucene;

import java.io.IOException;
import java.util.Map;
import org.apache.lucene.analysis.TokenFilter;
import org.apache.lucene.analysis.TokenFilterFactory;
import org.apache.lucene.analysis.TokenStream;
import org.apache.lucene.analysis.tokenattributes.PositionIncrementAttribute;

/**
 * Closes the gaps a stop filter leaves: every token follows the one before it (position increment
 * 1). Placed before a shingle filter it makes word n-grams of the words that remain, without the
 * filler token (Lucene's "_") that ShingleFilter puts where a stopword was: {@code analyzer.shingles
 * .filler: ""} in a variant.
 */
public final class CloseGapsFilter extends TokenFilter {
  private final PositionIncrementAttribute increment = addAttribute(PositionIncrementAttribute.class);

  public CloseGapsFilter(TokenStream input) {
    super(input);
  }

  @Override
  public boolean incrementToken() throws IOException {
    if (!input.incrementToken()) {
      return false;
    }
    if (increment.getPositionIncrement() > 1) {
      increment.setPositionIncrement(1);
    }
    return true;
  }

  /** The factory CustomAnalyzer builds it with (Analyzers: the filter named "closeGaps"). */
  public static final class Factory extends TokenFilterFactory {
    public static final String NAME = "closeGaps";

    public Factory(Map<String, String> args) {
      super(args);
      if (!args.isEmpty()) {
        throw new IllegalArgumentException("Unknown parameters: " + args);
      }
    }

    /** For the service loader, which this factory does not use. */
    public Factory() {
      throw defaultCtorException();
    }

    @Override
    public TokenStream create(TokenStream input) {
      return new CloseGapsFilter(input);
    }
  }
}
