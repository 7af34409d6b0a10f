"""Tuning constants that may be set on the package as well as on ``api``.

``jaxmatch.lap.FUSED_MAX_COLUMNS`` and friends live in the ``api`` module,
which reads them when a call is traced. The package re-exports them; without
help, ``jaxmatch.lap.FUSED_MAX_COLUMNS = 512`` would rebind the package's
copy only and silently change nothing. :func:`forward_constants` makes the
package's names views of the ``api`` module's: reading one reads ``api``'s
current value, setting one sets ``api``'s.
"""

from __future__ import annotations

import sys
import types
from typing import Any


def forward_constants(package: str, api: types.ModuleType, names: tuple[str, ...]) -> None:
    """Makes ``names`` of module ``package`` read and write ``api``'s values.

    Each name becomes a property of the module's class (a data descriptor,
    so ``setattr``, ``getattr`` and tools such as pytest's ``monkeypatch``
    all go through it).
    """
    module = sys.modules[package]
    for name in names:
        module.__dict__.pop(name, None)

    def forwarder(name: str) -> property:
        def get(self: types.ModuleType) -> Any:
            return getattr(api, name)

        def set_(self: types.ModuleType, value: Any) -> None:
            setattr(api, name, value)

        return property(get, set_, doc=f"{api.__name__}.{name}")

    def dir_(self: types.ModuleType) -> list[str]:
        return sorted({*self.__dict__, *names})

    namespace: dict[str, Any] = {name: forwarder(name) for name in names}
    namespace["__dir__"] = dir_
    module.__class__ = type("TunableModule", (types.ModuleType,), namespace)
