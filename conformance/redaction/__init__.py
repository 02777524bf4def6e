"""One scrubber for every secret a run has seen, applied to everything the run writes.

The fake provider learns credentials from what runtimes send it (every
credential-bearing header, Basic auth, cookies, query strings) and the suite teaches it
the keys it hands to adapters; `scrub_text` / `scrub_data` then replace each secret in
every form it is likely to take in an artifact — as sent, JSON-escaped (both
`ensure_ascii` forms) and URL-encoded — plus well-known key shapes (`sk-…`) that were
never learned. One Redactor is shared by every provider of a pytest session
(`session_redactor`), so a key seen in one test is scrubbed from every later artifact.

Limits, by design: secrets shorter than `MIN_SECRET_LENGTH` are not learned (test keys
like "k" would shred ordinary words); a key the runtime transforms (hashes,
base64-encodes, truncates, splits) is not recognised; a key that reaches the provider
only inside a body, never in a header or query string and never taught, is found only by
its shape.

A pytest session's redaction (`session_redactor`, `learn_environment`, the report
scrubber and the sweep of every file a run wrote when it ends) loads on first use: the
fake's users outside pytest import the scrubber alone.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from ._scrubber import (
    CREDENTIAL_NAME,
    KEY_SHAPES,
    MIN_SECRET_LENGTH,
    REDACTED,
    Redactor,
    is_credential_name,
)

if TYPE_CHECKING:
    from ._session import (
        ENVIRONMENT_CREDENTIAL,
        ArtifactSweep,
        ReportScrubber,
        learn_environment,
        scrub_report,
        session_redactor,
    )

_SESSION = frozenset(
    {
        "ENVIRONMENT_CREDENTIAL",
        "ArtifactSweep",
        "ReportScrubber",
        "learn_environment",
        "scrub_report",
        "session_redactor",
    }
)


def __getattr__(name: str) -> Any:
    if name in _SESSION:
        return getattr(import_module("._session", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "CREDENTIAL_NAME",
    "ENVIRONMENT_CREDENTIAL",
    "KEY_SHAPES",
    "MIN_SECRET_LENGTH",
    "REDACTED",
    "ArtifactSweep",
    "Redactor",
    "ReportScrubber",
    "is_credential_name",
    "learn_environment",
    "scrub_report",
    "session_redactor",
]
