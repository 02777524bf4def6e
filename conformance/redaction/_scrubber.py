"""The scrubber: a Redactor learns secrets and replaces each in every form it is
likely to take in an artifact (the package's docstring says which, and its limits).
"""

from __future__ import annotations

import base64
import binascii
import json
import re
import threading
from collections.abc import Iterable
from functools import lru_cache
from typing import Any
from urllib.parse import parse_qsl, quote, quote_plus

REDACTED = "<redacted>"
MIN_SECRET_LENGTH = 8

CREDENTIAL_NAME = re.compile(
    r"auth|key|token|secret|passw|cookie|session|credential|signature|\bsig\b|"
    r"organization|project",
    re.IGNORECASE,
)
"""Header and query-parameter names whose values are learned as secrets: Authorization,
Proxy-Authorization, x-api-key, api-key, Cookie, OpenAI-Organization, OpenAI-Project,
x-goog-api-key, X-Auth-Token, `?key=`, `?access_token=`, `?sig=` and the like."""

KEY_SHAPES = re.compile(
    r"\b(?:sk|sk-ant|pk|rk)-[A-Za-z0-9_\-]{8,}"  # OpenAI, Anthropic, Stripe-style keys
    r"|\bAIza[0-9A-Za-z_\-]{30,}"  # Google API keys
    r"|\bxox[abposr]-[A-Za-z0-9\-]{10,}"  # Slack tokens
)
"""Keys recognised by their shape alone, learned or not."""

_PERCENT_ESCAPE = re.compile(r"%[0-9A-F]{2}")
_REMEMBERED = 4096  # credential values already learned from, kept to skip them next time


@lru_cache(maxsize=1024)
def is_credential_name(name: str) -> bool:
    """Whether a header or query-parameter name says its value is a credential (cached:
    the same few names arrive on every request)."""
    return CREDENTIAL_NAME.search(name) is not None


def _forms(secret: str) -> set[str]:
    """The secret as it would appear raw, inside JSON strings (also a JSON document inside
    a JSON string, as tool arguments are sent), and in a URL."""
    escaped = json.dumps(secret, ensure_ascii=False)[1:-1]
    forms = {secret, escaped, json.dumps(secret)[1:-1], json.dumps(escaped)[1:-1]}
    for encoded in (quote(secret, safe=""), quote_plus(secret, safe="")):
        forms.add(encoded)
        forms.add(_PERCENT_ESCAPE.sub(lambda m: m.group().lower(), encoded))
    return {form for form in forms if len(form) >= MIN_SECRET_LENGTH}


class Redactor:
    """Thread-safe: providers learn from the loopback server's thread and the test's own.

    Reads never take the lock: learning swaps in new immutable tuples of forms, so a
    scrub in progress sees either the old set or the new one, never half of it.
    """

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        self._lock = threading.Lock()
        self._secrets: frozenset[str] = frozenset()
        self._forms: tuple[str, ...] = ()
        self._probes: tuple[str, ...] = ()  # the forms no other form contains
        self._probes_bytes: tuple[bytes, ...] = ()
        self._seen: set[str] = set()
        for secret in secrets:
            self.learn(secret)

    @property
    def secrets(self) -> frozenset[str]:
        return self._secrets

    def learn(self, secret: str) -> bool:
        """Remember one secret (stripped); False if it is too short or already known."""
        secret = secret.strip()
        if len(secret) < MIN_SECRET_LENGTH or secret in self._secrets:
            return False
        with self._lock:
            if secret in self._secrets:
                return False
            known = set(self._forms)
            new = sorted(_forms(secret) - known, key=len)
            ordered = tuple(sorted(known | set(new), key=len, reverse=True))  # "Bearer x" first
            # A text holding no minimal form holds no form: one `in` per probe suffices.
            # Kept incrementally (each new form against the probes only), so a runtime that
            # sends a new credential on every request does not make learning quadratic.
            probes = list(self._probes)
            for form in new:
                if not any(probe in form for probe in probes):
                    probes = [p for p in probes if form not in p] + [form]
            self._forms = ordered
            self._probes = tuple(probes)
            self._probes_bytes = tuple(p.encode("utf-8", "surrogatepass") for p in probes)
            self._secrets = self._secrets | {secret}
        return True

    def learn_credential(self, value: str) -> None:
        """Learn a credential header's value: the whole of it, the token after an auth
        scheme, both halves of Basic auth, each cookie's value."""
        if value in self._seen:  # the same key on every request: the hot path
            return
        if len(self._seen) >= _REMEMBERED:
            self._seen.clear()
        self._seen.add(value)
        for part in value.split(","):  # a client may have joined repeated headers
            part = part.strip()
            self.learn(part)
            scheme, _, token = part.partition(" ")
            token = token.strip()
            if token:
                self.learn(token)
                if scheme.lower() == "basic":
                    self._learn_basic(token)
            for crumb in part.split(";"):  # cookies: `a=b; c=d`
                _, equals, crumb_value = crumb.partition("=")
                if equals and crumb_value.strip("= "):  # not just base64 padding
                    self.learn(crumb_value)

    def _learn_basic(self, token: str) -> None:
        try:
            decoded = base64.b64decode(token, validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError, ValueError):
            return
        self.learn(decoded)
        user, _, password = decoded.partition(":")
        self.learn(user)
        self.learn(password)

    def learn_headers(self, headers: Iterable[tuple[str, str]]) -> None:
        """Learn from every header whose name says it carries a credential."""
        for name, value in headers:
            if is_credential_name(name):
                self.learn_credential(value)

    def learn_query(self, target: str) -> None:
        """Learn credential-named parameters of a URL or `path?query`."""
        _, question, query = target.partition("?")
        if not question:
            return
        for name, value in parse_qsl(query, keep_blank_values=False):
            if is_credential_name(name):
                self.learn(value)

    def found_in(self, data: bytes | str) -> bool:
        """Whether any learned secret occurs in `data` in any form (one fast scan each)."""
        probes = self._probes_bytes if isinstance(data, bytes) else self._probes
        for probe in probes:  # noqa: SIM110 (a plain loop: no generator on every request)
            if probe in data:  # type: ignore[operator]
                return True
        return False

    def scrub_text(self, text: str) -> str:
        """`text` with every learned secret, in every form, and every key shape replaced."""
        for probe in self._probes:
            if probe in text:
                for form in self._forms:
                    if form in text:
                        text = text.replace(form, REDACTED)
                break
        if "-" in text or "AIza" in text:
            text = KEY_SHAPES.sub(REDACTED, text)
        return text

    def scrub_data(self, value: Any) -> Any:
        """A JSON-like value (dicts, lists, tuples, strings; keys too) with `scrub_text`
        applied to every string. Other values are returned as they are."""
        if isinstance(value, str):
            return self.scrub_text(value)
        if isinstance(value, dict):
            return {self.scrub_data(k): self.scrub_data(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.scrub_data(v) for v in value]
        if isinstance(value, tuple):
            return tuple(self.scrub_data(v) for v in value)
        return value


__all__ = [
    "CREDENTIAL_NAME",
    "KEY_SHAPES",
    "MIN_SECRET_LENGTH",
    "REDACTED",
    "Redactor",
    "is_credential_name",
]
