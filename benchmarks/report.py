#!/usr/bin/env python3
"""Merges benchmarks/lap.py JSON outputs into one markdown table.

    python3 benchmarks/report.py lap_plain.json lap_cmdbuf.json [-o report.md]

Per case: the median time of every solver (jaxmatch variants once per run tag,
e.g. "jaxmatch/tree/fused [cmdbuf]"), the best jaxmatch variant, the best
peer, and their ratio (best jaxmatch / best peer: < 1 means jaxmatch is
faster). Only results whose objective check passed compete for "best"; a
check failure is marked in its cell with "MISMATCH" and listed below the
table, never dropped.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def _common():
    """bench_common.py, loaded by path (lap.py keeps this folder off sys.path)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "bench_common", Path(__file__).resolve().with_name("bench_common.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


_bench_common = _common()
_fmt_t = _bench_common.fmt_time
_cell = _bench_common.result_cell


def _label(solver: str, tag: str, multi_tag: set[str]) -> str:
    return f"{solver} [{tag}]" if solver in multi_tag else solver


def render(docs: list[dict]) -> str:
    # Which solvers appear under more than one tag (jaxmatch, usually)?
    tags_of: dict[str, set[str]] = {}
    for d in docs:
        for r in d["results"]:
            tags_of.setdefault(r["solver"], set()).add(d.get("tag", "?"))
    multi = {s for s, t in tags_of.items() if len(t) > 1}

    cases: list[dict] = []
    seen = set()
    for d in docs:
        for c in d["cases"]:
            if c["name"] not in seen:
                seen.add(c["name"])
                cases.append(c)

    columns: list[str] = []  # labels, jaxmatch first then peers, in run order
    family: dict[str, str] = {}
    cells: dict[tuple[str, str], dict] = {}
    for d in docs:
        tag = d.get("tag", "?")
        reps = (d.get("options") or {}).get("repeats", 0)
        for r in d["results"]:
            lab = _label(r["solver"], tag, multi)
            fam = r.get("family") or ("jaxmatch" if r["solver"].startswith("jaxmatch") else "peer")
            family[lab] = fam
            if lab not in columns:
                columns.append(lab)
            cells[(r["case"], lab)] = dict(r, _repeats=reps)
    columns = [c for c in columns if family[c] == "jaxmatch"] + \
              [c for c in columns if family[c] != "jaxmatch"]

    lines = []
    head = ["case"] + columns + ["best jaxmatch", "best peer", "ratio"]
    lines.append("| " + " | ".join(head) + " |")
    lines.append("|" + "|".join(["---"] + ["---:"] * (len(head) - 1)) + "|")
    notes: dict[tuple[str, str, str], list[str]] = {}
    for c in cases:
        row = [c["name"]]
        best = {"jaxmatch": None, "peer": None}
        for lab in columns:
            r = cells.get((c["name"], lab))
            if r is None:
                row.append("")
                continue
            row.append(_cell(r))
            if r.get("status") == "ok" and (r.get("check") or {}).get("ok") is True:
                fam = "jaxmatch" if family[lab] == "jaxmatch" else "peer"
                if best[fam] is None or r["median_s"] < best[fam][1]:
                    best[fam] = (lab, r["median_s"])
            if r.get("status") in ("error", "timeout") or (r.get("check") or {}).get("ok") is False:
                why = r.get("error") or ""
                ck = r.get("check") or {}
                if ck.get("ok") is False:
                    why = (f"objective mismatch vs {ck.get('ref')}: {ck.get('n_mismatch')} of "
                           f"{ck.get('n_problems')} problems"
                           + (f", max rel gap {ck['max_rel_gap']:.2e}" if "max_rel_gap" in ck else "")
                           + (f", max abs gap {ck['max_abs_gap']:g}" if "max_abs_gap" in ck else "")
                           + (f"; {ck['note']}" if ck.get("note") else ""))
                key = (lab, "MISMATCH" if ck.get("ok") is False else r.get("status"),
                       why.splitlines()[0][:300] if why else "")
                notes.setdefault(key, []).append(c["name"])
        bj, bp = best["jaxmatch"], best["peer"]
        row.append(f"{_fmt_t(bj[1])} ({bj[0]})" if bj else "-")
        row.append(f"{_fmt_t(bp[1])} ({bp[0]})" if bp else "-")
        row.append(f"{bj[1] / bp[1]:.3g}" if bj and bp and bp[1] > 0 else "-")
        lines.append("| " + " | ".join(row) + " |")

    out = ["\n".join(lines), ""]
    out.append("Median wall time per call (batch included), device-resident inputs. "
               "ratio = best jaxmatch / best peer (< 1: jaxmatch faster); only results "
               "whose objective matched scipy's compete. `(kx)`: only k timed runs fit the "
               "budget; `>t`: the warm-up alone took t; `skip`: predicted or known to exceed "
               "the per-run limit; `not run`: the run's deadline came first.")
    if notes:
        out += ["", "Problems:"]
        for (lab, st, why), where in notes.items():
            out.append(f"- {lab}: {st} in {', '.join(where)}: {why}")
    skips = []
    for (case, lab), r in cells.items():
        if r.get("status") in ("skipped", "too-slow") and r.get("note"):
            skips.append(f"- {case} / {lab}: {r['note']}")
    if skips:
        out += ["", "Skipped:"] + sorted(skips)
    meta = []
    for d in docs:
        env = d.get("environment") or {}
        meta.append(f"- run `{d.get('tag')}` ({d.get('mode')}, {d.get('created', '?')}, "
                    f"{d.get('wall_s', 0):.0f} s{', PARTIAL' if d.get('partial') else ''}): "
                    f"gpu={env.get('gpu', '-')}; cpu={env.get('cpu', '-')} x{env.get('cpu_count', '?')}; "
                    f"XLA_FLAGS=`{env.get('XLA_FLAGS', '')}`")
        for s, info in (d.get("solver_info") or {}).items():
            if info:
                short = {k: v for k, v in info.items() if k not in ("file",)}
                meta.append(f"  - {s}: {json.dumps(short)}")
    out += ["", "Runs:"] + meta
    return "\n".join(out)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("files", nargs="+", help="JSON files written by benchmarks/lap.py --out")
    p.add_argument("-o", "--out", help="also write the markdown here")
    args = p.parse_args(argv)
    docs = []
    for f in args.files:
        try:
            docs.append(json.loads(Path(f).read_text()))
        except (OSError, json.JSONDecodeError) as err:
            print(f"skipping {f}: {err}", file=sys.stderr)
    if not docs:
        print("no readable input", file=sys.stderr)
        return 1
    md = render(docs)
    print(md)
    if args.out:
        Path(args.out).write_text(md + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
