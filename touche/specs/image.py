"""Settings of image retrieval variants (the ``image:`` section of a variant)."""
from __future__ import annotations

from touche.specs import Strict


class ImageSpec(Strict):
    """Not yet filled in: the section accepts no keys."""
