"""Topics, search, re-ranking, fusion, run files and evaluation."""
