"""Alias of `python -m reference_impl.adapter`, kept for one release so
`--impl "cmd:python -m reference_impl.stdio_adapter"` still runs."""

from __future__ import annotations

from .adapter._stdio import main

if __name__ == "__main__":
    main()
