"""The compressed sparse row base shared by every family's graph or cost type,
and the host-side checks of a CSR structure.

:class:`CSR` holds a matrix ``[n_rows, n_cols]`` in scipy's CSR layout: the
stored entries of row ``i`` are at positions ``indptr[i]:indptr[i + 1]`` of
``indices`` (their columns) and ``data`` (their values, or ``None`` for a
pattern without values). Entries past ``indptr[..., -1]`` are padding, so
matrices of one shape and one capacity stack into a batch: the arrays may
carry leading batch dimensions ``...``. A matrix whose ``max(shape) + 1``
or capacity reaches :data:`jaxmatch._limits.INDEX_BOUND` (``2**30``) is
refused when it is made (``ValueError``): the kernels index with int32.

Subclasses add fields by dataclass inheritance and are registered as pytrees
when they are defined; for example::

    @dataclasses.dataclass(frozen=True, eq=False, repr=False)
    class Pattern(CSR):
        col_indptr: Any
        col_indices: Any

        capacity_fields: ClassVar[tuple[str, ...]] = ("indices", "col_indices")

Array fields are pytree leaves; a field declared with
``dataclasses.field(metadata={"static": True})`` (as ``shape`` is) is part of
the tree structure, hence static under ``jax.jit``.
"""

from __future__ import annotations

import dataclasses
from typing import Any, ClassVar, TypeVar

import jax
import jax.numpy as jnp
import numpy as np

from . import _limits

__all__ = [
    "CSR",
    "GraphValidationError",
    "as_index_array",
    "canonical_csr",
    "check_range",
    "csr_of_pairs",
    "index_view",
    "nondecreasing",
    "on_device",
    "pointer_of_sorted",
    "rows_canonical",
    "sorted_unique",
    "transpose_csr",
    "validate_csr",
]

#: The alignment (bytes) at which JAX's CPU client adopts a host buffer
#: without copying it (:func:`on_device`).
_ALIGNMENT = 64


class GraphValidationError(ValueError):
    """A malformed CSR structure or edge list."""


def sorted_unique(a: np.ndarray) -> np.ndarray:
    """The distinct values of a 1-D integer array, sorted.

    ``np.unique`` by sorting and keeping each value that differs from its
    predecessor (``np.unique`` can take a hash-based path that is far slower
    than a sort on large integer arrays).

    Args:
      a: integer ``[k]``.

    Returns:
      ``[k']`` in ``a``'s dtype, strictly increasing.
    """
    a = np.sort(a)
    if a.size < 2:
        return a
    keep = np.empty(a.size, bool)
    keep[0] = True
    np.not_equal(a[1:], a[:-1], out=keep[1:])
    return a[keep]


def index_view(x: Any, name: str) -> np.ndarray:
    """``x`` as a 1-D integer NumPy array in its own dtype (no copy when it
    is one already); comparisons in that dtype cannot wrap.

    Raises:
      GraphValidationError: ``x`` is not one-dimensional or not integer.
    """
    a = np.asarray(x)
    if a.ndim != 1:
        raise GraphValidationError(f"{name} must be one-dimensional, got shape {a.shape}")
    if a.size and a.dtype.kind not in "iu":
        raise GraphValidationError(f"{name} must hold integers, got dtype {a.dtype}")
    return a


def check_range(x: np.ndarray, bound: int, what: str) -> None:
    """Raises :class:`GraphValidationError` naming the first entry of the
    integer array ``x`` outside ``[0, bound)`` (``what``: e.g. "row index")."""
    if not x.size:
        return
    top = int(np.iinfo(x.dtype).max)
    if x.dtype.kind == "i" and bound <= top:
        # One pass: negative entries, seen unsigned, exceed the signed maximum.
        outside = bool(np.any(x.view(x.dtype.str.replace("i", "u")) >= bound))
    elif x.dtype.kind == "i":  # every non-negative entry is below the bound
        outside = bool(x.min() < 0)
    else:
        outside = bound <= top and bool(x.max() >= bound)
    if outside:
        bad = x[(x < 0) | (x >= bound)][0]
        raise GraphValidationError(f"{what} {bad} out of range [0, {bound})")


