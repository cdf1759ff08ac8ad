"""The LLM tests need the ``llm`` extra's pydantic (and openai for the HTTP tests): without it
they are skipped at collection, not failed."""

from __future__ import annotations

import importlib.util

collect_ignore_glob = (
    [] if importlib.util.find_spec("pydantic") else ["test_client.py", "test_http_faults.py"]
)
