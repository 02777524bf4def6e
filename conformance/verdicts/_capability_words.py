"""What a NOT_APPLICABLE law is missing, said in words a person reads: "needs the
identity and tool_context capabilities".

The plugin's skip reason is written with `needs_sentence`, and every reader of a
results record (the Markdown report, the matrix) reads it back with
`needed_capabilities`, so the sentence is defined once. Records from before it say
"needs identity, tool_context", and a law test's own skip may say "needs pause"; both
are read too, but only names that are capabilities count, so no ordinary "needs"
in a sentence is mistaken for one.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ..adapter import Capability
from ._outcomes import NOT_APPLICABLE_PREFIX

_NAME = r"[a-z_]+"
_SENTENCE = re.compile(
    rf"\bneeds (?:one of )?the ({_NAME}(?:, {_NAME})*(?: and {_NAME})?) capabilit(?:y|ies)\b"
)
_BARE = re.compile(rf"\bneeds ({_NAME}(?:, {_NAME})*)")
_KNOWN = frozenset(c.value for c in Capability)
_LAW_ID = re.compile(r"^[a-z0-9][a-z0-9.-]*\.[a-z0-9.-]+ (?=needs )")


def needs_sentence(capabilities: Sequence[str]) -> str:
    """`["identity", "tool_context"]` -> "needs the identity and tool_context capabilities"."""
    names = [str(c) for c in capabilities]
    if not names:
        raise ValueError("a law is not applicable only for a capability it lacks")
    listed = names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"
    return f"needs the {listed} {'capability' if len(names) == 1 else 'capabilities'}"


def needs_one_of_sentence(capabilities: Sequence[str]) -> str:
    """`["follow_up", "continue_from"]` -> "needs one of the follow_up and continue_from
    capabilities": a law that applies as soon as any of them is declared."""
    names = [str(c) for c in capabilities]
    if len(names) < 2:
        return needs_sentence(names)
    return f"needs one of the {', '.join(names[:-1])} and {names[-1]} capabilities"


def not_applicable_sentence(missing: Sequence[str], one_of: Sequence[str]) -> str:
    """Why a law does not apply: the capabilities it needs that are missing, then the
    group of which none is declared."""
    said = [needs_sentence(missing)] if missing else []
    if one_of:
        said.append(needs_one_of_sentence(one_of))
    return " and ".join(said)


def needed_capabilities(text: str) -> list[str] | None:
    """The capabilities a skip reason says are missing, in either wording; None when it
    names none (a law test's own reason, e.g. "every identity case continues a
    conversation")."""
    found = _clause(text)
    return None if found is None else found[1]


def _clause(text: str) -> tuple[re.Match[str], list[str]] | None:
    for pattern in (_SENTENCE, _BARE):
        found = pattern.search(text)
        if found is not None:
            names = re.split(r", | and ", found.group(1))
            if all(name in _KNOWN for name in names):
                return found, names
    return None


def not_applicable_in_words(detail: str) -> str:
    """A NOT_APPLICABLE record's detail as a report's cell: what is missing, in words,
    without pytest's "Skipped:", the suite's prefix, or the law id the row already shows.
    "Skipped: NOT_APPLICABLE: run.identity needs identity, tool_context" -> "needs the
    identity and tool_context capabilities"; "a paused run needs pause" -> "a paused run
    needs the pause capability"."""
    said = detail.strip().splitlines()[0] if detail.strip() else ""
    said = said.partition(NOT_APPLICABLE_PREFIX)[2] or said
    said = _LAW_ID.sub("", said.strip().rstrip("')\""))
    found = _clause(said)
    if found is None:
        return said
    clause, names = found
    words = needs_one_of_sentence if "one of" in clause.group(0) else needs_sentence
    return said[: clause.start()] + words(names) + said[clause.end() :]
