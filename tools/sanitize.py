"""Representative workloads for compute-sanitizer (memcheck, racecheck, ...).

    XLA_PYTHON_CLIENT_ALLOCATOR=platform compute-sanitizer --tool memcheck \\
        python3 tools/sanitize.py WORKLOAD

WORKLOAD: lap, lap-jv, lap-split, lap-points, sparse-lap, matching, weighted
or k-best.

With the platform allocator every XLA buffer is its own cudaMalloc, so
out-of-bounds accesses are caught. Where compute-sanitizer itself crashes
while saving host backtraces (a segfault inside the tool before any output;
seen on the H100 machine, 2026-11-25), add ``--show-backtrace no``.

Under the sanitizer XLA compiles very slowly (minutes per program): run
the workload once without it, with JAX's persistent compilation cache
(``JAX_COMPILATION_CACHE_DIR=DIR JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS=0
JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES=0``, the same ``XLA_FLAGS``), then
under the sanitizer with the same variables. On several GPUs add
``--report-api-errors no``: XLA and NCCL probe peer access and kernel images
through failing API calls, which memcheck would count as errors.

``lap``: every method x execution on float, int and infeasible batches, cold
and warm (from that result, on the costs moved a little), and JV in a warp and
in blocks of every size. ``lap-jv``: JV alone (warps, blocks, clusters) on
uniform, Euclidean and tied costs, cold and warm, and with unassigned costs
(a workload that loads no other LAP kernel module). ``lap-split``:
solve_lap_split's scan and update kernels on every GPU (square, wide, tall,
every dtype, ties, forbidden entries, an infeasible and an iteration-limited
solve). ``lap-points``: solve_lap_points'
sweep kernel (every built-in metric, both float dtypes, square, wide and tall,
maximized). ``sparse-lap``: solve_lap on padded batches of SparseCosts, plain and with
unassigned costs. ``k-best``: k_best_assignments' warp kernel on batches of
every dtype, with and without unassigned costs, k up to 300, each member
equal to the CPU's ranking.
``matching``: every BFS driver x level kernel x init x execution x thread
mapping, and push-relabel x init x execution, and trees kept across phases
(canonical graphs and assembled ones), on graphs with free rows and columns
left, batched (vmap) and single, plus a malformed graph the kernels must
reject without touching memory out of bounds and a row CSR out of range
that the graft of kept trees must skip. Exits non-zero if any
result fails its certificate.
"""

from __future__ import annotations

import dataclasses
import itertools
import sys

import jax
import jax.numpy as jnp
import numpy as np
import scipy.sparse as sp

import jaxmatch

# JV on a GPU: a warp (each lane holding 1, 2, 4 or 8 columns), its costs
# staged beyond the default 48 KiB and not staged; a block per problem (from
# 256 columns), every dtype; a cluster per problem (from 1024 rows on
# sm_90): 1, 2 and 4 columns a thread.
JV_SHAPES = [((2, 128, 128), np.float32), ((1, 170, 170), np.float32)]
JV_SHAPES += [((2, 70, 100), np.int32), ((2, 50, 50), np.float64)]
JV_SHAPES += [((2, 260, 260), np.float32), ((2, 100, 300), np.float64)]
JV_SHAPES += [((1, 300, 280), np.int32), ((1, 600, 600), np.float32)]
JV_SHAPES += [((1, 1700, 1700), np.float32), ((2, 1030, 1030), np.int32)]
JV_SHAPES += [((2, 2048, 2048), np.float32), ((1, 2048, 5000), np.float32)]
JV_SHAPES += [((1, 2048, 9000), np.float64)]


