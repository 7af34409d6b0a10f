"""Results that read well (issue 17.6): ``status_name``, the enum from
``int(status)``, and a compact ``repr`` that works on concrete, batched,
traced and abstract results -- without breaking the pytree under jit, vmap
and grad."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import jaxmatch
from jaxmatch import BipartiteGraph, LAPResult, LAPStatus, MatchingResult, MatchingStatus

_C = np.array([[4.0, 1.0, 3.0], [2.0, 0.0, 5.0]])  # optimum 1 + 2 = 3
_G = BipartiteGraph.from_edges([0, 1, 1], [0, 0, 1], 2, 2)  # maximum matching: 2 pairs


def _batch(n_batch):
    return np.random.default_rng(0).random((n_batch, 3, 3))


# ------------------------------------------------------------ status_name


def test_lap_status_name_and_enum():
    res = jaxmatch.solve_lap(_C)
    assert res.status_name == "OPTIMAL" and type(res.status_name) is str
    assert LAPStatus(int(res.status)) is LAPStatus.OPTIMAL
    assert LAPStatus[res.status_name] is LAPStatus.OPTIMAL
    host = jax.device_get(res)
    assert host.status_name == "OPTIMAL" and LAPStatus(int(host.status)) is LAPStatus.OPTIMAL
    bad = jaxmatch.solve_lap(np.array([[np.nan, 1.0], [1.0, 1.0]]))
    assert bad.status_name == "INVALID_ENTRIES"
    assert LAPStatus(int(bad.status)) is LAPStatus.INVALID_ENTRIES


def test_lap_status_name_of_a_batch_is_an_array_of_names():
    C = np.stack([_C, np.full((2, 3), np.inf)]).reshape(2, 1, 2, 3)
    names = jaxmatch.solve_lap(C).status_name
    assert isinstance(names, np.ndarray) and names.shape == (2, 1)
    assert names.tolist() == [["OPTIMAL"], ["INFEASIBLE"]]


def test_matching_status_name_and_enum():
    res = jaxmatch.max_cardinality_matching(_G)
    assert res.status_name == "MAXIMUM"
    assert MatchingStatus(int(res.status)) is MatchingStatus.MAXIMUM
    assert jaxmatch.cheap_matching(_G).status_name == "INITIAL"
    batch = jax.tree.map(lambda x: jnp.stack([x, x, x]), _G)
    names = jax.vmap(jaxmatch.max_cardinality_matching)(batch).status_name
    assert names.tolist() == ["MAXIMUM"] * 3


def test_status_name_of_an_unknown_code_and_under_jit():
    res = jax.device_get(jaxmatch.solve_lap(_C))
    assert res._replace(status=np.int32(9)).status_name == "UNKNOWN(9)"
    assert res._replace(status=np.array([1, 9])).status_name.tolist() == ["OPTIMAL", "UNKNOWN(9)"]

    @jax.jit
    def traced(C):
        res = jaxmatch.solve_lap(C)
        with pytest.raises(TypeError, match="concrete result"):
            _ = res.status_name
        return res

    assert traced(_C).status_name == "OPTIMAL"


# ------------------------------------------------------------------ repr


def test_lap_repr_of_one_problem():
    res = jaxmatch.solve_lap(_C)
    text = repr(res)
    assert text == (
        "LAPResult(col_for_row=int32[2], row_for_col=int32[3], cost=3, u=float64[2], "
        f"v=float64[3], feasible=True, iterations={int(res.iterations)}, status=OPTIMAL)"
    )
    assert str(res) == text and repr(jax.device_get(res)) == text
    assert "Array(" not in text and "array(" not in text


def test_lap_repr_of_small_and_large_batches():
    small = repr(jaxmatch.solve_lap(_batch(2)))
    assert "col_for_row=int32[2,3]" in small and "status=[OPTIMAL, OPTIMAL]" in small
    assert "feasible=[True, True]" in small
    large = jaxmatch.solve_lap(_batch(40))
    text = repr(large)
    assert "cost=float64[40]" in text and "status=int32[40] {OPTIMAL: 40}" in text
    assert len(text) < 300
    mixed = large._replace(status=large.status.at[:3].set(LAPStatus.INFEASIBLE))
    assert "{OPTIMAL: 37, INFEASIBLE: 3}" in repr(mixed)


def test_matching_repr():
    text = repr(jaxmatch.max_cardinality_matching(_G))
    assert text.startswith(
        "MatchingResult(col_for_row=int32[2], row_for_col=int32[2], cardinality=2,"
    )
    assert text.endswith("status=MAXIMUM)")
    batch = jax.tree.map(lambda x: jnp.stack([x] * 20), _G)
    text = repr(jax.vmap(jaxmatch.max_cardinality_matching)(batch))
    assert "col_for_row=int32[20,2]" in text and "status=int32[20] {MAXIMUM: 20}" in text


def test_repr_never_raises_on_odd_leaves():
    res = jaxmatch.solve_lap(_C)
    abstract = jax.eval_shape(jaxmatch.solve_lap, _C)
    assert isinstance(abstract, LAPResult)
    assert repr(abstract) == (
        "LAPResult(col_for_row=int32[2], row_for_col=int32[3], cost=float64[], u=float64[2], "
        "v=float64[3], feasible=bool[], iterations=int32[], status=int32[])"
    )
    assert "status=None" in repr(res._replace(status=None))
    assert "status=str" in repr(res._replace(status="x"))
    assert "status=float64[]" in repr(res._replace(status=np.float64(np.nan)))
    assert "cost=str32[]" in repr(res._replace(cost=np.array("a")))
    assert "status=float64[1]" in repr(res._replace(status=np.array([1.5])))
    deleted = jaxmatch.solve_lap(_C)
    deleted.status.delete()
    assert "status=int32[]" in repr(deleted)
    assert "status=" in repr(MatchingResult(*([np.zeros(0)] * 6)))


# -------------------------------------- the pytree still works everywhere


def test_repr_and_pytree_under_jit_vmap_and_grad():
    seen = []

    def solve(C):
        res = jaxmatch.solve_lap(C)
        seen.append(repr(res))
        seen.append(str(res))
        return res

    res = jax.jit(solve)(_C)
    assert isinstance(res, LAPResult) and res.status_name == "OPTIMAL"
    assert seen[0] == (
        "LAPResult(col_for_row=int32[2], row_for_col=int32[3], cost=float64[], u=float64[2], "
        "v=float64[3], feasible=bool[], iterations=int32[], status=int32[])"
    )
    batched = jax.vmap(solve)(_batch(3))  # repr of BatchTracers: per-problem shapes
    assert "col_for_row=int32[3]" in seen[-1] and batched.status_name.shape == (3,)
    g = jax.jit(jax.grad(lambda C: solve(C).cost))(_C)
    np.testing.assert_array_equal(np.asarray(g), [[0, 1, 0], [1, 0, 0]])
    g = jax.grad(lambda C: solve(C).cost)(_C)  # JVPTracers, eagerly
    np.testing.assert_array_equal(np.asarray(g), [[0, 1, 0], [1, 0, 0]])
    assert all("Traced" not in s for s in seen)


def test_pytree_flatten_replace_and_jit_round_trip():
    for res, n_leaves in (
        (jaxmatch.solve_lap(_C), 8),
        (jaxmatch.max_cardinality_matching(_G), 6),
    ):
        leaves, tree = jax.tree.flatten(res)
        assert len(leaves) == n_leaves
        again = jax.tree.unflatten(tree, leaves)
        assert type(again) is type(res) and repr(again) == repr(res)
        replaced = jax.jit(lambda r: r._replace(status=r.status * 0 + 7))(res)
        assert type(replaced) is type(res) and int(replaced.status) == 7
        assert replaced.status_name == "UNKNOWN(7)"
        assert res._replace(status=res.status)._fields == res._fields
        assert type(jax.tree.map(lambda x: x, res)) is type(res)


def test_matching_under_jit_and_vmap_with_repr():
    seen = []

    def solve(G):
        res = jaxmatch.max_cardinality_matching(G)
        seen.append(repr(res))
        return res

    res = jax.jit(solve)(_G)
    assert res.status_name == "MAXIMUM" and int(res.cardinality) == 2
    assert seen[-1] == (
        "MatchingResult(col_for_row=int32[2], row_for_col=int32[2], cardinality=int32[], "
        "iterations=int32[], levels=int32[], status=int32[])"
    )
    batch = jax.tree.map(lambda x: jnp.stack([x, x]), _G)
    res = jax.jit(jax.vmap(solve))(batch)
    assert res.status_name.tolist() == ["MAXIMUM", "MAXIMUM"]
    assert res.cardinality.tolist() == [2, 2]
