"""Every difference between supported JAX versions lives here."""

from __future__ import annotations

import jax

JAX_VERSION = tuple(int(p) for p in jax.__version__.split(".")[:3] if p.isdigit())


def ffi_call(target, result_shapes, *, vmap_method, input_output_aliases=None):
    """``jax.ffi.ffi_call`` (public since JAX 0.4.38)."""
    return jax.ffi.ffi_call(
        target,
        result_shapes,
        vmap_method=vmap_method,
        input_output_aliases=input_output_aliases,
    )


def default_backend() -> str:
    return jax.default_backend()


def x64_enabled() -> bool:
    return bool(jax.config.read("jax_enable_x64"))
