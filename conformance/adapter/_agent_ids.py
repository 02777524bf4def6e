"""Which agent ids the laws may hand a runtime: a safe default, and the runtime's own grammar.

A runtime with a name grammar refuses an id the suite made up (`'a.'`), and that ERROR
would outrank the law's real verdict. So the laws draw agent ids only from
`SAFE_AGENT_ID_PATTERN`, and, when the implementation declares `agent_id_pattern` (a
Python `re` expression every id it accepts fully matches), only ids that fully match
both. A declared pattern is checked once, when the run starts: a pattern that does not
compile, is too long to be a grammar, or refuses an id the laws must use is a usage
error, never an ERROR per law.
"""

from __future__ import annotations

import re
from typing import Any

from ._declaration import declaration_of

SAFE_AGENT_ID_PATTERN = r"[A-Za-z](?:[A-Za-z0-9_-]{0,14}[A-Za-z0-9])?"
"""The ids the laws use by default: 1 to 16 ASCII letters, digits, '-' and '_', starting
with a letter and ending with a letter or digit."""

REQUIRED_AGENT_IDS = ("agent", "billing", "support")
"""Ids every declared pattern must accept: the seed's default id and the two names the
laws use verbatim (two agents of different names)."""

MAX_AGENT_ID_PATTERN_LENGTH = 1000
"""The longest declared pattern, in characters: a grammar, not a list of every id."""


class AgentIdPatternError(ValueError):
    """An implementation's `agent_id_pattern` the laws cannot draw ids from; the message
    says why. The runner turns it into a usage error: the run does not start."""


def agent_id_pattern_problem(pattern: Any) -> str | None:
    """Why `pattern` cannot be an `agent_id_pattern`, or None when it can (None, no
    pattern declared, always can)."""
    if pattern is None:
        return None
    if not isinstance(pattern, str):
        return f"must be a string (a Python regular expression), not {type(pattern).__name__}"
    if not pattern:
        return "is empty: leave it out (None) to use the default"
    if len(pattern) > MAX_AGENT_ID_PATTERN_LENGTH:
        return (
            f"is {len(pattern)} characters long, more than {MAX_AGENT_ID_PATTERN_LENGTH}: "
            "declare the runtime's id grammar, not a list of ids"
        )
    try:
        compiled = re.compile(pattern)
    except (re.error, RecursionError, OverflowError) as error:
        return f"{pattern!r} is not a Python regular expression: {error}"
    refused = [name for name in REQUIRED_AGENT_IDS if compiled.fullmatch(name) is None]
    if refused:
        return (
            f"{pattern!r} does not fully match {', '.join(repr(n) for n in refused)}: every "
            f"runtime must accept {', '.join(repr(n) for n in REQUIRED_AGENT_IDS)} (the "
            "seed's default id and the names the laws use verbatim)"
        )
    return None


def declared_agent_id_pattern(implementation: object) -> str | None:
    """The implementation's `agent_id_pattern` (None when it declares none), or
    AgentIdPatternError saying why the laws cannot use it."""
    pattern = declaration_of(implementation).agent_id_pattern
    problem = agent_id_pattern_problem(pattern)
    if problem is not None:
        raise AgentIdPatternError(f"agent_id_pattern {problem}")
    return pattern if isinstance(pattern, str) else None


def agent_id_fits(agent_id: str, declared: str | None) -> bool:
    """May the laws hand `agent_id` to a runtime that declared `declared`? It must fully
    match the safe default and the declared pattern (when there is one)."""
    if re.fullmatch(SAFE_AGENT_ID_PATTERN, agent_id) is None:
        return False
    return declared is None or re.fullmatch(declared, agent_id) is not None
