"""The line a served runtime's command line prints first, so a script can wait for it."""

from __future__ import annotations

LISTENING = "turnlaw-host listening on "
"""The first stdout line of `python -m reference_impl.hosting serve` and of
`python -m reference_impl.sessions serve` is this prefix and the URL served."""
