"""Alias of `reference_impl.adapter`, kept for one release so
`--impl reference_impl.conformance_adapter:implementation` still runs; name
`reference_impl.adapter` instead."""

from .adapter import ReferenceImplementation, implementation

__all__ = ["ReferenceImplementation", "implementation"]
