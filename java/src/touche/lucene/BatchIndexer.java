package touche.lucene;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.RejectedExecutionHandler;
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
  private final int threads;
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
    this.threads = n;
    // Bounded queue: when indexing falls behind, the Python thread waits for a free slot
    // (memory stays bounded) and goes back to parsing as soon as one frees. Caller-runs would
    // make the only producer index a whole batch while the indexing threads run dry.
    this.pool = new ThreadPoolExecutor(n, n, 0L, TimeUnit.MILLISECONDS,
        new ArrayBlockingQueue<>(2 * n), BLOCK_WHEN_FULL);
  }

  private static final RejectedExecutionHandler BLOCK_WHEN_FULL = (task, executor) -> {
    if (executor.isShutdown()) {
      throw new RejectedExecutionException("indexer closed");
    }
    try {
      executor.getQueue().put(task);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new RejectedExecutionException(e);
    }
  };

  /** Separates the records of a packed batch (see {@link #addPacked}). */
  public static final char SEPARATOR = '\u001f';
  private static final byte SEPARATOR_BYTE = 0x1f;

  /**
   * Queues one batch packed by Python into a single UTF-8 buffer: per document its id, its
   * field texts in order and (if {@code withRaw}) its raw record, each followed by
   * {@link #SEPARATOR}. One byte[] crosses JNI instead of thousands of Strings, and decoding
   * and splitting run on the indexing threads, in parallel, not on the Python thread.
   */
  public void addPacked(byte[] utf8, int docs, boolean withRaw) throws IOException {
    rethrow();
    final int perDoc = 1 + fields.length + (withRaw ? 1 : 0);
    pool.execute(() -> {
      try {
        String[] parts = new String[perDoc];
        int start = 0;
        for (int d = 0; d < docs; d++) {
          for (int j = 0; j < perDoc; j++) {
            // each part decoded from the bytes themselves (no batch-sized String to cut up): in
            // UTF-8 the byte 0x1f is that character only, never part of another
            int end = start;
            while (end < utf8.length && utf8[end] != SEPARATOR_BYTE) {
              end++;
            }
            if (end == utf8.length) {
              throw new IllegalArgumentException("packed batch ends after document " + d + " of " + docs);
            }
            parts[j] = new String(utf8, start, end - start, StandardCharsets.UTF_8);
            start = end + 1;
          }
          Document doc = new Document();
          doc.add(new StringField("id", parts[0], Field.Store.YES));
          doc.add(new BinaryDocValuesField("id", new BytesRef(parts[0])));
          for (int j = 0; j < fields.length; j++) {
            if (!parts[1 + j].isEmpty()) {
              doc.add(new Field(fields[j], parts[1 + j], textType));
            }
          }
          if (withRaw) {
            doc.add(new StoredField("raw", parts[perDoc - 1]));
          }
          writer.addDocument(doc);
        }
        added.addAndGet(docs);
      } catch (Throwable t) {
        failure.compareAndSet(null, t);
      }
    });
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

  /**
   * Writes the in-memory segments (one per indexing thread) to disk on all threads at once.
   * {@code commit()} would flush them one after another on the calling thread: with large
   * vocabularies (shingles) that sequential tail was a fifth of the whole build.
   */
  private void flushInParallel() throws IOException, InterruptedException {
    ExecutorService flushers = Executors.newFixedThreadPool(threads);
    try {
      List<Future<?>> pending = new ArrayList<>();
      for (int i = 0; i < threads; i++) {
        pending.add(flushers.submit(() -> {
          while (writer.flushNextBuffer()) {
            // each call writes one in-memory segment; concurrent calls take different ones
          }
          return null;
        }));
      }
      for (Future<?> f : pending) {
        f.get();
      }
    } catch (ExecutionException e) {
      throw new IOException("flushing failed: " + e.getCause(), e.getCause());
    } finally {
      flushers.shutdown();
    }
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
    flushInParallel();
    if (forceMerge) {
      writer.forceMerge(1);
    }
    writer.commit();
    writer.close();
  }

  /** Drops everything without committing (used when Python is interrupted). */
  @Override
  public void close() throws IOException {
    // Queued batches are dropped; running ones finish their batch. Interrupting them
    // (shutdownNow) would close the index's NIO channels under them and make the rollback fail.
    pool.shutdown();
    ((ThreadPoolExecutor) pool).getQueue().clear();
    try {
      pool.awaitTermination(1, TimeUnit.MINUTES);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    if (writer.isOpen()) {
      writer.rollback();
    }
  }
}
