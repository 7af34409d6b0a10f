"""The LAP family: ``jaxmatch.solve_lap`` against scipy, lap.lapjv,
torch-linear-assignment, torch-lap-cuda and optax on batches of random
square cost matrices; every objective must equal scipy's.
"""

from __future__ import annotations

from benchmarks.family import CMDBUF_FLAGS, Family
from benchmarks.lap import cases as lap_cases
from benchmarks.report import checked_ok, fmt_time

VARIANTS = [
    ("auto", "auto"),
    ("jv", "fused"),
    ("tree", "fused"),
    ("tree", "stepped"),
    ("classical", "fused"),
    ("classical", "stepped"),
]
#: Peers that loop over the batch on the host: their time grows with the batch.
CPU_LOOPS = {"scipy", "lap.lapjv"}


def _solvers() -> dict[str, dict]:
    out = {}
    for prefix, group in (("jaxmatch", "jaxmatch"), ("jaxmatch-cb", "jaxmatch-cmdbuf")):
        for method, execution in VARIANTS:
            # Command buffers are a GPU feature: --cpu drops that group.
            if method == "jv" and group != "jaxmatch":
                continue
            out[f"{prefix}/{method}/{execution}"] = dict(
                group=group, gpu=group != "jaxmatch", cpu_only=method == "jv"
            )
    for peer in ("scipy", "lap.lapjv", "optax"):
        out[peer] = dict(group=peer)
    for peer in ("torch-linear-assignment", "torch-lap-cuda"):
        out[peer] = dict(group=peer, gpu=True)
    return out


class LapFamily(Family):
    name = "lap"
    solvers = _solvers()

    def add_arguments(self, parser):
        parser.add_argument(
            "--tlc-max-n",
            type=int,
            default=1024,
            help="largest n for torch-lap-cuda (one 2000x2000 run took over 400 s)",
        )

    def option_defaults(self, opts):
        cpu = opts.get("cpu")
        return dict(budget=10.0 if cpu else 20.0, max_seconds_per_run=20.0 if cpu else 60.0)

    def cases(self, opts):
        return lap_cases.case_list(bool(opts.get("cpu")))

    def group_env(self, group, opts):
        return {"XLA_FLAGS": CMDBUF_FLAGS} if group == "jaxmatch-cmdbuf" else {}

    def peer(self, group, opts):
        from benchmarks.lap.peers import PEERS

        return PEERS[group](group, opts)

    def prepare(self, case, opts):
        return {"reference": lap_cases.reference_objectives(case)}

    def load(self, case, prepared, opts):
        return lap_cases.make_costs(case)

    def skip_reason(self, label, case, history, opts):
        if label == "torch-lap-cuda" and case["n"] > opts["tlc_max_n"]:
            return f"n > --tlc-max-n {opts['tlc_max_n']}"
        for prev, r in history:
            if r.get("status") == "timeout" and case["n"] >= prev["n"]:
                return f"timed out on {prev['name']}; not on larger cases"
        timed = [(p, r) for p, r in history if r.get("status") in ("ok", "too-slow")]
        if not timed:
            return ""
        prev, r = timed[-1]
        if case["n"] > 4 * prev["n"] or case["dist"] != prev["dist"]:
            return ""  # too far to extrapolate: small cases are overhead-bound
        t = (r.get("median_s") or r.get("warmup_s")) * (case["n"] / prev["n"]) ** 2.5
        if label in CPU_LOOPS:
            t *= case["batch"] / prev["batch"]
        limit = opts["max_seconds_per_run"]
        if t > limit:
            return f"predicted {t:.3g} s per call (n^2.5 from {prev['name']}) > {limit:g} s"
        return ""

    def check(self, case, prepared, results):
        for r in results:
            if "objs" in r:
                r["check"] = lap_cases.check(case, prepared["reference"], r)
                del r["objs"]

    def summary_columns(self, case, cells, table):
        best = {}
        for lab, r in cells.items():
            if checked_ok(r):
                kind = "jaxmatch" if lab.startswith("jaxmatch") else "peer"
                if kind not in best or r["median_s"] < best[kind][1]:
                    best[kind] = (lab, r["median_s"])
        bj, bp = best.get("jaxmatch"), best.get("peer")
        return [
            ("best jaxmatch", f"{fmt_time(bj[1])} ({bj[0]})" if bj else "-"),
            ("best peer", f"{fmt_time(bp[1])} ({bp[0]})" if bp else "-"),
            ("jaxmatch / peer", f"{bj[1] / bp[1]:.3g}" if bj and bp else "-"),
        ]

    def report_sections(self, docs):
        return [
            "",
            "jaxmatch / peer: best jaxmatch time / best peer time (< 1: jaxmatch faster); "
            "only answers whose objective equals scipy's compete. `jaxmatch-cb`: jaxmatch "
            "with XLA command buffers.",
        ]


FAMILY = LapFamily()