def lap_workload() -> tuple[int, int]:
    """(runs, failed certificates) of the LAP workload (float64 costs need x64)."""
    jax.config.update("jax_enable_x64", True)
    rng = np.random.default_rng(0)
    runs = bad = 0
    shapes = [
        ((4, 7, 7), np.float32),
        ((3, 5, 9), np.float64),
        ((2, 9, 4), np.int32),
        ((2, 40, 40), np.float32),
        ((1, 1, 1), np.float32),
    ]
    every = [(m, e) for m in ("tree", "classical") for e in ("fused", "stepped")]
    every.append(("jv", "fused"))
    for shape, dtype in shapes + JV_SHAPES:
        combos = every if (shape, dtype) in shapes else [("jv", "fused")]
        C = (rng.integers(0, 6, shape) if dtype == np.int32 else rng.random(shape)).astype(dtype)
        C_inf = C.copy()
        if dtype != np.int32:
            C_inf[..., 0, :] = np.inf  # infeasible members
        for (method, execution), mat in itertools.product(combos, (C, C_inf)):
            res = jax.device_get(jaxmatch.solve_lap(mat, method=method, execution=execution))
            # A warm start from that result, on the costs moved a little.
            moved = (mat + rng.integers(0, 2, shape)).astype(dtype)
            warm = jaxmatch.solve_lap(moved, method=method, execution=execution, init=res)
            for mat_k, res_k in ((mat, res), (moved, jax.device_get(warm))):
                for b, cert in enumerate(jaxmatch.verify_lap(mat_k, res_k)):
                    runs += 1
                    if bool(res_k.feasible.reshape(-1)[b]) and not cert.optimal:
                        bad += 1
    # JV's auction start on a cluster (square float costs from 1024 rows:
    # Machol-Wien, rank one, U[0, 1)), single and a pair, and the same with
    # one +inf entry (JV's own start); a warm start on a cluster from each
    # result, on the costs moved a little.
    i = np.arange(1024, dtype=np.float64)
    machol = np.outer(i, i).astype(np.float32)
    rank1 = rng.random((1024, 1)) * rng.random((1, 1024))
    forbidden = rank1.copy()
    forbidden[5, 7] = np.inf
    uniform = rng.random((1024, 1024)).astype(np.float32)
    pair = np.stack([rank1.astype(np.float32), machol])
    for mat in (machol, pair, rank1, forbidden, uniform):
        counts = _cold_then_warm(mat, mat + rng.random(mat.shape).astype(mat.dtype))
        runs, bad = runs + counts[0], bad + counts[1]
    # Below the cluster's 1024 rows, from 256: the auction starts a single
    # problem whose rows' least columns are few and a cluster finishes it,
    # a block solves the others and a batch; integer costs with method "jv"
    # (Machol-Wien, a spread of 3).
    i = np.arange(600, dtype=np.float64)
    machol = np.outer(i, i).astype(np.float32)
    uniform = rng.random((600, 600)).astype(np.float32)
    spread3 = np.minimum(np.arange(512), 3)[None, :].repeat(512, 0).astype(np.int32)
    small = np.outer(np.arange(300.0), np.arange(300.0)).astype(np.float32)
    pair = np.stack([uniform, machol])
    for mat in (machol, uniform, pair, machol.astype(np.int32), spread3, small):
        res = jax.device_get(jaxmatch.solve_lap(mat, method="jv"))
        certs = jaxmatch.verify_lap(mat, res)
        for cert in certs if mat.ndim == 3 else [certs]:
            runs += 1
            bad += not cert.optimal
    # auto on integer costs from 256 columns: JV alone where the rows' two
    # least costs rarely tie (Machol-Wien, distinct values), else the tree
    # variant, then JV from its duals (Machol-Wien with a third of its rows
    # zero), square and rectangular, single and batched.  From 256 rows JV
    # starts with its auction instead of the tree variant's duals (single
    # problems below 1024 rows, batches from it); a user's warm start keeps
    # its own.
    machol = np.outer(np.arange(300), np.arange(300)).astype(np.int32)
    machol600 = np.outer(np.arange(600), np.arange(600)).astype(np.int32)
    zero_third = np.where(np.arange(600)[:, None] % 3 == 0, 0, machol600).astype(np.int32)
    machol1100 = np.outer(np.arange(1100), np.arange(1100)).astype(np.int32)
    wide = np.stack([machol1100, rng.integers(0, 10**6, (1100, 1100)).astype(np.int32)])
    mats = (machol, np.stack([machol, machol[::-1]]), machol[:200], machol600, zero_third, wide)
    for mat in mats:
        counts = _cold_then_warm(mat, mat + rng.integers(0, 3, mat.shape).astype(np.int32))
        runs, bad = runs + counts[0], bad + counts[1]
    return runs, bad


