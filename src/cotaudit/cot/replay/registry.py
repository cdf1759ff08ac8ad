"""The replayer registry: the built-in replayers, loaded on first use, and your own."""

from __future__ import annotations

from collections.abc import Sequence

from cotaudit.cot.replay.model import Replayer

_REGISTRY: dict[str, Replayer] = {}
_BUILTINS_LOADED = False


def register_replayer(replayer: Replayer) -> None:
    """Add (or replace) a replayer under ``replayer.name``."""
    _REGISTRY[replayer.name] = replayer


def unregister_replayer(name: str) -> None:
    _REGISTRY.pop(name, None)


def _load_builtins() -> None:
    global _BUILTINS_LOADED
    if _BUILTINS_LOADED:
        return
    _BUILTINS_LOADED = True
    from cotaudit.cot.replay import deduction, dyck, multistep, shuffle, wordsort  # plug-ins: lazy

    for module in (multistep, dyck, wordsort, shuffle, deduction):
        if module.REPLAYER.name not in _REGISTRY:
            _REGISTRY[module.REPLAYER.name] = module.REPLAYER


def replayers() -> dict[str, Replayer]:
    """Every registered replayer, by name (built-ins first, then your own, in order)."""
    _load_builtins()
    return dict(_REGISTRY)


def find_replayer(task: str | None, problem: str | None, steps: Sequence[str]) -> Replayer | None:
    """The replayer named ``task``, else the first that recognises ``problem``; ``KeyError`` for
    an unknown ``task``."""
    table = replayers()
    if task is not None:
        return table[task]
    if problem is None:
        return None
    for replayer in table.values():
        if replayer.recognises(problem, steps):
            return replayer
    return None
