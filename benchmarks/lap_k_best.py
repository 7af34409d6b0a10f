"""``k_best_assignments`` on tracking-like batches, jitted, on the CPU (or,
``--device gpu``, the GPU's fused kernel, its results checked equal to the
CPU's), and optionally fastmurty (github motrom/fastmurty, its dense C
build) on the same problems, one call per problem, with the costs compared.

Each problem: ``n`` tracks uniform in a 100 x 100 square, each detected
with probability 0.92 at its position plus N(0, 1) noise, the detections
filled up to ``m`` with uniform clutter and shuffled; Euclidean costs
(float64: the script turns x64 on); a price ``--price`` for every
unassigned track and detection (1.3: about a tenth of the tracks
unassigned in the best assignment). fastmurty ranks
the same problems as costs ``C - 2 price`` with misses free, the constant
added back. Times: the median of ``--repeats`` calls after a warm-up, ms,
each waited for alone; jaxmatch also with 20 calls in flight (a call's
share, :func:`benchmarks.timing.pipelined_ms`).

    python -m benchmarks.lap_k_best [--shapes 256x40x50] [--k 100]
        [--device cpu|gpu]
        [--fastmurty /path/to/mhtda.so]   # gcc -O3 -DNDEBUG -shared -fPIC
                                          # subproblem.c queue.c sspDense.c
                                          # murtysplitDense.c da.c -o mhtda.so
Run it under ``taskset -c 0`` for one core; ``--fastmurty-processes -1``
also runs fastmurty over a process per core (each its own contiguous share
of the problems, sent when the pool starts; the timed call sends the shares'
indices and returns their costs), as a tracker ranking independent frames on
every core would. fastmurty keeps its queue's state in globals, so threads
of one process cannot share it.
"""

from __future__ import annotations

import argparse
import ctypes
import multiprocessing
import os
import time
from typing import Any

import jax
import numpy as np

import jaxmatch
from benchmarks.timing import IN_FLIGHT, pipelined_ms, waited_ms

SHAPES = ("256x40x50",)


def problems(rng, B: int, n: int, m: int) -> np.ndarray:
    C = np.empty((B, n, m))
    for b in range(B):
        tracks = rng.uniform(0, 100, (n, 2))
        seen = rng.random(n) < 0.92
        dets = [tracks[i] + rng.normal(0, 1.0, 2) for i in range(n) if seen[i]][:m]
        dets += [rng.uniform(0, 100, 2) for _ in range(m - len(dets))]
        D = np.array(dets).reshape(m, 2)[rng.permutation(m)]
        C[b] = np.linalg.norm(tracks[:, None] - D[None], axis=-1)
    return C


def median_ms(fn, repeats: int, *args) -> float:
    """A host call (fastmurty's) timed ``repeats`` times after a first (ms,
    median)."""
    fn(*args)
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        fn(*args)
        times.append(time.perf_counter() - t)
    return 1e3 * float(np.median(times))


class _Fastmurty:
    """fastmurty's dense ``da`` through ctypes (its structs as mhtdaClink.py
    declares them for the dense build)."""

    def __init__(self, path: str, n: int, m: int, k: int):
        P, c_int, c_double, c_bool = ctypes.POINTER, ctypes.c_int, ctypes.c_double, ctypes.c_bool

        class Solution(ctypes.Structure):
            _fields_ = [("x", P(c_int)), ("y", P(c_int)), ("v", P(c_double))]

        class Subproblem(ctypes.Structure):
            _fields_ = [
                ("buffer", ctypes.c_char_p),
                ("m", c_int),
                ("n", c_int),
                ("rows2use", P(c_int)),
                ("cols2use", P(c_int)),
                ("eliminateels", P(c_bool)),
                ("eliminatemiss", c_bool),
                ("solution", Solution),
            ]

        class QueueEntry(ctypes.Structure):
            _fields_ = [("key", c_double), ("val", P(Subproblem))]

        class WVssp(ctypes.Structure):
            _fields_ = [("distances", P(c_double)), ("pathback", P(c_int)), ("n", c_int)]

        class WVsplit(ctypes.Structure):
            _fields_ = [
                ("row_cost_estimates", P(c_double)),
                ("row_best_columns", P(c_int)),
                ("m", c_int),
                ("n", c_int),
                ("m_start", c_int),
                ("n_start", c_int),
            ]

        class WVda(ctypes.Structure):
            _fields_ = [
                ("buffer", ctypes.c_char_p),
                ("m", c_int),
                ("n", c_int),
                ("nsols", c_int),
                ("solutionsize", c_int),
                ("subproblemsize", c_int),
                ("currentproblem", P(Subproblem)),
                ("Q", P(QueueEntry)),
                ("sspvars", WVssp),
                ("splitvars", WVsplit),
            ]

        lib = ctypes.CDLL(path)
        lib.allocateWorkvarsforDA.argtypes = [c_int, c_int, c_int]
        lib.allocateWorkvarsforDA.restype = WVda
        lib.da.argtypes = [P(c_double), c_int, P(c_bool), P(c_double), c_int, P(c_bool)]
        lib.da.argtypes += [P(c_double), c_int, P(c_int), P(c_double), P(WVda)]
        lib.da.restype = c_int
        self.lib, self.k = lib, k
        self.work = lib.allocateWorkvarsforDA(n, m, k)
        self.rows, self.cols = np.ones(n, np.bool_), np.ones(m, np.bool_)
        self.zero = np.zeros(1)
        self.assocs = np.zeros((k, n + m, 2), np.int32)
        self.out = np.zeros(k)

    def rank(self, rel: np.ndarray) -> np.ndarray:
        """The k best costs of ``rel`` ([n, m] float64, C-contiguous)."""
        P = ctypes.POINTER
        d, b = P(ctypes.c_double), P(ctypes.c_bool)
        self.lib.da(
            rel.ctypes.data_as(d), 1, self.rows.ctypes.data_as(b), self.zero.ctypes.data_as(d),
            1, self.cols.ctypes.data_as(b), self.zero.ctypes.data_as(d), self.k,
            self.assocs.ctypes.data_as(P(ctypes.c_int)), self.out.ctypes.data_as(d),
            ctypes.byref(self.work),
        )  # fmt: skip
        return self.out.copy()


