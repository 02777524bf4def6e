"""conformance.frameworks costs nothing until an adapter is asked for, and an adapter whose
framework is missing says how to install it."""

from __future__ import annotations

import subprocess
import sys

FRAMEWORKS = ("pydantic_ai", "agents", "langgraph", "langchain_openai")


def python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=False
    )


def test_the_package_imports_no_framework() -> None:
    run = python(
        "import sys, conformance.frameworks\n"
        f"loaded = [m for m in {FRAMEWORKS!r} if m in sys.modules]\n"
        "assert not loaded, loaded"
    )
    assert run.returncode == 0, run.stderr


def test_a_missing_framework_names_the_extra_to_install() -> None:
    run = python(
        "import sys\n"
        "sys.modules['pydantic_ai'] = None  # as if it were not installed\n"
        "import conformance.frameworks.pydantic_ai\n"
    )
    assert run.returncode == 1
    assert 'pip install "turnlaw[pydantic-ai]"' in run.stderr
