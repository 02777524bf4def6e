"""The framework version an expectation manifest was written against.

A manifest records what one release of a framework did. Run against another release, its
entries would be judged against behaviour nobody looked at, so a manifest may pin the
release (`[framework] package = "..." version = "..."`) and the run refuses to start when
the installed version differs.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel, ConfigDict, ValidationError


class FrameworkPin(BaseModel):
    """`[framework]` in a manifest: the distribution and the exact version it describes."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    package: str
    version: str


def check_pin(path: Path, data: dict[str, Any]) -> FrameworkPin | None:
    """The manifest's pin, after checking that the installed version matches it."""
    if "framework" not in data:
        return None
    try:
        pin = FrameworkPin.model_validate(data["framework"])
    except ValidationError as error:
        raise pytest.UsageError(f"--expectations {path}: [framework] {error}") from error
    try:
        installed = version(pin.package)
    except PackageNotFoundError:
        raise pytest.UsageError(
            f"--expectations {path} describes {pin.package} {pin.version}, which is not "
            "installed: install that version (see pyproject.toml's extras)"
        ) from None
    if installed != pin.version:
        raise pytest.UsageError(
            f"--expectations {path} describes {pin.package} {pin.version}, but {installed} is "
            "installed: run the suite without --expectations, write down what this release "
            "does, then move the pin (and the pyproject extra) to it"
        )
    return pin
