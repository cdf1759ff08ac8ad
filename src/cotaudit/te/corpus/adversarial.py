"""The adversarial TE corpus (TE-52 … TE-54): seeds, perturbations, clean and hard-clean controls.

``build_corpus(seed=20260513)`` reproduces the paper's 266-trace recipe: 30 hand-crafted
seeds, 166 programmatic perturbations of converted GSM8K traces (40 / 40 / 40 / 6 / 40 over the
five categories, one perturbation per base trace), 50 random clean controls disjoint from the
perturbation bases, and 20 hand-written MATH500 traces as hard clean controls. ``scale="full"``
applies every category — the paper's five and the ROSCOE extras — to every converted trace,
with every converted trace also as a clean control. Nothing here runs the linter: clean
controls are never chosen by lint outcome (TE-51).
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from cotaudit.te.corpus import perturb, roscoe
from cotaudit.te.corpus.gsm8k import CORPUS_STYLE, Style, convert_jsonl
from cotaudit.te.corpus.perturb import CATEGORIES, PAPER_CATEGORIES, Perturbed, Trace

PAPER_SEED = 20260513  # echoes the paper's preregistration E5_V1_2026_05_13
PAPER_COUNTS: dict[str, int] = {
    "arithmetic_slip": 40,
    "lost_variable": 40,
    "unsupported_conclusion": 40,
    "wrong_unit": 6,
    "contradicting_equation": 40,
}
PAPER_CLEAN = 50
PERTURBERS: dict[str, Callable[[Trace, random.Random], Perturbed | None]] = {
    "arithmetic_slip": perturb.arithmetic_slip,
    "lost_variable": perturb.lost_variable,
    "unsupported_conclusion": perturb.unsupported_conclusion,
    "wrong_unit": perturb.wrong_unit,
    "contradicting_equation": perturb.contradicting_equation,
    "shuffle_steps": roscoe.shuffle_steps,
    "remove_step": roscoe.remove_step,
    "duplicate_step": roscoe.duplicate_step,
    "swap_numbers": roscoe.swap_numbers,
    "swap_operators": roscoe.swap_operators,
    "random_number": roscoe.random_number,
    "negate_step": roscoe.negate_step,
}


@dataclass(frozen=True, slots=True)
class CorpusItem:
    """One corpus record (TE-52): ``part`` is seed | perturbation | clean | hard_clean."""

    id: str
    part: str
    category: str | None
    gold_line: int | None
    base_id: str | None
    perturbation: str | None
    text: str
    expected_codes: tuple[str, ...] = ()

    @property
    def adversarial(self) -> bool:
        return self.category is not None

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["expected_codes"] = list(self.expected_codes)
        d["engine"] = "te"
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> CorpusItem:
        return cls(
            id=d["id"],
            part=d["part"],
            category=d.get("category"),
            gold_line=d.get("gold_line"),
            base_id=d.get("base_id"),
            perturbation=d.get("perturbation"),
            text=d["text"],
            expected_codes=tuple(d.get("expected_codes", ())),
        )


@dataclass(frozen=True, slots=True)
class Base:
    id: str
    text: str
    meta: dict[str, Any]


def converted_bases(gsm8k: str | Path, style: Style = CORPUS_STYLE) -> list[Base]:
    """Every GSM8K item the converter turns into a trace, in file order."""
    return [
        Base(f"gsm8k-{i + 1:04d}", c.trace, c.meta)
        for i, c in convert_jsonl(gsm8k, style)
        if c.trace is not None
    ]


def _data_dir(name: str) -> Any:
    return resources.files("cotaudit.te.corpus").joinpath("data", name)


def seeds() -> list[CorpusItem]:
    """The 30 hand-crafted seeds with their gold lines (TE-54)."""
    folder = _data_dir("seeds")
    manifest = json.loads(folder.joinpath("seeds.json").read_text(encoding="utf-8"))
    out = []
    for name in sorted(manifest):
        entry = manifest[name]
        out.append(
            CorpusItem(
                id=f"seed-{name.removesuffix('.te')}",
                part="seed",
                category=entry["category"],
                gold_line=entry["gold_line"],
                base_id=None,
                perturbation=entry.get("case"),
                text=folder.joinpath(name).read_text(encoding="utf-8"),
                expected_codes=tuple(entry["expected_codes"]),
            )
        )
    return out


def hard_clean() -> list[CorpusItem]:
    """The 20 hand-written MATH500 level 4–5 traces (clean controls)."""
    folder = _data_dir("hardclean")
    manifest = json.loads(folder.joinpath("hardclean.json").read_text(encoding="utf-8"))
    return [
        CorpusItem(
            id=f"hard-{name.removesuffix('.te')}",
            part="hard_clean",
            category=None,
            gold_line=None,
            base_id=manifest[name]["unique_id"],
            perturbation=None,
            text=folder.joinpath(name).read_text(encoding="utf-8"),
        )
        for name in sorted(manifest)
    ]


def _perturb(base: Base, category: str, seed: int) -> CorpusItem | None:
    # One RNG per (seed, base, category): an item never depends on what was drawn before it.
    rng = random.Random(f"{seed}/{base.id}/{category}")
    result = PERTURBERS[category](Trace(base.text, base.meta), rng)
    if result is None:
        return None
    return CorpusItem(
        id=f"{base.id}-{category}",
        part="perturbation",
        category=category,
        gold_line=result.gold_line,
        base_id=base.id,
        perturbation=result.description,
        text=result.text,
        expected_codes=result.expected_codes,
    )


def _clean(base: Base) -> CorpusItem:
    return CorpusItem(f"{base.id}-clean", "clean", None, None, base.id, None, base.text)


def build_corpus(
    gsm8k: str | Path,
    seed: int = PAPER_SEED,
    scale: str = "paper",
    *,
    categories: Sequence[str] | None = None,
    include_seeds: bool = True,
    include_hard_clean: bool = True,
) -> list[CorpusItem]:
    """The corpus: ``scale="paper"`` (266 traces) or ``"full"`` (every base × every category)."""
    bases = converted_bases(gsm8k)
    items: list[CorpusItem] = []
    if include_seeds:
        items += seeds()
    if scale == "paper":
        items += _paper_sample(bases, seed)
    elif scale == "full":
        for base in bases:
            for category in categories or CATEGORIES:
                item = _perturb(base, category, seed)
                if item is not None:
                    items.append(item)
        items += [_clean(b) for b in bases]
    else:
        raise ValueError(f"unknown corpus scale {scale!r} (paper or full)")
    if include_hard_clean:
        items += hard_clean()
    return items


def _paper_sample(bases: list[Base], seed: int) -> list[CorpusItem]:
    """166 perturbations on distinct bases, then 50 clean controls from the unused bases."""
    rng = random.Random(seed)
    order = list(bases)
    rng.shuffle(order)
    slots = [c for c in PAPER_CATEGORIES for _ in range(PAPER_COUNTS[c])]
    rng.shuffle(slots)
    used: set[str] = set()
    out: list[CorpusItem] = []
    pointer = 0
    for category in slots:
        # TE-52: if a base is ineligible for its category, the next base is tried.
        for k in range(pointer, len(order)):
            base = order[k]
            if base.id in used:
                continue
            item = _perturb(base, category, seed)
            if item is not None:
                used.add(base.id)
                out.append(item)
                if k == pointer:
                    pointer += 1
                break
        else:
            raise ValueError(f"no base trace left for category {category}")
    clean = [b for b in order if b.id not in used][:PAPER_CLEAN]
    return out + [_clean(b) for b in clean]


def write_jsonl(items: Iterable[CorpusItem], path: str | Path) -> None:
    with Path(path).open("w", encoding="utf-8") as fh:
        for item in items:
            fh.write(json.dumps(item.to_dict(), ensure_ascii=False, sort_keys=True) + "\n")


def read_jsonl(path: str | Path) -> Iterator[CorpusItem]:
    with Path(path).open(encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                yield CorpusItem.from_dict(json.loads(line))
