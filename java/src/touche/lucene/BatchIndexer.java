package touche.lucene;

import java.io.IOException;
import java.nio.file.Paths;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import org.apache.lucene.analysis.Analyzer;
import org.apache.lucene.document.BinaryDocValuesField;
import org.apache.lucene.document.Document;
import org.apache.lucene.document.Field;
import org.apache.lucene.document.FieldType;
import org.apache.lucene.document.StoredField;
import org.apache.lucene.document.StringField;
import org.apache.lucene.index.IndexOptions;
import org.apache.lucene.index.IndexWriter;
import org.apache.lucene.index.IndexWriterConfig;
import org.apache.lucene.search.similarities.BM25Similarity;
import org.apache.lucene.store.FSDirectory;
import org.apache.lucene.util.BytesRef;

/**
 * Indexes batches of documents handed over from Python in one call each.
 *
 * <p>Why Java: one JNI call per batch instead of several per document, and analysis runs on
 * indexing threads while Python parses the next batch. Documents follow Anserini's layout
 * ({@code id} stored + BinaryDocValues, text fields, {@code raw} stored) so Anserini's and
 * pyserini's readers and searchers open our indexes as they are.
 */
public final class BatchIndexer implements AutoCloseable {
  static {
    Quiet.lucene();
  }

  private final IndexWriter writer;
  private final String[] fields;
  private final FieldType textType;
  private final ExecutorService pool;
  private final AtomicLong added = new AtomicLong();
  private final AtomicReference<Throwable> failure = new AtomicReference<>();

  public BatchIndexer(String indexPath, Analyzer analyzer, String[] fields, boolean storePositions,
      boolean storeDocvectors, int threads, double ramBufferMb) throws IOException {
    IndexWriterConfig config = new IndexWriterConfig(analyzer);
    config.setOpenMode(IndexWriterConfig.OpenMode.CREATE);
    config.setSimilarity(new BM25Similarity());
    config.setRAMBufferSizeMB(ramBufferMb);
    config.setUseCompoundFile(false);
    this.writer = new IndexWriter(FSDirectory.open(Paths.get(indexPath)), config);
    this.fields = fields;
    this.textType = new FieldType();
    textType.setTokenized(true);
    textType.setStored(false);
    textType.setIndexOptions(storePositions ? IndexOptions.DOCS_AND_FREQS_AND_POSITIONS : IndexOptions.DOCS_AND_FREQS);
    if (storeDocvectors) {
      textType.setStoreTermVectors(true);
    }
    textType.freeze();
    int n = Math.max(1, threads);
    // Bounded queue: when indexing falls behind, the Python thread indexes a batch itself
    // (caller-runs) instead of piling up memory.
    this.pool = new ThreadPoolExecutor(n, n, 0L, TimeUnit.MILLISECONDS,
        new ArrayBlockingQueue<>(2 * n), new ThreadPoolExecutor.CallerRunsPolicy());
  }

  /**
   * Queues one batch. {@code values} is document-major: document i's text for field j is
   * {@code values[i * fields.length + j]}. {@code raws} may be null (no raw stored).
   */
  public void addBatch(String[] ids, String[] values, String[] raws) throws IOException {
    rethrow();
    if (values.length != ids.length * fields.length) {
      throw new IllegalArgumentException("values has " + values.length + " entries, expected " + ids.length * fields.length);
    }
    pool.execute(() -> {
      try {
        for (int i = 0; i < ids.length; i++) {
          writer.addDocument(document(ids[i], values, i, raws == null ? null : raws[i]));
        }
        added.addAndGet(ids.length);
      } catch (Throwable t) {
        failure.compareAndSet(null, t);
      }
    });
  }

  private Document document(String id, String[] values, int i, String raw) {
    Document doc = new Document();
    doc.add(new StringField("id", id, Field.Store.YES));
    doc.add(new BinaryDocValuesField("id", new BytesRef(id)));
    for (int j = 0; j < fields.length; j++) {
      String text = values[i * fields.length + j];
      if (text != null && !text.isEmpty()) {
        doc.add(new Field(fields[j], text, textType));
      }
    }
    if (raw != null) {
      doc.add(new StoredField("raw", raw));
    }
    return doc;
  }

  private void rethrow() throws IOException {
    Throwable t = failure.get();
    if (t != null) {
      throw new IOException("indexing failed: " + t, t);
    }
  }

  public long added() {
    return added.get();
  }

  /** Waits for queued batches, optionally merges to one segment, commits and closes. */
  public void finish(boolean forceMerge) throws IOException, InterruptedException {
    pool.shutdown();
    pool.awaitTermination(365, TimeUnit.DAYS);
    rethrow();
    if (forceMerge) {
      writer.forceMerge(1);
    }
    writer.commit();
    writer.close();
  }

  /** Drops everything without committing (used when Python is interrupted). */
  @Override
  public void close() throws IOException {
    pool.shutdownNow();
    if (writer.isOpen()) {
      writer.rollback();
    }
  }
}
