"""The repro file: one failing law test, stored so it can be replayed anywhere.

`repro/<law-id>-<short-hash>.json` holds which test failed (module, parametrized name,
node id), against what (`--impl`, dialect, Hypothesis profile and seed), the shrunk
Hypothesis example when the test is property-based (the `@reproduce_failure` blob and
the steps Hypothesis printed), the fake provider's recording of the failing run, the
test module's counters as the test started, and the failure itself.
`python -m conformance replay FILE --impl ...` replays it.

A repro file is data that may come from anyone, so the model says what replay may do
with it: the test must be a law test of this suite (`conformance.laws.test_*`, a
`test_*` function, optionally parametrized), the options it passes on are plain tokens,
and a file over `MAX_REPRO_BYTES` is refused before it is read. Anything else is a
ReproError naming the field.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Annotated, Any, Final, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    StringConstraints,
    ValidationError,
)

from ..verdicts import Outcome
from ..wire.ir import Dialect

MAX_REPRO_BYTES: Final = 64 * 1024 * 1024
"""A failing law test's recording is kilobytes; a file this large is not one."""

LAW_MODULE_PATTERN: Final = r"^conformance\.laws\.test_[a-z0-9_]+$"
"""The only modules a replay imports: the suite's own law test modules."""

TEST_NAME_PATTERN: Final = r"^test_[A-Za-z0-9_]+(\[[^\[\]\x00-\x1f\x7f]+\])?$"
"""A test function's name with pytest's parameter id, e.g. test_x[openai-chat]."""

Token = Annotated[str, StringConstraints(pattern=r"^[A-Za-z0-9_.:+-]{1,100}$")]
"""An option value passed on to pytest (a profile, a seed): no spaces, no controls."""

Line = Annotated[str, StringConstraints(max_length=100_000)]


def _printable(text: str) -> str:
    # shown to the person deciding whether to run it: nothing may hide part of it
    if not text.isprintable():
        bad = next(c for c in text if not c.isprintable())
        raise ValueError(f"contains the control character U+{ord(bad):04X}")
    return text


Printable = Annotated[
    str, StringConstraints(min_length=1, max_length=10_000), AfterValidator(_printable)
]


class ReproError(ValueError):
    """A repro file that cannot be read or is not a v1 repro file."""


CounterName = Annotated[str, StringConstraints(pattern=r"^[A-Za-z_][A-Za-z0-9_]{0,100}$")]
"""A module-level name in the test module, e.g. _counter."""

LawId = Annotated[str, StringConstraints(pattern=r"^[a-z0-9][a-z0-9.-]{0,100}$")]


class TestRef(BaseModel):
    """Where the failing test lives, independent of the directory it was run from."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    module: str = Field(
        pattern=LAW_MODULE_PATTERN,
        max_length=200,
        description="a law test module of the suite, e.g. conformance.laws.test_run",
    )
    name: str = Field(
        pattern=TEST_NAME_PATTERN,
        max_length=500,
        description="the test's name with its parameters, e.g. test_x[openai-chat]",
    )
    nodeid: Line = Field(description="pytest's node id in the original run (for reading)")
    source_sha256: str = Field(
        pattern=r"^[0-9a-f]{64}$",
        description="hash of the test module's source: a replay of a changed test is refused",
    )


class ShrunkExample(BaseModel):
    """Hypothesis' minimal failing example. `blob` is what Hypothesis prints for
    `@reproduce_failure(version, blob)`: replaying it runs exactly that example."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    hypothesis_version: str = Field(pattern=r"^[0-9]{1,4}(\.[0-9]{1,6}){1,3}$")
    blob: str = Field(
        pattern=r"^[A-Za-z0-9+/=]+$",
        max_length=1_000_000,
        description="the bytes literal's text, e.g. AXicY2BgAAAABAAB",
    )
    steps: list[Line] = Field(
        default_factory=list, description="what Hypothesis printed: the falsifying example"
    )


class ReproFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    format: Literal["turnlaw-repro"] = "turnlaw-repro"
    version: Literal[1] = 1
    law: LawId = Field(description="the first law the test checks (the file is named after it)")
    laws: list[LawId]
    test: TestRef
    implementation: Printable = Field(
        description="the --impl it failed against; replay runs it only with --impl-from-file"
    )
    dialect: Dialect | None = None
    hypothesis_profile: Token | None = None
    hypothesis_seed: Token | None = None
    outcome: Outcome
    failure: Line = Field(description="the failure's message (clipped)")
    example: ShrunkExample | None = None
    wire: list[dict[str, Any]] = Field(
        default_factory=list,
        description="the fake provider's normalized recording of the failing test",
    )
    counters: dict[CounterName, int] = Field(
        default_factory=dict,
        description="the test module's counters (itertools.count) as the test started: "
        "a replay starts them there, so it can send the same wire",
    )
    suite_version: Token

    def short_hash(self) -> str:
        """Stable for the same test, implementation and example: a rerun overwrites."""
        key = json.dumps(
            [
                self.test.module,
                self.test.name,
                self.implementation,
                self.example and self.example.blob,
            ]
        )
        return hashlib.sha256(key.encode()).hexdigest()[:10]

    def file_name(self) -> str:
        return f"{self.law}-{self.short_hash()}.json"


def source_sha256(module_file: str | Path) -> str:
    return hashlib.sha256(Path(module_file).read_bytes()).hexdigest()


def load_repro(path: Path) -> ReproFile:
    """The repro file at `path`, or a ReproError saying what is wrong with it."""
    try:
        with path.open("rb") as file:
            content = file.read(MAX_REPRO_BYTES + 1)
    except OSError as error:
        raise ReproError(f"{path}: cannot read the repro file: {error}") from error
    if len(content) > MAX_REPRO_BYTES:
        raise ReproError(
            f"{path}: not a turnlaw repro file (v1): larger than {MAX_REPRO_BYTES} bytes"
        )
    try:
        return ReproFile.model_validate_json(content)
    except ValidationError as error:
        problems = error.errors(include_url=False)
        first = problems[0]
        field = ".".join(str(part) for part in first["loc"]) or "(document)"
        more = f" (and {len(problems) - 1} more problems)" if len(problems) > 1 else ""
        message = f"{field}: {first['msg']}"[:500]
        raise ReproError(f"{path}: not a turnlaw repro file (v1): {message}{more}") from error


def repro_file_schema() -> dict[str, Any]:
    """JSON Schema of a repro file (schemas/repro-file-v1.json)."""
    schema = ReproFile.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$id"] = "https://turnlaw.dev/schemas/repro-file-v1.json"
    return schema
