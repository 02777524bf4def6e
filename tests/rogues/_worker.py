"""One worker of the kill run: claims jobs from a job file and runs the conformance
suite for each, in this one interpreter (imports and start-up are paid once).

`python -m tests.rogues._worker JOBS.json` — jobs are claimed by creating
`<name>.claim` next to the job file, so several workers share one list.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import time
from pathlib import Path

from hypothesis import Phase, settings

import conformance.runner.plugin  # registers the ci profile this one extends


def _claim(folder: Path, name: str) -> bool:
    try:
        os.close(os.open(folder / f"{name}.claim", os.O_CREAT | os.O_EXCL | os.O_WRONLY))
    except FileExistsError:
        return False
    return True


def main(job_file: str) -> int:
    # Verdicts only: the failing example is found while generating, and shrinking it
    # (seconds to a minute per rogue) changes no verdict. The shrink job keeps `ci`.
    settings.register_profile(
        "rogues",
        parent=settings.get_profile("ci"),
        phases=[Phase.explicit, Phase.reuse, Phase.generate],
    )
    path = Path(job_file)
    folder = path.parent
    for job in json.loads(path.read_text(encoding="utf-8")):
        if not _claim(folder, job["name"]):
            continue
        log = folder / f"{job['name']}.log"
        started = time.monotonic()
        with (
            log.open("w", encoding="utf-8") as out,
            contextlib.redirect_stdout(out),
            contextlib.redirect_stderr(out),
        ):
            code = conformance.run(
                job["impl"],
                select=job["targets"],
                dialects=job["dialects"],
                deliveries=job.get("deliveries"),
                profile=job["profile"],
                results=folder / f"{job['name']}.jsonl",
                repro_dir=folder / "repro" / job["name"],  # every rogue leaves repro files
                options=["-p", "no:cacheprovider", "-q"],
            )
        seconds = time.monotonic() - started
        (folder / f"{job['name']}.seconds").write_text(f"{seconds:.2f}", encoding="utf-8")
        (folder / f"{job['name']}.exit").write_text(str(int(code)), encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1]))
