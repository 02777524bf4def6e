"""Canonical wire recordings as syrupy snapshots: one pretty JSON file per scenario and dialect.

    recordings/reference/<scenario>/<dialect>.json

A recording is `provider.wire.export()` stored exactly as exported (key order as sent,
volatile values numbered, credentials redacted, one trailing newline), so a diff of a
recording is a diff of what a runtime put on the wire. The extension names the file from
the test's own parameters, `scenario` and `dialect`:

    @pytest.mark.parametrize("dialect", list(Dialect))
    @pytest.mark.parametrize("scenario", ["book-a-table"])
    async def test_recording(scenario: str, dialect: Dialect, snapshot: SnapshotAssertion):
        ...
        assert provider.wire.export() == snapshot.use_extension(WireRecordingExtension)

`write_recording()` writes the same file form anywhere (a CI artifact, another runtime's
folder of recordings) without going through pytest.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from syrupy.data import Snapshot, SnapshotCollection
from syrupy.extensions.json import JSONSnapshotExtension

from .wire.wirelog import WireLog

if TYPE_CHECKING:
    from syrupy.location import PyTestLocation
    from syrupy.types import (
        PropertyFilter,
        PropertyMatcher,
        SerializableData,
        SerializedData,
        SnapshotIndex,
    )

RECORDINGS_DIR = Path("recordings") / "reference"
"""Where the reference runtime's recordings live, relative to the project root."""

_COMPONENT = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


def _component(kind: str, value: object) -> str:
    """A parameter value as one safe path component (`Dialect.OPENAI_CHAT` -> `openai-chat`)."""
    text = str(getattr(value, "value", value))
    if not _COMPONENT.match(text) or ".." in text:
        raise ValueError(
            f"a recording's {kind} must be one plain path component "
            f"(letters, digits, '_', '.', '-'), got {text!r}"
        )
    return text


def recording_path(directory: str | os.PathLike[str], scenario: object, dialect: object) -> Path:
    """`<directory>/<scenario>/<dialect>.json`, the one layout every recording uses."""
    return (
        Path(directory)
        / _component("scenario", scenario)
        / f"{_component('dialect', dialect)}.json"
    )


def recording_text(recording: str | WireLog) -> str:
    """The file form of a recording: the export string as-is, checked to be JSON, with
    exactly the one trailing newline `WireLog.export()` ends with."""
    text = recording.export() if isinstance(recording, WireLog) else recording
    if not isinstance(text, str):
        raise TypeError(
            "a wire recording is the string provider.wire.export() returns (or the WireLog "
            f"itself), not {type(text).__name__}: a re-serialized object loses the key order"
        )
    try:
        json.loads(text)
    except ValueError as error:
        raise ValueError(f"a wire recording must be JSON: {error}") from error
    return text if text.endswith("\n") else text + "\n"


def write_recording(
    directory: str | os.PathLike[str],
    scenario: object,
    dialect: object,
    recording: str | WireLog,
) -> Path:
    """Write a recording to `<directory>/<scenario>/<dialect>.json` and return the path."""
    path = recording_path(directory, scenario, dialect)
    text = recording_text(recording)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8", newline="\n") as file:
        file.write(text)
    return path


def unexpected_recordings(
    directory: str | os.PathLike[str], expected: Iterable[tuple[object, object]]
) -> list[Path]:
    """Files under `directory` that are not the recording of an expected (scenario, dialect).

    syrupy only reports a snapshot as unused when pytest ran without path arguments (with
    paths it relates a snapshot to a test by the test file's name, and these files are named
    after scenarios and dialects); this gives the same answer for any invocation.
    """
    root = Path(directory)
    wanted = {recording_path(root, scenario, dialect) for scenario, dialect in expected}
    if not root.is_dir():
        return []
    return sorted(
        path
        for path in root.rglob("*")
        if path.is_file() and not path.name.startswith(".") and path not in wanted
    )


def _project_root(test_location: PyTestLocation) -> Path:
    config = getattr(test_location.item, "config", None)
    if config is not None:
        root: Path = config.rootpath
        return root
    # an item rebuilt by pytest-xdist's controller has no config: find the project file
    start = Path(test_location.filepath).resolve().parent
    for folder in (start, *start.parents):
        if (folder / "pyproject.toml").is_file():
            return folder
    return start


