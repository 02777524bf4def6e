"""The results file (`--results FILE`): its format, and reading it back.

JSON lines: one header (suite version, implementation, capabilities, dialects, the
manifest's entries, seed, start time), one record per test and law, and one footer (the number of
records, per-law totals, the manifest's problems, the laws and tests left without a
verdict, the verdict). A file without a footer is a truncated run.

`read_results` raises `ResultsFileError` for a file it cannot read at all (missing,
not UTF-8, a line that is not JSON, a record that is not an object or has a field of the
wrong type). A file it can read may still not be one whole run: `inconsistencies()`
lists what does not add up (no header or several, a footer that is not last, totals or
a record count the records do not give, laws the registry does not know).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError

from ..registry import load_laws
from ._expectations import Expectation
from ._outcomes import Outcome, TestRecord
from ._verdict import law_outcomes, manifest_problems, red_reasons


class ResultsFileError(ValueError):
    """A results file that cannot be read: which file, which line, what is wrong."""

    def __init__(self, path: Path, problem: str, line: int | None = None) -> None:
        where = f"{path}" if line is None else f"{path}, line {line}"
        super().__init__(one_line(f"{where}: {problem}"))
        self.path = path
        self.line = line
        self.problem = problem


class ResultsHeader(BaseModel):
    """The first line: what ran, against what, under which manifest."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    type: Literal["header"] = "header"
    suite: Literal["turnlaw"] = "turnlaw"
    suite_version: str
    implementation: str
    implementation_version: str | None = None
    """Optional on an Implementation: the framework release under test."""
    implementation_notes: list[str] = []
    capabilities: list[str]
    dialects: list[str] = []
    """The dialects every law ran in: those asked for that the implementation offers."""
    deliveries: list[str] = []
    """The deliveries every law was parametrized over (stream, whole); one the
    implementation does not offer ran as NOT_APPLICABLE."""
    expectations: dict[str, Expectation] = {}
    seed: str = ""
    started: str


class ResultsFooter(BaseModel):
    """The last line, written when the run ends: what it found, and its verdict."""

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)

    type: Literal["footer"] = "footer"
    records: int = Field(ge=0)
    """How many test records the run wrote: a removed or added line shows."""
    totals: dict[Outcome, int]
    """Laws per outcome (every outcome, zero included)."""
    problems: list[str] = []
    """What the manifest got wrong: unexpected passes, stale entries."""
    unjudged: list[str] = []
    """Laws a selected test checks that got no verdict (sorted)."""
    not_run: list[str] = []
    """Selected law tests that never reported (the run stopped, or a test never ran)."""
    verdict: Literal["green", "red"]


ResultsLine = Annotated[ResultsHeader | TestRecord | ResultsFooter, Field(discriminator="type")]
_LINE: TypeAdapter[ResultsHeader | TestRecord | ResultsFooter] = TypeAdapter(ResultsLine)


class ResultsFile(BaseModel):
    """A results file read back: header, records, footer (None when truncated), and
    where its lines are out of place."""

    header: dict[str, Any]
    """The header as written ({} when there is none), checked against ResultsHeader."""
    expectations: dict[str, Expectation] = {}
    """The manifest's entries the run was judged by (from the header)."""
    records: list[TestRecord]
    footer: ResultsFooter | None
    misplaced: list[str] = []
    """Lines that break the layout: a second header, a header not first, a line after
    the footer."""

    @property
    def truncated(self) -> bool:
        return self.footer is None

    def per_law(self) -> dict[str, Outcome]:
        return law_outcomes(self.records, self.expectations)

    def inconsistencies(self) -> list[str]:
        """What keeps this file from being one whole, consistent run (truncation aside)."""
        found = list(self.misplaced)
        if not self.header:
            found.append("no header: not the start of a run")
        laws = load_laws()
        unknown = sorted(({r.law for r in self.records} | set(self.expectations)) - set(laws))
        if unknown:
            found.append(f"laws the registry does not know: {', '.join(map(repr, unknown))}")
        found += _impossible_records(self.records, self.expectations)
        if self.footer is None:
            return found
        footer = self.footer
        if footer.records != len(self.records):
            found.append(
                f"the footer counts {footer.records} records, the file holds {len(self.records)}"
            )
        totals = _totals(self.per_law())
        if footer.totals != totals:
            found.append(
                f"the footer's totals {_shown(footer.totals)} are not the records' {_shown(totals)}"
            )
        problems = manifest_problems(self.per_law(), self.expectations, footer.unjudged)
        if footer.problems != problems:
            found.append(f"the footer's problems {footer.problems} are not the records' {problems}")
        verdict = "red" if self.red_reasons() else "green"
        if footer.verdict != verdict:
            found.append(f"the footer says {footer.verdict}, the records say {verdict}")
        return found

    def red_reasons(self) -> list[str]:
        """Why the run this file records is red (from its records and the footer's
        account of what was never judged); no line: green."""
        footer = self.footer
        outcomes = self.per_law()
        unjudged = footer.unjudged if footer else []
        problems = manifest_problems(outcomes, self.expectations, unjudged)
        not_run = footer.not_run if footer else []
        return red_reasons(outcomes, problems, unjudged, not_run, self.expectations, self.records)


