"""``python -m tests.fuzz``: run the fuzz harness, or replay saved reproducers (docs/fuzz.md).

    python -m tests.fuzz --minutes 30 --seed 1                  # the long run, every target
    python -m tests.fuzz --inputs 200 --targets te,type6        # a fixed, reproducible set
    python -m tests.fuzz --replay tests/fuzz/crashes/te/<sha>.bin

Prints the per-target table and the distinct failure signatures; exits 1 on any failure.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from .guard import GuardSettings
from .runner import CRASH_DIR, RunConfig, decode_input, run
from .targets import BY_NAME, TARGETS, FuzzInput, load_plugin


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m tests.fuzz", description=__doc__.split("\n")[0])
    size = p.add_mutually_exclusive_group()
    size.add_argument("--minutes", type=float, help="run for this long in all (targets share the time)")
    size.add_argument("--inputs", type=int, help="inputs per target (a fixed set: the same every run)")
    size.add_argument(
        "--replay", nargs="+", metavar="FILE", help="run saved reproducers (<target>/<sha>.bin)"
    )
    p.add_argument("--seed", type=int, default=0, help="run seed (default 0)")
    p.add_argument(
        "--targets",
        default=",".join(t.name for t in TARGETS),
        help=f"comma-separated, from: {', '.join(BY_NAME)}",
    )
    p.add_argument(
        "--jobs", type=int, default=1, help="primary worker processes (plus one determinism worker)"
    )
    p.add_argument("--budget", type=float, default=5.0, help="per-input wall budget given to cotaudit, s")
    p.add_argument("--slack", type=float, default=5.0, help="over budget = past budget + slack; killed there")
    p.add_argument("--memory-mb", type=int, default=1024, help="per-input memory budget given to cotaudit")
    p.add_argument("--det-every", type=int, default=10, help="recheck every Nth input in a second process")
    p.add_argument("--crash-dir", type=Path, default=CRASH_DIR, help="where reproducers go")
    p.add_argument("--no-crash-files", action="store_true", help="do not write reproducers")
    p.add_argument(
        "--tracebacks", action="store_true", help="print the traceback of every failure at the end"
    )
    p.add_argument("--plugin", action="append", default=[], help=argparse.SUPPRESS)  # the harness's own tests
    return p


def _replay_inputs(files: list[str]) -> list[FuzzInput]:
    out: list[FuzzInput] = []
    for name in files:
        path = Path(name)
        meta_path = path.with_suffix(".json")
        target = path.parent.name
        if meta_path.exists():
            target = json.loads(meta_path.read_text(encoding="utf-8")).get("target", target)
        if target not in BY_NAME:
            raise SystemExit(f"{name}: cannot tell the target (put the file in a folder named after one)")
        out.append(FuzzInput(target, -1, len(out), path.name, (), decode_input(path.read_bytes())))
    return out


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    for plugin in args.plugin:
        load_plugin(plugin, worker=False)
    guard = GuardSettings(budget_s=args.budget, slack_s=args.slack, memory_mb=args.memory_mb)
    inputs = None
    targets = tuple(t for t in args.targets.split(",") if t)
    if args.replay:
        inputs = _replay_inputs(args.replay)
        targets = tuple(dict.fromkeys(i.target for i in inputs))
    elif args.minutes is None and args.inputs is None:
        args.inputs = 100
    unknown = [t for t in targets if t not in BY_NAME]
    if unknown:
        raise SystemExit(f"unknown target(s): {', '.join(unknown)} (targets: {', '.join(BY_NAME)})")
    config = RunConfig(
        seed=args.seed,
        targets=targets,
        inputs=args.inputs,
        minutes=args.minutes,
        jobs=max(1, args.jobs),
        det_every=1 if args.replay else max(1, args.det_every),
        guard=guard,
        crash_dir=None if args.no_crash_files or args.replay else args.crash_dir,
        progress=sys.stderr,
        plugins=tuple(args.plugin),
    )
    result = run(config, inputs)
    summary, tracebacks = result.summary, result.tracebacks
    sys.stdout.write(summary.render())
    if (args.tracebacks or args.replay) and tracebacks:
        sys.stdout.write("\n" + "\n".join(tracebacks))
    return 0 if summary.ok else 1


if __name__ == "__main__":
    sys.exit(main())