def _rank_all(fm: _Fastmurty, rel: list[np.ndarray], out: np.ndarray) -> None:
    for b, one in enumerate(rel):
        out[b] = fm.rank(one)


# One fastmurty per worker process (its queue keeps its state in globals:
# threads of one process cannot share the library).
_WORKER: dict = {}


def _worker_init(path: str, n: int, m: int, k: int, rel: list[np.ndarray]) -> None:
    _WORKER["fm"], _WORKER["rel"] = _Fastmurty(path, n, m, k), rel


def _worker_rank(share: np.ndarray) -> np.ndarray:
    fm, rel = _WORKER["fm"], _WORKER["rel"]
    return np.stack([fm.rank(rel[b]) for b in share])


def _rank_processes(pool: Any, shares: list[np.ndarray], out: np.ndarray) -> None:
    """fastmurty over the worker processes of ``pool``, each ranking a
    contiguous share of the problems (sent once, when the pool started)."""
    for share, costs in zip(shares, pool.map(_worker_rank, shares), strict=True):
        out[share] = costs


def main(argv=None) -> list[dict]:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--shapes", nargs="*", default=list(SHAPES), help="BxNxM")
    p.add_argument("--k", type=int, default=100)
    p.add_argument("--price", type=float, default=1.3)
    p.add_argument("--repeats", type=int, default=10)
    p.add_argument("--fastmurty", default=None, help="fastmurty's dense mhtda.so")
    p.add_argument("--device", choices=("cpu", "gpu"), default="cpu")
    p.add_argument(
        "--fastmurty-processes",
        type=int,
        default=0,
        help="also fastmurty over this many processes (0: not; -1: one per core)",
    )
    args = p.parse_args(argv)
    # float64 costs on both sides (fastmurty reads doubles)
    jax.config.update("jax_enable_x64", True)
    rng = np.random.default_rng(0)
    cpu = jax.devices("cpu")[0]
    dev = jax.devices(args.device)[0]
    rank = jax.jit(lambda C: jaxmatch.k_best_assignments(C, args.k, unassigned_cost=args.price))
    print(f"{dev.device_kind}, k = {args.k}, price {args.price}; ms, median of {args.repeats}")
    rows = []
    for shape in args.shapes:
        B, n, m = (int(x) for x in shape.split("x"))
        C = jax.device_put(problems(rng, B, n, m).astype(np.float64), dev)
        res = rank(C)
        if args.device != "cpu":
            on_cpu = rank(jax.device_put(C, cpu))
            same = np.array_equal(np.asarray(res.costs), np.asarray(on_cpu.costs))
            same &= np.array_equal(np.asarray(res.assignments), np.asarray(on_cpu.assignments))
            if not same:
                raise SystemExit(f"{shape}: the {args.device}'s results differ from the CPU's")
        t_ours = waited_ms(rank, C, repeats=args.repeats)
        p_ours = pipelined_ms(rank, C, repeats=max(3, args.repeats // 2))
        costs = np.asarray(res.costs, np.float64)
        out = float(np.mean(np.asarray(res.assignments)[..., 0, :] < 0))
        row = dict(shape=shape, k=args.k, k_best=t_ours, k_best_pipelined=p_ours, rows_out=out)
        row["searches"] = float(np.mean(res.iterations))
        text = f"{shape}: k_best_assignments {t_ours:.2f} ({IN_FLIGHT} in flight {p_ours:.2f})"
        if args.fastmurty:
            fm = _Fastmurty(args.fastmurty, n, m, args.k)
            Cn = np.asarray(C)
            rel = [np.ascontiguousarray(Cn[b] - 2 * args.price, np.float64) for b in range(B)]
            theirs = np.zeros((B, args.k))

            row["fastmurty"] = median_ms(_rank_all, args.repeats, fm, rel, theirs)
            theirs += args.price * (n + m)
            row["max_rel_diff"] = float(np.max(np.abs(theirs - costs) / np.abs(costs)))
            text += f", fastmurty {row['fastmurty']:.2f} (max relative cost difference "
            text += f"{row['max_rel_diff']:.1e})"
            procs = args.fastmurty_processes
            if procs < 0:
                procs = len(os.sched_getaffinity(0))
            if procs:
                shares = np.array_split(np.arange(B), procs)
                again = np.zeros((B, args.k))
                init = (args.fastmurty, n, m, args.k, rel)
                ctx = multiprocessing.get_context("spawn")
                with ctx.Pool(procs, initializer=_worker_init, initargs=init) as pool:
                    row["fastmurty_processes"] = median_ms(
                        _rank_processes, args.repeats, pool, shares, again
                    )
                if not np.array_equal(again + args.price * (n + m), theirs):
                    raise SystemExit(f"{shape}: fastmurty's processes differ from its serial run")
                row["processes"] = procs
                text += f", fastmurty on {procs} processes {row['fastmurty_processes']:.2f}"
        print(
            f"{text}; tracks unassigned in the best {out:.3f}; "
            f"searches per problem {row['searches']:.1f}",
            flush=True,
        )
        rows.append(row)
    return rows


if __name__ == "__main__":
    main()