def _impossible_records(records: list[TestRecord], expected: dict[str, Expectation]) -> list[str]:
    """Records the suite never writes: XPASS is a law's outcome, not a test's; an XFAIL
    needs an entry expecting FAIL (its law's, or for an unmet premise the premise law's),
    and a FAIL cannot have one (it would be an XFAIL)."""
    found = []
    for record in records:
        entry = expected.get(record.law)
        expects_failure = entry is not None and entry.outcome is Outcome.FAIL
        if record.outcome is Outcome.XFAIL and record.premise is not None:
            premise_entry = expected.get(record.premise)
            expects_failure = premise_entry is not None and premise_entry.outcome is Outcome.FAIL
        if (
            record.outcome is Outcome.XPASS
            or (record.outcome is Outcome.XFAIL and not expects_failure)
            or (record.outcome is Outcome.FAIL and expects_failure)
        ):
            found.append(
                f"a {record.outcome.value} record for {record.law!r} ({record.test!r}), which "
                "the header's manifest entries do not allow"
            )
    return found


def _totals(outcomes: dict[str, Outcome]) -> dict[Outcome, int]:
    counts = dict.fromkeys(Outcome, 0)
    for outcome in outcomes.values():
        counts[outcome] += 1
    return counts


def _shown(totals: dict[Outcome, int]) -> str:
    return ", ".join(f"{o.value} {n}" for o, n in totals.items() if n) or "none"


def read_results(path: Path) -> ResultsFile:
    """The file's lines, typed; ResultsFileError when a line cannot be read as one."""
    try:
        raw = path.read_bytes()
    except OSError as error:
        raise ResultsFileError(path, f"cannot read it ({error.strerror or error})") from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as error:
        at_line = raw.count(b"\n", 0, error.start) + 1
        raise ResultsFileError(
            path, f"not UTF-8 (byte 0x{raw[error.start]:02x} at offset {error.start})", at_line
        ) from None
    header: ResultsHeader | None = None
    records: list[TestRecord] = []
    footer: ResultsFooter | None = None
    misplaced: list[str] = []
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            parsed = _LINE.validate_json(line)
        except ValidationError as error:
            raise ResultsFileError(path, _line_problem(error), number) from None
        if footer is not None:
            misplaced.append(f"line {number}: a {parsed.type} after the footer")
        if isinstance(parsed, ResultsHeader):
            if header is not None or records:
                misplaced.append(f"line {number}: a header that is not the first line")
            if header is None:
                header = parsed
        elif isinstance(parsed, ResultsFooter):
            footer = parsed
        else:
            records.append(parsed)
    return ResultsFile(
        header=header.model_dump(mode="json") if header else {},
        expectations=header.expectations if header else {},
        records=records,
        footer=footer,
        misplaced=misplaced,
    )


def one_line(text: str) -> str:
    """`text` with every character that would break it across lines or hide in a terminal
    (newlines, record separators, escapes) written as its escape: the message `report`
    prints is one line, whatever a damaged file names."""
    if text.isprintable():
        return text
    return "".join(ch if ch.isprintable() else ch.encode("unicode_escape").decode() for ch in text)


def _line_problem(error: ValidationError) -> str:
    first = error.errors(include_url=False)[0]
    kind, loc = first["type"], first["loc"]
    if kind == "json_invalid":
        return f"not JSON ({first['msg'].removeprefix('Invalid JSON: ')})"
    if kind == "model_attributes_type" or (kind == "dict_type" and not loc):
        return f"not a JSON object but {type(first.get('input')).__name__}"
    if kind in ("union_tag_not_found", "union_tag_invalid"):
        return "not a results line: its `type` must be header, test or footer"
    field = ".".join(str(part) for part in loc[1:]) or "the line"
    return f"a {loc[0]} line with a bad {field}: {first['msg']}"