class WireRecordingExtension(JSONSnapshotExtension):
    """Store a wire export as `recordings/reference/<scenario>/<dialect>.json`.

    The data is the export *string*: it is written byte for byte (JSONSnapshotExtension
    would re-serialize it as one JSON string literal, and sort the keys of a dict). The
    file is named from the test's parameters `scenario_param` / `dialect_param`, so every
    parametrized case owns exactly one file. A snapshot's name is `<scenario>.<dialect>`,
    which keeps `pytest -k` from claiming another scenario's recording as unused.

    Subclass to record elsewhere: set `recordings_dir` (relative to the project root, or
    absolute) or the parameter names.
    """

    recordings_dir: Path = RECORDINGS_DIR
    scenario_param = "scenario"
    dialect_param = "dialect"

    # -- what is stored ----------------------------------------------------------------

    def serialize(
        self,
        data: SerializableData,
        *,
        exclude: PropertyFilter | None = None,
        include: PropertyFilter | None = None,
        matcher: PropertyMatcher | None = None,
    ) -> SerializedData:
        if exclude is not None or include is not None:
            raise TypeError(
                "a wire recording is stored as exported; normalize volatile values in the "
                "wire log (it numbers ids and timestamps already), not with exclude/include"
            )
        if matcher is not None:  # syrupy always passes one; it sees the whole recording
            data = matcher(data=data, path=())
        return recording_text(data)

    # -- where it is stored ------------------------------------------------------------

    @classmethod
    def _parameters(cls, test_location: PyTestLocation) -> tuple[str, str] | None:
        """(scenario, dialect) from the test's parametrization, or None if it has none."""
        params: Mapping[str, object] = getattr(
            getattr(test_location.item, "callspec", None), "params", {}
        )
        if cls.scenario_param not in params or cls.dialect_param not in params:
            return None
        return (
            _component("scenario", params[cls.scenario_param]),
            _component("dialect", params[cls.dialect_param]),
        )

    @classmethod
    def _require_parameters(cls, test_location: PyTestLocation) -> tuple[str, str]:
        found = cls._parameters(test_location)
        if found is None:
            raise ValueError(
                f"{cls.__name__} names a recording from the test's parameters "
                f"{cls.scenario_param!r} and {cls.dialect_param!r}; "
                f"{test_location.nodeid} is not parametrized with both"
            )
        return found

    @classmethod
    def root(cls, *, test_location: PyTestLocation) -> Path:
        """The folder of all recordings: `<project root>/recordings/reference`."""
        return _project_root(test_location) / cls.recordings_dir

    @classmethod
    def dirname(cls, *, test_location: PyTestLocation) -> str:
        scenario, _ = cls._require_parameters(test_location)
        return str(cls.root(test_location=test_location) / scenario)

    @classmethod
    def discovery_dirname(cls, *, test_location: PyTestLocation) -> str:
        # The shared parent of every scenario folder, so a recording left behind by a
        # removed scenario is still discovered; it differs from `dirname`, which makes
        # syrupy's discovery directory-scoped: it claims only `<root>/<scenario>/<file>`.
        return str(cls.root(test_location=test_location))

    @classmethod
    def get_snapshot_name(cls, *, test_location: PyTestLocation, index: SnapshotIndex = 0) -> str:
        scenario, dialect = cls._require_parameters(test_location)
        return f"{scenario}.{cls._file_stem(dialect, index)}"

    @classmethod
    def get_file_basename(cls, *, test_location: PyTestLocation, index: SnapshotIndex) -> str:
        _, dialect = cls._require_parameters(test_location)
        return cls._file_stem(dialect, index)

    @staticmethod
    def _file_stem(dialect: str, index: SnapshotIndex) -> str:
        """`openai-chat` for a test's first assertion, syrupy's suffixes after that."""
        if isinstance(index, str):
            return f"{dialect}[{_component('snapshot name', index)}]"
        return f"{dialect}.{index}" if index else dialect

    def read_snapshot_collection(self, *, snapshot_location: str) -> SnapshotCollection:
        # The discovered snapshot must carry the name the assertion uses, or every
        # recording would look unused.
        collection = super().read_snapshot_collection(snapshot_location=snapshot_location)
        path = Path(snapshot_location)
        renamed = SnapshotCollection(location=snapshot_location)
        for snapshot in collection:
            renamed.add(Snapshot(name=f"{path.parent.name}.{snapshot.name}", data=snapshot.data))
        return renamed

    @classmethod
    def matches_test_location(
        cls, *, test_location: PyTestLocation, snapshot_location: str
    ) -> bool:
        if cls._parameters(test_location) is None:
            return False
        mine = Path(cls.dirname(test_location=test_location))
        return Path(snapshot_location).parent == mine

    def delete_snapshots(self, *, snapshot_location: str, snapshot_names: set[str]) -> None:
        super().delete_snapshots(snapshot_location=snapshot_location, snapshot_names=snapshot_names)
        with contextlib.suppress(OSError):  # a removed scenario leaves no empty folder
            Path(snapshot_location).parent.rmdir()
