"""The alternating forest, one problem split over the devices of a mesh
axis by rows (:func:`solve_lap_split`), or on one device
(:func:`~.forest.solve_on_one_device`, for the dense planner)."""

from .forest import fits_int32_forest, solve_on_one_device
from .solve import row_split_axis, solve_lap_split

__all__ = ["fits_int32_forest", "row_split_axis", "solve_lap_split", "solve_on_one_device"]
