"""The stepped Hungarian solve: a ``lax.while_loop`` of step calls (forward
pass, reverse pass and augmentation or dual update, control), a problem
spread over many thread blocks (``cuda_ffi/lap/hungarian/``)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
from jax import lax

from .. import _ffi as lap_ffi
from ..types import LAPStatus


def solve_stepped(
    Ck: jax.Array,
    variant: int,
    max_iterations: int,
    warm: tuple[jax.Array, jax.Array] | None = None,
    *,
    iterations_per_call: int,
) -> lap_ffi.Solution:
    """Solves ``Ck`` (``[..., n, m]``, ``n <= m``, minimised) by the tree or
    classical ``variant`` (a library code), ``iterations_per_call`` main-loop
    iterations per ``while_loop`` iteration; ``warm``: the internal ``x0``,
    ``v0`` of a warm start."""
    running_code = int(LAPStatus.RUNNING)

    def running(state):
        return jnp.any(lap_ffi.info_field(state.info, "STATUS") == running_code)

    def step(state):
        return lap_ffi.lap_step(Ck, state, variant=variant, iterations=iterations_per_call)

    if warm is not None:
        x0, v0 = warm
        init = lap_ffi.lap_init_warm(Ck, x0, v0, variant=variant, max_iterations=max_iterations)
    else:
        init = lap_ffi.lap_init(Ck, variant=variant, max_iterations=max_iterations)
    return lap_ffi.solution(lax.while_loop(running, step, init))
