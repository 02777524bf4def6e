"""Adapters that run the conformance suite against third-party agent frameworks.

Each module is loaded only when named with `--impl conformance.adapters.<module>:implementation`,
so a framework is imported only when it is the one under test.
"""
