"""The suite needs no provider SDK: only the bundled reference runtime does.

A framework that pins `openai<3`, or has no `anthropic`, installs turnlaw beside itself
(`nox -s beside-openai2` does it for real, with openai 2.x installed). These tests hide
the SDKs from a child interpreter (a `None` in `sys.modules` makes their import fail as
a missing module does) and check what still works, and what a user is told.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.timeout(300)
"""Each test starts an interpreter that imports the suite (and tries the reference): on a
busy machine, past the project's 60 s. The child's own deadline is below it."""

HIDE_SDKS = "import sys\nsys.modules['openai'] = None\nsys.modules['anthropic'] = None\n"


def run_without_sdks(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", HIDE_SDKS + textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_suite_the_fake_and_the_stdio_connector_import_without_an_sdk() -> None:
    done = run_without_sdks(
        """
        import conformance.adapter, conformance.catalog, conformance.errors
        import conformance.laws._kit, conformance.runner.plugin, conformance.stdio
        import conformance.wire, conformance.wire.in_process, conformance.wire.loopback
        import conformance.verdicts.matrix, conformance.replay.player
        print("imported")
        """
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "imported"


def test_the_hidden_sdks_really_are_hidden() -> None:
    done = run_without_sdks("import reference_impl.providers.openai_chat\n")  # an SDK on first use
    assert done.returncode != 0 and "ModuleNotFoundError" in done.stderr


def test_the_default_reference_without_its_sdks_says_which_extra_to_install() -> None:
    done = run_without_sdks(
        """
        import pytest
        raise SystemExit(pytest.main(
            ["-p", "conformance.runner.plugin", "--pyargs", "conformance.laws", "-q",
             "-p", "no:cacheprovider"]
        ))
        """
    )
    assert done.returncode == 4, done.stdout + done.stderr  # a usage error, not a red run
    said = done.stdout + done.stderr
    assert "install 'turnlaw[reference]'" in said
    assert "through cmd:" in said and "pass --impl for your own runtime" in said


def test_an_sdk_too_old_for_the_reference_is_named_before_anything_runs() -> None:
    """A framework's openai 2.x beside anthropic: the reference would import and then fail
    in confusing ways (openai 2.x refuses its tools' schemas); it refuses at import."""
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            textwrap.dedent(
                """
                import importlib.metadata as metadata
                real = metadata.version
                metadata.version = lambda name: "2.54.0" if name == "openai" else real(name)
                import pytest
                raise SystemExit(pytest.main(
                    ["-p", "conformance.runner.plugin", "--pyargs", "conformance.laws", "-q",
                     "-p", "no:cacheprovider"]
                ))
                """
            ),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    said = done.stdout + done.stderr
    assert done.returncode == 4, said
    assert "reference_impl needs openai>=3, but openai 2.54.0 is installed" in said
