"""Plots benchmark results: performance profiles and time against problem size.

Reads the JSON documents that ``python -m benchmarks run FAMILY --out X.json``
writes (``benchmarks/harness.py``: ``family``, ``tag``, ``cases`` and one
entry of ``results`` per (case, solver), with ``status``, ``median_s`` and
the family's ``check``), and those of ``python -m benchmarks.weighted --json
X.json`` (``graphs`` and ``results`` per graph, weighting and solver). Per
family it writes two PNGs into the output folder:

* ``FAMILY-profile.png``: the Dolan-Moré performance profile. For case ``p``
  and solver ``s`` with median time ``t[p, s]``, the ratio
  ``r[p, s] = t[p, s] / min_s t[p, s]``; the profile of ``s`` is
  ``rho_s(tau) = |{p : r[p, s] <= tau}| / |P|``, over the cases ``P`` that
  at least one solver solved. A run that did not give a checked answer
  (error, timeout, too slow, skipped, not run, mismatch, absent) has
  ``r = inf``: it never counts. ``rho_s(1)`` is the share of cases on which
  ``s`` was the fastest; the height it reaches on the right, the share it
  solved at all.
* ``FAMILY-time.png``: median time per call against problem size, log-log,
  one line per solver and one panel per kind of case (LAP: cost
  distribution; matching: graph family, original or permuted; weighted:
  graph family and weighting). Size: LAP the matrix side ``n`` (the axis
  names each case, ``batch x n x n``: the batch shrinks as ``n`` grows);
  matching the graph's nonzeros; weighted its undirected edges.

Several documents of one family are combined, as ``benchmarks report``
does: a solver run under several tags gets one line per tag
(``label [tag]``).

Usage (from the repository root)::

    python tools/plot_benchmarks.py RESULTS.json [MORE.json | FOLDER ...] -o docs/plots

A folder stands for the ``*.json`` files in it. ``docs/conf.py`` calls
:func:`plot_files` when ``JAXMATCH_BENCH_JSON`` is set. Needs matplotlib.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

#: Results that count as solved: a timed call whose answer passed the check
#: (or that the family left unchecked).
OK_STATUS = "ok"


@dataclass
class Record:
    """One (case, solver) result, reduced to what the plots need."""

    case: str
    solver: str
    time_s: float | None  # None: no checked answer
    size: float | None
    series: str


@dataclass
class Table:
    """One family's results, from one or more documents."""

    family: str
    size_label: str
    records: list[Record] = field(default_factory=list)
    #: Label the size axis with the case names (LAP: a case's batch differs).
    case_ticks: bool = False
    solvers: list[str] = field(default_factory=list)  # legend order

    def add_solver(self, label: str) -> None:
        if label not in self.solvers:
            self.solvers.append(label)


def _ok_time(r: dict) -> float | None:
    """The median of a result with a checked (or unchecked) answer, else None."""
    if r.get("status", OK_STATUS) != OK_STATUS:
        return None
    if (r.get("check") or {}).get("ok") is False or r.get("valid") is False:
        return None
    t = r.get("median_s")
    if not isinstance(t, (int, float)) or not math.isfinite(t) or t <= 0:
        return None
    return float(t)


def _harness_case(case: dict) -> tuple[float | None, str]:
    """(size, series) of a harness case: LAP or matching, else a best guess."""
    prepared = case.get("prepared") or {}
    if "batch" in case and "n" in case:  # LAP: the batch shrinks as n grows
        return float(case["n"]), str(case.get("dist", ""))
    if "K" in case:  # matching
        nnz = prepared.get("nnz") or case.get("nnz")
        series = str(case.get("family", "")) + (" (permuted)" if case.get("permuted") else "")
        return (float(nnz) if nnz else 2.0 ** int(case["K"])), series
    for key in ("nnz", "m", "n"):
        if isinstance(case.get(key), (int, float)):
            return float(case[key]), ""
    return None, ""


SIZE_LABELS = {
    "lap": "n (ticks: the cases, batch x n x n)",
    "matching": "nonzeros",
    "weighted": "undirected edges",
}


def _label(solver: str, tag: str, tags: set[str]) -> str:
    """A solver's label: with its run's tag where it ran under several."""
    return f"{solver} [{tag or 'no tag'}]" if len(tags) > 1 else solver


def _tags_by_solver(docs: list[dict]) -> dict[str, set[str]]:
    tags: dict[str, set[str]] = {}
    for d in docs:
        for r in d.get("results", []):
            tags.setdefault(r["solver"], set()).add(str(d.get("tag", "")))
    return tags


