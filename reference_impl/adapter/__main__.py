"""`python -m reference_impl.adapter`: the reference's adapter over stdio (`_stdio`)."""

from __future__ import annotations

from ._stdio import main

if __name__ == "__main__":
    main()
