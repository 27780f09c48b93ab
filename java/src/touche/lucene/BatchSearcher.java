package touche.lucene;

import java.io.IOException;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.index.DirectoryReader;
import org.apache.lucene.index.IndexReader;
import org.apache.lucene.index.LeafReaderContext;
import org.apache.lucene.index.PostingsEnum;
import org.apache.lucene.index.MultiReader;
import org.apache.lucene.index.MultiTerms;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.index.Term;
import org.apache.lucene.index.Terms;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.BoostQuery;
import org.apache.lucene.search.DocIdSetIterator;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.FieldDoc;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.Sort;
import org.apache.lucene.search.SortField;
import org.apache.lucene.search.TermInSetQuery;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.search.similarities.BM25Similarity;
import org.apache.lucene.search.similarities.LMDirichletSimilarity;
import org.apache.lucene.search.similarities.Similarity;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.util.Bits;
import org.apache.lucene.util.BytesRef;

/**
 * Searches all topics of a run inside the JVM and hands each topic's ranking back to Python as
 * one string ({@code docid TAB score} lines), so 1,000 hits cost one JNI crossing, not 2,000.
 *
 * <p>Several index directories (shards) are searched as one through a MultiReader: collection
 * statistics are then those of the union, so scores equal those of a single index.
 */
public final class BatchSearcher implements AutoCloseable {
  static {
    Quiet.lucene();
  }

  private final IndexReader reader;
  private final IndexSearcher searcher;
  private final Analyzer analyzer;

  public BatchSearcher(String[] indexPaths, Analyzer analyzer) throws IOException {
    IndexReader[] readers = new IndexReader[indexPaths.length];
    for (int i = 0; i < indexPaths.length; i++) {
      readers[i] = DirectoryReader.open(FSDirectory.open(Paths.get(indexPaths[i])));
    }
    this.reader = readers.length == 1 ? readers[0] : new MultiReader(readers, true);
    this.searcher = new IndexSearcher(reader);
    this.analyzer = analyzer;
    setBm25(0.9f, 0.4f);
  }

  public void setBm25(float k1, float b) {
    setSimilarity(new BM25Similarity(k1, b));
  }

  public void setLmDirichlet(float mu) {
    setSimilarity(new LMDirichletSimilarity(mu));
  }

  private void setSimilarity(Similarity similarity) {
    searcher.setSimilarity(similarity);
  }

  /**
   * Bag-of-words query over several weighted fields: per field, every distinct analyzed token
   * is a SHOULD TermQuery boosted by its count in the query (as Anserini's BagOfWordsQuery
   * generator does); each field's query is boosted by the field's weight.
   */
  public Query query(String text, String[] fields, float[] weights) throws IOException {
    BooleanQuery.Builder outer = new BooleanQuery.Builder();
    for (int f = 0; f < fields.length; f++) {
      Map<String, Integer> counts = new LinkedHashMap<>();
      for (String token : Analyzers.tokens(analyzer, fields[f], text)) {
        counts.merge(token, 1, Integer::sum);
      }
      BooleanQuery.Builder inner = new BooleanQuery.Builder();
      for (Map.Entry<String, Integer> e : counts.entrySet()) {
        Query tq = new TermQuery(new Term(fields[f], e.getKey()));
        inner.add(e.getValue() == 1 ? tq : new BoostQuery(tq, e.getValue()), BooleanClause.Occur.SHOULD);
      }
      Query fieldQuery = inner.build();
      outer.add(weights[f] == 1.0f ? fieldQuery : new BoostQuery(fieldQuery, weights[f]), BooleanClause.Occur.SHOULD);
    }
    return fields.length == 1 ? ((BooleanQuery) outer.build()).clauses().get(0).getQuery() : outer.build();
  }

