"""Benchmarks: speed and memory figures (never timed assertions in tests)."""
