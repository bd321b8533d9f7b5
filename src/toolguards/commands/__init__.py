"""The sub-commands of ``toolguards``, by name; each module has HELP, add_arguments(parser) and run(args) -> int."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType, ModuleType

from . import hook, replay, schema, serve, validate

__all__ = ["COMMANDS"]

COMMANDS: Mapping[str, ModuleType] = MappingProxyType(
    {
        "hook": hook,
        "validate": validate,
        "replay": replay,
        "schema": schema,
        "serve": serve,
    }
)
