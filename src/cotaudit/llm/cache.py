"""The content-addressed on-disk cache: one JSON file per request, named by its key.

The key is the SHA-256 of a canonical JSON of exactly what can change the answer: the model,
the messages, the sampling parameters, the JSON mode, the schema, the prompt's versioned id and
the sample index. Retries, timeouts, concurrency, the server's address and any API key are left
out (inspect_ai's ``_cache_key`` excludes the same kind of fields), so one recording replays
against any server that serves the same model — and no secret can ever reach a key or a file.

Files are written atomically (a temporary file in the same directory, then ``os.replace``), so
an interrupted run never leaves half an entry; a file that does not parse is treated as a miss.
Entries are plain JSON with sorted keys, readable in a diff: they are the recorded fixtures.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from cotaudit.llm.types import Completion, JsonMode, Request

KEY_VERSION = 1


def key_material(request: Request, model: str, json_mode: JsonMode) -> dict[str, Any]:
    """The fields the key hashes, as a JSON-ready dict (stored beside the answer for review)."""
    return {
        "key_version": KEY_VERSION,
        "model": model,
        "prompt": request.prompt,
        "sample": request.sample,
        "messages": [m.to_dict() for m in request.messages],
        "params": {
            "temperature": request.temperature,
            "max_tokens": request.max_tokens,
            "json_mode": json_mode if request.schema is not None else "none",
        },
        "schema": dict(request.schema) if request.schema is not None else None,
        "schema_name": request.schema_name if request.schema is not None else None,
    }


def cache_key(request: Request, model: str, json_mode: JsonMode) -> str:
    """SHA-256 hex digest of :func:`key_material` in canonical JSON."""
    canonical = json.dumps(
        key_material(request, model, json_mode), sort_keys=True, ensure_ascii=False, separators=(",", ":")
    )
    return hashlib.sha256(canonical.encode("utf-8")).hexdigest()


class CacheStore:
    """A directory of ``<key>.json`` entries."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root)

    def path(self, key: str) -> Path:
        # Keys are hex digests we computed ourselves; refuse anything else so a key can never
        # name a path outside the cache directory.
        if len(key) != 64 or any(c not in "0123456789abcdef" for c in key):
            raise ValueError(f"not a cache key: {key!r}")
        return self.root / f"{key}.json"

    def get(self, key: str) -> Completion | None:
        """The stored completion, or ``None`` when there is none (or it is unreadable)."""
        try:
            entry = json.loads(self.path(key).read_text(encoding="utf-8"))
            return Completion.from_dict(entry["response"])
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def put(self, key: str, material: dict[str, Any], completion: Completion, latency_s: float) -> None:
        """Write one entry atomically."""
        entry = {
            "key": key,
            "request": material,
            "response": completion.to_dict(),
            "latency_s": round(latency_s, 3),
        }
        data = json.dumps(entry, sort_keys=True, ensure_ascii=False, indent=1) + "\n"
        self.root.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{key[:12]}.", suffix=".tmp", dir=self.root)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
            os.replace(tmp, self.path(key))
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise

    def keys(self) -> list[str]:
        return sorted(p.stem for p in self.root.glob("*.json")) if self.root.is_dir() else []
