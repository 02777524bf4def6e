"""turnlaw's automation. `nox` runs the default set: the tests, the conformance run
against the bundled reference, and the lint.

Sessions use uv when it is installed (`pip install "nox[uv]"`), else virtualenv.
"""

from __future__ import annotations

import nox

nox.options.default_venv_backend = "uv|virtualenv"
nox.options.sessions = ["tests", "conformance", "js-runtime", "lint"]
nox.options.reuse_existing_virtualenvs = True

PYTHON = "3.11"


@nox.session(python=PYTHON)
def tests(session: nox.Session) -> None:
    """The test suite (pytest on tests/). Extra arguments go to pytest."""
    session.install("-e", ".[test]")
    session.run("pytest", *session.posargs)


@nox.session(python=PYTHON)
def conformance(session: nox.Session) -> None:
    """Every law against the bundled reference, or `-- --impl module:attr` against yours.

    Everything after `--` goes to pytest: `--impl`, `--dialects`, `--results FILE`,
    `--report-md FILE`, `--expectations FILE`, `--hypothesis-profile thorough`, `-k`.
    """
    session.install("-e", ".")
    session.run(
        "python",  # `python -m pytest` puts the current directory on sys.path: your adapter
        "-m",
        "pytest",
        "-p",
        "conformance.runner.plugin",
        "--pyargs",
        "conformance.laws",
        "--hypothesis-profile=ci",
        "-q",
        *session.posargs,
    )


@nox.session(python=PYTHON, name="js-runtime")
def js_runtime(session: nox.Session) -> None:
    """Every law against examples/js-runtime (plain JavaScript on Node, no npm packages)
    through its stdio adapter, with its expectation manifest. Needs `node` (20+) on PATH."""
    session.install("-e", ".")
    repro = session.create_tmp()  # a failing law's repro file lands here, not in the repo
    session.run(
        "python",
        "-m",
        "pytest",
        "-p",
        "conformance.runner.plugin",
        "--pyargs",
        "conformance.laws",
        "--hypothesis-profile=ci",
        "-q",
        "--impl",
        "cmd:node examples/js-runtime/adapter.mjs",
        "--validate-protocol",
        "--expectations",
        "examples/js-runtime/expectations.toml",
        "--repro-dir",
        f"{repro}/repro",
        *session.posargs,
    )


@nox.session(python=PYTHON)
def snapshots(session: nox.Session) -> None:
    """Regenerate the reference's wire recordings in recordings/reference/ (and delete
    recordings no scenario produces any more)."""
    session.install("-e", ".")
    session.run("pytest", "tests/snapshots", "--snapshot-update", "-q", *session.posargs)


@nox.session(python=PYTHON)
def lint(session: nox.Session) -> None:
    """ruff on everything, mypy --strict on the packages."""
    session.install("-e", ".[test,lint]")
    session.run("ruff", "check", ".")
    session.run("ruff", "format", "--check", ".")
    session.run("mypy")


@nox.session(python=PYTHON)
def demo(session: nox.Session) -> None:
    """The provider demo: real SDKs against the loopback fake, then the recorded wire."""
    session.install("-e", ".[test]")
    session.run("python", "examples/wire_demo.py", *session.posargs)


@nox.session(python=PYTHON)
def conversations(session: nox.Session) -> None:
    """Every door of the conversation laws, run by the reference runtime against the fake."""
    session.install("-e", ".[test]")
    session.run("python", "examples/conversations.py", *session.posargs)


@nox.session(python=PYTHON)
def benchmarks(session: nox.Session) -> None:
    """Cost of the fake against bare baselines, side by side, as ratios; then the whole
    conformance run against the reference and against the harness's floor."""
    session.install("-e", ".[test]")
    session.run("python", "-m", "benchmarks", *session.posargs)
    session.run("python", "-m", "benchmarks.conformance_run")
