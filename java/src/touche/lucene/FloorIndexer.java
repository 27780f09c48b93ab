package touche.lucene;

import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import org.apache.lucene.analysis.Analyzer;

/**
 * The benchmark's pure-Java floor for indexing args.me (bench/run.py): the same JSON files read
 * by Jackson's streaming parser, the same fields built as our reader builds them
 * (indexing/corpora.py argument_fields), the same analyzer chain (Analyzers.build from the
 * same tokenizer and filter strings), the same document layout, threads and RAM buffer
 * (BatchIndexer). What is left between it and our path is only Python: parsing JSON and handing
 * the batches over. Not used by the toolkit itself.
 *
 * <pre>
 * java -cp touche-lucene.jar:anserini-fatjar.jar touche.lucene.FloorIndexer \
 *   INPUT_DIR INDEX_DIR THREADS RAM_MB FIELDS(comma) POSITIONS(true|false) RAW(true|false) \
 *   RESOURCE_DIR TOKENIZER [FILTER ...]
 * </pre>
 */
public final class FloorIndexer {
  private static final int BATCH = 1000; // as indexing/builder.py BATCH_SIZE

  private FloorIndexer() {}

  public static void main(String[] args) throws Exception {
    File input = new File(args[0]);
    String index = args[1];
    int threads = Integer.parseInt(args[2]);
    double ramMb = Double.parseDouble(args[3]);
    String[] fields = args[4].split(",");
    boolean positions = Boolean.parseBoolean(args[5]);
    boolean raw = Boolean.parseBoolean(args[6]);
    Analyzer analyzer = Analyzers.build(args[7], args[8], Arrays.copyOfRange(args, 9, args.length));
    long started = System.nanoTime();
    long count = 0;
    BatchIndexer indexer = new BatchIndexer(index, analyzer, fields, positions, false, threads, ramMb);
    {
      List<String> ids = new ArrayList<>();
      List<String> values = new ArrayList<>();
      List<String> raws = new ArrayList<>();
      ObjectMapper mapper = new ObjectMapper();
      File[] files = input.isDirectory() ? input.listFiles((d, name) -> name.endsWith(".json")) : new File[] {input};
      Arrays.sort(files);
      for (File file : files) {
        try (JsonParser parser = mapper.getFactory().createParser(file)) {
          // {"arguments": [ {...}, ... ]}: stream the array, one argument object at a time
          while (parser.nextToken() != null) {
            if (parser.currentToken() == JsonToken.FIELD_NAME && "arguments".equals(parser.currentName())) {
              parser.nextToken();
              while (parser.nextToken() == JsonToken.START_OBJECT) {
                JsonNode argument = mapper.readTree(parser);
                ids.add(argument.path("id").asText());
                for (String field : fields) {
                  values.add(field(argument, field));
                }
                raws.add(argument.toString());
                if (ids.size() == BATCH) {
                  count += hand(indexer, ids, values, raw ? raws : null);
                  ids.clear(); values.clear(); raws.clear();
                }
              }
            }
          }
        }
      }
      count += hand(indexer, ids, values, raw ? raws : null);
      indexer.finish(false);
    }
    System.out.printf("{\"documents\": %d, \"seconds\": %.3f}%n", count, (System.nanoTime() - started) / 1e9);
  }

  private static int hand(BatchIndexer indexer, List<String> ids, List<String> values, List<String> raws)
      throws IOException {
    if (ids.isEmpty()) {
      return 0;
    }
    indexer.addBatch(ids.toArray(new String[0]), values.toArray(new String[0]),
        raws == null ? null : raws.toArray(new String[0]));
    return ids.size();
  }

  /** indexing/corpora.py argument_fields: contents = conclusion + blank line + premises. */
  private static String field(JsonNode argument, String field) {
    String conclusion = argument.path("conclusion").asText("");
    StringBuilder premises = new StringBuilder();
    for (JsonNode premise : argument.path("premises")) {
      if (premises.length() > 0) {
        premises.append("\n\n");
      }
      premises.append(premise.path("text").asText(""));
    }
    switch (field) {
      case "contents":
        return conclusion.isEmpty() ? premises.toString() : conclusion + "\n\n" + premises;
      case "conclusion":
        return conclusion;
      case "premises":
        return premises.toString();
      case "title": {
        JsonNode context = argument.path("context");
        String title = context.path("discussionTitle").asText("");
        return title.isEmpty() ? context.path("sourceTitle").asText("") : title;
      }
      default:
        throw new IllegalArgumentException("unknown args.me field " + field);
    }
  }
}
