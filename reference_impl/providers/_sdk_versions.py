"""The SDK releases the reference's providers are written against, checked on import.

The suite installs beside any SDK version (the SDKs are the `reference` extra), so the
reference may find an older release installed by a user's framework. It would then run
and fail in confusing ways (openai 2.x refuses the tools' non-strict schemas at run
time); an ImportError naming the SDK says at once what is wrong, and the runner turns
it into a usage error with the way out.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version
from importlib.util import find_spec

NEEDED = {"openai": 3, "anthropic": 2}
"""The oldest major release of each SDK the providers support (pyproject's extra)."""


def check_sdk_versions() -> None:
    """Raise ImportError (its `name` the SDK) if an SDK is missing or older than NEEDED.

    Missing is said now, not at the first agent of its dialect: each provider imports its
    SDK when first used, so the runtime would otherwise load and fail mid-run."""
    for sdk, major in NEEDED.items():
        if find_spec(sdk) is None:
            raise ModuleNotFoundError(
                f"reference_impl needs {sdk}>={major}, which is missing", name=sdk
            )
        try:
            found = version(sdk)
        except PackageNotFoundError:
            continue  # importable but not installed as a distribution: nothing to compare
        leading = found.split(".", 1)[0]
        if leading.isdigit() and int(leading) < major:
            raise ImportError(
                f"reference_impl needs {sdk}>={major}, but {sdk} {found} is installed",
                name=sdk,
            )
