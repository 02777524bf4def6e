"""Any text, without the table Hypothesis builds for it on a fresh checkout.

`st.text()` draws from `characters(codec="utf-8")`. The first time a process meets that
codec in a Hypothesis storage directory (`.hypothesis/` under the working directory, so
every fresh CI checkout), Hypothesis encodes each of the 1,114,112 code points to learn
which ones utf-8 takes, then caches the answer there: seconds of CPU, paid by each xdist
worker that starts before the file exists. utf-8 encodes every code point except the
surrogates, so the same alphabet is the category table without category Cs, which is
far cheaper to build and is needed by any unicode strategy anyway.
"""

from __future__ import annotations

from typing import Final

from hypothesis import strategies as st

UNICODE_CHARACTERS: Final = st.characters(exclude_categories=["Cs"])
"""Every character a utf-8 file, a JSON document or an HTTP body can hold."""


def unicode_text(*, min_size: int = 0, max_size: int | None = None) -> st.SearchStrategy[str]:
    """What `st.text(min_size=..., max_size=...)` draws, the same alphabet and order."""
    return st.text(UNICODE_CHARACTERS, min_size=min_size, max_size=max_size)