def tables(docs: Iterable[dict]) -> list[Table]:
    """The documents grouped by family, each reduced to a :class:`Table`."""
    by_family: dict[str, list[dict]] = {}
    for d in docs:
        if "results" not in d:
            raise ValueError("not a benchmark result: no 'results'")
        fam = d.get("family") or ("weighted" if "graphs" in d else "unknown")
        by_family.setdefault(str(fam), []).append(d)
    out = []
    for fam, fdocs in by_family.items():
        table = Table(fam, SIZE_LABELS.get(fam, "problem size"), case_ticks=fam == "lap")
        tags = _tags_by_solver(fdocs)
        for d in fdocs:
            cases = {c["name"]: c for c in d.get("cases", []) if "name" in c}
            tag = str(d.get("tag", ""))
            for s in d.get("solvers", []):
                if s in tags:
                    table.add_solver(_label(s, tag, tags[s]))
            for r in d["results"]:
                label = _label(r["solver"], tag, tags[r["solver"]])
                table.add_solver(label)
                if "case" in r:  # the harness
                    size, series = _harness_case(cases.get(r["case"], {}))
                    name = str(r["case"])
                else:  # benchmarks/weighted.py: one row per graph, weighting, solver
                    name = f"{r.get('graph', '?')}/{r.get('weighting', '')}"
                    m = r.get("m")
                    size = float(m) if isinstance(m, (int, float)) else None
                    series = f"{r.get('family', '')} {r.get('weighting', '')}".strip()
                table.records.append(Record(name, label, _ok_time(r), size, series))
        out.append(table)
    return out


def profile(table: Table) -> tuple[list[str], dict[str, list[float]]]:
    """Performance ratios: the cases at least one solver solved, and for each
    solver its ratio to the fastest per case (``inf``: not solved)."""
    times: dict[str, dict[str, float]] = {}
    for rec in table.records:
        if rec.time_s is not None:
            times.setdefault(rec.case, {})[rec.solver] = rec.time_s
    cases = [c for c in dict.fromkeys(r.case for r in table.records) if times.get(c)]
    ratios = {
        s: [times[c].get(s, math.inf) / min(times[c].values()) for c in cases]
        for s in table.solvers
    }
    return cases, ratios


def rho(ratios: list[float], tau: float) -> float:
    """The share of ratios at most ``tau`` (the profile at ``tau``)."""
    return sum(r <= tau for r in ratios) / len(ratios) if ratios else 0.0


