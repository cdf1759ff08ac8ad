"""Hostile clients for the service's load test and benchmark: half-open sockets and slowloris.

    python tests/service/hostile.py --port 8000 [--half-open 600] [--slowloris 20] [--duration S]

Keeps ``--half-open`` connections open that never finish a request (every other one sends a
request line and stops) and ``--slowloris`` connections that send one more header line every
``--drip`` seconds and never end their headers. Whenever the server closes one, it is opened
again at once, so the attack holds its size for the whole run. Prints ``ready`` once every
connection is open, and on SIGTERM/SIGINT (or after ``--duration``) one JSON line: how often
the server closed each kind of connection and how long it let them live. Loopback only.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import signal
import statistics
import sys
import time
from dataclasses import dataclass, field
from typing import Any


def raise_fd_limit(wanted: int) -> int:
    """Raise this process's soft limit on open files towards ``wanted``; return the soft limit."""
    try:
        import resource
    except ImportError:
        return wanted
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    target = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < target:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (target, hard))
            soft = target
    return int(soft)


@dataclass
class Kind:
    """What happened to one kind of hostile connection."""

    connects: int = 0
    refused: int = 0
    lifetimes: list[float] = field(default_factory=list)  # of connections the server closed
    open_now: int = 0

    def summary(self) -> dict[str, Any]:
        life = sorted(self.lifetimes)
        return {
            "connects": self.connects,
            "refused": self.refused,
            "closed_by_server": len(life),
            "lifetime_median_s": round(statistics.median(life), 2) if life else None,
            "lifetime_max_s": round(life[-1], 2) if life else None,
        }


async def _hold(port: int, kind: Kind, first: bytes, drip: bytes, every: float, stop: asyncio.Event) -> None:
    while not stop.is_set():
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
        except OSError:
            kind.refused += 1
            await asyncio.sleep(0.05)
            continue
        kind.connects += 1
        kind.open_now += 1
        opened = time.monotonic()
        try:
            if first:
                writer.write(first)
            while not stop.is_set():
                try:
                    data = await asyncio.wait_for(reader.read(4096), every if drip else 1.0)
                except TimeoutError:
                    if drip:
                        writer.write(drip)
                    continue
                if not data:  # closed by the server
                    kind.lifetimes.append(time.monotonic() - opened)
                    break
        except OSError:  # reset by the server
            kind.lifetimes.append(time.monotonic() - opened)
        finally:
            kind.open_now -= 1
            writer.close()
            with contextlib.suppress(OSError):
                await writer.wait_closed()


async def attack(
    port: int, half_open: int, slowloris: int, drip_s: float, duration: float | None
) -> dict[str, Any]:
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    kinds = {"half_open": Kind(), "slowloris": Kind()}
    request_line = b"POST /v1/check HTTP/1.1\r\nHost: 127.0.0.1\r\n"
    tasks = [
        asyncio.create_task(_hold(port, kinds["half_open"], request_line if i % 2 else b"", b"", 0, stop))
        for i in range(half_open)
    ]
    tasks += [
        asyncio.create_task(_hold(port, kinds["slowloris"], request_line, b"X-Drip: 1\r\n", drip_s, stop))
        for _ in range(slowloris)
    ]
    deadline = time.monotonic() + 60
    while sum(k.open_now for k in kinds.values()) < half_open + slowloris and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    print("ready", flush=True)
    started = time.monotonic()
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(stop.wait(), duration)
    stop.set()
    await asyncio.gather(*tasks, return_exceptions=True)
    return {"seconds": round(time.monotonic() - started, 2), **{n: k.summary() for n, k in kinds.items()}}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument("--half-open", type=int, default=600)
    parser.add_argument("--slowloris", type=int, default=20)
    parser.add_argument("--drip", type=float, default=1.0, help="seconds between slowloris header lines")
    parser.add_argument("--duration", type=float, default=None, help="stop after this many seconds")
    args = parser.parse_args(argv)
    raise_fd_limit(args.half_open + args.slowloris + 256)
    stats = asyncio.run(attack(args.port, args.half_open, args.slowloris, args.drip, args.duration))
    sys.stdout.write(json.dumps(stats) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
