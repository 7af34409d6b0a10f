"""Command line of the benchmarks.

python -m benchmarks list lap [--cpu]                  # cases and solver labels
python -m benchmarks run lap [--cpu] [--cases ...] [--solvers ...] [--out f.json]
python -m benchmarks run matching --sizes 20 21 [--solvers 'jaxmatch-gpu/*'] ...
python -m benchmarks report f.json [g.json ...] [-o report.md]
python -m benchmarks selftest                          # the harness's own check
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from benchmarks import harness, report
from benchmarks.family import Family, get_family

#: Harness option defaults; a family may change them (``Family.option_defaults``).
DEFAULTS = dict(repeats=5, budget=20.0, max_seconds_per_run=60.0, prep_timeout=900.0)


def add_run_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--solvers", help="comma-separated labels, group names or shell patterns")
    p.add_argument("--cases", help="comma-separated case names or shell patterns")
    p.add_argument(
        "--cpu",
        action="store_true",
        help="CPU only: JAX_PLATFORMS=cpu in every worker, no GPU solvers, the CPU cases",
    )
    p.add_argument("--repeats", type=int, help="timed calls per (solver, case)")
    p.add_argument("--budget", type=float, help="stop repeating once this many seconds are timed")
    p.add_argument(
        "--max-seconds-per-run",
        type=float,
        help="skip a solver where one call is predicted above this; end a warm-up past it",
    )
    p.add_argument(
        "--case-timeout",
        type=float,
        help="kill a worker stuck this long in one stage (default 2 x max + budget + 60)",
    )
    p.add_argument("--prep-timeout", type=float, help="limit for preparing one case")
    p.add_argument("--deadline", type=float, help="wall-clock seconds for the whole run")
    p.add_argument(
        "--prefetch",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="prepare the next case while the solvers run (family default)",
    )
    p.add_argument("--tag", default="", help="a label stored in the output")
    p.add_argument("--out", type=Path, help="JSON output (rewritten after every case)")
    p.add_argument("--report-out", type=Path, help="also write the markdown report here")


def resolve(family: Family, args: argparse.Namespace) -> tuple[dict, list[str], list]:
    """Options (defaults filled), solver labels and cases of a ``run``/``list``."""
    opts = {k: v for k, v in vars(args).items() if k not in ("command", "family", "out")}
    opts["report_out"] = str(args.report_out) if getattr(args, "report_out", None) else None
    for key, value in {**DEFAULTS, **family.option_defaults(opts)}.items():
        if opts.get(key) is None:
            opts[key] = value
    if opts.get("case_timeout") is None:
        opts["case_timeout"] = 2 * opts["max_seconds_per_run"] + opts["budget"] + 60
    if opts.get("prefetch") is None:
        opts["prefetch"] = family.prefetch
    groups = {k: v["group"] for k, v in family.solvers.items()}
    default = family.default_solvers(opts)
    labels = harness.select(opts.get("solvers"), list(family.solvers), groups, "solvers")
    if not opts.get("solvers"):
        labels = [s for s in labels if s in default]
    # "gpu": a GPU solver (dropped by --cpu); "cpu_only": runs on the CPU only
    # (dropped without --cpu).
    unfit = "gpu" if opts.get("cpu") else "cpu_only"
    dropped = [s for s in labels if family.solvers[s].get(unfit)]
    labels = [s for s in labels if s not in dropped]
    if dropped and opts.get("solvers"):
        where = "--cpu: not running the GPU" if unfit == "gpu" else "not running the CPU-only"
        print(f"{where} solvers {dropped}", file=sys.stderr)
    cases = family.cases(opts)
    names = [c["name"] for c in cases]
    keep = harness.select(opts.get("cases"), names, {}, "cases")
    return opts, labels, [c for c in cases if c["name"] in keep]


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    p = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="command", required=True)
    helps = {"run": "run a family's benchmark", "list": "list a family's cases and solvers"}
    for command, text in helps.items():
        sp = sub.add_parser(command, help=text)
        fam_sub = sp.add_subparsers(dest="family", required=True)
        for name in ("lap", "matching"):
            fp = fam_sub.add_parser(name)
            add_run_arguments(fp)
            get_family(name).add_arguments(fp)
    rp = sub.add_parser("report", help="render JSON documents as markdown")
    rp.add_argument("files", nargs="+", type=Path)
    rp.add_argument("-o", "--out", type=Path, help="also write the markdown here")
    sub.add_parser("selftest", help="check the harness itself (a few seconds)")
    args = p.parse_args(argv)

    if args.command == "selftest":
        from benchmarks import selftest

        return selftest.main()
    if args.command == "report":
        docs = [json.loads(f.read_text()) for f in args.files]
        md = report.render(docs)
        print(md)
        if args.out:
            args.out.write_text(md + "\n")
        return 0
    family = get_family(args.family)
    opts, labels, cases = resolve(family, args)
    if args.command == "list":
        print("cases:", ", ".join(c["name"] for c in cases))
        print("solvers:", ", ".join(labels))
        print("all solvers:", ", ".join(family.solvers))
        return 0
    if not labels or not cases:
        p.error("nothing to run (no solver or no case left)")
    print(f"{family.name} benchmark: {len(cases)} cases, solvers {labels}", flush=True)
    doc = harness.run(family, opts, labels, cases, args.out)
    md = report.render([doc])
    if args.report_out:
        args.report_out.write_text(md + "\n")
    print()
    print(md)
    return 0


if __name__ == "__main__":
    sys.exit(main())
