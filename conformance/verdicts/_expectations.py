"""Expectation manifests: the known failures of a runtime, read from TOML.

An entry names an outcome the law may have: FAIL (a known nonconformance), or
NOT_APPLICABLE (the implementation does not declare what the law needs, and says so on
purpose). PASS, XPASS, XFAIL, ERROR and TIMEOUT are not outcomes one can expect: a law
without an entry is expected to pass, an ERROR or a TIMEOUT is never a known state of
the runtime (the adapter or the harness broke), and XFAIL/XPASS are what the run makes
of an entry. A FAIL entry may say `intermittent = true`: the runtime races, and a run
where the law passes is accepted (reported XPASS, not red; the matrix shows the known
FAIL either way), as web-platform-tests' expectations list a known-intermittent status.
Anything the file gets wrong is an `ExpectationsError` naming the entry and the field;
the run turns it into a usage error, so it stops before it starts.
"""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path
from typing import Annotated, Any

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    model_validator,
)

from ..registry import load_laws
from ._outcomes import Outcome
from ._pins import FrameworkPin, pin_problem

EXPECTABLE = (Outcome.FAIL, Outcome.NOT_APPLICABLE)
"""The outcomes a manifest entry may name."""


TOO_DEEP = (
    "not a manifest: arrays or inline tables nested too deep to read (an entry's values "
    "are strings and booleans)"
)


class ExpectationsError(ValueError):
    """The manifest cannot be used; the message names the file, the entry and the field."""


def _expectable(outcome: Outcome) -> Outcome:
    if outcome not in EXPECTABLE:
        raise ValueError(
            f"{outcome.value} is not an outcome a law can be expected to have: name FAIL "
            "(a known failure) or NOT_APPLICABLE (not declared, on purpose); a law without "
            "an entry is expected to pass, and an ERROR or TIMEOUT is never expected"
        )
    return outcome


class Expectation(BaseModel):
    """One manifest entry: the outcome a known-nonconforming runtime is expected to get."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    outcome: Annotated[Outcome, AfterValidator(_expectable)]
    reason: str = Field(min_length=1)
    link: str | None = None
    intermittent: bool = False
    """The runtime races: the law fails in some runs and passes in others (say which,
    and how often, in `reason`). Only for FAIL: a pass is then no reason to remove it."""

    @model_validator(mode="after")
    def _intermittent_fails(self) -> Expectation:
        if self.intermittent and self.outcome is not Outcome.FAIL:
            raise ValueError(
                'intermittent = true goes with outcome = "FAIL" only: it accepts a pass '
                "of a law known to fail in some runs"
            )
        return self


class Manifest(BaseModel):
    """The whole file: `[law."<id>"]` entries and an optional `[framework]` pin."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    law: dict[str, Expectation] = {}
    framework: FrameworkPin | None = None


def load_expectations(path: Path) -> dict[str, Expectation]:
    """`[law."run.no-history"] outcome = "FAIL" reason = "..."` -> entries by law id."""
    where = f"--expectations {path}"
    try:
        raw = path.read_bytes()
    except OSError as error:
        raise ExpectationsError(f"{where}: cannot read it ({error.strerror or error})") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        line = raw.count(b"\n", 0, error.start) + 1
        raise ExpectationsError(
            f"{where}: not UTF-8 text (line {line}: byte 0x{raw[error.start]:02x} at offset "
            f"{error.start})"
        ) from None
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as error:
        raise ExpectationsError(f"{where}: not TOML: {error}") from None
    except RecursionError:  # tomllib recurses once per level of nesting
        raise ExpectationsError(f"{where}: {TOO_DEEP}") from None
    try:
        manifest = Manifest.model_validate(data)
    except ValidationError as error:
        raise ExpectationsError(f"{where}: {_first_problem(error)}") from None
    except RecursionError:
        raise ExpectationsError(f"{where}: {TOO_DEEP}") from None
    problem = manifest.framework and pin_problem(path, manifest.framework)
    if problem:
        raise ExpectationsError(problem)
    unknown = sorted(set(manifest.law) - set(load_laws()))
    if unknown:
        raise ExpectationsError(f"{where}: unknown law ids {unknown}; see conformance/laws.toml")
    return dict(manifest.law)


def _first_problem(error: ValidationError) -> str:
    """One line naming the entry and field as the TOML spells it, and what is wrong."""
    problems = error.errors(include_url=False)
    first = problems[0]
    more = f" (and {len(problems) - 1} more problem(s))" if len(problems) > 1 else ""
    return f"{_toml_path(first['loc'])}: {_message(first)}{more}"


def _toml_path(loc: tuple[int | str, ...]) -> str:
    """`('law', 'run.no-history', 'reason')` -> `[law."run.no-history"].reason`."""
    if not loc:
        return "the file"
    head, *rest = (str(part) for part in loc)
    if head == "law" and rest:
        law_id, *fields = rest
        return f"[law.{json.dumps(law_id)}]" + "".join(f".{_key(field)}" for field in fields)
    return f"[{_key(head)}]" + "".join(f".{_key(field)}" for field in rest)


def _key(key: str) -> str:
    """A key as TOML spells it: bare when it can be, quoted (and escaped) otherwise."""
    return key if re.fullmatch(r"[A-Za-z0-9_-]+", key) else json.dumps(key)


def _message(problem: Any) -> str:
    message = str(problem["msg"]).removeprefix("Value error, ")
    if problem["type"] in ("missing", "extra_forbidden"):
        return message.lower()
    return f"{message} (got {_shown(problem.get('input'))})"


def _shown(value: Any, limit: int = 60) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."
