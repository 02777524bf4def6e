"""Every form a leaked key can take in an artifact: the one oracle the secret tests share.

Written here rather than taken from `conformance.redaction`, so the scrubber is judged by
an independent reading of what a leak looks like.
"""

from __future__ import annotations

import json
import re
from urllib.parse import quote, quote_plus

from conformance.redaction import MIN_SECRET_LENGTH


def key_forms(key: str) -> list[str]:
    """The key as is, JSON-escaped (both `ensure_ascii` forms), URL-encoded (both flavours,
    either hex case), in a fixed order (strategies sample from it); forms shorter than a
    secret can be are left out."""
    encoded = [quote(key, safe=""), quote_plus(key, safe="")]
    lowered = [re.sub("%[0-9A-F]{2}", lambda m: m.group().lower(), e) for e in encoded]
    escaped, unescaped = json.dumps(key)[1:-1], json.dumps(key, ensure_ascii=False)[1:-1]
    found = [key, escaped, *encoded, *lowered] + ([unescaped] if unescaped != escaped else [])
    return [form for form in found if len(form) >= MIN_SECRET_LENGTH]
