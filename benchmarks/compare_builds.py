"""One jaxmatch build's times on fixed cases, for comparing two builds.

Times the jaxmatch cells of the LAP GPU case list and the 2^20 matching
graphs with whatever jaxmatch the interpreter imports (choose the build with
PYTHONPATH), one JSON line per cell. Build both trees into their own folders
and run each in turn on the same machine, e.g.

    pip install --no-build-isolation --no-deps --target /tmp/site_old <old tree>
    pip install --no-build-isolation --no-deps --target /tmp/site_new .
    for tag in old new; do
      PYTHONPATH=/tmp/site_$tag python -m benchmarks.compare_builds $tag lap matching
    done

Medians of 5 timed calls after a warm-up; the same seeded inputs for every
build; each LAP answer must be feasible and each maximum matching certified.
"""

from __future__ import annotations

import argparse
import json

import numpy as np

#: (name, (batch, n, m), "f" for U[0,1) float32 or "i" for ints in [0, n])
LAP_CASES = [
    ("1024x32x32 f32", (1024, 32, 32), "f"),
    ("256x128x128 f32", (256, 128, 128), "f"),
    ("128x256x256 f32", (128, 256, 256), "f"),
    ("16x1024x1024 f32", (16, 1024, 1024), "f"),
    ("1x2000^2 int[0,n]", (1, 2000, 2000), "i"),
    ("1x5000^2 int[0,n]", (1, 5000, 5000), "i"),
    ("1x5000^2 f32", (1, 5000, 5000), "f"),
]
#: cells whose single run takes over 15 s on an H100, or that no table reports
LAP_SKIP = {
    ("1x5000^2 f32", "tree/fused"),
    ("1x5000^2 f32", "classical/fused"),
    ("1x5000^2 f32", "classical/stepped"),
    ("16x1024x1024 f32", "classical/stepped"),
    ("1x2000^2 int[0,n]", "classical/stepped"),
    ("128x256x256 f32", "classical/stepped"),
    ("256x128x128 f32", "classical/stepped"),
    ("1024x32x32 f32", "classical/stepped"),
}


def _lap(tag: str) -> None:
    import jax
    import jax.numpy as jnp

    import jaxmatch

    from .timing import waited_ms

    rng = np.random.default_rng(0)
    for name, (b, n, m), kind in LAP_CASES:
        if kind == "f":
            C = rng.random((b, n, m), dtype=np.float32)
        else:
            C = rng.integers(0, n + 1, (b, n, m)).astype(np.int32)
        C = jnp.asarray(C)
        for method in ("tree", "classical"):
            for execution in ("fused", "stepped"):
                solver = f"{method}/{execution}"
                if (name, solver) in LAP_SKIP:
                    continue
                f = jax.jit(
                    lambda C, method=method, execution=execution: jaxmatch.solve_lap(
                        C, method=method, execution=execution
                    )
                )
                seconds = waited_ms(f, C, repeats=5) / 1e3
                ok = bool(jnp.all(f(C).feasible))
                line = dict(tag=tag, family="lap", case=name, solver=solver, s=seconds, ok=ok)
                print(json.dumps(line), flush=True)


def _matching(tag: str, cache: str) -> None:
    import jax

    import jaxmatch

    from .matching import graphs
    from .timing import waited_ms

    for family in ("delaunay", "rgg", "kron"):
        params = graphs.graph_params(family, 20)
        original = None
        for permuted in (False, True):
            A, meta = graphs.load_graph(params, permuted, cache=cache, original=original)
            if not permuted:
                original = A
            G = jaxmatch.BipartiteGraph.from_scipy(A)
            f = jax.jit(lambda G: jaxmatch.max_cardinality_matching(G, execution="stepped"))
            seconds = waited_ms(f, G, repeats=5) / 1e3
            res = jax.device_get(f(G))
            ok = bool(jaxmatch.verify_matching(G, res).maximum)
            line = dict(
                tag=tag, family="matching", case=meta["name"], solver="auto/stepped",
                s=seconds, cardinality=int(res.cardinality), ok=ok,
            )  # fmt: skip
            print(json.dumps(line), flush=True)


def main(argv=None) -> None:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("tag", help="label of this build in the output")
    p.add_argument("families", nargs="+", choices=("lap", "matching"))
    p.add_argument("--cache", default="/tmp/jm_graphs", help="graph cache folder")
    args = p.parse_args(argv)
    if "lap" in args.families:
        _lap(args.tag)
    if "matching" in args.families:
        _matching(args.tag, args.cache)


if __name__ == "__main__":
    main()
