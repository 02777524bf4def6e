"""conformance.frameworks costs nothing until an adapter is asked for, an adapter whose
framework is missing says how to install it, and its old name, conformance.adapters,
still imports the same modules (warning once) for one release."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

FRAMEWORKS = ("pydantic_ai", "agents", "langgraph", "langchain_openai")


def python(code: str, *args: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", code, *map(str, args)],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
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


STAND_IN = (
    "import sys, types\n"
    "import conformance.frameworks\n"
    "from reference_impl.conformance_adapter import implementation\n"
    "# a framework package with a submodule, as if it were installed: the real ones'\n"
    "# frameworks are not (letta_code's own __init__ needs Letta Code)\n"
    "stand_in = types.ModuleType('conformance.frameworks.stand_in')\n"
    "stand_in.__path__ = [sys.argv[1]]\n"
    "sys.modules[stand_in.__name__] = stand_in\n"
)


def test_the_old_name_is_the_same_modules_with_one_warning(tmp_path: Path) -> None:
    (tmp_path / "inner.py").write_text("implementation = None\n")
    run = python(
        STAND_IN + "import warnings\n"
        "warnings.simplefilter('always')\n"
        "with warnings.catch_warnings(record=True) as seen:\n"
        "    import conformance.adapters.stand_in.inner as old_inner\n"
        "    from conformance.adapters import kit, reporting_failures\n"
        "    import conformance.adapters.kit\n"
        "import conformance.frameworks.kit as new_kit\n"
        "import conformance.frameworks.stand_in.inner as new_inner\n"
        "assert old_inner is new_inner and kit is new_kit, (old_inner, new_inner)\n"
        "assert sys.modules['conformance.adapters.kit'] is new_kit\n"
        "assert reporting_failures is new_kit.reporting_failures\n"
        "for module in (new_kit, new_inner):  # its own spec, not the old name's\n"
        "    assert module.__spec__.name == module.__name__, module.__spec__\n"
        "assert [w.category for w in seen] == [DeprecationWarning], seen\n"
        "print(seen[0].message)\n",
        tmp_path,
    )
    assert run.returncode == 0, run.stderr
    assert "renamed conformance.frameworks" in run.stdout, run.stdout


def test_an_impl_string_under_the_old_name_loads_the_same_implementation(tmp_path: Path) -> None:
    (tmp_path / "inner.py").write_text(
        "from reference_impl.conformance_adapter import implementation\n"
    )
    run = python(
        STAND_IN + "from conformance.runner.plugin import load_implementation\n"
        "old = load_implementation('conformance.adapters.stand_in.inner:implementation')\n"
        "assert old is implementation, old\n",
        tmp_path,
    )
    assert run.returncode == 0, run.stderr


def test_a_name_that_never_existed_is_still_missing() -> None:
    run = python("import conformance.adapters.nothing_here\n")
    assert run.returncode == 1
    assert "No module named 'conformance.frameworks.nothing_here'" in run.stderr, run.stderr
