"""Reading jaxprs in tests."""

from __future__ import annotations


def ffi_attributes(jaxpr) -> list[dict]:
    """The ``attributes`` of every ffi_call in a (closed) jaxpr, nested ones
    (while, cond, platform_dependent branches, custom_vmap) included."""
    jaxpr = getattr(jaxpr, "jaxpr", jaxpr)
    found = []
    for eqn in jaxpr.eqns:
        if "attributes" in eqn.params:
            found.append(dict(eqn.params["attributes"]))
        for value in eqn.params.values():
            for sub in value if isinstance(value, (tuple, list)) else (value,):
                if hasattr(sub, "eqns") or hasattr(getattr(sub, "jaxpr", None), "eqns"):
                    found += ffi_attributes(sub)
    return found
