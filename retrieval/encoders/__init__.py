"""Dense encoders for re-ranking (``dense``): a sentence-transformers BERT (all-MiniLM-L6-v2 from
its PyPI package) run with numpy, no torch, no download at run time."""
