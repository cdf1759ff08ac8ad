"""A probe engine for the harness's own tests: each failure the harness must catch, on demand.

A harness plugin (``RunConfig(plugins=("tests.fuzz.probe",))``, ``--plugin``): the parent
registers its :data:`TARGETS`, each worker also calls :func:`install`. Per keyword in the text: ``HANG`` sleeps past any deadline,
``ALLOC`` holds 768 MiB, ``SEGV`` kills the process with SIGSEGV, ``ESCAPE`` raises an error
that ``api.check`` re-raises, ``BOOM`` raises inside the engine (an internal-error report),
``SURROGATE`` puts a lone surrogate into a finding (every writer must still write it),
``BADWRITE`` makes the text writer raise, ``HASHSEED`` makes the report depend on
``PYTHONHASHSEED``, ``FLIP`` runs to its budget (W001) in the second process only, and
``SLOWWRITE`` makes the text writer hang. Anything else passes.
"""

from __future__ import annotations

import os
import signal
import time

from cotaudit import api
from cotaudit.errors import UsageError
from cotaudit.limits import checkpoint
from cotaudit.report import Finding, InputRef, Location, Report

from .runner import SHADOW_HASH_OFFSET
from .targets import Target


class SlowText(str):
    """A message that hangs the text writer (its ``one_line`` translates the message)."""

    __slots__ = ()

    def translate(self, table: object) -> str:
        time.sleep(3600)
        return str(self)


class BadText(str):
    """A message the text writer cannot write (its ``one_line`` translates the message)."""

    __slots__ = ()

    def translate(self, table: object) -> str:
        raise RuntimeError("probe writer broke")


def probe_check(text: str, *, path: str | None = None, item_id: str | None = None) -> Report:
    findings: list[Finding] = []
    details: dict[str, object] = {"lines": text.count("\n") + 1}
    if "HANG" in text:
        time.sleep(3600)
    if "ALLOC" in text:
        hold = bytearray(768 * 1024 * 1024)
        for i in range(0, len(hold), 4096):
            hold[i] = 1  # touch every page: resident, not just mapped
        time.sleep(3600)
    if "SEGV" in text:
        os.kill(os.getpid(), signal.SIGSEGV)
    if "ESCAPE" in text:
        raise UsageError("probe: an error api.check lets through (the caller's to fix)")
    if "BOOM" in text:
        raise RuntimeError("probe exploded")
    if "SURROGATE" in text:
        findings.append(Finding("PROBE_E001", "error", Location(line=1), "bad \ud800 here", {}))
    if "HASHSEED" in text:
        details["order"] = list({"a", "b", "c", "d", "e", "f"})  # set order follows the hash seed
    if "FLIP" in text and int(os.environ.get("PYTHONHASHSEED", "0")) > SHADOW_HASH_OFFSET:
        while True:
            checkpoint()
            time.sleep(0.01)
    if "BADWRITE" in text:
        findings.append(Finding("PROBE_W002", "warning", Location(line=1), BadText("bad"), {}))
    if "SLOWWRITE" in text:
        findings.append(Finding("PROBE_W001", "warning", Location(line=1), SlowText("slow"), {}))
    return Report(
        engine="probe",
        engine_version="probe/1",
        input=InputRef.for_text(text, path, item_id),
        verdict="fail" if findings else "pass",
        findings=tuple(findings),
        details=details,
    )


TARGETS = (Target("probe", "engine", "probe", "te/A_janet.te", engine="probe", path="fuzz.probe"),)


def install() -> None:
    """Worker side: register the probe engine (the test process never does, so no other test
    sees it among the engines)."""
    api.register_engine("probe", probe_check, (".probe",))
