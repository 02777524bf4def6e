"""Renamed `conformance.frameworks`; this name forwards to it for one release.

`adapters` differed from `conformance.adapter` (the protocol) by one letter. Importing
`conformance.adapters` warns once (DeprecationWarning) and then every
`conformance.adapters.<module>` is the module `conformance.frameworks.<module>` itself,
the same object in `sys.modules` (never a second copy of it), so an old import line or
`--impl conformance.adapters.<module>:implementation` keeps working.
"""

from __future__ import annotations

import importlib
import sys
import warnings
from importlib.abc import Loader, MetaPathFinder
from importlib.machinery import ModuleSpec
from types import ModuleType
from typing import TYPE_CHECKING

from conformance import frameworks

if TYPE_CHECKING:
    from collections.abc import Sequence

_NEW = frameworks.__name__

warnings.warn(
    f"{__name__} is renamed {_NEW}: import {_NEW}.<module> (--impl {_NEW}.<module>:"
    f"implementation); {__name__} forwards to it until the next release",
    DeprecationWarning,
    stacklevel=2,
)


class _Forwarding(MetaPathFinder, Loader):
    """Imports `conformance.adapters.X` as `conformance.frameworks.X`, the same module."""

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if not fullname.startswith(f"{__name__}."):
            return None
        return ModuleSpec(fullname, self)

    def create_module(self, spec: ModuleSpec) -> ModuleType:
        module = importlib.import_module(_NEW + spec.name.removeprefix(__name__))
        # the import system then sets __spec__ to the alias's spec: exec_module restores it
        spec.loader_state = module.__spec__
        return module

    def exec_module(self, module: ModuleType) -> None:
        if module.__spec__ is not None:
            module.__spec__ = module.__spec__.loader_state


sys.meta_path.insert(0, _Forwarding())

__all__ = frameworks.__all__


def __getattr__(name: str) -> object:
    return getattr(frameworks, name)
