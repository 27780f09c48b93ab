"""Touché Task 1: arguments for a controversial question (2020/21: task ``task1``) and pairs of
argumentative sentences with stance (2022, ``pairs`` with its text ``features``: task
``task1-pairs``). Both handlers are declared in ``handlers.py``, reached through
``touche.registry.TASKS`` and imported when a variant of their task runs."""
