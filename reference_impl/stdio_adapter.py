"""Renamed `python -m reference_impl.adapter`; this command forwards to it for one
release, so `--impl "cmd:python -m reference_impl.stdio_adapter"` still runs (with a
warning on stderr)."""

from __future__ import annotations

import warnings

from .adapter._stdio import main

if __name__ == "__main__":
    warnings.warn(
        "python -m reference_impl.stdio_adapter is renamed python -m reference_impl.adapter; "
        "the old command forwards to it until the next release",
        DeprecationWarning,
        stacklevel=1,
    )
    main()
