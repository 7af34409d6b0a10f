"""One vocabulary across the families: a walk over ``jaxmatch.__all__``
checks the names of every result, graph and tuning type and the signature
of every public function (issue "jaxmatch 1.0")."""

from __future__ import annotations

import dataclasses
import inspect
import types
import typing

import pytest

import jaxmatch
from jaxmatch._csr import CSR

PUBLIC = {name: getattr(jaxmatch, name) for name in jaxmatch.__all__}
RESULTS = {n: t for n, t in PUBLIC.items() if isinstance(t, type) and n.endswith("Result")}
CSR_TYPES = {n: t for n, t in PUBLIC.items() if isinstance(t, type) and issubclass(t, CSR)}
TUNINGS = {n: t for n, t in PUBLIC.items() if isinstance(t, type) and n.endswith("Tuning")}
FUNCTIONS = {n: f for n, f in PUBLIC.items() if inspect.isfunction(f)}

#: Names that the vocabulary replaced, and what replaced them.
RETIRED = {
    "n_iters": "iterations",
    "n_phases": "iterations",
    "n_rounds": "iterations",
    "rounds": "iterations",
    "n_levels": "levels",
    "row_match": "col_for_row",
    "col_match": "row_for_col",
    "row_ind": "col_for_row",
    "col_ind": "col_for_row",
    "xadj": "indptr",
    "cxadj": "col_indptr",
    "rxadj": "indptr",
    "adj": "indices",
    "cadj": "col_indices",
    "radj": "indices",
    "weights": "data",
}

#: scipy's drop-ins keep scipy's exact signatures.
SCIPY_SIGNATURES = {
    "linear_sum_assignment": [("cost_matrix", inspect.Parameter.empty), ("maximize", False)],
    "min_weight_full_bipartite_matching": [
        ("biadjacency", inspect.Parameter.empty),
        ("maximize", False),
    ],
    "maximum_bipartite_matching": [("graph", inspect.Parameter.empty), ("perm_type", "row")],
}


def test_the_walk_sees_every_kind():
    assert {"LAPResult", "PointsLAPResult", "MatchingResult", "WeightedMatchingResult"} <= set(
        RESULTS
    )
    assert set(CSR_TYPES) == {"SparseCosts", "BipartiteGraph", "Graph"}
    assert set(TUNINGS) == {"LAPTuning", "MatchingTuning", "WeightedMatchingTuning"}
    assert {"solve_lap", "hungarian", "max_cardinality_matching"} <= set(FUNCTIONS)


@pytest.mark.parametrize("name", sorted(RESULTS))
def test_results_share_the_vocabulary(name):
    fields = RESULTS[name]._fields
    assert "status" in fields and "iterations" in fields, fields
    assert hasattr(RESULTS[name], "status_name")
    for old, new in RETIRED.items():
        assert old not in fields, f"{name}.{old}: the vocabulary says {new}"


def test_bipartite_results_name_assignments_alike():
    for name in ("LAPResult", "PointsLAPResult", "MatchingResult"):
        assert RESULTS[name]._fields[:2] == ("col_for_row", "row_for_col")
    lap = RESULTS["LAPResult"]._fields
    assert RESULTS["PointsLAPResult"]._fields[: len(lap)] == lap


@pytest.mark.parametrize("name", sorted(CSR_TYPES))
def test_csr_types_use_scipys_names(name):
    fields = [f.name for f in dataclasses.fields(CSR_TYPES[name])]
    assert fields[:4] == ["indptr", "indices", "data", "shape"]
    for old, new in RETIRED.items():
        assert old not in fields, f"{name}.{old}: the vocabulary says {new}"


@pytest.mark.parametrize("name", sorted(TUNINGS))
def test_tuning_is_a_frozen_hashable_value(name):
    tuning = TUNINGS[name]()
    assert dataclasses.is_dataclass(tuning)
    field = dataclasses.fields(tuning)[0].name
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(tuning, field, 1)
    assert hash(tuning) == hash(TUNINGS[name]())


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_options_are_keyword_only(name):
    """Only the inputs are positional: costs, graphs, point sets, a
    b-matching's capacities, the results a certificate checks; every option
    is keyword-only."""
    sig = inspect.signature(FUNCTIONS[name])
    if name in SCIPY_SIGNATURES:
        params = sig.parameters.values()
        assert [(p.name, p.default) for p in params] == SCIPY_SIGNATURES[name]
        assert all(p.kind == p.POSITIONAL_OR_KEYWORD for p in params)
        return
    # k: how many assignments k_best_assignments ranks (issue 53 names it
    # positional, as a b-matching's capacities b).
    inputs = {"C", "G", "X", "Y", "b", "k", "result", "solution"}
    for p in sig.parameters.values():
        if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            assert p.name in inputs, f"{name}({p.name}=...) should be keyword-only"


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_functions_taking_tuning_take_their_familys(name):
    sig = inspect.signature(FUNCTIONS[name])
    if "tuning" not in sig.parameters:
        return
    hints = typing.get_type_hints(FUNCTIONS[name])
    kinds = set(typing.get_args(hints["tuning"])) - {type(None)}
    assert kinds and kinds <= set(TUNINGS.values()), hints["tuning"]


@pytest.mark.parametrize("package", [jaxmatch.lap, jaxmatch.matching, jaxmatch.weighted])
def test_no_tuning_by_module_mutation(package):
    """Tuning goes through the frozen values, not writable module globals."""
    assert type(package) is types.ModuleType
    constants = [n for n in package.__all__ if n.isupper()]
    assert constants == []
