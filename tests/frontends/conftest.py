"""Front-end tests need pydantic (the ``llm`` extra); without it they are skipped at collection."""

from __future__ import annotations

import importlib.util

collect_ignore_glob = [] if importlib.util.find_spec("pydantic") else ["test_*.py"]