def lap_jv_workload() -> tuple[int, int]:
    """(runs, failed certificates) of JV alone (``method="jv"``: the GPU's
    warp, block and cluster kernels, no other LAP kernel module), cold and
    warm, on uniform, Euclidean and tied costs, and with unassigned costs:
    the LAP workload's JV part where loading the dense LAP kernels' module
    stops the sanitizer (docs/design.md)."""
    jax.config.update("jax_enable_x64", True)
    rng = np.random.default_rng(0)
    runs = bad = 0
    warp = [((4, 7, 7), np.float32), ((8, 100, 100), np.float32), ((16, 32, 32), np.float32)]
    warp += [((4, 200, 200), np.float32), ((4, 255, 255), np.int32), ((3, 5, 9), np.float64)]
    for (shape, dtype), kind in itertools.product(warp + JV_SHAPES, ("uniform", "euclid", "ties")):
        b, n, m = shape
        if kind == "uniform":
            C = rng.integers(0, 1000, shape) if dtype == np.int32 else rng.random(shape)
        elif kind == "euclid":
            p, q = rng.random((b, n, 2)), rng.random((b, m, 2))
            scale = 1000 if dtype == np.int32 else 1
            C = np.sqrt(((p[:, :, None] - q[:, None]) ** 2).sum(-1)) * scale
        else:
            C = rng.integers(0, 4, shape)
        mat = C.astype(dtype)
        moved = (mat + rng.integers(0, 2, shape)).astype(dtype)
        counts = _cold_then_warm(mat, moved, method="jv")
        runs, bad = runs + counts[0], bad + counts[1]
    # A NaN or -inf entry in the first member (JV's own check of the
    # entries): that member INVALID_ENTRIES, the others certified.
    for (shape, dtype), entry in itertools.product(warp + JV_SHAPES, (np.nan, -np.inf)):
        if dtype == np.int32:
            continue
        mat = rng.random(shape).astype(dtype)
        clean = jax.device_get(jaxmatch.solve_lap(mat, method="jv"))
        mat[0, shape[1] // 2, shape[2] // 3] = entry
        for init in (None, clean):
            res = jax.device_get(jaxmatch.solve_lap(mat, method="jv", init=init))
            runs += 1
            bad += int(res.status[0]) != jaxmatch.LAPStatus.INVALID_ENTRIES
            for k in range(1, shape[0]):
                member = jax.tree.map(lambda x, k=k: x[k], res)
                runs += 1
                bad += not jaxmatch.verify_lap(mat[k], member).optimal
    # With unassigned costs (the same kernels with the rows' exits):
    # tracking-like batches, wide, tall and square, in warps and a block.
    exits = [((8, 40, 50), np.float32), ((4, 63, 64), np.float64), ((4, 30, 31), np.int32)]
    exits += [((4, 50, 40), np.float32), ((4, 33, 33), np.float32), ((2, 200, 300), np.float32)]
    for shape, dtype in exits:
        b, n, m = shape
        p, q = rng.random((b, n, 2)), rng.random((b, m, 2))
        scale = 1000 if dtype == np.int32 else 1
        mat = (np.sqrt(((p[:, :, None] - q[:, None]) ** 2).sum(-1)) * scale).astype(dtype)
        price = dtype(np.quantile(mat.min(axis=-1), 0.9))
        res = jax.device_get(jaxmatch.solve_lap(mat, unassigned_cost=price))
        for k in range(b):
            member = jax.tree.map(lambda x, k=k: x[k], res)
            runs += 1
            bad += not jaxmatch.verify_lap(mat[k], member, unassigned_cost=price).optimal
    return runs, bad


def _cold_then_warm(mat: np.ndarray, moved: np.ndarray, method: str = "auto") -> tuple[int, int]:
    """(runs, failed certificates) of ``solve_lap`` (``method``) on ``mat``
    (a matrix or a batch), then on ``moved`` warm-started from that result."""
    res = jax.device_get(jaxmatch.solve_lap(mat, method=method))
    warm = jax.device_get(jaxmatch.solve_lap(moved, method=method, init=res))
    runs = bad = 0
    for mat_k, res_k in ((mat, res), (moved, warm)):
        certs = jaxmatch.verify_lap(mat_k, res_k)
        for cert in certs if mat.ndim == 3 else [certs]:
            runs += 1
            bad += not cert.optimal
    return runs, bad


def sparse_lap_workload() -> tuple[int, int]:
    """(runs, failed certificates) of the sparse LAP workload: padded
    batches of every cost dtype, square and rectangular both ways."""
    jax.config.update("jax_enable_x64", True)
    rng = np.random.default_rng(0)
    runs = bad = 0
    for (n, m, density), dtype in itertools.product(
        ((6, 6, 0.6), (20, 35, 0.2), (35, 20, 0.2), (300, 300, 0.03)),
        (np.float32, np.float64, np.int32),
    ):  # the sparse solver, batched, with padding past the entries
        mats = [sp.random(n, m, density=density, format="csr", random_state=k) for k in range(3)]
        cap = max(A.nnz for A in mats) + 5
        batch = []
        for A in mats:
            A.data = (1 + rng.integers(0, 50, A.nnz)).astype(dtype)
            batch.append(jaxmatch.SparseCosts.from_scipy(A).pad_to(cap))
        S = jax.tree_util.tree_map(lambda *xs: np.stack(xs), *batch)
        for price in (None, dtype(30)):  # plain, then with unassigned costs
            res = jax.device_get(jaxmatch.solve_lap(S, unassigned_cost=price))
            for k, A in enumerate(mats):
                runs += 1
                if int(res.status[k]) != jaxmatch.LAPStatus.OPTIMAL:
                    bad += price is not None  # never infeasible with exits
                    continue
                member = jax.tree.map(lambda x, k=k: x[k], res)
                cert = jaxmatch.verify_lap(A.astype(np.float64), member, unassigned_cost=price)
                bad += not cert.optimal
    return runs, bad


def k_best_workload() -> tuple[int, int]:
    """(runs, failed checks) of k_best_assignments on the GPU: batches of
    every cost dtype, square and rectangular both ways, with and without
    unassigned costs, k from 1 to 300 (nodes and queues in the workspace),
    each member equal to the CPU's ranking and its costs certified."""
    jax.config.update("jax_enable_x64", True)
    rng = np.random.default_rng(0)
    cpu = jax.devices("cpu")[0]
    runs = bad = 0
    for (B, n, m), k, dtype, price in (
        ((3, 1, 1), 1, np.float32, None),
        ((5, 6, 9), 40, np.float64, 7.0),
        ((4, 9, 6), 300, np.int32, None),
        ((2, 40, 50), 100, np.float32, 1.3),
        ((1, 33, 33), 17, np.float64, None),
    ):
        C = rng.uniform(0, 10, (B, n, m))
        C = (np.round(C) if dtype == np.int32 else C).astype(dtype)
        cost = None if price is None else dtype(price)
        gpu = jax.device_get(jaxmatch.k_best_assignments(C, k, unassigned_cost=cost))
        ref = jax.device_get(
            jaxmatch.k_best_assignments(jax.device_put(C, cpu), k, unassigned_cost=cost)
        )
        same = all(np.array_equal(a, b) for a, b in zip(gpu, ref, strict=True))
        certs = jaxmatch.verify_k_best(C, gpu, unassigned_cost=cost, complete=False)
        runs += B
        bad += (not same) * B + sum(not c.valid for c in certs)
    return runs, bad


def _graphs(rng) -> list:
    out = []
    for nr, nc, dens in ((7, 9, 0.3), (40, 31, 0.08), (300, 260, 0.01), (2000, 2100, 0.002)):
        A = sp.random(nr, nc, density=dens, format="csr", random_state=int(rng.integers(1 << 30)))
        out.append(jaxmatch.BipartiteGraph.from_scipy(A))
    return out


def matching_workload() -> tuple[int, int]:
    """(runs, failed checks) of the matching workload."""
    runs = bad = 0
    for G in _graphs(np.random.default_rng(0)):
        for method, bfs, init, execution, mapping in itertools.product(
            ("apfb", "apsb", "hybrid"),
            ("wr", "plain"),
            ("cheap", "greedy", "karp-sipser", None),
            ("fused", "stepped"),
            ("ct", "mt"),
        ):
            if execution == "fused" and mapping == "mt":
                continue
            res = jaxmatch.max_cardinality_matching(
                G, method=method, bfs=bfs, init=init, execution=execution, mapping=mapping
            )
            runs += 1
            bad += not jaxmatch.verify_matching(G, res).maximum
        for init, execution in itertools.product(
            ("cheap", "greedy", "karp-sipser", None), ("fused", "stepped")
        ):
            res = jaxmatch.max_cardinality_matching(G, method="pr", init=init, execution=execution)
            runs += 1
            bad += not jaxmatch.verify_matching(G, res).maximum
        # trees kept across phases (the drivers that take that phase end)
        keep = jaxmatch.MatchingTuning(keep_trees_divisor=1)
        for method, execution in itertools.product(("apfb", "auto"), ("fused", "stepped")):
            res = jaxmatch.max_cardinality_matching(
                G, method=method, execution=execution, tuning=keep
            )
            runs += 1
            bad += not jaxmatch.verify_matching(G, res).maximum
    # a batch of padded graphs, both execution shapes
    Gs = [
        jaxmatch.BipartiteGraph.from_scipy(
            sp.random(50, 40, density=0.05, format="csr", random_state=s)
        )
        for s in range(6)
    ]
    cap = max(g.capacity for g in Gs)
    Gb = jax.tree.map(lambda *x: jnp.stack(x), *[g.pad_to(cap) for g in Gs])
    for method, execution in itertools.product(("auto", "pr"), ("fused", "stepped")):
        res = jax.vmap(
            lambda G, m=method, e=execution: jaxmatch.max_cardinality_matching(
                G, method=m, execution=e
            )
        )(Gb)
        for i, G in enumerate(Gs):
            runs += 1
            member = jax.tree.map(lambda x, i=i: x[i], res)
            bad += not jaxmatch.verify_matching(G, member).maximum
    # a malformed column CSR built without validation: a row index out of range
    G = Gs[0]
    broken = dataclasses.replace(G, col_indices=G.col_indices.at[0].set(10**6))
    for method, execution in itertools.product(("auto", "pr"), ("fused", "stepped")):
        res = jaxmatch.max_cardinality_matching(broken, method=method, execution=execution)
        runs += 1
        bad += int(res.status) != jaxmatch.MatchingStatus.INVALID_GRAPH
    # a row CSR out of range, which only the graft of kept trees reads: it
    # skips what is out of range, and the solve stays the column CSR's
    rows_broken = dataclasses.replace(G, indices=G.indices.at[0].set(10**6))
    keep = jaxmatch.MatchingTuning(keep_trees_divisor=1)
    for execution in ("fused", "stepped"):
        res = jaxmatch.max_cardinality_matching(rows_broken, execution=execution, tuning=keep)
        runs += 1
        bad += not jaxmatch.verify_matching(G, res).maximum
    return runs, bad


def weighted_workload() -> tuple[int, int]:
    """(runs, failed checks) of the weighted matching workload: both methods
    on single and batched graphs (hubs included), and malformed graphs (an
    index out of range, an edge whose two entries differ); b-Suitor on the
    same graphs, on hubs with b in the hundreds, on a graph storing every
    pair twice, and on the malformed ones."""
    rng = np.random.default_rng(0)
    runs = bad = 0
    graphs = []
    for n, m in ((1, 0), (9, 20), (300, 1200), (3000, 9000)):
        u, v = rng.integers(0, n, m), rng.integers(0, n, m)
        graphs.append(jaxmatch.Graph.from_edges(u, v, rng.integers(1, 4, m).astype(np.float32), n))
    # hubs: vertices of degree far above the threshold that CUDA gives to blocks
    n, m = 3000, 9000
    u = np.concatenate([rng.integers(0, 4, m), rng.integers(0, n, m)])
    v = rng.integers(0, n, 2 * m)
    graphs.append(jaxmatch.Graph.from_edges(u, v, rng.random(2 * m).astype(np.float32), n))
    for G, method in itertools.product(graphs, ("suitor", "ld")):
        res = jaxmatch.approximate_weighted_matching(G, method=method)
        runs += 1
        bad += not jaxmatch.verify_weighted_matching(G, res).locally_dominant
    cap = max(g.capacity for g in graphs[1:3])
    same_n = [g for g in graphs if g.n == 300]
    Gb = jax.tree.map(lambda *x: jnp.stack(x), *[g.pad_to(cap) for g in same_n * 3])
    for method in ("suitor", "ld"):
        res = jax.vmap(lambda G, m=method: jaxmatch.approximate_weighted_matching(G, method=m))(Gb)
        runs += 1
        bad += int(np.sum(np.asarray(res.status) != jaxmatch.WeightedMatchingStatus.DOMINANT))
    G = graphs[2]
    broken = dataclasses.replace(G, indices=G.indices.at[0].set(10**6))
    one_sided = dataclasses.replace(G, data=G.data.at[0].add(1.0))
    for method in ("suitor", "ld"):
        for wrong in (broken, one_sided):
            res = jaxmatch.approximate_weighted_matching(wrong, method=method)
            runs += 1
            bad += int(res.status) != jaxmatch.WeightedMatchingStatus.INVALID_GRAPH
    # b-Suitor: uniform and per-vertex b (hubs with b in the hundreds), a
    # graph storing pairs twice, a malformed one
    for G, b in itertools.product(graphs, (1, 3)):
        res = jaxmatch.approximate_b_matching(G, b)
        runs += 1
        bad += not jaxmatch.verify_b_matching(G, b, res, refine=0).locally_dominant
    hub = graphs[-1]
    b = rng.integers(0, 6, hub.n)
    b[:4] = 300
    res = jaxmatch.approximate_b_matching(hub, b)
    runs += 1
    bad += not jaxmatch.verify_b_matching(hub, b, res, refine=0).locally_dominant
    u, v, w = graphs[2].edges()
    again = rng.integers(1, 4, u.size).astype(np.float32)  # each pair's second weight
    uu, vv = np.concatenate([u, v, u, v]), np.concatenate([v, u, v, u])
    ww = np.concatenate([w, w, again, again])
    order = np.lexsort((vv, uu))
    twice = jaxmatch.Graph(
        indptr=np.searchsorted(uu[order], np.arange(graphs[2].n + 1)).astype(np.int32),
        indices=vv[order].astype(np.int32),
        data=ww[order],
        shape=graphs[2].shape,
    )
    res = jaxmatch.approximate_b_matching(twice, 3)
    runs += 1
    bad += not jaxmatch.verify_b_matching(twice, 3, res, refine=0).locally_dominant
    for wrong in (broken, one_sided):
        res = jaxmatch.approximate_b_matching(wrong, 2)
        runs += 1
        bad += int(res.status) != jaxmatch.WeightedMatchingStatus.INVALID_GRAPH
    return runs, bad


def lap_split_workload() -> tuple[int, int]:
    """(runs, failed checks) of the split LAP on one GPU and on every GPU
    (float64 costs need x64)."""
    jax.config.update("jax_enable_x64", True)
    rng = np.random.default_rng(11)
    gpus = jax.devices("gpu")
    runs = bad = 0
    cases = [
        rng.random((200, 200), dtype=np.float32),
        rng.random((157, 260)),
        rng.integers(0, 3, (300, 300)).astype(np.int32),
        rng.integers(-40, 2000, (300, 280)).astype(np.int32),
    ]
    sparse = rng.random((120, 150), dtype=np.float32)
    sparse[rng.random(sparse.shape) < 0.8] = np.inf
    sparse[np.arange(120), np.arange(120)] = 1.0
    cases.append(sparse)
    for k in sorted({1, len(gpus)}):
        for C in cases:
            for maximize in (False, True):
                if maximize and np.isinf(C).any():
                    continue
                res = jaxmatch.solve_lap_split(C, maximize=maximize, devices=gpus[:k])
                runs += 1
                cert = jaxmatch.verify_lap(C, jax.tree.map(np.asarray, res), maximize=maximize)
                bad += not (res.status_name == "OPTIMAL" and cert.optimal)
        infeasible = rng.random((40, 40), dtype=np.float32)
        infeasible[:, :3] = np.inf
        res = jaxmatch.solve_lap_split(infeasible, devices=gpus[:k])
        runs += 1
        bad += res.status_name != "INFEASIBLE"
        res = jaxmatch.solve_lap_split(cases[0], devices=gpus[:k], max_iterations=5)
        runs += 1
        bad += res.status_name != "ITERATION_LIMIT"
    return runs, bad


def lap_points_workload() -> tuple[int, int]:
    """(runs, failed checks) of solve_lap_points (the sweep kernel) on one
    GPU: every built-in metric, float32 and float64, square (the multiscale
    start), wide and tall, fewer columns than pairs per row, maximized, odd
    dimensions, and several tiles of columns; each certified over all
    pairs."""
    jax.config.update("jax_enable_x64", True)
    rng = np.random.default_rng(13)
    gpu = jax.devices("gpu")[:1]
    runs = bad = 0
    cases = [
        (1100, 1100, 2, "sqeuclidean", np.float32, False),
        (300, 420, 3, "euclidean", np.float64, True),
        (90, 40, 1, "cityblock", np.float32, False),
        (5, 9, 7, "sqeuclidean", np.float32, True),
        (200, 200, 33, "euclidean", np.float64, False),
        (700, 2300, 3, "sqeuclidean", np.float64, False),
    ]
    for n, m, d, metric, dtype, maximize in cases:
        X = rng.random((n, d)).astype(dtype)
        Y = rng.random((m, d)).astype(dtype)
        sol = jaxmatch.solve_lap_points(X, Y, metric=metric, maximize=maximize, devices=gpu)
        runs += 1
        cert = jaxmatch.verify_lap_points(X, Y, sol, metric=metric, maximize=maximize)
        bad += not (sol.status_name == "OPTIMAL" and cert.optimal)
    return runs, bad


WORKLOADS = {
    "lap": lap_workload,
    "lap-split": lap_split_workload,
    "lap-points": lap_points_workload,
    "lap-jv": lap_jv_workload,
    "sparse-lap": sparse_lap_workload,
    "matching": matching_workload,
    "weighted": weighted_workload,
    "k-best": k_best_workload,
}


def main(argv: list[str]) -> int:
    if len(argv) != 1 or argv[0] not in WORKLOADS:
        print(f"usage: python3 tools/sanitize.py {'|'.join(WORKLOADS)}", file=sys.stderr)
        return 2
    runs, bad = WORKLOADS[argv[0]]()
    print(f"sanitize {argv[0]} workload done: {runs} runs, failed checks: {bad}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
