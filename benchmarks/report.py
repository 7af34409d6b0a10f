"""Markdown tables from the harness's JSON documents.

One row per case, one column per solver (a solver run under several tags,
e.g. two runs with different XLA flags, gets a column per tag), then the
family's summary columns (best jaxmatch, ratios), then the problems, the
skips and the runs' environments.
"""

from __future__ import annotations

import json

from benchmarks.family import get_family


def fmt_time(t: float | None) -> str:
    """Seconds as a short human string (us / ms / s); ``-`` for None."""
    if t is None:
        return "-"
    if t < 1e-3:
        return f"{t * 1e6:.0f} us"
    if t < 1:
        return f"{t * 1e3:.3g} ms"
    return f"{t:.3g} s"


def checked_ok(r: dict | None) -> bool:
    """A timed result whose answer passed the family's check."""
    return bool(r and r.get("status") == "ok" and (r.get("check") or {}).get("ok") is True)


def cell(r: dict | None, repeats: int = 0) -> str:
    """One result's table cell: the median (with the number of calls when
    fewer than ``repeats``, and MISMATCH / unchecked), or why there is none."""
    if r is None:
        return ""
    status = r.get("status")
    ok = (r.get("check") or {}).get("ok")
    if status == "ok":
        s = fmt_time(r.get("median_s"))
        if r.get("n_runs", 0) < repeats:
            s += f" ({r['n_runs']}x)"
        if ok is False:
            s += " MISMATCH"
        elif ok is None:
            s += " (unchecked)"
        return s
    if status == "too-slow":
        return f">{fmt_time(r.get('warmup_s'))}"
    return {"skipped": "skip", "error": "error", "deadline": "not run"}.get(status, str(status))


def columns(docs: list[dict]) -> tuple[list[str], dict[tuple[str, str], dict]]:
    """Column labels in run order and the cells by (case name, label)."""
    tags: dict[str, set[str]] = {}
    for d in docs:
        for s in d["solvers"]:
            tags.setdefault(s, set()).add(d.get("tag", ""))
    labels: list[str] = []
    cells: dict[tuple[str, str], dict] = {}
    for d in docs:
        repeats = (d.get("options") or {}).get("repeats", 0)
        for s in d["solvers"]:
            lab = f"{s} [{d.get('tag')}]" if len(tags[s]) > 1 else s
            if lab not in labels:
                labels.append(lab)
        for r in d["results"]:
            s = r["solver"]
            lab = f"{s} [{d.get('tag')}]" if len(tags[s]) > 1 else s
            cells[(r["case"], lab)] = dict(r, _repeats=repeats)
    return labels, cells


def render(docs: list[dict]) -> str:
    """The markdown report of one or more documents of one family."""
    family = get_family(docs[0]["family"])
    labels, cells = columns(docs)
    cases: dict[str, dict] = {}
    for d in docs:
        for c in d["cases"]:
            cases.setdefault(c["name"], c)
    table = {
        name: {lab: cells[(name, lab)] for lab in labels if (name, lab) in cells} for name in cases
    }
    header: list[str] | None = None
    lines = []
    problems: dict[tuple[str, str], list[str]] = {}
    skips = []
    for name, case in cases.items():
        row_cells = table[name]
        extra = family.summary_columns(case, row_cells, table)
        if header is None:
            header = ["case", *labels, *(h for h, _ in extra)]
        row = [name] + [
            cell(row_cells.get(lab), (row_cells.get(lab) or {}).get("_repeats", 0))
            for lab in labels
        ]
        lines.append("| " + " | ".join(row + [t for _, t in extra]) + " |")
        for lab, r in row_cells.items():
            check = r.get("check") or {}
            if check.get("ok") is False or r.get("status") in ("error", "timeout"):
                why = r.get("error") or check.get("note") or ""
                status = "MISMATCH" if check.get("ok") is False else r["status"]
                key = (f"{lab}: {status}", why.splitlines()[0][:300] if why else "")
                problems.setdefault(key, []).append(name)
            if r.get("status") in ("skipped", "too-slow") and r.get("note"):
                skips.append(f"- {name} / {lab}: {r['note']}")
    header = header or ["case", *labels]
    out = [
        "| " + " | ".join(header) + " |",
        "|" + "|".join(["---"] + ["---:"] * (len(header) - 1)) + "|",
        *lines,
        "",
        "Median wall time per call after a warm-up, inputs on the solver's device. "
        "`(kx)`: only k timed calls fit the budget; `>t`: the warm-up alone took t (ended); "
        "`skip`: predicted or known to exceed the per-call limit; `not run`: the run's "
        "deadline came first; MISMATCH: the answer failed the check.",
    ]
    out += family.report_sections(docs)
    if problems:
        out += ["", "Problems:"]
        out += [f"- {what} in {', '.join(where)}: {why}" for (what, why), where in problems.items()]
    if skips:
        out += ["", "Skipped:", *skips]
    out += ["", "Runs:"]
    for d in docs:
        env = d.get("environment") or {}
        out.append(
            f"- `{d.get('tag')}` ({d.get('created', '?')}, {d.get('wall_s', 0):.0f} s"
            f"{', PARTIAL' if d.get('partial') else ''}): gpu {env.get('gpu', '-')}; "
            f"cpu {env.get('cpu', '-')} x{env.get('cpu_count', '?')}; jax {env.get('jax', '-')}, "
            f"jaxmatch {env.get('jaxmatch', '-')}, numpy {env.get('numpy', '-')}, "
            f"scipy {env.get('scipy', '-')}; XLA_FLAGS=`{env.get('XLA_FLAGS', '')}`"
        )
        out.append(f"  - command: `{d.get('command', '')}`")
        for group, info in (d.get("worker_info") or {}).items():
            if info:
                short = {k: v for k, v in info.items() if k != "file"}
                out.append(f"  - {group}: {json.dumps(short)}")
    return "\n".join(out)
