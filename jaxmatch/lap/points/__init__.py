"""The LAP between two point sets, costs computed on the fly
(:func:`solve_lap_points`), and its certificate."""

from .order import stratified_half, z_order
from .solve import solve_lap_points
from .sweep import METRICS, pair_costs
from .verify import verify_lap_points

__all__ = [
    "METRICS",
    "pair_costs",
    "solve_lap_points",
    "stratified_half",
    "verify_lap_points",
    "z_order",
]
