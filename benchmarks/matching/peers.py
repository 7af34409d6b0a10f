"""Matching peer adapters: jaxmatch (GPU, GPU with command buffers, CPU),
igraph and scipy.

jaxmatch starts from the case's cheap matching (on the device before
timing); igraph and scipy start from nothing, so their whole call is timed
(building igraph's ``Graph`` is not).
"""

from __future__ import annotations

import numpy as np

from benchmarks.family import Peer, jaxmatch_info
from benchmarks.matching.cases import build_graph, check_matching


def _tiny_graph():
    import scipy.sparse as sp

    A = sp.random(64, 64, density=0.08, format="csr", random_state=0, dtype=np.float32)
    A.data[:] = 1
    return A.astype(np.int8)


def _answer(A, rm, cm, cardinality: int) -> dict:
    why, pairs = check_matching(A, rm, cm)
    if not why and pairs != cardinality:
        why = f"reported cardinality {cardinality} != {pairs} pairs"
    out = dict(cardinality=int(cardinality), valid=not why)
    if why:
        out["invalid_reason"] = why
    return out


class JaxmatchPeer(Peer):
    """``jax.jit(lambda G, rm, cm: jaxmatch.max_cardinality_matching(G,
    method=M, bfs=B, mapping=P, init=(rm, cm)))`` on the group's device."""

    def setup(self):
        import jax

        import jaxmatch

        self.jax, self.jaxmatch = jax, jaxmatch
        on_gpu = self.group.startswith("jaxmatch-gpu")
        if on_gpu and jax.default_backend() not in ("gpu", "cuda"):
            raise RuntimeError(f"JAX backend is {jax.default_backend()!r}, not a GPU")
        self.device = jax.devices()[0] if on_gpu else jax.devices("cpu")[0]
        self.info = dict(
            jax=jax.__version__, device=str(self.device.device_kind), **jaxmatch_info()
        )
        self.fns: dict = {}

    def load(self, data):
        put = lambda x: self.jax.device_put(x, self.device)  # noqa: E731
        self.args = self.jax.block_until_ready(
            (put(build_graph(data["A"])), put(data["rm"]), put(data["cm"]))
        )

    def call(self, label):
        if label not in self.fns:
            parts = label.split("/")[1:]  # method, bfs[, mapping]
            kw = dict(method=parts[0], bfs=parts[1])
            if len(parts) > 2:
                kw["mapping"] = parts[2]
            if self.opts.get("execution"):
                kw["execution"] = self.opts["execution"]
            mcm = self.jaxmatch.max_cardinality_matching
            self.fns[label] = self.jax.jit(lambda G, rm, cm: mcm(G, init=(rm, cm), **kw))
        f, args = self.fns[label], self.args
        return lambda: self.jax.block_until_ready(f(*args))

    def answer(self, label, out, data):
        res = _answer(
            data["A"],
            np.asarray(out.col_for_row),
            np.asarray(out.row_for_col),
            int(out.cardinality),
        )
        res.update(
            iterations=int(out.iterations), levels=int(out.levels), solver_status=int(out.status)
        )
        return res

    def unload(self):
        self.args = None
        self.fns = {}
        if hasattr(self, "jax"):
            self.jax.clear_caches()


def igraph_bipartite(igraph, A) -> tuple:
    """``A`` (rows x columns) as an undirected igraph ``Graph`` of rows
    0..n-1 and columns n..n+m-1, and its ``types`` (True for columns).  The
    edges go in as one numpy array through ``add_edges``, about twice as fast
    as the constructor's ``edges=``."""
    n, m = A.shape
    coo = A.tocoo()
    g = igraph.Graph(n=n + m, directed=False)
    g.add_edges(np.column_stack([coo.row.astype(np.int64), coo.col.astype(np.int64) + n]))
    return g, [False] * n + [True] * m


class IgraphPeer(Peer):
    """``Graph.maximum_bipartite_matching(types=...)`` (push-relabel): rows
    are vertices 0..n-1, columns n..n+m-1."""

    real_warmup = False

    def setup(self):
        import igraph

        self.igraph = igraph
        self.info = {"version": igraph.__version__}

    def tiny_warmup(self):
        self.load({"A": _tiny_graph()})
        self.call("igraph")()

    def load(self, data):
        self.g, self.types = igraph_bipartite(self.igraph, data["A"])

    def call(self, label):
        return lambda: self.g.maximum_bipartite_matching(types=self.types)

    def answer(self, label, out, data):
        n = data["A"].shape[0]
        mate = np.asarray(out.matching, dtype=np.int64)
        rm = np.where(mate[:n] >= 0, mate[:n] - n, -1)
        return _answer(data["A"], rm, mate[n:], len(out))

    def unload(self):
        self.g = self.types = None


class ScipyPeer(Peer):
    """``scipy.sparse.csgraph.maximum_bipartite_matching(A, perm_type="column")``
    (Hopcroft-Karp)."""

    real_warmup = False

    def setup(self):
        import scipy
        from scipy.sparse.csgraph import maximum_bipartite_matching

        self.f = maximum_bipartite_matching
        self.info = {"version": scipy.__version__}

    def tiny_warmup(self):
        self.f(_tiny_graph(), perm_type="column")

    def load(self, data):
        self.A = data["A"]

    def call(self, label):
        A = self.A
        return lambda: self.f(A, perm_type="column")

    def answer(self, label, out, data):
        A = data["A"]
        rm = np.asarray(out).astype(np.int64)  # row -> column, -1 if unmatched
        rows = np.flatnonzero(rm >= 0)
        cm = np.full(A.shape[1], -1, np.int64)
        if rows.size and np.bincount(rm[rows], minlength=A.shape[1]).max() > 1:
            return dict(
                cardinality=int(rows.size), valid=False, invalid_reason="a column is matched twice"
            )
        cm[rm[rows]] = rows
        return _answer(A, rm, cm, rows.size)

    def unload(self):
        self.A = None


PEERS = {
    "jaxmatch-gpu": JaxmatchPeer,
    "jaxmatch-gpu-cmdbuf": JaxmatchPeer,
    "jaxmatch-cpu": JaxmatchPeer,
    "igraph": IgraphPeer,
    "scipy": ScipyPeer,
}
