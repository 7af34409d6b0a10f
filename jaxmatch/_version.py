"""The version of jaxmatch: one place, read by the package, its library
loader and the build (pyproject.toml)."""

__version__ = "0.2.0.dev0"
