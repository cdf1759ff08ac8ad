"""Is a starting worker getting anywhere? CPU time of a process and its process group (Linux).

A worker that never becomes ready is told apart from a slow one by its CPU clock, not by a long
start timeout: importing engines burns CPU (or waits on the disk), a worker blocked on a lock it
will never get sleeps with its clock stopped. :func:`sample` reads ``/proc/<pid>/stat`` of the
worker and of every process in its group (children it started, such as te's SymPy process);
:func:`sample_thread` reads one thread of this process (a Ray actor's starting thread).
"""

from __future__ import annotations

import os
from typing import NamedTuple


class Sample(NamedTuple):
    """CPU clock ticks used so far by a process and its group, and whether all of it sleeps."""

    ticks: int
    asleep: bool


def _fields(pid: int | str) -> list[str] | None:
    return _stat_fields(f"/proc/{pid}/stat")


def _stat_fields(path: str) -> list[str] | None:
    try:
        with open(path, "rb") as fh:
            raw = fh.read()
    except OSError:
        return None
    # "pid (comm) state ppid pgrp ... utime stime ...": comm may hold spaces and parentheses
    return raw[raw.rfind(b")") + 2 :].decode("ascii", "replace").split()


def sample(pid: int) -> Sample | None:
    """The :class:`Sample` of ``pid`` and its group, or ``None`` where /proc cannot tell."""
    own = _fields(pid)
    if own is None or len(own) < 13:
        return None
    ticks = int(own[11]) + int(own[12])  # utime + stime
    asleep = own[0] == "S"  # interruptible sleep; "D" (disk), "R" (running or runnable) are progress
    try:
        entries = os.listdir("/proc")
    except OSError:
        return Sample(ticks, asleep)
    for name in entries:
        if not name.isdigit() or name == str(pid):
            continue
        fields = _fields(name)
        if fields is None or len(fields) < 13 or fields[2] != str(pid):  # pgrp
            continue
        ticks += int(fields[11]) + int(fields[12])
        asleep = asleep and fields[0] in ("S", "Z")
    return Sample(ticks, asleep)


def sample_thread(tid: int) -> Sample | None:
    """The :class:`Sample` of one thread of this process (``threading.get_native_id()``): its own
    CPU clock and state, not those of the threads beside it (a Ray worker's keep busy)."""
    fields = _stat_fields(f"/proc/self/task/{tid}/stat")
    if fields is None or len(fields) < 13:
        return None
    return Sample(int(fields[11]) + int(fields[12]), fields[0] == "S")
