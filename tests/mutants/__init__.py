"""Source-level mutants of reference_impl/ and the run that measures how many the suite
kills (docs/mutants.md). The catalog is data (`mutants.toml`); `python -m tests.mutants`
runs it."""

from .catalog import CATALOG, DOORS, GAP_CLASSES, Mutant, catalog_problems, load_mutants
from .runner import MutantResult, MutantRun, Verdict, run, run_one

__all__ = [
    "CATALOG",
    "DOORS",
    "GAP_CLASSES",
    "Mutant",
    "MutantResult",
    "MutantRun",
    "Verdict",
    "catalog_problems",
    "load_mutants",
    "run",
    "run_one",
]
