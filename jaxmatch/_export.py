"""What ``jax.export`` needs from jaxmatch: the names of its FFI targets
(exported programs call them; ``jax.export.export`` checks each custom call
against its list of stable targets) and the serialization of the public
pytree types, so that an exported function may take and return them.

Both are in place once ``import jaxmatch`` has run: a program serialized by
one process runs in another that imported jaxmatch of the same ABI.
"""

from __future__ import annotations

import json
from typing import Any

import jax

from . import _ffi
from ._csr import CSR
from .lap import LAPResult, SparseCosts
from .matching import BipartiteGraph, MatchingResult
from .weighted import BMatchingResult, Graph, WeightedMatchingResult

#: The NamedTuple results of the jittable solvers, serialized by their field
#: names (certificates and solve_lap_points' result are NumPy values of
#: eager host code: they live beside JAX programs, not in them).
_NAMED_TUPLES = (LAPResult, MatchingResult, WeightedMatchingResult, BMatchingResult)
#: The CSR pytrees, whose static fields (the shape) are their aux data.
_CSR_TYPES: tuple[type[CSR], ...] = (SparseCosts, BipartiteGraph, Graph)


def ffi_targets() -> dict[str, list[str]]:
    """The FFI targets jaxmatch registers with XLA, by platform.

    Returns:
      ``{"cpu": [names], "cuda": [names]}``, the names as exported programs
      call them (each ends in the library's ABI version, ``_abi<N>``);
      ``"cuda"`` lists the CPU library's names where the CUDA library was not
      built (a stand-in that says how to build it is registered for them).

    Raises:
      JaxmatchLibraryError: the CPU library is missing or stale.
    """
    found = _ffi.registrations()
    names = {where: [_ffi.target_name(n) for n in targets] for where, targets in found.items()}
    names.setdefault("cuda", list(names["cpu"]))
    return names


def export_disabled_checks() -> list[jax.export.DisabledSafetyCheck]:
    """The ``disabled_checks`` that let ``jax.export.export`` accept
    jaxmatch's custom calls.

    ``jax.export`` refuses custom calls whose targets it does not know to be
    stable; jaxmatch's are stable within an ABI version, which their names
    carry (:func:`ffi_targets`).

    Returns:
      One ``jax.export.DisabledSafetyCheck.custom_call(name)`` per target of
      every platform.

    Example:
      >>> exp = jax.export.export(
      ...     jax.jit(jaxmatch.solve_lap),
      ...     disabled_checks=jaxmatch.export_disabled_checks(),
      ... )(jax.ShapeDtypeStruct((8, 8), jnp.float32))  # doctest: +SKIP
    """
    names = sorted({n for targets in ffi_targets().values() for n in targets})
    return [jax.export.DisabledSafetyCheck.custom_call(n) for n in names]


def _csr_aux_to_bytes(aux: tuple[Any, ...]) -> bytes:
    return json.dumps(aux).encode()


def _csr_aux_from_bytes(data: bytes) -> tuple[Any, ...]:
    def as_tuple(x: Any) -> Any:
        return tuple(as_tuple(v) for v in x) if isinstance(x, list) else x

    return as_tuple(json.loads(data.decode()))


def register_serialization() -> None:
    """Registers the public pytree types for ``jax.export`` serialization
    (under ``jaxmatch.<TypeName>``); called once, by ``import jaxmatch``."""
    for cls in _NAMED_TUPLES:
        name = f"jaxmatch.{cls.__name__}"
        jax.export.register_namedtuple_serialization(cls, serialized_name=name)
    for csr in _CSR_TYPES:
        jax.export.register_pytree_node_serialization(
            csr,
            serialized_name=f"jaxmatch.{csr.__name__}",
            serialize_auxdata=_csr_aux_to_bytes,
            deserialize_auxdata=_csr_aux_from_bytes,
        )
