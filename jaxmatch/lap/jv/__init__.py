"""Jonker and Volgenant's shortest augmenting paths: fused solves are one
call of :func:`jaxmatch.lap._ffi.solve_fused` with the JV variant (a core,
a warp, a block or a cluster per problem, ``cuda_ffi/lap/jv/``); on a GPU,
integer costs of many columns run JV or the tree variant then JV
(:func:`integer_auto`)."""

from .integer_auto import integer_auto, tied_rows

__all__ = ["integer_auto", "tied_rows"]
