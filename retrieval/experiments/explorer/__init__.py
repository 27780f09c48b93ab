"""The run explorer: several runs of one task, their judgements and texts, as one HTML file.
``build`` reads the inputs and writes the page, ``data`` computes every number it shows, ``export``
its Markdown/LaTeX/CSV, ``page`` renders ``templates/`` with Jinja2."""
from touche.retrieval.experiments.explorer.build import DEFAULT_TOP, EXPLORER_FILE, MAX_RUNS, write_explorer

__all__ = ["DEFAULT_TOP", "EXPLORER_FILE", "MAX_RUNS", "write_explorer"]
