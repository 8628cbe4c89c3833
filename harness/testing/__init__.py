"""Adapters that run the pages' examples under pytest (the Sybil glue)."""
