"""Capacity-constrained recommendation as a b-matching.

A catalogue of items and a population of users, each user with predicted
ratings for some items (a synthetic low-rank rating model). Every user is
shown at most ``--k`` items, and every item can be shown to at most its own
capacity of users (stock, an advertiser's budget, a slot limit: popular
items get fewer slots per interested user). Picking the (user, item) pairs
of largest total predicted rating under both limits is a maximum weight
b-matching of the bipartite rating graph: users and items are its vertices,
``b`` is ``k`` at a user and the capacity at an item.

``jaxmatch.approximate_b_matching`` returns the b-matching of the greedy
algorithm (heaviest rating first, while both ends have room), computed by
b-Suitor; ``jaxmatch.verify_b_matching`` certifies it (capacities respected,
b-locally dominant, which proves at least half the optimum) and bounds the
optimum from above. On a bipartite graph the b-matching linear program has
an integral optimum (its constraint matrix, the incidence matrix of a
bipartite graph, is totally unimodular), so ``scipy.optimize.linprog``
gives the exact optimum to compare with.

The naive alternative, each user's ``k`` best items, overfills the popular
items; the script counts by how much.

Checks: the certificate is valid and dominant; no user gets more than ``k``
items and no item more than its capacity; the certified ratio is at least
1/2 and at most the observed weight / optimum; the result equals the eager
call's under ``jax.jit``.
"""

from __future__ import annotations

import argparse
import sys

import jax
import numpy as np
import scipy.sparse as sp
from scipy.optimize import linprog

import jaxmatch


def rating_graph(
    rng: np.random.Generator, users: int, items: int, per_user: int, rank: int = 4
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Synthetic predicted ratings: ``per_user`` distinct items per user,
    drawn by item popularity (Zipf-like), rated ``1 + 4 * sigmoid(p_u . q_i
    + noise)`` in (1, 5).

    Returns:
      ``(user, item, rating, popularity)``: int64 ``[m]``, int64 ``[m]``,
      float32 ``[m]`` and float64 ``[items]``.
    """
    popularity = 1.0 / np.arange(1, items + 1) ** 0.8
    popularity = popularity[rng.permutation(items)]
    prob = popularity / popularity.sum()
    item = np.concatenate(
        [rng.choice(items, size=per_user, replace=False, p=prob) for _ in range(users)]
    )
    user = np.repeat(np.arange(users), per_user)
    P = rng.normal(size=(users, rank)) / np.sqrt(rank)
    Q = rng.normal(size=(items, rank))
    score = np.einsum("ij,ij->i", P[user], Q[item]) + 0.3 * rng.normal(size=user.size)
    rating = (1.0 + 4.0 / (1.0 + np.exp(-score))).astype(np.float32)
    return user, item, rating, popularity


def exact_optimum(user, item, rating, b_user, b_item) -> float:
    """The maximum weight b-matching's weight: the LP ``max r.x`` subject to
    the capacities and ``0 <= x <= 1`` (integral on a bipartite graph)."""
    m = rating.size
    users, items = b_user.size, b_item.size
    A = sp.vstack(
        [
            sp.csr_matrix((np.ones(m), (user, np.arange(m))), shape=(users, m)),
            sp.csr_matrix((np.ones(m), (item, np.arange(m))), shape=(items, m)),
        ]
    )
    res = linprog(
        -rating.astype(np.float64),
        A_ub=A,
        b_ub=np.r_[b_user, b_item].astype(np.float64),
        bounds=(0, 1),
        method="highs",
    )
    assert res.status == 0, res.message
    assert np.allclose(res.x, np.round(res.x), atol=1e-7), "the LP optimum is not integral"
    return float(-res.fun)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--users", type=int, default=3000)
    p.add_argument("--items", type=int, default=400)
    p.add_argument("--per-user", type=int, default=25, help="rated items per user")
    p.add_argument("--k", type=int, default=5, help="items shown to each user at most")
    p.add_argument(
        "--slack",
        type=float,
        default=0.8,
        help="mean item capacity / naive demand (each item's share uniform in +-0.5 of it)",
    )
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)
    rng = np.random.default_rng(args.seed)
    n_users, n_items, k = args.users, args.items, args.k

    user, item, rating, _ = rating_graph(rng, n_users, n_items, args.per_user)
    # The naive plan: every user's k best-rated items.
    order = np.lexsort((-rating, user))
    rank_in_user = np.arange(order.size) - np.searchsorted(user[order], user[order])
    naive = order[rank_in_user < k]
    demand = np.bincount(item[naive], minlength=n_items)
    # Item capacities: a random share of the naive demand (at least 1 slot).
    share = args.slack + rng.uniform(-0.5, 0.5, n_items)
    b_item = np.maximum(1, np.floor(share * demand)).astype(np.int32)
    b_user = np.full(n_users, k, np.int32)

    # Users are vertices 0..n_users-1, items n_users..n_users+n_items-1.
    n = n_users + n_items
    G = jaxmatch.Graph.from_edges(user, n_users + item, rating, n)
    b = np.r_[b_user, b_item]
    res = jax.jit(jaxmatch.approximate_b_matching)(G, b)
    res = jax.device_get(res)
    assert res.status_name == "DOMINANT", res
    eager = jax.device_get(jaxmatch.approximate_b_matching(G, b))
    assert np.array_equal(np.asarray(eager.matched), np.asarray(res.matched))

    cert = jaxmatch.verify_b_matching(G, b, res)
    assert cert.valid and cert.locally_dominant, cert.reason
    degree = np.asarray(res.degree)
    assert np.all(degree[:n_users] <= k) and np.all(degree[n_users:] <= b_item)

    optimum = exact_optimum(user, item, rating, b_user, b_item)
    observed = cert.weight / optimum
    assert 0.5 <= cert.ratio <= observed + 1e-9, (cert.ratio, observed)
    assert cert.upper_bound >= optimum * (1 - 1e-9)

    over = np.maximum(demand - b_item, 0)
    print(f"{n_users} users x {n_items} items, {rating.size} predicted ratings; k = {k} per user")
    print(
        f"naive top-{k}: {naive.size} recommendations, {np.count_nonzero(over)} items over "
        f"capacity by {over.sum()} slots in total"
    )
    print(
        f"b-matching: {int(res.cardinality)} recommendations, total rating {cert.weight:.1f}; "
        f"users served {np.count_nonzero(degree[:n_users])}/{n_users}, "
        f"items at capacity {np.count_nonzero(degree[n_users:] == b_item)}/{n_items}"
    )
    print(
        f"exact optimum (LP) {optimum:.1f}: the greedy b-matching reaches {observed:.4f} of it; "
        f"certified without the LP: >= {cert.ratio:.4f} (upper bound {cert.upper_bound:.1f})"
    )
    # A few users' recommendations, best first.
    u_, v_, w_ = G.edges(both=True)
    matched = np.asarray(res.matched)[: u_.size]
    for x in range(3):
        mine = matched & (u_ == x)
        picks = sorted(zip(w_[mine], v_[mine] - n_users), reverse=True)
        shown = ", ".join(f"item {i} ({r:.2f})" for r, i in picks) or "nothing (all full)"
        print(f"  user {x}: {shown}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
