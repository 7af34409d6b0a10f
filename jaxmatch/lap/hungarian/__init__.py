"""Date and Nagi's GPU Hungarian algorithms (the tree and classical
variants): fused solves are one call of :func:`jaxmatch.lap._ffi.solve_fused`;
stepped solves are :func:`solve_stepped`."""

from .stepped import solve_stepped

__all__ = ["solve_stepped"]
