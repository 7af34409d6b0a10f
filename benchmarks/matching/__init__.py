"""The matching family: ``jaxmatch.max_cardinality_matching`` (GPU, GPU with
XLA command buffers, CPU) against igraph and scipy on the GPU matching
papers' graph families (Deveci, Kaya, Uçar, Çatalyürek), original and RCP,
with the papers' Tesla C2050 times and the goals of the benchmark issue.
"""

from __future__ import annotations

from benchmarks.family import CMDBUF_FLAGS, Family
from benchmarks.matching import cases as mcm_cases
from benchmarks.matching import graphs
from benchmarks.report import checked_ok, fmt_time

#: The papers' best GPU code on a Tesla C2050, seconds after the cheap
#: matching, on the UF (DIMACS10) graphs of these names.
PAPER_C2050_S = {
    "delaunay_n20": 0.04,
    "delaunay_n23": 0.90,
    "delaunay_n23-rcp": 0.90,
    "delaunay_n24": 1.86,
    "kron_g500-logn21": 0.99,
    "kron_g500-logn21-rcp": 3.71,
    "rgg_n_2_24": 3.68,
    "rgg_n_2_24-rcp": 2.20,
}
#: Nonzeros of the UF graphs of the paper rows (flags a regenerated graph of
#: another density).
UF_NNZ = {
    "delaunay_n20": 6_291_372,
    "delaunay_n23": 50_331_568,
    "delaunay_n24": 100_663_202,
    "kron_g500-logn21": 182_082_942,
    "rgg_n_2_24": 265_114_400,
}
GOAL_VS_PAPER = 10.0  # at least 10x faster than the paper's row
GOAL_VS_IGRAPH = 20.0  # at least 20x faster than igraph ...
GOAL_IGRAPH_MIN_N = 1 << 20  # ... on graphs of a million vertices or more
GOAL_RCP_RATIO = 2.0  # permuted at most 2x slower than the original


def _solvers() -> dict[str, dict]:
    out = {}
    for group in ("jaxmatch-gpu", "jaxmatch-gpu-cmdbuf"):
        for method in ("apfb", "apsb", "hybrid"):
            for bfs in ("wr", "plain"):
                for mapping in ("ct", "mt"):
                    out[f"{group}/{method}/{bfs}/{mapping}"] = dict(group=group, gpu=True)
    for method in ("apfb", "apsb", "hybrid"):
        out[f"jaxmatch-cpu/{method}/wr"] = dict(group="jaxmatch-cpu")
    out["igraph"] = dict(group="igraph")
    out["scipy"] = dict(group="scipy")
    return out


def best_jaxmatch(cells: dict[str, dict]) -> tuple[str, float, dict] | None:
    """The fastest checked jaxmatch result of a row: (label, seconds, result)."""
    timed = [(lab, r) for lab, r in cells.items() if lab.startswith("jaxmatch") and checked_ok(r)]
    if not timed:
        return None
    lab, r = min(timed, key=lambda item: item[1]["median_s"])
    return lab, r["median_s"], r


def _ratio(x: float | None, goal: float, higher_is_better: bool = True) -> str:
    if x is None:
        return "-"
    met = x >= goal if higher_is_better else x <= goal
    return f"{x:.3g}{'x' if higher_is_better else ''} {'✓' if met else '✗'}"


