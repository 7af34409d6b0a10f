"""The LAP certificate's verdict, shared by the dense, sparse and point-set
checkers: from an assignment's measured violations to a
:class:`~jaxmatch.LAPCertificate`."""

from __future__ import annotations

from .types import LAPCertificate

NAN = float("nan")


def invalid(reason: str) -> LAPCertificate:
    return LAPCertificate(False, False, False, NAN, NAN, NAN, NAN, False, reason)


def certificate(
    primal: float,
    dual: float,
    viol_dual: float,
    viol_cs: float,
    tol: float,
    sign: float,
    vertices: int,
) -> LAPCertificate:
    """The certificate of a valid assignment from its measured violations
    (minimization form: ``sign`` -1 when maximizing), for the dense, sparse
    and point-set checkers: ``optimal`` when both violations are within
    ``tol`` and the duality gap within ``tol * vertices``."""
    gap = primal - dual
    dual_ok, cs_ok = viol_dual <= tol, viol_cs <= tol
    gap_ok = abs(gap) <= tol * max(1, vertices)
    reason = ""
    if not dual_ok:
        reason = f"the duals are infeasible (violation {viol_dual:.3g} > tol {tol:.3g})"
    elif not cs_ok:
        reason = f"complementary slackness fails (violation {viol_cs:.3g} > tol {tol:.3g})"
    elif not gap_ok:
        reason = f"the duality gap {gap:.3g} exceeds the tolerance"
    return LAPCertificate(
        valid_assignment=True,
        dual_feasible=bool(dual_ok),
        complementary_slackness=bool(cs_ok),
        primal_cost=float(sign * primal),
        dual_objective=float(sign * dual),
        duality_gap=float(gap),
        max_violation=float(max(viol_dual, viol_cs)),
        optimal=bool(dual_ok and cs_ok and gap_ok),
        reason=reason,
    )
