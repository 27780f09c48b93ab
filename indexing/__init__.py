"""Corpus readers (one per corpus family, typed records) and index building."""
