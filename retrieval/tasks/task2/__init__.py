"""Touché Task 2: comparative questions over ClueWeb12 documents (2020/21) and passages with
stance (2022): objects and queries (``objects``), features, handlers, ChatNoir, stance models."""