def as_index_array(x: Any, name: str) -> np.ndarray:
    """``x`` as a 1-D int64 NumPy array.

    Args:
      x: array-like of integers (empty arrays of any dtype pass).
      name: a name for the messages.

    Returns:
      int64 ``[k]``.

    Raises:
      GraphValidationError: ``x`` is not one-dimensional or not integer.
    """
    return index_view(x, name).astype(np.int64)


def validate_csr(
    indptr: Any, indices: Any, n_major: int, n_minor: int, *, what: str = "CSR"
) -> None:
    """Checks one CSR structure (eager, on the host).

    Args:
      indptr: integer ``[n_major + 1]`` index pointer.
      indices: integer ``[nnz]`` (or more: entries past ``indptr[-1]`` are
        ignored).
      n_major: number of compressed vertices (rows of ``indptr``).
      n_minor: number of vertices the indices refer to.
      what: a name for the messages.

    Raises:
      GraphValidationError: a negative size, arrays that are not 1-D integer,
        a pointer of the wrong length, not starting at 0, decreasing or
        ending past ``indices``, or a used index outside ``[0, n_minor)``.
    """
    if n_major < 0 or n_minor < 0:
        raise GraphValidationError(f"{what}: negative size ({n_major}, {n_minor})")
    p = index_view(indptr, f"{what} index pointer")
    idx = index_view(indices, f"{what} indices")
    if p.shape[0] != n_major + 1:
        raise GraphValidationError(
            f"{what}: index pointer has length {p.shape[0]}, expected {n_major + 1}"
        )
    if p[0] != 0:
        raise GraphValidationError(f"{what}: index pointer must start at 0, got {p[0]}")
    # Compare neighbours rather than take np.diff, which can wrap around for
    # pointers near the int64 limits (or uint64 ones cast to int64).
    decreases = p[1:] < p[:-1]
    if np.any(decreases):
        k = int(np.flatnonzero(decreases)[0])
        raise GraphValidationError(
            f"{what}: index pointer must be non-decreasing (decreases at {k}: {p[k]} -> {p[k + 1]})"
        )
    if p[-1] > idx.shape[0]:
        raise GraphValidationError(
            f"{what}: index pointer ends at {p[-1]} but there are only {idx.shape[0]} indices"
        )
    used = idx[: p[-1]]
    if used.size and (used.min() < 0 or used.max() >= n_minor):
        bad = used[(used < 0) | (used >= n_minor)][0]
        raise GraphValidationError(f"{what}: index {bad} out of range [0, {n_minor})")


# -- host-side building blocks of the constructors: O(nnz) passes, and
# scipy's C++ counting sorts where entries must move.


def _aligned_empty(size: int, dtype: Any) -> np.ndarray:
    """An uninitialised 1-D array whose data starts on a :data:`_ALIGNMENT`
    boundary."""
    dtype = np.dtype(dtype)
    raw = np.empty(size * dtype.itemsize + _ALIGNMENT, np.uint8)
    start = -raw.ctypes.data % _ALIGNMENT
    return raw[start : start + size * dtype.itemsize].view(dtype)


def _aligned_copy(a: np.ndarray, dtype: Any) -> np.ndarray:
    out = _aligned_empty(a.shape[0], dtype)
    out[...] = a
    return out


def on_device(a: np.ndarray, dtype: Any = None, *, private: bool = False) -> jax.Array:
    """A 1-D host array as a JAX array on the default device.

    The data is copied once, into a fresh aligned buffer that JAX's CPU
    client then adopts without copying (``jnp.asarray`` copies more slowly);
    other devices copy it over. A ``private`` array (made by the
    constructor, reachable from nowhere else) of the wanted dtype and
    alignment is adopted as it is: it must not be written afterwards.

    Args:
      a: ``[k]`` NumPy array.
      dtype: the stored dtype (default: ``a``'s); JAX's dtype rules apply
        after (float64 becomes float32 without ``jax_enable_x64``).
      private: ``a`` is the constructor's own buffer.

    Returns:
      ``[k]`` JAX array.
    """
    dtype = a.dtype if dtype is None else np.dtype(dtype)
    if not (private and a.dtype == dtype and a.ctypes.data % _ALIGNMENT == 0):
        a = _aligned_copy(a, dtype)
    return jax.device_put(a, may_alias=True)