def _styles(solvers: list[str]):
    import matplotlib.pyplot as plt

    colors = plt.get_cmap("tab10").colors + plt.get_cmap("Dark2").colors
    lines = ["-", "--", "-.", ":"]
    return {
        s: dict(color=colors[i % len(colors)], linestyle=lines[(i // len(colors)) % len(lines)])
        for i, s in enumerate(solvers)
    }


def plot_profile(table: Table, path: Path, tau_max: float | None = None) -> bool:
    """Writes the performance profile; False when no case was solved."""
    import matplotlib.pyplot as plt

    cases, ratios = profile(table)
    if not cases:
        return False
    finite = [r for rs in ratios.values() for r in rs if math.isfinite(r)]
    top = tau_max or max(2.0, 1.2 * max(finite))
    styles = _styles(table.solvers)
    fig, ax = plt.subplots(figsize=(8, 5), constrained_layout=True)
    for s in table.solvers:
        rs = sorted(r for r in ratios[s] if math.isfinite(r) and r <= top)
        if not rs and not any(math.isfinite(r) for r in ratios[s]):
            continue  # never solved a case: a line along 0 says nothing
        xs = [1.0, *rs, top]
        ys = [rho(ratios[s], 1.0), *(rho(ratios[s], r) for r in rs), rho(ratios[s], top)]
        ax.step(xs, ys, where="post", label=s, linewidth=1.6, **styles[s])
    ax.set_xscale("log", base=2)
    ax.set_xlim(1.0, top)
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel("τ (time / fastest time on the case)")
    ax.set_ylabel(f"share of cases within τ (of {len(cases)})")
    ax.set_title(f"{table.family}: performance profile")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(loc="center left", bbox_to_anchor=(1.01, 0.5), fontsize="small", frameon=False)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def plot_time(table: Table, path: Path) -> bool:
    """Writes time against size (a panel per series); False when nothing is timed."""
    import matplotlib.pyplot as plt

    recs = [r for r in table.records if r.time_s is not None and r.size]
    if not recs:
        return False
    series = list(dict.fromkeys(r.series for r in recs))
    ncols = min(3, len(series))
    nrows = math.ceil(len(series) / ncols)
    fig, axes = plt.subplots(
        nrows,
        ncols,
        figsize=(4.2 * ncols + 2.5, 3.4 * nrows),
        squeeze=False,
        constrained_layout=True,
    )
    styles = _styles(table.solvers)
    shown: dict[str, object] = {}
    for ax, ser in zip(axes.flat, series):
        for s in table.solvers:
            pts = sorted((r.size, r.time_s) for r in recs if r.series == ser and r.solver == s)
            if pts:
                (line,) = ax.plot(*zip(*pts), marker="o", markersize=3.5, label=s, **styles[s])
                shown.setdefault(s, line)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_title(ser or table.family, fontsize="medium")
        if table.case_ticks:
            names: dict[float, list[str]] = {}
            for r in recs:
                if r.series == ser and r.case.split("-")[0] not in names.get(r.size, []):
                    names.setdefault(r.size, []).append(r.case.split("-")[0])
            ax.set_xticks(list(names), ["\n".join(v) for v in names.values()], fontsize="x-small")
            ax.minorticks_off()
        ax.set_xlabel(table.size_label)
        ax.set_ylabel("median time per call (s)")
        ax.grid(True, which="both", alpha=0.3)
    for ax in list(axes.flat)[len(series) :]:
        ax.axis("off")
    fig.legend(
        list(shown.values()),
        list(shown),
        loc="outside right center",
        fontsize="small",
        frameon=False,
    )
    fig.suptitle(f"{table.family}: time against problem size")
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "_." else "_" for c in name) or "results"


def expand(paths: Iterable[str | Path]) -> list[Path]:
    """Files as given; a folder as the ``*.json`` files in it."""
    out: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            out += sorted(p.glob("*.json"))
        elif p.exists():
            out.append(p)
        else:
            raise FileNotFoundError(p)
    return out


def plot_files(paths: Iterable[str | Path], out_dir: str | Path) -> list[Path]:
    """Plots the JSON documents ``paths`` (files or folders) into ``out_dir``.

    Returns:
      The PNG files written (``FAMILY-profile.png``, ``FAMILY-time.png``).
    """
    import matplotlib

    matplotlib.use("Agg")
    docs = [json.loads(p.read_text()) for p in expand(paths)]
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for table in tables(docs):
        base = _safe(table.family)
        for kind, draw in (("profile", plot_profile), ("time", plot_time)):
            path = out / f"{base}-{kind}.png"
            if draw(table, path):
                written.append(path)
    return written


#: What a compact copy keeps of each document (what the plots read).
_COMPACT_RESULT_KEYS = ("solver", "case", "graph", "weights", "status", "median_s", "m", "valid")


def compact(doc: dict) -> dict:
    """A copy of a result document with only what the plots read: the
    cases without their prepared reference answers, and per result the
    solver, case, status, median time and whether its check passed. The
    latest results behind the documentation's plots are kept this way in
    ``docs/data/`` (kilobytes, not the full records)."""
    out = {k: doc[k] for k in ("family", "tag", "command", "environment", "header") if k in doc}
    if "cases" in doc:
        out["cases"] = [{k: v for k, v in c.items() if k != "prepared"} for c in doc["cases"]]
    if "graphs" in doc:
        out["graphs"] = doc["graphs"]
    results = []
    for r in doc.get("results", []):
        slim = {k: r[k] for k in _COMPACT_RESULT_KEYS if k in r}
        if isinstance(r.get("check"), dict) and "ok" in r["check"]:
            slim["check"] = {"ok": r["check"]["ok"]}
        results.append(slim)
    out["results"] = results
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("json", nargs="+", help="JSON results of the benchmarks, or folders of them")
    p.add_argument("-o", "--out", required=True, help="folder for the PNG files")
    p.add_argument(
        "--compact",
        metavar="DIR",
        help="also write a compact copy of each input to DIR (what docs/data/ keeps)",
    )
    args = p.parse_args(argv)
    files = expand(args.json)
    if not files:
        p.error("no JSON files found")
    if args.compact:
        Path(args.compact).mkdir(parents=True, exist_ok=True)
        for f in files:
            target = Path(args.compact) / f.name
            target.write_text(json.dumps(compact(json.loads(f.read_text())), indent=0) + "\n")
            print(target)
    for path in plot_files(files, args.out):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
