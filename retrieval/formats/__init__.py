"""The files a run reads and writes: one gate for every input (``gate``), the topics, qrels and
run-file readers, the run writer (``runwriter``: ranks, ties, the line TIRA receives), the
columnar run table and topic selection (``selection``)."""
