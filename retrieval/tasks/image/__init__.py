"""Image retrieval for arguments (Touché 2022/2023): 10 PRO and 10 CON images per topic
(``handler``: task ``image``), reached through ``touche.registry.TASKS``; its formulas
(argumentativeness, stance) also serve the contact sheet and the explorer."""
from touche.retrieval.tasks.image.handlers import ImageFeatures, argumentativeness, stance_score, term_key, topic_terms

__all__ = ["ImageFeatures", "argumentativeness", "stance_score", "term_key", "topic_terms"]
