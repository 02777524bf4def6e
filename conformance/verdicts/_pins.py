"""The framework version an expectation manifest was written against.

A manifest records what one release of a framework did. Run against another release, its
entries would be judged against behaviour nobody looked at, so a manifest may pin the
release (`[framework] package = "..." version = "..."`) and the run refuses to start when
the installed version differs (the manifest loader raises what `pin_problem` says).
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

DISTRIBUTION_NAME = r"^[A-Za-z0-9]([A-Za-z0-9._-]{0,200}[A-Za-z0-9])?$"
"""A distribution name as packaging spells it (PEP 508), checked before it is looked up."""


class FrameworkPin(BaseModel):
    """`[framework]` in a manifest: the distribution and the exact version it describes."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    package: str = Field(pattern=DISTRIBUTION_NAME)
    version: str = Field(pattern=r"^\S{1,200}$")  # a release has no white space in it


def pin_problem(path: Path, pin: FrameworkPin) -> str | None:
    """Why the installed version does not match the pin, or None when it does."""
    try:
        installed = version(pin.package)
    except PackageNotFoundError:
        return (
            f"--expectations {path} describes {pin.package} {pin.version}, which is not "
            "installed: install that version (see pyproject.toml's extras)"
        )
    if installed != pin.version:
        return (
            f"--expectations {path} describes {pin.package} {pin.version}, but {installed} is "
            "installed: run the suite without --expectations, write down what this release "
            "does, then move the pin (and the pyproject extra) to it"
        )
    return None
