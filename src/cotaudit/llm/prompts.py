"""Versioned prompt files under ``cotaudit/llm/prompts/``: ``<name>.v<N>.txt``.

A prompt file is a chat: lines ``@@ system``, ``@@ user`` and ``@@ assistant`` open messages
(few-shot examples are user/assistant pairs). ``{{field}}`` marks a value filled at render
time; nothing else is special, so traces with ``$`` or ``{`` need no escaping. The prompt's id
``name@vN`` goes into every cache key: editing a prompt means adding ``v<N+1>``, so recordings
made with the old wording are never replayed as if they answered the new one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from importlib import resources

from cotaudit.errors import CotauditError
from cotaudit.llm.types import Message, Role

_FILE = re.compile(r"^(?P<name>[a-z0-9_]+)\.v(?P<version>[0-9]+)\.txt$")
_MARK = re.compile(r"^@@ (system|user|assistant)\s*$")
_FIELD = re.compile(r"\{\{([a-z_][a-z0-9_]*)\}\}")


class PromptError(CotauditError, LookupError):
    """An unknown prompt, a malformed prompt file, or a missing or unused field."""


@dataclass(frozen=True, slots=True)
class Prompt:
    name: str
    version: int
    text: str

    @property
    def id(self) -> str:
        return f"{self.name}@v{self.version}"

    def fields(self) -> set[str]:
        return set(_FIELD.findall(self.text))

    def render(self, **values: str) -> tuple[Message, ...]:
        """The chat with every ``{{field}}`` filled; every field must be given, and only those."""
        missing = self.fields() - set(values)
        extra = set(values) - self.fields()
        if missing or extra:
            raise PromptError(f"{self.id}: missing fields {sorted(missing)}, unknown fields {sorted(extra)}")
        messages: list[Message] = []
        role: Role | None = None
        body: list[str] = []

        def close() -> None:
            if role is not None:
                content = "\n".join(body).strip("\n")
                messages.append(Message(role, _FIELD.sub(lambda m: values[m.group(1)], content)))

        for line in self.text.split("\n"):
            mark = _MARK.match(line)
            if mark:
                close()
                role = mark.group(1)  # type: ignore[assignment]
                body = []
            elif role is not None:
                body.append(line)
            elif line.strip():
                raise PromptError(f"{self.id}: text before the first '@@ <role>' line")
        close()
        if not messages:
            raise PromptError(f"{self.id}: no messages")
        return tuple(messages)


@cache
def available() -> dict[str, list[int]]:
    """Prompt name → its versions, ascending."""
    found: dict[str, list[int]] = {}
    for entry in resources.files("cotaudit.llm").joinpath("prompts").iterdir():
        m = _FILE.match(entry.name)
        if m:
            found.setdefault(m.group("name"), []).append(int(m.group("version")))
    return {name: sorted(v) for name, v in sorted(found.items())}


@cache
def load_prompt(name: str, version: int | None = None) -> Prompt:
    """The prompt ``name`` at ``version`` (default: the latest)."""
    versions = available().get(name)
    if not versions:
        raise PromptError(f"no prompt named {name!r} (known: {', '.join(available())})")
    chosen = versions[-1] if version is None else version
    if chosen not in versions:
        raise PromptError(f"prompt {name!r} has no version {chosen} (has {versions})")
    path = resources.files("cotaudit.llm").joinpath("prompts", f"{name}.v{chosen}.txt")
    return Prompt(name, chosen, path.read_text(encoding="utf-8"))
