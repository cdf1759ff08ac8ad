"""The HTTP service (``cotaudit serve``): FastAPI + uvicorn, bound to 127.0.0.1 by default.

``cotaudit.service.app`` is the one module that imports fastapi, ``cotaudit.service.transport``
the one that imports uvicorn; importing this package imports neither. Engines add endpoints
with :func:`register_route` (one line each).
"""

from cotaudit.service.config import EngineRoute, ServiceConfig, register_route, routes

__all__ = ["EngineRoute", "ServiceConfig", "register_route", "routes"]
