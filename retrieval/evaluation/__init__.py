"""Evaluation: every measure by name (``registry``, ``scorers``: Touché's nDCG as the organisers
compute it, stance F1, image precision), means and tables (``measures``), paired tests
(``significance``), intervals (``resampling``), pooled measures and agreement without qrels."""