class MatchingFamily(Family):
    name = "matching"
    solvers = _solvers()
    prefetch = True

    def add_arguments(self, p):
        p.add_argument(
            "--families",
            default="delaunay,rgg,kron",
            help="comma-separated, of " + ",".join(graphs.FAMILIES),
        )
        p.add_argument(
            "--sizes", nargs="+", type=int, default=[20, 21, 22, 23], help="K values, 2^K vertices"
        )
        p.add_argument("--permuted", choices=("both", "orig", "rcp"), default="both")
        p.add_argument("--cache", default=graphs.DEFAULT_CACHE, help="graph cache directory")
        p.add_argument(
            "--scipy-timeout", type=float, default=60.0, help="kill one scipy call after this"
        )
        p.add_argument(
            "--certify-max-nnz",
            type=int,
            default=300_000_000,
            help="certify the maximum (verify_matching, ~1 s per 10^6 nonzeros)",
        )
        p.add_argument(
            "--rgg-radius",
            choices=("dimacs", "pi"),
            default="dimacs",
            help="dimacs: 0.55 sqrt(ln n / n), the UF graphs' density",
        )
        p.add_argument("--kron-edge-factor", type=int, default=16, help="48: the UF density")
        p.add_argument(
            "--order",
            choices=("spatial", "random"),
            default="spatial",
            help="vertex order of the geometric graphs (spatial: Z-order)",
        )
        p.add_argument(
            "--execution",
            choices=("fused", "stepped", "auto"),
            help="pass execution= to max_cardinality_matching",
        )

    def option_defaults(self, opts):
        max_run = opts.get("max_seconds_per_run") or 60.0
        return dict(
            repeats=3,
            budget=10.0,
            max_seconds_per_run=max_run,
            case_timeout=2 * max_run + 60,
            prep_timeout=1800.0,
        )

    def cases(self, opts):
        return mcm_cases.case_list(opts)

    def group_env(self, group, opts):
        if group == "jaxmatch-cpu":
            return {"JAX_PLATFORMS": "cpu"}  # no CUDA context beside the GPU workers
        return {"XLA_FLAGS": CMDBUF_FLAGS} if group == "jaxmatch-gpu-cmdbuf" else {}

    def peer(self, group, opts):
        from benchmarks.matching.peers import PEERS

        return PEERS[group](group, opts)

    def prepare(self, case, opts):
        return mcm_cases.prepare(case, opts)

    def load(self, case, prepared, opts):
        return mcm_cases.load(case, prepared)

    def call_limit(self, label, opts):
        return opts["scipy_timeout"] if label == "scipy" else opts["case_timeout"]

    def skip_reason(self, label, case, history, opts):
        same = [
            (c, r)
            for c, r in history
            if c["family"] == case["family"] and c["permuted"] == case["permuted"]
        ]
        for c, r in same:
            if r.get("status") in ("timeout", "too-slow") and case["K"] > c["K"]:
                return f"{r['status']} on {c['name']}; not on larger graphs of the family"
        timed = [(c, r) for c, r in same if r.get("status") == "ok"]
        if not timed:
            return ""
        c, r = timed[-1]
        nnz0, nnz = c["_prepared"]["nnz"], case["_prepared"]["nnz"]
        if nnz > 16 * nnz0:
            return ""
        t = r["median_s"] * (nnz / max(nnz0, 1)) ** 1.25
        limit = self.call_limit(label, opts) if label == "scipy" else opts["max_seconds_per_run"]
        if t > limit:
            return f"predicted {t:.3g} s per call (nnz^1.25 from {c['name']}) > {limit:g} s"
        return ""

    def check(self, case, prepared, results):
        mcm_cases.check(case, prepared, results)

    def summary_columns(self, case, cells, table):
        prep = case.get("prepared") or {}
        maximum = prep.get("max_cardinality")
        star = "" if (prep.get("reference") or {}).get("certified") else "*"
        best = best_jaxmatch(cells)
        paper = PAPER_C2050_S.get(case["name"])
        vs_paper = paper / best[1] if paper and best else None
        ig = cells.get("igraph")
        vs_ig = ig["median_s"] / best[1] if best and checked_ok(ig) else None
        rcp = None
        if case.get("permuted"):
            orig = best_jaxmatch(table.get(case["name"].removesuffix("-rcp"), {}))
            rcp = best[1] / orig[1] if best and orig else None
        big = prep.get("n", 0) >= GOAL_IGRAPH_MIN_N
        return [
            ("nnz", f"{prep['nnz']:,}" if prep.get("nnz") else "-"),
            ("max card.", f"{maximum:,}{star}" if maximum is not None else "-"),
            ("cheap card.", f"{prep['cheap_cardinality']:,}" if prep else "-"),
            ("best jaxmatch", f"{fmt_time(best[1])} ({best[0]})" if best else "-"),
            ("paper C2050", fmt_time(paper) if paper else ""),
            ("vs paper (goal 10x)", _ratio(vs_paper, GOAL_VS_PAPER) if paper else ""),
            (
                "vs igraph (goal 20x)",
                _ratio(vs_ig, GOAL_VS_IGRAPH) if big else (f"{vs_ig:.3g}x" if vs_ig else "-"),
            ),
            ("rcp / orig (goal <= 2)", _ratio(rcp, GOAL_RCP_RATIO, False) if rcp else ""),
        ]

    def report_sections(self, docs):
        out = [
            "",
            "jaxmatch starts from the cheap matching (computed once on the CPU, not timed); "
            "igraph and scipy start from nothing. `max card.`: certified by "
            "`jaxmatch.verify_matching` (`*`: not certified, the largest valid answer). "
            "Ratios: paper or igraph time / best jaxmatch time; rcp / orig: best jaxmatch "
            "time on the permuted graph / on the original.",
            "",
            "| graph | best jaxmatch | iterations | levels | per level | generated (s) |",
            "|---|---|---:|---:|---:|---:|",
        ]
        flags = []
        for d in docs:
            cells: dict[str, dict[str, dict]] = {}
            for r in d["results"]:
                cells.setdefault(r["case"], {})[r["solver"]] = r
            for c in d["cases"]:
                prep = c.get("prepared") or {}
                best = best_jaxmatch(cells.get(c["name"], {}))
                if best:
                    lv = best[2].get("levels")
                    per = fmt_time(best[1] / lv) if lv else "-"
                    out.append(
                        f"| {c['name']} | {best[0]} | {best[2].get('iterations', '-')} | "
                        f"{lv or '-'} | {per} | {prep.get('gen_s', 0):.1f} |"
                    )
                uf = UF_NNZ.get(c["name"].removesuffix("-rcp"))
                if c["name"] in PAPER_C2050_S and uf and abs(prep.get("nnz", uf) - uf) > 0.02 * uf:
                    flags.append(
                        f"- {c['name']}: {prep['nnz']:,} nonzeros, the paper's UF graph {uf:,}"
                    )
        if flags:
            out += ["", "Paper rows on graphs of another density:", *flags]
        return out


FAMILY = MatchingFamily()
