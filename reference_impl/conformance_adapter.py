"""Renamed `reference_impl.adapter`; this name forwards to it for one release, so
`--impl reference_impl.conformance_adapter:implementation` still runs (with a warning)."""

import warnings

from .adapter import ReferenceImplementation, implementation

warnings.warn(
    "reference_impl.conformance_adapter is renamed reference_impl.adapter "
    "(--impl reference_impl.adapter:implementation); the old name forwards to it until "
    "the next release",
    DeprecationWarning,
    stacklevel=2,
)

__all__ = ["ReferenceImplementation", "implementation"]
