"""The linter's answer (TE-41, TE-46): :class:`LintResult` and its R-1 report."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from cotaudit.report import Finding, Location, Report, make_report
from cotaudit.te.config import Diagnostic

ENGINE_VERSION = "te/1"
GRAMMAR = "TE_REASONING_V1+cotaudit"


@dataclass(frozen=True, slots=True)
class LintResult:
    """The linter's answer: sorted, de-duplicated diagnostics, the verdict and statistics."""

    diagnostics: tuple[Diagnostic, ...]
    verdict: str  # CLEAN | FLAG
    stats: dict[str, int]
    # The ANS line as the trace states it: {"expr", "value"[, "unit"]}; None when it has no
    # evaluable ANS. Reported as ``details.answer`` (answer-aware rewards read it).
    answer: dict[str, str] | None = None

    @property
    def codes(self) -> list[str]:
        return [d.code for d in self.diagnostics]

    def at(self) -> list[str]:
        """``["TE_E006@5", ...]``: the compact form the spec's examples use."""
        return [f"{d.code}@{d.line}" for d in self.diagnostics]

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "verdict": self.verdict,
            "stats": dict(self.stats),
            "diagnostics": [d.to_dict() for d in self.diagnostics],
        }
        if self.answer is not None:
            out["answer"] = dict(self.answer)
        return out

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> LintResult:
        answer = d.get("answer")
        return cls(
            tuple(Diagnostic.from_dict(x) for x in d["diagnostics"]),
            d["verdict"],
            dict(d["stats"]),
            dict(answer) if isinstance(answer, dict) else None,
        )

    def to_report(
        self,
        text: str,
        *,
        path: str | None = None,
        item_id: str | None = None,
        timing_ms: float | None = None,
    ) -> Report:
        findings = []
        for d in self.diagnostics:
            evidence = {"rule": d.rule, "column": d.column, "tag": d.tag}
            evidence.update((k, v) for k, v in d.evidence if k != "column")
            findings.append(
                Finding(d.code, d.severity, Location(line=d.line, step=d.id), d.message, evidence)  # type: ignore[arg-type]
            )
        return make_report(
            "te",
            ENGINE_VERSION,
            "pass" if self.verdict == "CLEAN" else "fail",
            text=text,
            path=path,
            item_id=item_id,
            findings=findings,
            details={
                "verdict": self.verdict,
                "grammar": GRAMMAR,
                "stats": dict(self.stats),
                **({"answer": dict(self.answer)} if self.answer is not None else {}),
            },
            timing_ms=timing_ms,
        )