  /** One string per query: {@code docid\tscore\n} lines, best first. */
  public String[] search(String[] queries, String[] fields, float[] weights, int k, int threads) throws Exception {
    String[] out = new String[queries.length];
    ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, threads));
    try {
      List<Future<String>> futures = new ArrayList<>();
      for (String text : queries) {
        futures.add(pool.submit(() -> searchOne(text, fields, weights, k)));
      }
      for (int i = 0; i < queries.length; i++) {
        out[i] = futures.get(i).get();
      }
    } finally {
      pool.shutdown();
    }
    return out;
  }

  /**
   * One string per query, as {@link #search}, over that query's candidates only ({@code candidates[i]}:
   * document ids, one per line): the first stage of a re-ranker (PyTerrier's {@code bm25 % 100 >> variant}).
   * A candidate the query does not match is not among the lines.
   */
  public String[] searchWithin(String[] queries, String[] candidates, String[] fields, float[] weights, int threads)
      throws Exception {
    String[] out = new String[queries.length];
    ExecutorService pool = Executors.newFixedThreadPool(Math.max(1, threads));
    try {
      List<Future<String>> futures = new ArrayList<>();
      for (int i = 0; i < queries.length; i++) {
        String text = queries[i];
        List<BytesRef> ids = new ArrayList<>();
        for (String id : candidates[i].split("\n")) {
          if (!id.isEmpty()) {
            ids.add(new BytesRef(id));
          }
        }
        futures.add(pool.submit(() -> {
          Query within = new BooleanQuery.Builder()
              .add(query(text, fields, weights), BooleanClause.Occur.MUST)
              .add(new TermInSetQuery("id", ids), BooleanClause.Occur.FILTER)
              .build();
          return hits(within, Math.max(1, ids.size()));
        }));
      }
      for (int i = 0; i < queries.length; i++) {
        out[i] = futures.get(i).get();
      }
    } finally {
      pool.shutdown();
    }
    return out;
  }

  /**
   * Best score first; equal scores by document id, as Anserini's SearchCollection breaks ties.
   * Without it, which of several equally scored documents make the cut-off depends on Lucene's
   * internal document numbers, which differ between a single index built by several threads
   * and its shards: with it, a run is the same whatever the index layout.
   */
  private static final Sort SCORE_THEN_ID = new Sort(SortField.FIELD_SCORE, new SortField("id", SortField.Type.STRING_VAL));

  private String searchOne(String text, String[] fields, float[] weights, int k) throws IOException {
    return hits(query(text, fields, weights), k);
  }

  private String hits(Query query, int k) throws IOException {
    TopDocs top = searcher.search(query, k, SCORE_THEN_ID, true);
    StringBuilder sb = new StringBuilder(top.scoreDocs.length * 32);
    for (ScoreDoc hit : top.scoreDocs) {
      // The sort already read each hit's id from its doc values: no stored-field block to decompress.
      BytesRef id = (BytesRef) ((FieldDoc) hit).fields[1];
      sb.append(id.utf8ToString()).append('\t').append(hit.score).append('\n');
    }
    return sb.toString();
  }

  /** Lucene's explanation of one document's score for the query (for tests and debugging). */
  public String explain(String text, String[] fields, float[] weights, String docid) throws IOException {
    int doc = internalId(docid);
    return doc < 0 ? null : searcher.explain(query(text, fields, weights), doc).toString();
  }

  /** The stored raw record of each document id (null where absent). */
  public String[] raw(String[] docids) throws IOException {
    String[] out = new String[docids.length];
    StoredFields stored = searcher.storedFields();
    Set<String> rawOnly = Set.of("raw");
    long[] order = new long[docids.length];  // internal id << 32 | position: fetch in index order
    for (int i = 0; i < docids.length; i++) {
      order[i] = ((long) internalId(docids[i]) << 32) | i;
    }
    // In index order, neighbours share a compressed stored-fields block, decompressed once.
    Arrays.sort(order);
    for (long entry : order) {
      int doc = (int) (entry >> 32);
      out[(int) entry] = doc < 0 ? null : stored.document(doc, rawOnly).get("raw");
    }
    return out;
  }

  /** Separates the records of {@link #rawJoined}; JSON escapes control characters, so no record holds it. */
  public static final char RECORD_SEPARATOR = '\u001e';

  /**
   * The raw records of all ids as one string, each followed by {@link #RECORD_SEPARATOR} (an
   * absent one as the empty string): one string crosses JNI instead of one per document.
   */
  public String rawJoined(String[] docids) throws IOException {
    StringBuilder sb = new StringBuilder(docids.length * 1024);
    for (String raw : raw(docids)) {
      if (raw != null) {
        sb.append(raw);
      }
      sb.append(RECORD_SEPARATOR);
    }
    return sb.toString();
  }

  /**
   * The ids (one per line) this index does not hold, one per line: a re-ranker's candidates that no
   * score of this index can be given (one JNI call for all of them).
   */
  public String missing(String joined) throws IOException {
    StringBuilder sb = new StringBuilder();
    for (String id : joined.split("\n")) {
      if (!id.isEmpty() && internalId(id) < 0) {
        sb.append(id).append('\n');
      }
    }
    return sb.toString();
  }

  /** Lucene's document number of an id (-1 if absent): a term lookup per segment, no scoring. */
  private int internalId(String docid) throws IOException {
    BytesRef term = new BytesRef(docid);
    for (LeafReaderContext leaf : reader.leaves()) {
      Terms terms = leaf.reader().terms("id");
      if (terms == null) {
        continue;
      }
      TermsEnum it = terms.iterator();
      if (it.seekExact(term)) {
        PostingsEnum postings = it.postings(null, PostingsEnum.NONE);
        Bits live = leaf.reader().getLiveDocs();
        for (int d = postings.nextDoc(); d != DocIdSetIterator.NO_MORE_DOCS; d = postings.nextDoc()) {
          if (live == null || live.get(d)) {
            return leaf.docBase + d;
          }
        }
      }
    }
    return -1;
  }

  /** {documents, documents with the field, unique terms, total term occurrences} of a field. */
  public long[] fieldStats(String field) throws IOException {
    Terms terms = MultiTerms.getTerms(reader, field);
    if (terms == null) {
      return new long[] {reader.numDocs(), 0, 0, 0};
    }
    long unique = 0;
    TermsEnum it = terms.iterator();
    while (it.next() != null) {
      unique++;
    }
    return new long[] {reader.numDocs(), terms.getDocCount(), unique, terms.getSumTotalTermFreq()};
  }

  public int numDocs() {
    return reader.numDocs();
  }

  @Override
  public void close() throws IOException {
    reader.close();
  }
}
