"""Whether ``serve`` can bind its address, asked before anything is printed or started.

A busy port is a usage error (exit 2) in one line -- never "serving on ..." followed by
uvicorn's own complaint. The probe binds and closes a socket with ``SO_REUSEADDR`` as uvicorn
does, so a port in TIME_WAIT still counts as free.
"""

from __future__ import annotations

import errno
import socket

from cotaudit.errors import UsageError


def ensure_bindable(host: str, port: int) -> None:
    """Raise a one-line :class:`UsageError` when ``host:port`` cannot be bound."""
    if port == 0:  # the system picks a free port
        return
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as exc:
        raise UsageError(f"cannot serve on {host}:{port}: {exc.strerror or exc}") from None
    family, kind, proto, _, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                raise UsageError(
                    f"cannot serve on {host}:{port}: the port is in use (pick another with --port)"
                ) from None
            raise UsageError(f"cannot serve on {host}:{port}: {exc.strerror or exc}") from None
