"""Fuzz the Redactor: a learned key, hidden anywhere in any form, never survives a scrub.

Keys of every printable character (JSON and URLs escape many of them), placed in strings,
dict keys and nested values, raw, JSON-escaped (both `ensure_ascii` forms), URL-encoded (both
flavours, either hex case) and inside a JSON document inside a string; the scrubbed value,
serialized as an artifact would be, must hold none of the key's forms.
"""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from conformance._unicode_text import unicode_text
from conformance.redaction import MIN_SECRET_LENGTH, Redactor
from tests.hostile.budget import TALLY, fuzz_settings, judged
from tests.hostile.key_forms import key_forms

TARGET = "redaction: scrub"

# Printable ASCII without "<>": the marker is "<redacted>", and a key overlapping it could
# re-form around a replacement — no credential looks like that.
KEY_CHARS = "".join(chr(c) for c in range(0x21, 0x7F) if chr(c) not in "<>")
KEYS = st.text(KEY_CHARS, min_size=MIN_SECRET_LENGTH, max_size=40)


@st.composite
def hiding(draw: st.DrawFn, key: str) -> Any:
    """A JSON-like value with the key somewhere in it, in some form."""
    form = draw(st.sampled_from([*key_forms(key), json.dumps({"api_key": key})]))
    around = unicode_text(max_size=8)
    text = draw(around) + form + draw(around)
    where = draw(st.integers(0, 3))
    if where == 0:
        return text
    if where == 1:
        return {text: draw(around)}
    if where == 2:
        return [draw(around), {"nested": [text]}]
    return {"a": {"b": (text, 1, None)}, draw(around): text}


@fuzz_settings()
@given(key=KEYS, data=st.data())
def test_a_learned_key_never_survives_a_scrub(key: str, data: st.DataObject) -> None:
    value = data.draw(hiding(key))
    redactor = Redactor([key])
    with judged(TARGET, typed=()):
        scrubbed = redactor.scrub_data(value)
        written = json.dumps(scrubbed, ensure_ascii=False) + json.dumps(scrubbed)
    survivors = [form for form in key_forms(key) if form in written]
    if survivors:
        TALLY.add(TARGET, "leak")
    assert not survivors, f"{survivors} survived in {written!r}"