def rows_canonical(indptr: np.ndarray, indices: np.ndarray, *, repeats: bool = False) -> bool:
    """Whether every row's indices strictly increase (sorted, no
    duplicates; with ``repeats``, never decrease): one O(nnz) pass.

    Args:
      indptr: integer ``[n_rows + 1]``, a validated pointer.
      indices: integer ``[nnz]`` (or more; entries past ``indptr[-1]`` are
        ignored).
      repeats: allow equal neighbouring indices in a row.
    """
    nnz = int(indptr[-1])
    if nnz < 2:
        return True
    idx = indices[:nnz]
    rising = (idx[1:] >= idx[:-1]) if repeats else (idx[1:] > idx[:-1])
    # A row's first entry need not exceed the last of the row before it.
    rising[_row_crossings(indptr, nnz)] = True
    return bool(rising.all())


def _row_crossings(indptr: np.ndarray, nnz: int) -> np.ndarray:
    """The positions ``i`` of a CSR's entries whose successor ``i + 1``
    starts another row (for pairwise tests of neighbouring entries)."""
    starts = indptr[1:-1]
    return starts[(starts > 0) & (starts < nnz)] - 1


def nondecreasing(x: np.ndarray) -> bool:
    """Whether the 1-D array ``x`` never decreases (a prefix is tried
    first, so shuffled input costs no full pass)."""
    head = x[:4097]
    if not bool(np.all(head[1:] >= head[:-1])):
        return False
    return bool(np.all(x[1:] >= x[:-1]))


def pointer_of_sorted(rows: np.ndarray, n_rows: int) -> np.ndarray:
    """The CSR pointer ``[n_rows + 1]`` (int32) of non-decreasing rows."""
    # Keys in the rows' dtype: NumPy would otherwise convert the rows.
    keys = np.arange(n_rows + 1, dtype=rows.dtype if rows.dtype.kind in "iu" else np.int64)
    return np.searchsorted(rows, keys, side="left").astype(np.int32)


def _sparsetools() -> Any:
    """scipy's C++ CSR routines (private API), or None where they moved."""
    try:
        from scipy.sparse import _sparsetools as tools

        tools.csr_tocsc, tools.coo_tocsr, tools.csr_sort_indices  # noqa: B018
        return tools
    except (ImportError, AttributeError):  # pragma: no cover - a future scipy
        return None


def _pattern_data(nnz: int) -> np.ndarray:
    return np.zeros(nnz, np.int8)


