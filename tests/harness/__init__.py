"""The harness against adapters that are broken themselves (not runtimes that break laws)."""
