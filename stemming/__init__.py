"""Analyzer chains (tokenizer, lowercase, stoplist, stemmer, shingles) built as Lucene analyzers."""
