"""A kernel view: the units of one kernel version, keyed by unit id (C-32, C-73).

``recheck`` needs nothing else to verify a certificate. A view comes from the store
(:meth:`CertState.kernel_view`) or from an export — the canonical program text plus a manifest
``{"format": "cotaudit.certify.kernel/1", "version", "interface_sha256", "units": [{"unit_id",
"key", "label", "kind", "pi_src"}]}`` — so certificates can be rechecked outside the database.
This module imports only the syntax layer.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from cotaudit.certify.core.errors import KbError, ProgramError
from cotaudit.certify.lang.grammar import Limits
from cotaudit.certify.lang.parse import parse_program
from cotaudit.certify.lang.syntax import Fact, Rule, Unit, program_text

MANIFEST_FORMAT = "cotaudit.certify.kernel/1"
EXPORT_FORMAT = "cotaudit.certify.kernel-export/1"
# A kernel export is trusted no more than any program, but may be as large as the kernel.
EXPORT_LIMITS = Limits(max_bytes=1 << 30, max_units=10_000_000)


@dataclass(frozen=True)
class KernelView:
    """The kernel units (A ∪ R) of one version."""

    version: int
    units: Mapping[int, Unit]
    interface_sha256: str = ""
    pi_src: Mapping[int, tuple[str, ...]] = field(default_factory=dict)

    @cached_property
    def fact_ids(self) -> dict[str, int]:
        """Fact key → unit id."""
        return {u.key: uid for uid, u in sorted(self.units.items()) if isinstance(u, Fact)}

    def facts(self) -> list[tuple[int, Fact]]:
        return [(uid, u) for uid, u in sorted(self.units.items()) if isinstance(u, Fact)]

    def rules(self) -> list[tuple[int, Rule]]:
        return [(uid, u) for uid, u in sorted(self.units.items()) if isinstance(u, Rule)]

    def manifest(self) -> dict[str, Any]:
        return {
            "format": MANIFEST_FORMAT,
            "version": self.version,
            "interface_sha256": self.interface_sha256,
            "units": [
                {
                    "unit_id": uid,
                    "key": u.key,
                    "label": u.label,
                    "kind": u.kind,
                    "pi_src": list(self.pi_src.get(uid, ())),
                }
                for uid, u in sorted(self.units.items())
            ],
        }

    def export(self) -> tuple[str, dict[str, Any]]:
        """(program text, manifest): one unit per line, in manifest order."""
        return program_text([u for _, u in sorted(self.units.items())]), self.manifest()

    def export_bundle(self) -> dict[str, Any]:
        text, manifest = self.export()
        return {"format": EXPORT_FORMAT, "program": text, "manifest": manifest}

    @classmethod
    def from_export(
        cls, program: str, manifest: Mapping[str, Any], limits: Limits | None = None
    ) -> KernelView:
        """Rebuild a view; the program's units must match the manifest's keys one for one."""
        if not isinstance(manifest, Mapping) or manifest.get("format") != MANIFEST_FORMAT:
            raise KbError(f"kernel manifest: 'format' must be {MANIFEST_FORMAT!r}")
        rows = manifest.get("units")
        version = manifest.get("version")
        if not isinstance(rows, list) or not isinstance(version, int) or isinstance(version, bool):
            raise KbError("kernel manifest: needs an integer 'version' and a 'units' list")
        try:
            units = parse_program(program, limits or EXPORT_LIMITS)
        except ProgramError as exc:
            raise KbError(f"kernel program: {exc}") from None
        if len(units) != len(rows):
            raise KbError(f"kernel manifest lists {len(rows)} units, the program has {len(units)}")
        out: dict[int, Unit] = {}
        pi: dict[int, tuple[str, ...]] = {}
        for row, unit in zip(rows, units, strict=True):
            if not isinstance(row, Mapping) or not isinstance(row.get("unit_id"), int):
                raise KbError("kernel manifest: every unit row needs an integer 'unit_id'")
            if row.get("key") != unit.key:
                raise KbError(f"kernel manifest: unit {row.get('unit_id')} key does not match the program")
            uid = int(row["unit_id"])
            if uid in out:
                raise KbError(f"kernel manifest: unit id {uid} listed twice")
            out[uid] = unit
            hashes = row.get("pi_src") or []
            if not isinstance(hashes, list):
                raise KbError(f"kernel manifest: unit {uid}: 'pi_src' must be a list of hashes")
            pi[uid] = tuple(str(h) for h in hashes)
        return cls(version, out, str(manifest.get("interface_sha256", "")), pi)

    @classmethod
    def from_bundle(cls, bundle: Mapping[str, Any]) -> KernelView:
        if not isinstance(bundle, Mapping) or bundle.get("format") != EXPORT_FORMAT:
            raise KbError(f"kernel export: 'format' must be {EXPORT_FORMAT!r}")
        program = bundle.get("program")
        if not isinstance(program, str):
            raise KbError("kernel export: 'program' must be a string")
        return cls.from_export(program, bundle.get("manifest") or {})
