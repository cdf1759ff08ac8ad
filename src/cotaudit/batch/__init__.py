"""Batch runs (``cotaudit batch``): JSONL in, the R-2 run log out, resumable, local or on Ray.

```python
from cotaudit.batch import BatchOptions, run_batch
result = run_batch(BatchOptions(input="items.jsonl", output="run.jsonl", workers=4, resume=True))
```
Items run in worker processes (:class:`LocalPool`) or Ray actors
(``cotaudit.batch.ray_backend.RayPool``, the one module that imports ray); a per-item time limit
stops runaway items (``abstain``), a dead worker costs only its item (``invalid``). See
docs/batch.md.
"""

from cotaudit.batch.items import count_items, iter_items
from cotaudit.batch.jobs import Payload
from cotaudit.batch.pool import LocalPool
from cotaudit.batch.runner import Backend, BatchOptions, BatchResult, make_backend, run_batch

__all__ = [
    "Backend",
    "BatchOptions",
    "BatchResult",
    "LocalPool",
    "Payload",
    "count_items",
    "iter_items",
    "make_backend",
    "run_batch",
]
