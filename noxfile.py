"""turnlaw's automation. `nox` runs the default set: the tests, the conformance run
against the bundled reference, the runs against the third-party frameworks, and the lint.

Sessions use uv when it is installed (`pip install "nox[uv]"`), else virtualenv.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import nox

nox.options.default_venv_backend = "uv|virtualenv"
nox.options.sessions = [
    "tests",
    "conformance",
    "rogues",
    "thirdparty-pydantic_ai",
    "thirdparty-openai_agents",
    "thirdparty-langgraph",
    "thirdparty-letta_code",
    "js-runtime",
    "beside-openai2",
    "lint",
]
nox.options.reuse_existing_virtualenvs = True

PYTHON = "3.11"
RESULTS = Path("build/conformance")
"""Where conformance runs write their results, one file per matrix column."""
THIRDPARTY = {
    "pydantic_ai": "pydantic-ai",
    "openai_agents": "openai-agents",
    "langgraph": "langgraph",
    "letta_code": "letta",
}
"""Adapter module in conformance/frameworks -> its pyproject extra, manifest and matrix column."""
TYPED_WITH = ("pydantic-ai", "openai-agents", "langgraph")
"""The extras mypy needs installed to check their adapters (Letta Code is a CLI the adapter
drives over pipes: nothing of it is imported, so its 280 MB stay out of the lint venv)."""
SUITE = ["-m", "conformance", "run"]
"""A conformance run, as users start it (conformance.run); other arguments go to pytest."""
PARALLEL = ["-n", "auto"]
"""pytest-xdist, one worker per core: the controller alone judges, writes the results file
and checks the manifest (docs/suite.md, Running in parallel)."""


@nox.session(python=PYTHON)
def tests(session: nox.Session) -> None:
    """The test suite (pytest on tests/). Extra arguments go to pytest."""
    session.install("-e", ".[test]")
    # the kill matrix and the adapters' own checks have sessions of their own
    session.run(
        "pytest", *PARALLEL, "--ignore=tests/rogues", "--ignore=tests/thirdparty", *session.posargs
    )


@nox.session(python=PYTHON)
def rogues(session: nox.Session) -> None:
    """The kill matrix: the suite against the reference and every rogue in tests/rogues/.

    Fails when a rogue survives its target laws, a MUST law is unguarded, the reference
    fails, or docs/kill-matrix.md is stale (`nox -s rogues -- --write` rewrites it).
    """
    session.install("-e", ".[test]")
    if "--write" in session.posargs:
        session.run("python", "-m", "tests.rogues", *session.posargs)
        return
    session.run("pytest", "tests/rogues", "-q", *session.posargs)


@nox.session(python=PYTHON)
def mutants(session: nox.Session) -> None:
    """The mutant run: the suite against every mutant of reference_impl/ (tests/mutants/).

    Long (a suite run per mutant), so not in the default
    set. Arguments go to `python -m tests.mutants` (`--only ID ...`, `--workers N`,
    `--write` rewrites docs/mutants.md).
    """
    session.install("-e", ".[test]")
    session.run("python", "-m", "tests.mutants", *session.posargs)


@nox.session(python=PYTHON)
def conformance(session: nox.Session) -> None:
    """Every law against the bundled reference, or `-- --impl module:attr` against yours.

    Everything after `--` goes to pytest: `--impl`, `--dialects`, `--results FILE`,
    `--report-md FILE`, `--expectations FILE`, `--hypothesis-profile thorough`, `-k`.
    """
    session.install("-e", ".[reference]")
    if session.posargs:  # your runtime: the matrix has no column for it
        # `python -m pytest` puts the current directory on sys.path: your adapter
        session.run("python", *SUITE, "--hypothesis-profile=ci", "-q", *session.posargs)
        return
    results = RESULTS / "reference.jsonl"
    session.run(
        "python", *SUITE, *PARALLEL, "--hypothesis-profile=ci", "-q", f"--results={results}"
    )
    session.run("python", "-m", "conformance", "matrix", "--check", "--results", str(results))


def _thirdparty(module: str, name: str) -> None:
    def run(session: nox.Session) -> None:
        adapter = Path("conformance/frameworks") / module
        if not (adapter.with_suffix(".py").exists() or (adapter / "__init__.py").exists()):
            session.error(f"{adapter} does not exist: the {name} adapter is not written yet")
        session.install("-e", f".[test,{name}]")
        results = RESULTS / f"{name}.jsonl"
        session.run(
            "python",
            *SUITE,
            "--hypothesis-profile=ci",
            "-q",
            "--impl",
            f"conformance.frameworks.{module}:implementation",
            # FILE after `=`: a separate argument naming a file that exists is also read by
            # pytest as a path, and moves the rootdir
            f"--expectations=expectations/{name}.toml",
            f"--results={results}",
            *session.posargs,
        )
        if session.posargs:  # a narrowed run (-k, -x, ...) is not a whole column
            session.log("pytest arguments given: not checking the matrix column")
            return
        session.run("python", "-m", "conformance", "matrix", "--check", "--results", str(results))
        own_tests = sorted(str(p) for p in Path("tests/thirdparty").glob(f"test_{module}_*.py"))
        if own_tests:  # the adapter's own checks, with its framework installed
            session.run("pytest", *own_tests, "-q")

    run.__doc__ = (
        f"Every law against {name} (the pinned `{name}` extra) with expectations/{name}.toml; "
        "then the fresh run must match its column of docs/conformance-matrix.md."
    )
    nox.session(run, python=PYTHON, name=f"thirdparty-{module}")


for _module, _name in THIRDPARTY.items():
    _thirdparty(_module, _name)


@nox.session(name="conformance-matrix", python=PYTHON)
def conformance_matrix(session: nox.Session) -> None:
    """Rewrite docs/conformance-matrix.md (and the README's summary) from the results the
    conformance and thirdparty-* sessions left in build/conformance/: run those first."""
    session.install("-e", ".")
    found = sorted(str(path) for path in RESULTS.glob("*.jsonl"))
    if not found:
        session.error(f"no results in {RESULTS}: run nox -s conformance thirdparty-... first")
    session.run("python", "-m", "conformance", "matrix", "--results", *found)


@nox.session(python=PYTHON, name="js-runtime")
def js_runtime(session: nox.Session) -> None:
    """Every law against examples/js-runtime (plain JavaScript on Node, no npm packages)
    through its stdio adapter, with its expectation manifest. Needs `node` (20+) on PATH."""
    session.install("-e", ".")
    repro = session.create_tmp()  # a failing law's repro file lands here, not in the repo
    session.run(
        "python",
        *SUITE,
        "--hypothesis-profile=ci",
        "-q",
        "--impl",
        "cmd:node examples/js-runtime/adapter.mjs",
        "--validate-protocol",
        "--expectations=examples/js-runtime/expectations.toml",
        f"--repro-dir={repro}/repro",
        *session.posargs,
    )


BESIDE_OPENAI2 = """
import importlib.util, openai
assert openai.__version__.split(".")[0] == "2", openai.__version__
assert importlib.util.find_spec("anthropic") is None, "anthropic is installed"
print(f"turnlaw beside openai {openai.__version__}, without anthropic")
"""


@nox.session(python=PYTHON, name="beside-openai2")
def beside_openai2(session: nox.Session) -> None:
    """turnlaw installed beside a framework that pins `openai<3`, without `anthropic`:
    the suite against a runtime on openai 2.x in-process, then against the reference,
    which lives in its own environment (with its SDKs) and is driven through `cmd:`."""
    session.install("openai<3")
    session.install("-e", ".")  # the suite alone: no SDK of its own
    session.run("python", "-c", BESIDE_OPENAI2)
    suite = ["python", *SUITE, "--hypothesis-profile=ci", "-q", "-p", "no:cacheprovider"]
    session.run(*suite, "--impl", "examples.beside_openai2.adapter:implementation")
    reference = Path(session.create_tmp()) / "reference-env"
    python = _environment_with_the_reference(session, reference)
    # every message both ways checked against the protocol's models
    stdio = ["--impl", f"cmd:{python} -m reference_impl.stdio_adapter", "--validate-protocol"]
    # Every agent law through stdio; the hosting and session laws (host processes,
    # backends and sessions) in one dialect and delivery: what they add here is the host
    # and session doors over JSON lines, which do not vary by dialect (the conformance
    # session runs them in every one).
    doors = "test_hosting or test_sessions"
    session.run(*suite, *stdio, "-k", f"not ({doors})")
    session.run(*suite, *stdio, "-k", doors, "--dialects", "openai-chat", "--deliveries", "whole")


def _environment_with_the_reference(session: nox.Session, folder: Path) -> Path:
    """A second virtualenv holding turnlaw with the reference's SDKs; its python."""
    python = folder / "bin" / "python"
    uv = shutil.which("uv") or _bundled_uv()
    if uv:
        session.run(
            uv,
            "venv",
            "--quiet",
            "--allow-existing",
            "--python",
            PYTHON,
            str(folder),
            external=True,
        )
        session.run(
            uv,
            "pip",
            "install",
            "--quiet",
            "--python",
            str(python),
            "-e",
            ".[reference]",
            external=True,
        )
    else:
        session.run(sys.executable, "-m", "venv", str(folder), external=True)
        session.run(
            str(python), "-m", "pip", "install", "--quiet", "-e", ".[reference]", external=True
        )
    return python


def _bundled_uv() -> str | None:
    """The uv that `pip install "nox[uv]"` put beside nox, if any."""
    try:
        from uv import find_uv_bin
    except ImportError:
        return None
    return str(find_uv_bin())


@nox.session(python=PYTHON)
def snapshots(session: nox.Session) -> None:
    """Regenerate the reference's wire recordings in recordings/reference/ (and delete
    recordings no scenario produces any more)."""
    session.install("-e", ".[test]")
    session.run("pytest", "tests/snapshots", "--snapshot-update", "-q", *session.posargs)


@nox.session(python=PYTHON)
def lint(session: nox.Session) -> None:
    """ruff on everything, mypy --strict on the packages (the adapters with their frameworks)."""
    session.install("-e", f".[test,lint,{','.join(TYPED_WITH)}]")
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
def sessions(session: nox.Session) -> None:
    """The sessions tour (examples/sessions/tour.py): the reference session runtime, the
    fake and a client as real processes, each step with what the model was shown."""
    session.install("-e", ".[reference]")
    session.run("python", "examples/sessions/tour.py", *session.posargs)


@nox.session(python=PYTHON)
def benchmarks(session: nox.Session) -> None:
    """Cost of the fake against bare baselines, side by side, as ratios; then the suite's
    own rows (`python -m benchmarks.conformance_run`): collection, the harness floor, the
    agent laws, every law, the kill run, the host launcher and the five slowest laws, each
    in seconds and as a ratio to a floor timed in the same run. The long rows (agent,
    every law, kill) get one round."""
    session.install("-e", ".[test]")
    session.run("python", "-m", "benchmarks", *session.posargs)
    session.run("python", "-m", "benchmarks.conformance_run")
