package touche.lucene;

import java.io.IOException;
import java.nio.file.Paths;
import java.util.ArrayList;
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
import org.apache.lucene.index.MultiReader;
import org.apache.lucene.index.MultiTerms;
import org.apache.lucene.index.StoredFields;
import org.apache.lucene.index.Term;
import org.apache.lucene.index.Terms;
import org.apache.lucene.index.TermsEnum;
import org.apache.lucene.search.BooleanClause;
import org.apache.lucene.search.BooleanQuery;
import org.apache.lucene.search.BoostQuery;
import org.apache.lucene.search.IndexSearcher;
import org.apache.lucene.search.Query;
import org.apache.lucene.search.ScoreDoc;
import org.apache.lucene.search.TermQuery;
import org.apache.lucene.search.TopDocs;
import org.apache.lucene.search.similarities.BM25Similarity;
import org.apache.lucene.search.similarities.LMDirichletSimilarity;
import org.apache.lucene.search.similarities.Similarity;
import org.apache.lucene.store.FSDirectory;

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

  private String searchOne(String text, String[] fields, float[] weights, int k) throws IOException {
    Query query = query(text, fields, weights);
    TopDocs top = searcher.search(query, k);
    StoredFields stored = searcher.storedFields();
    StringBuilder sb = new StringBuilder(top.scoreDocs.length * 32);
    Set<String> idOnly = Set.of("id");
    for (ScoreDoc hit : top.scoreDocs) {
      sb.append(stored.document(hit.doc, idOnly).get("id")).append('\t').append(hit.score).append('\n');
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
    for (int i = 0; i < docids.length; i++) {
      int doc = internalId(docids[i]);
      out[i] = doc < 0 ? null : stored.document(doc, rawOnly).get("raw");
    }
    return out;
  }

  private int internalId(String docid) throws IOException {
    TopDocs top = searcher.search(new TermQuery(new Term("id", docid)), 1);
    return top.scoreDocs.length == 0 ? -1 : top.scoreDocs[0].doc;
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
