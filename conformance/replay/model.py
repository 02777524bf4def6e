"""The repro file: one failing law test, stored so it can be replayed anywhere.

`repro/<law-id>-<short-hash>.json` holds which test failed (module, parametrized name,
node id), against what (`--impl`, dialect, Hypothesis profile and seed), the shrunk
Hypothesis example when the test is property-based (the `@reproduce_failure` blob and
the steps Hypothesis printed), the fake provider's recording of the failing run, and the
failure itself. `python -m conformance replay FILE --impl ...` replays it.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..runner.outcomes import Outcome
from ..wire.ir import Dialect


class ReproError(ValueError):
    """A repro file that cannot be read or is not a v1 repro file."""


class TestRef(BaseModel):
    """Where the failing test lives, independent of the directory it was run from."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    module: str = Field(description="importable module, e.g. conformance.laws.test_run")
    name: str = Field(description="the test's name with its parameters, e.g. test_x[openai-chat]")
    nodeid: str = Field(description="pytest's node id in the original run (for reading)")
    source_sha256: str = Field(
        description="hash of the test module's source: a replay of a changed test is refused"
    )


class ShrunkExample(BaseModel):
    """Hypothesis' minimal failing example. `blob` is what Hypothesis prints for
    `@reproduce_failure(version, blob)`: replaying it runs exactly that example."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    hypothesis_version: str
    blob: str = Field(description="the bytes literal's text, e.g. AXicY2BgAAAABAAB")
    steps: list[str] = Field(
        default_factory=list, description="what Hypothesis printed: the falsifying example"
    )


class ReproFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    format: Literal["turnlaw-repro"] = "turnlaw-repro"
    version: Literal[1] = 1
    law: str = Field(description="the first law the test checks (the file is named after it)")
    laws: list[str]
    test: TestRef
    implementation: str = Field(description="the --impl it failed against")
    dialect: Dialect | None = None
    hypothesis_profile: str | None = None
    hypothesis_seed: str | None = None
    outcome: Outcome
    failure: str = Field(description="the failure's message (clipped)")
    example: ShrunkExample | None = None
    wire: list[dict[str, Any]] = Field(
        default_factory=list,
        description="the fake provider's normalized recording of the failing test",
    )
    suite_version: str

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
    try:
        return ReproFile.model_validate_json(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise ReproError(f"{path}: cannot read the repro file: {error}") from error
    except ValidationError as error:
        raise ReproError(f"{path}: not a turnlaw repro file (v1): {error}") from error


def repro_file_schema() -> dict[str, Any]:
    """JSON Schema of a repro file (schemas/repro-file-v1.json)."""
    schema = ReproFile.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["$id"] = "https://turnlaw.dev/schemas/repro-file-v1.json"
    return schema
