"""turnlaw's conformance package: the fake provider (`conformance.wire`), the laws
(`conformance.laws`) and `run`, the one way to run them against an implementation."""

from ._run import RunOptions, command, pytest_args, run, run_options

__version__ = "0.1.0"

__all__ = ["RunOptions", "__version__", "command", "pytest_args", "run", "run_options"]