def transpose_csr(
    indptr: np.ndarray, indices: np.ndarray, data: np.ndarray | None, n_rows: int, n_cols: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """The CSR ``[n_cols, n_rows]`` of the transpose, rows sorted where the
    input's are (a stable counting sort, scipy's ``tocsc``).

    Args:
      indptr: int32 ``[n_rows + 1]``, validated.
      indices: int32 ``[nnz]``.
      data: ``[nnz]`` or None (a pattern).

    Returns:
      ``(indptr int32 [n_cols + 1], indices int32 [nnz], data [nnz] or
      None)``, new aligned arrays.
    """
    nnz = int(indptr[-1])
    x = _pattern_data(nnz) if data is None else data[:nnz]
    tools = _sparsetools()
    p_t = _aligned_empty(n_cols + 1, np.int32)
    i_t = _aligned_empty(nnz, np.int32)
    x_t = _aligned_empty(nnz, x.dtype)
    if tools is not None:
        p32 = np.ascontiguousarray(indptr, np.int32)
        i32 = np.ascontiguousarray(indices[:nnz], np.int32)
        tools.csr_tocsc(n_rows, n_cols, p32, i32, np.ascontiguousarray(x), p_t, i_t, x_t)
    else:  # pragma: no cover - a future scipy
        import scipy.sparse as sp

        T = sp.csr_matrix((x, indices[:nnz], indptr), shape=(n_rows, n_cols)).tocsc()
        p_t[...], i_t[...], x_t[...] = T.indptr, T.indices, T.data
    return p_t, i_t, (None if data is None else x_t)


def _merge_duplicates(
    indptr: np.ndarray, indices: np.ndarray, data: np.ndarray | None, reduce: Any
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Sorted rows' repeated indices merged into one entry (their values
    combined by the ufunc ``reduce``: ``np.add``, ``np.maximum``)."""
    nnz = int(indptr[-1])
    if nnz < 2:
        return indptr, indices, data
    repeat = indices[1:nnz] == indices[: nnz - 1]
    repeat[_row_crossings(indptr, nnz)] = False
    if not repeat.any():
        return indptr, indices, data
    start = np.empty(nnz, bool)
    start[0] = True
    np.logical_not(repeat, out=start[1:])
    # runs[k]: the number of runs that start before position k.
    runs = np.zeros(nnz + 1, np.int32)
    np.cumsum(start, dtype=np.int32, out=runs[1:])
    p = runs[indptr]
    first = np.flatnonzero(start)
    idx = _aligned_empty(first.shape[0], np.int32)
    np.take(indices, first, out=idx)
    if data is None:
        return p, idx, None
    x = _aligned_empty(first.shape[0], data.dtype)
    np.take(data, first, out=x)
    # Fold each repeat into its run's first entry, in order (ufunc.at,
    # unlike reduceat, costs nothing for the runs of one entry).
    again = np.flatnonzero(repeat) + 1
    reduce.at(x, runs[again + 1] - 1, data[again])
    return p, idx, x


def csr_of_pairs(
    rows: np.ndarray,
    cols: np.ndarray,
    data: np.ndarray | None,
    n_rows: int,
    n_cols: int,
    reduce: Any = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, bool]:
    """The canonical CSR (rows sorted, no repeated pair) of entries given in
    any order: scipy's counting sort by row, a sort within each row, then
    repeated pairs merged (values by the ufunc ``reduce``); entries already
    in that order are only checked.

    Args:
      rows, cols: integer ``[k]`` in range (checked by the caller).
      data: ``[k]`` values, or None (a pattern).
      reduce: how repeated pairs combine (``np.add``, ``np.maximum``);
        unused for a pattern.

    Returns:
      ``(indptr int32 [n_rows + 1], indices int32 [nnz], data [nnz] or
      None, private)``: ``private`` is False when ``indices`` and ``data``
      are (views of) the input's, True for new arrays.
    """
    k = rows.shape[0]
    r = np.ascontiguousarray(rows, np.int32)
    c = np.ascontiguousarray(cols, np.int32)
    if k > 1 and nondecreasing(r):
        p = pointer_of_sorted(r, n_rows)
        if rows_canonical(p, c):  # already canonical: no sort
            return p, c, data, False
    x = _pattern_data(k) if data is None else np.ascontiguousarray(data)
    tools = _sparsetools()
    p = _aligned_empty(n_rows + 1, np.int32)
    i_s = _aligned_empty(k, np.int32)
    x_s = _aligned_empty(k, x.dtype)
    if tools is not None:
        tools.coo_tocsr(n_rows, n_cols, k, r, c, x, p, i_s, x_s)
        tools.csr_sort_indices(n_rows, p, i_s, x_s)
    else:  # pragma: no cover - a future scipy
        order = np.lexsort((c, r))
        p[...] = pointer_of_sorted(r[order], n_rows)
        i_s[...], x_s[...] = c[order], x[order]
    return (*_merge_duplicates(p, i_s, None if data is None else x_s, reduce), True)


def canonical_csr(
    indptr: np.ndarray,
    indices: np.ndarray,
    data: np.ndarray | None,
    n_rows: int,
    n_cols: int,
    reduce: Any = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None, bool]:
    """A validated CSR made canonical: returned as it is when its rows
    are already sorted without repeats (one O(nnz) check), else sorted
    within rows and repeated entries merged (values by ``reduce``).

    Returns:
      ``(indptr, indices [nnz], data [nnz] or None, private)``: ``private``
      is False when the arrays are (views of) the input's.
    """
    nnz = int(indptr[-1])
    indices = indices[:nnz]
    data = None if data is None else data[:nnz]
    if rows_canonical(indptr, indices):
        return indptr, indices, data, False
    x = _pattern_data(nnz) if data is None else _aligned_copy(data, data.dtype)
    p = _aligned_copy(indptr, np.int32)
    i_s = _aligned_copy(indices, np.int32)
    tools = _sparsetools()
    if tools is not None:
        tools.csr_sort_indices(n_rows, p, i_s, x)
    else:  # pragma: no cover - a future scipy
        rows = np.repeat(np.arange(n_rows), np.diff(indptr))
        order = np.lexsort((i_s, rows))
        i_s[...], x[...] = i_s[order], x[order]
    p, i_s, x_m = _merge_duplicates(p, i_s, None if data is None else x, reduce)
    return p, i_s, x_m, True


_C = TypeVar("_C", bound="CSR")


def _register(cls: type) -> None:
    """Registers a :class:`CSR` class as a pytree (with keys): fields marked
    static form the tree structure, the others are children."""
    layout: list[tuple[str, ...]] = []

    def names() -> tuple[tuple[str, ...], tuple[str, ...]]:
        # The fields are known once the dataclass decorator has run, after
        # the class is created; read them at the first flatten.
        if not layout:
            fields = dataclasses.fields(cls)
            layout.append(tuple(f.name for f in fields if not f.metadata.get("static")))
            layout.append(tuple(f.name for f in fields if f.metadata.get("static")))
        return layout[0], layout[1]

    def flatten_with_keys(x: CSR) -> tuple[list[tuple[Any, Any]], tuple[Any, ...]]:
        children, static = names()
        keyed = [(jax.tree_util.GetAttrKey(n), getattr(x, n)) for n in children]
        return keyed, tuple(getattr(x, n) for n in static)

    def flatten(x: CSR) -> tuple[list[Any], tuple[Any, ...]]:
        children, static = names()
        return [getattr(x, n) for n in children], tuple(getattr(x, n) for n in static)

    def unflatten(aux: tuple[Any, ...], leaves: Any) -> CSR:
        # Bypass __init__: leaves may be tracers, shape structs or sentinels.
        children, static = names()
        x: CSR = object.__new__(cls)
        for n, v in zip(children, leaves):
            object.__setattr__(x, n, v)
        for n, v in zip(static, aux):
            object.__setattr__(x, n, v)
        return x

    jax.tree_util.register_pytree_with_keys(cls, flatten_with_keys, unflatten, flatten)


@dataclasses.dataclass(frozen=True, eq=False, repr=False)
class CSR:
    """A sparse matrix ``[n_rows, n_cols]`` in CSR form, as a pytree.

    The arrays may carry leading batch dimensions ``...`` (graphs or costs of
    one shape and one capacity stacked, see :meth:`pad_to`); ``shape`` is
    static. Subclasses (declared ``@dataclasses.dataclass(frozen=True,
    eq=False, repr=False)``) may add fields after these four, list their
    capacity-sized arrays in :attr:`capacity_fields` and extend
    :meth:`validate`; they are registered as pytrees when defined.

    Attributes:
      indptr: int32 ``[..., n_rows + 1]``, non-decreasing from 0: the entries
        of row ``i`` are at positions ``indptr[i]:indptr[i + 1]``.
      indices: int32 ``[..., capacity]``, the column of each entry; entries
        past ``indptr[..., -1]`` are padding.
      data: ``[..., capacity]``, the value of each entry, or ``None`` for a
        pattern (a graph without values).
      shape: static ``(n_rows, n_cols)``.
      capacity_fields: class attribute, the names of the fields whose last
        axis is the capacity (:meth:`pad_to` pads them; ``None`` values are
        skipped).
    """

    indptr: Any
    indices: Any
    data: Any
    shape: tuple[int, int] = dataclasses.field(metadata={"static": True})

    capacity_fields: ClassVar[tuple[str, ...]] = ("indices", "data")

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        _register(cls)

    def __post_init__(self) -> None:
        n_rows, n_cols = self.shape
        object.__setattr__(self, "shape", (int(n_rows), int(n_cols)))
        # The kernels' int32 limits, from the static shapes: a matrix too
        # large for them is refused where it is made (the solvers check again).
        slots = [np.shape(getattr(self, f)) for f in self.capacity_fields]
        capacity = max((s[-1] for s in slots if s), default=0)
        _limits.check_csr(self.shape, capacity, f"{type(self).__name__} of shape {self.shape}")

    def __repr__(self) -> str:
        values = "" if self.data is None else f", data={jnp.result_type(self.data)}"
        return (
            f"{type(self).__name__}(shape={self.shape}, capacity={self.capacity}{values}, "
            f"batch={tuple(np.shape(self.indptr)[:-1])})"
        )

    @property
    def n_rows(self) -> int:
        """Static number of rows (``shape[0]``)."""
        return self.shape[0]

    @property
    def n_cols(self) -> int:
        """Static number of columns (``shape[1]``)."""
        return self.shape[1]

    @property
    def capacity(self) -> int:
        """Static number of entry slots (the last axis of ``indices``; a
        symbolic dimension under ``jax.export`` with symbolic shapes)."""
        size = np.shape(self.indices)[-1]
        return int(size) if _limits.is_concrete(size) else size

    @property
    def nnz(self) -> Any:
        """int32 ``[...]``: the number of stored entries, ``indptr[..., -1]``."""
        return self.indptr[..., -1]

    def pad_to(self: _C, capacity: int) -> _C:
        """The same matrix with room for ``capacity`` entries, so matrices of
        one shape and different entry counts stack into one batch.

        Pads the last axis of every field in :attr:`capacity_fields` with
        zeros (NumPy arrays stay NumPy arrays); padding is never read.

        Args:
          capacity: the new capacity, at least the current one.

        Returns:
          A copy of ``self`` (same type) whose capacity is ``capacity``.

        Raises:
          GraphValidationError: ``capacity`` is below the current capacity.
        """
        size = self.capacity
        if capacity < size:
            raise GraphValidationError(f"capacity {capacity} < current {size}")
        changes: dict[str, Any] = {}
        for name in self.capacity_fields:
            a = getattr(self, name)
            if a is None:
                continue
            pad = np.pad if isinstance(a, np.ndarray) else jnp.pad
            changes[name] = pad(a, [(0, 0)] * (np.ndim(a) - 1) + [(0, capacity - size)])
        return dataclasses.replace(self, **changes)

    def validate(self: _C) -> _C:
        """Checks the CSR structure of every batch member (eager, on the host).

        Subclasses extend it with their own checks (and call this one).

        Returns:
          ``self``.

        Raises:
          GraphValidationError: a malformed structure (see
            :func:`validate_csr`), or ``data`` not of the shape of
            ``indices``.
        """
        indptr = np.asarray(self.indptr)
        indices = np.asarray(self.indices)
        if indptr.ndim < 1 or indptr.shape[:-1] != indices.shape[:-1]:
            raise GraphValidationError(
                f"indptr {indptr.shape} and indices {indices.shape} differ in batch shape"
            )
        if self.data is not None and np.shape(self.data) != indices.shape:
            raise GraphValidationError(
                f"data has shape {np.shape(self.data)}, expected that of indices {indices.shape}"
            )
        pointers = indptr.reshape(-1, indptr.shape[-1])
        columns = indices.reshape(-1, indices.shape[-1])
        for p, idx in zip(pointers, columns):
            validate_csr(p, idx, self.n_rows, self.n_cols)
        return self


_register(CSR)
