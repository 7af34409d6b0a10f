"""Custom calls over batches: ``jax.vmap`` support and sharding.

Every jaxmatch kernel treats the leading dimensions of its operands as a
batch of independent problems. :func:`batched_ffi_call` makes one
``jax.ffi.ffi_call`` that keeps that promise under the JAX transformations a
user applies:

* ``jax.vmap`` adds a leading dimension to every operand (each unbatched
  operand is broadcast), through a ``custom_vmap`` rule;
* under ``jax.jit`` with operands whose leading (batch) dimensions are
  sharded over devices, the call is partitioned along those dimensions
  (``custom_partitioning`` for meshes of Auto axes; ``shard_map`` where the
  sharding is part of the operands' types, Explicit axes): each device
  solves its own members, with no all-gather of the operands and no host
  round trip. A batch dimension
  that does not divide evenly over its mesh axes is replicated instead (a
  padded member would be a garbage problem), as are the problems' own
  dimensions (splitting one problem over devices is not implemented).

On one device, or inside ``shard_map``, the call is the plain custom call.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np
from jax.experimental.custom_partitioning import custom_partitioning
from jax.sharding import NamedSharding, PartitionSpec

from . import _ffi

#: Builds the results' shapes for the given leading (batch) dimensions.
ResultShapes = Callable[[tuple[int, ...]], Sequence[Any]]


def batched_shape(lead: tuple[int, ...], length: int, dtype: Any = jnp.int32) -> Any:
    """The shape of a result of ``length`` elements per problem of a batch
    with leading dimensions ``lead``: a ``jax.ShapeDtypeStruct``."""
    return jax.ShapeDtypeStruct((*lead, length), dtype)


def batched_ffi_call(
    target: str,
    result_shapes: ResultShapes,
    operands: Sequence[jax.Array],
    core_ranks: Sequence[int],
    attributes: Mapping[str, np.int32] | None = None,
    *,
    input_output_aliases: dict[int, int] | None = None,
) -> tuple[jax.Array, ...]:
    """Calls the FFI target ``target`` on a batch of problems.

    Args:
      target: the FFI target's name, as the library lists it.
      result_shapes: the results' shapes and dtypes for given leading
        dimensions (the same for every operand).
      operands: the arrays; operand ``i`` is ``[*batch, *core_i]`` with
        ``len(core_i) == core_ranks[i]``. Operands with fewer leading
        dimensions than the first are broadcast to its.
      core_ranks: the number of trailing (per-problem) dimensions of each
        operand.
      attributes: the call's static attributes.
      input_output_aliases: as for ``jax.ffi.ffi_call``.

    Returns:
      The results, each ``[*batch, ...]``.
    """
    core = tuple(int(r) for r in core_ranks)
    if len(core) != len(operands):
        raise ValueError(f"{len(operands)} operands but {len(core)} core ranks")
    lead = tuple(operands[0].shape[: jnp.ndim(operands[0]) - core[0]])
    ops = [_broadcast_lead(op, lead, r) for op, r in zip(operands, core)]
    call = _vmappable(target, result_shapes, core, input_output_aliases, dict(attributes or {}))
    return tuple(call(*ops))


def _broadcast_lead(op: jax.Array, lead: tuple[int, ...], core_rank: int) -> jax.Array:
    shape = tuple(jnp.shape(op))
    core_shape = shape[len(shape) - core_rank :]
    if shape[: len(shape) - core_rank] == lead:
        return op
    return jnp.broadcast_to(op, (*lead, *core_shape))


def _vmappable(
    target: str,
    result_shapes: ResultShapes,
    core: tuple[int, ...],
    aliases: dict[int, int] | None,
    attributes: dict[str, Any],
) -> Callable[..., Any]:
    def direct(*ops: jax.Array) -> tuple[jax.Array, ...]:
        lead = tuple(ops[0].shape[: ops[0].ndim - core[0]])
        call = _ffi.ffi_call(
            target,
            tuple(result_shapes(lead)),
            vmap_method="broadcast_all",
            input_output_aliases=aliases,
        )
        return tuple(call(*ops, **attributes))

    @jax.custom_batching.custom_vmap
    def call(*ops: jax.Array) -> tuple[jax.Array, ...]:
        n_batch = ops[0].ndim - core[0]
        if n_batch == 0:
            return direct(*ops)
        lead = tuple(ops[0].shape[:n_batch])
        core_out = tuple(len(s.shape) - n_batch for s in result_shapes(lead))
        explicit = _explicit_batch(ops, n_batch)
        if explicit is not None:
            return _mapped_over_shards(direct, ops, *explicit, core, core_out)
        return tuple(_partitioned(direct, n_batch, core, core_out)(*ops))

    @call.def_vmap
    def _rule(axis_size: int, in_batched: Sequence[bool], *ops: jax.Array) -> Any:
        ops = tuple(
            op if batched else jnp.broadcast_to(op, (axis_size, *op.shape))
            for op, batched in zip(ops, in_batched)
        )
        out = call(*ops)
        return out, (True,) * len(out)

    return call


def whole_problems(x: jax.Array, core_rank: int) -> jax.Array:
    """``x`` with its last ``core_rank`` dimensions (each problem's own)
    unsharded where its type shards them over Explicit mesh axes: the one
    regather that code indexing into a problem needs (XLA does it on its own
    for Auto axes). Batch dimensions keep their sharding; other arrays are
    returned as they are."""
    sharding = getattr(jax.typeof(x), "sharding", None)
    mesh, spec = getattr(sharding, "mesh", None), getattr(sharding, "spec", None)
    if mesh is None or mesh.empty or spec is None:
        return x
    entries = tuple(spec) + (None,) * (x.ndim - len(spec))
    lead = entries[: x.ndim - core_rank]
    if all(e is None for e in entries[len(lead) :]):
        return x
    return jax.sharding.reshard(x, NamedSharding(mesh, PartitionSpec(*lead, *[None] * core_rank)))


def _explicit_batch(ops: Sequence[jax.Array], n_batch: int) -> tuple[Any, tuple[Any, ...]] | None:
    """For operands whose type carries a sharding over Explicit mesh axes
    (JAX's sharding in types): the mesh and the batch dimensions' spec (as
    :func:`_batch_spec`), or None when no batch dimension is sharded so."""
    for op in ops:
        sharding = getattr(jax.typeof(op), "sharding", None)
        mesh, spec = getattr(sharding, "mesh", None), getattr(sharding, "spec", None)
        if mesh is None or mesh.empty or spec is None:
            continue
        entries = (tuple(spec) + (None,) * n_batch)[:n_batch]
        batch = tuple(
            e if e is not None and op.shape[i] % _axis_size(mesh, e) == 0 else None
            for i, e in enumerate(entries)
        )
        if any(e is not None for e in batch):
            return mesh, batch
    return None


def _mapped_over_shards(
    direct: Callable[..., tuple[jax.Array, ...]],
    ops: Sequence[jax.Array],
    mesh: Any,
    batch: tuple[Any, ...],
    core_in: tuple[int, ...],
    core_out: tuple[int, ...],
) -> tuple[jax.Array, ...]:
    """``direct`` on each device's members (``shard_map``), every operand
    resharded to the batch sharding first (replicated problem dimensions)."""

    def specs(ranks: tuple[int, ...]) -> tuple[PartitionSpec, ...]:
        return tuple(PartitionSpec(*batch, *([None] * r)) for r in ranks)

    in_specs = specs(core_in)
    ops = tuple(
        jax.sharding.reshard(op, NamedSharding(mesh, spec)) for op, spec in zip(ops, in_specs)
    )
    mapped = jax.shard_map(direct, mesh=mesh, in_specs=in_specs, out_specs=specs(core_out))
    return tuple(mapped(*ops))


def _axis_size(mesh: Any, entry: Any) -> int:
    names = entry if isinstance(entry, tuple) else (entry,)
    return math.prod(mesh.shape[name] for name in names)


def _batch_spec(mesh: Any, arg_shapes: Sequence[Any], n_batch: int) -> tuple[Any, ...]:
    """The sharding of the batch dimensions: the first operand's that shards
    any, each dimension kept only where it divides evenly."""
    for arg in arg_shapes:
        spec = getattr(getattr(arg, "sharding", None), "spec", None)
        if spec is None:
            continue
        entries = (tuple(spec) + (None,) * n_batch)[:n_batch]
        if any(e is not None for e in entries):
            return tuple(
                e if e is not None and arg.shape[i] % _axis_size(mesh, e) == 0 else None
                for i, e in enumerate(entries)
            )
    return (None,) * n_batch


def _partitioned(
    direct: Callable[..., tuple[jax.Array, ...]],
    n_batch: int,
    core_in: tuple[int, ...],
    core_out: tuple[int, ...],
) -> Callable[..., Any]:
    """``direct`` as a ``custom_partitioning`` along the first ``n_batch``
    dimensions."""

    @custom_partitioning
    def call(*ops: jax.Array) -> tuple[jax.Array, ...]:
        return direct(*ops)

    def shardings(mesh: Any, batch: tuple[Any, ...], ranks: tuple[int, ...]) -> tuple[Any, ...]:
        return tuple(NamedSharding(mesh, PartitionSpec(*batch, *([None] * r))) for r in ranks)

    def infer(mesh: Any, arg_shapes: Sequence[Any], result_shape: Any) -> tuple[Any, ...]:
        return shardings(mesh, _batch_spec(mesh, arg_shapes, n_batch), core_out)

    def partition(mesh: Any, arg_shapes: Sequence[Any], result_shape: Any) -> Any:
        batch = _batch_spec(mesh, arg_shapes, n_batch)
        args = shardings(mesh, batch, core_in)
        return mesh, direct, shardings(mesh, batch, core_out), args

    letters = [f"b{i}" for i in range(n_batch)]

    def factors(ranks: tuple[int, ...], tag: str) -> str:
        return ", ".join(
            " ".join(letters + [f"{tag}{k}_{j}" for j in range(r)]) for k, r in enumerate(ranks)
        )

    call.def_partition(
        partition=partition,
        infer_sharding_from_operands=infer,
        sharding_rule=f"{factors(core_in, 'i')} -> {factors(core_out, 'o')}",
    )
    return call
