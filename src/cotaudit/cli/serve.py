"""``cotaudit serve``: argument parsing and exit codes only.

The work lives in :mod:`cotaudit.service`, imported when the command runs, so the CLI starts
fast and needs no FastAPI to show ``--help``.
"""

from __future__ import annotations

import argparse
import os
from typing import Any

from cotaudit.errors import MissingDependency, UsageError

EXIT_OK = 0


def add_command(sub: argparse._SubParsersAction[Any]) -> None:
    """Register ``cotaudit serve [--host 127.0.0.1] [--port 8000] ...``."""
    p = sub.add_parser(
        "serve",
        help="serve the HTTP API (FastAPI + uvicorn)",
        description="Serve POST /v1/check, /v1/batch, /v1/reward, GET /v1/health, /v1/codes and "
        "/openapi.json. Set COTAUDIT_API_TOKEN to require a bearer token.",
    )
    p.add_argument(
        "--host", default="127.0.0.1", help="address to bind (default 127.0.0.1: this machine only)"
    )
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--workers", type=int, metavar="N", help="worker processes (default: cores, at most 4)")
    p.add_argument("--item-timeout", type=float, metavar="S", help="seconds per item (default 10)")
    p.add_argument("--request-timeout", type=float, metavar="S", help="seconds per request (default 60)")
    p.add_argument("--max-body", type=int, metavar="BYTES", help="largest request body (default 1 MiB)")
    p.add_argument("--max-batch", type=int, metavar="N", help="most items in one /v1/batch (default 256)")
    p.add_argument(
        "--max-response",
        type=int,
        metavar="BYTES",
        help="largest answer; reports over it are shortened and say so (default 16 MiB)",
    )
    p.add_argument(
        "--read-timeout",
        type=float,
        metavar="S",
        help="seconds a request may take to arrive, headers and body, or a client may stall "
        "reading its answer (default 10)",
    )
    p.add_argument(
        "--max-waiting",
        type=int,
        metavar="N",
        help="connections open without a request at work; one more closes the oldest (default 1024)",
    )
    p.add_argument(
        "--max-active",
        type=int,
        metavar="N",
        help="requests served at once; more are answered 503, /v1/health never (default 512)",
    )
    p.add_argument(
        "--certify-db",
        metavar="PATH",
        help="certify state for POST /v1/certify/admit and /erase (default: $COTAUDIT_CERTIFY_DB)",
    )
    p.add_argument(
        "--log-level", default="warning", choices=("critical", "error", "warning", "info", "debug")
    )
    p.set_defaults(handler=_cmd_serve)


def _cmd_serve(args: argparse.Namespace) -> int:
    from cotaudit.service.certify_routes import CERTIFY_DB_ENV
    from cotaudit.service.config import ServiceConfig

    try:
        from cotaudit.service.app import serve
    except ModuleNotFoundError as exc:  # fastapi, uvicorn or pydantic: the 'service' extra
        raise MissingDependency.from_import_error(exc) from None

    positive = ["workers", "item_timeout", "request_timeout", "max_body", "max_batch"]
    positive += ["max_response", "read_timeout", "max_waiting", "max_active"]
    for name in positive:
        value = getattr(args, name)
        if value is not None and value <= 0:
            raise UsageError(f"--{name.replace('_', '-')} must be positive")
    if not 0 <= args.port <= 65535:
        raise UsageError("--port must be between 0 and 65535")
    if args.certify_db is not None:
        if not os.path.isfile(args.certify_db):
            raise UsageError(
                f"--certify-db {args.certify_db}: no such file "
                "(create the state with: cotaudit certify admit --db PATH FILE.kb)"
            )
        os.environ[CERTIFY_DB_ENV] = os.path.abspath(args.certify_db)  # read by the handlers
    config = ServiceConfig.from_env(
        host=args.host,
        port=args.port,
        workers=args.workers,
        item_timeout=args.item_timeout,
        request_timeout=args.request_timeout,
        max_body_bytes=args.max_body,
        max_batch_items=args.max_batch,
        max_response_bytes=args.max_response,
        read_timeout=args.read_timeout,
        max_waiting=args.max_waiting,
        max_active=args.max_active,
    )
    from cotaudit.cli.ports import ensure_bindable  # sockets: only when serving

    ensure_bindable(args.host, args.port)
    serve(config, log_level=args.log_level)
    return EXIT_OK
