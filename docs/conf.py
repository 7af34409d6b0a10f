"""Sphinx configuration of the jaxmatch documentation (MyST Markdown pages).

Build (warnings are errors)::

    pip install -r docs/requirements.txt
    sphinx-build -W --keep-going -b html docs /tmp/docs_html

The API reference imports jaxmatch (autodoc), which needs its compiled CPU
library: an installed jaxmatch, or the checkout on ``PYTHONPATH`` beside an
installed jaxmatch of the same version (``jaxmatch/_ffi.py``).

Three pages are partly generated here, so that the build never depends on
files that may or may not exist:

* ``examples.md``: one section per ``examples/*.py`` found at build time
  (its docstring, then its code);
* ``benchmarks.md``: the PNGs in ``docs/plots/`` (made by
  ``tools/plot_benchmarks.py``; when ``$JAXMATCH_BENCH_JSON`` names JSON
  files or folders of them, they are plotted first), or a sentence saying
  how to make them;
* ``index.md``: the ``cli`` page stays in the table of contents only where
  ``docs/cli.md`` exists.
"""

from __future__ import annotations

import ast
import enum
import importlib.util
import os
import re
import sys
from pathlib import Path

from docutils import nodes
from docutils.core import publish_doctree
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
EXAMPLES = ROOT / "examples"
PLOTS = DOCS / "plots"
PLOT_SCRIPT = ROOT / "tools" / "plot_benchmarks.py"
#: Environment variable: JSON files (or folders of them) of the benchmark
#: harness to plot, separated by os.pathsep.
BENCH_ENV = "JAXMATCH_BENCH_JSON"
#: The latest results, compact (tools/plot_benchmarks.py --compact).
BENCH_DATA = DOCS / "data"

# The checkout's package (an installed jaxmatch of the same version supplies
# the compiled libraries).
sys.path.insert(0, str(ROOT))

logger = logging.getLogger("jaxmatch.docs")


def _version() -> str:
    tree = ast.parse((ROOT / "jaxmatch" / "__init__.py").read_text())
    for node in tree.body:
        if (
            isinstance(node, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == "__version__" for t in node.targets)
            and isinstance(node.value, ast.Constant)
        ):
            return str(node.value.value)
    return "unknown"


# -- Project ------------------------------------------------------------------

project = "jaxmatch"
author = "the jaxmatch authors"
copyright = "the jaxmatch authors, Apache-2.0"
release = _version()
version = release

# -- General ------------------------------------------------------------------

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.viewcode",
]
source_suffix = {".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build"]
templates_path: list[str] = []
nitpicky = False

myst_enable_extensions = ["colon_fence", "deflist"]
# Anchors for ## and ### headings, so pages can link to sections.
myst_heading_anchors = 3

# -- autodoc / napoleon (Google-style docstrings) -----------------------------

autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_typehints_format = "short"
autodoc_preserve_defaults = True
autodoc_class_signature = "mixed"
napoleon_google_docstring = True
napoleon_numpy_docstring = False
napoleon_use_rtype = False
# The type of a NamedTuple field is in its ``Attributes:`` text; the
# annotation (``jax.Array``) would only repeat it, as a private path.
napoleon_attr_annotations = False
# Types from annotations only for documented parameters (not for every
# NamedTuple field again as a constructor parameter).
autodoc_typehints_description_target = "documented"

# -- HTML ---------------------------------------------------------------------

html_theme = "furo"
html_title = f"jaxmatch {release}"
html_static_path = ["_static"]
html_css_files = ["custom.css"]


# -- Extensions of this build -------------------------------------------------


def skip_namedtuple_fields(app, what, name, obj, skip, options):
    """NamedTuple fields are documented by the class's ``Attributes:``
    section; autodoc would add them again as "Alias for field number N"."""
    if what == "class" and (getattr(obj, "__doc__", "") or "").startswith("Alias for field number"):
        return True
    return None


def property_docstring(app, what, name, obj, options, lines):
    """Properties' docstrings as full Google-style docstrings.

    Napoleon reads a property's first line as ``type: description``, so
    "The :class:`LAPStatus` name of ``status``: a ``str``..." would lose its
    first half to a "Type:" field. This runs after napoleon and converts the
    original docstring again, as a method's (its sections parsed, no type).
    """
    doc = getattr(obj, "__doc__", None)
    if what != "property" or not doc:
        return
    from sphinx.ext.napoleon.docstring import GoogleDocstring
    from sphinx.util.docstrings import prepare_docstring

    original = prepare_docstring(doc)
    lines[:] = GoogleDocstring(original, app.config, app, "method", name, obj).lines()


def _docstring(path: Path) -> tuple[str, int]:
    """A script's module docstring and the line its code starts on (after it)."""
    text = path.read_text(encoding="utf-8")
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return "", 1
    doc = ast.get_docstring(tree, clean=True) or ""
    body = tree.body
    if doc and body and isinstance(body[0], ast.Expr):
        return doc, (body[0].end_lineno or 0) + 1
    return doc, 1


#: Docutils nodes a docstring may consist of to be shown as parsed text.
_SIMPLE_NODES = (
    nodes.paragraph,
    nodes.bullet_list,
    nodes.enumerated_list,
    nodes.list_item,
    nodes.literal_block,
    nodes.block_quote,
    nodes.definition_list,
    nodes.definition_list_item,
    nodes.term,
    nodes.definition,
    nodes.Text,
    nodes.literal,
    nodes.emphasis,
    nodes.strong,
    nodes.reference,
    nodes.target,
)


def docstring_nodes(doc: str) -> list[nodes.Node]:
    """A docstring (reStructuredText) as docutils nodes, never a warning.

    It is parsed on its own with docutils' reports silenced. Where that finds
    anything to report (a markup error, a Sphinx role plain docutils does not
    know) or anything but simple body text (sections), the docstring is
    shown as a literal block instead: an example's docstring never breaks a
    build with warnings as errors.
    """
    if not doc.strip():
        return []
    settings = {
        "report_level": 5,
        "halt_level": 5,
        "doctitle_xform": False,
        "sectsubtitle_xform": False,
        "file_insertion_enabled": False,
        "raw_enabled": False,
        "warning_stream": False,
    }
    try:
        tree = publish_doctree(doc, settings_overrides=settings)
    except Exception:
        tree = None
    if tree is not None and all(
        isinstance(n, _SIMPLE_NODES) for c in tree.children for n in c.findall()
    ):
        return [c.deepcopy() for c in tree.children]
    return [nodes.literal_block(doc, doc)]


class DocstringDirective(SphinxDirective):
    """``{jaxmatch-docstring} ../examples/x.py``: the script's module
    docstring (see :func:`docstring_nodes`)."""

    required_arguments = 1
    has_content = False

    def run(self) -> list[nodes.Node]:
        rel, path = self.env.relfn2path(self.arguments[0], self.env.docname)
        self.env.note_dependency(rel)
        return docstring_nodes(_docstring(Path(path))[0])


def _examples_markdown() -> str:
    scripts = sorted(EXAMPLES.glob("*.py")) if EXAMPLES.is_dir() else []
    scripts = [p for p in scripts if not p.name.startswith("_")]
    if not scripts:
        return "No example scripts were found in `examples/` when these pages were built.\n"
    out = []
    for p in scripts:
        doc, code_line = _docstring(p)
        n_lines = len(p.read_text(encoding="utf-8").splitlines())
        out += [f"## `{p.name}`", ""]
        if doc:
            out += ["```{jaxmatch-docstring} ../examples/" + p.name, "```", ""]
        out += [
            "```{literalinclude} ../examples/" + p.name,
            ":language: python",
            f":caption: examples/{p.name}",
        ]
        if doc and code_line <= n_lines:
            out.append(f":lines: {code_line}-")
        out += ["```", ""]
    return "\n".join(out)


#: Captions of the PNGs tools/plot_benchmarks.py writes, by name suffix.
PLOT_CAPTIONS = {
    "profile": "performance profile: the share of cases on which each solver is "
    "within a factor tau of the fastest (failures never are)",
    "time": "median time per call against problem size",
}


def _plots_markdown() -> str:
    pngs = sorted(PLOTS.glob("*.png")) if PLOTS.is_dir() else []
    if not pngs:
        return "*No plots in this build* (`docs/plots/` has no PNG files).\n"
    out = []
    for p in pngs:
        family, _, kind = p.stem.rpartition("-")
        caption = PLOT_CAPTIONS.get(kind)
        caption = f"{family}: {caption}" if caption else p.stem
        out += [
            f"```{{figure}} plots/{p.name}",
            f":alt: {p.stem}",
            ":width: 100%",
            "",
            caption,
            "```",
            "",
        ]
    return "\n".join(out)


_API_DIRECTIVE = re.compile(
    r"^\.\. auto(?:function|class|exception|data)::\s+jaxmatch\.(\w+)\s*$", re.M
)
_API_MARKER = re.compile(r"<!-- jaxmatch:api (\w+) -->")
_API_FAMILIES = ("lap", "matching", "weighted")


def _api_entry(name: str, obj: object) -> str:
    """The autodoc directive for one public name."""
    target = f"jaxmatch.{name}"
    if isinstance(obj, type) and issubclass(obj, BaseException):
        body = f".. autoexception:: {target}"
    elif isinstance(obj, type):
        body = f".. autoclass:: {target}\n   :members:"
        if issubclass(obj, enum.Enum):
            body += "\n   :undoc-members:"
    elif callable(obj):
        body = f".. autofunction:: {target}"
    else:
        body = f".. autodata:: {target}"
    return "```{eval-rst}\n" + body + "\n```\n"


def _api_rest(text: str) -> str:
    """Fills the ``<!-- jaxmatch:api FAMILY -->`` markers of api.md with the
    names of ``jaxmatch.__all__`` that api.md does not document yet."""
    try:
        import jaxmatch
    except Exception as err:  # autodoc reports the failed import itself
        logger.warning(f"api.md: cannot import jaxmatch: {err!r}")
        return _API_MARKER.sub("", text)
    listed = set(_API_DIRECTIVE.findall(text))
    rest: dict[str, list[str]] = {}
    for name in jaxmatch.__all__:
        if name in listed:
            continue
        obj = getattr(jaxmatch, name)
        parts = str(getattr(obj, "__module__", "")).split(".")
        family = parts[1] if len(parts) > 1 and parts[1] in _API_FAMILIES else "other"
        rest.setdefault(family, []).append(_api_entry(name, obj))

    def fill(m: re.Match) -> str:
        entries = rest.get(m.group(1), [])
        if m.group(1) == "other" and entries:
            entries = ["## Other names\n", *entries]
        return "\n".join(entries)

    return _API_MARKER.sub(fill, text)


#: Markers in the Markdown sources that source_read replaces.
EXAMPLES_MARKER = "<!-- jaxmatch:examples -->"
PLOTS_MARKER = "<!-- jaxmatch:plots -->"


def source_read(app, docname: str, source: list[str]) -> None:
    if docname == "examples" and EXAMPLES_MARKER in source[0]:
        source[0] = source[0].replace(EXAMPLES_MARKER, _examples_markdown())
    elif docname == "api":
        source[0] = _api_rest(source[0])
    elif docname == "benchmarks" and PLOTS_MARKER in source[0]:
        source[0] = source[0].replace(PLOTS_MARKER, _plots_markdown())
    elif docname == root_doc and not (DOCS / "cli.md").exists():
        source[0] = "\n".join(ln for ln in source[0].split("\n") if ln.strip() != "cli")


def always_reread(app, env, added, changed, removed) -> list[str]:
    """The generated pages depend on files Sphinx does not track (new
    examples, new plots, new public names): read them on every build."""
    return [d for d in ("api", "examples", "benchmarks", root_doc) if d in env.found_docs]


def _bench_json_files(spec: str) -> list[Path]:
    files: list[Path] = []
    for part in filter(None, spec.split(os.pathsep)):
        p = Path(part).expanduser()
        if p.is_dir():
            files += sorted(p.glob("*.json"))
        elif p.is_file():
            files.append(p)
        else:
            logger.warning(f"{BENCH_ENV}: {part} is neither a file nor a folder")
    return files


def make_plots(app) -> None:
    """Plots the JSON results named by $JAXMATCH_BENCH_JSON (by default the
    compact latest results in docs/data/) into docs/plots."""
    spec = os.environ.get(BENCH_ENV, "") or (str(BENCH_DATA) if BENCH_DATA.is_dir() else "")
    if not spec:
        return
    files = _bench_json_files(spec)
    if not files:
        logger.warning(f"{BENCH_ENV}={spec}: no JSON files found; the plots are left as they are")
        return
    PLOTS.mkdir(exist_ok=True)
    for old in PLOTS.glob("*.png"):
        old.unlink()
    try:
        spec_ = importlib.util.spec_from_file_location("jaxmatch_plot_benchmarks", PLOT_SCRIPT)
        assert spec_ is not None and spec_.loader is not None
        module = importlib.util.module_from_spec(spec_)
        sys.modules[spec_.name] = module  # dataclasses look their module up
        spec_.loader.exec_module(module)
        written = module.plot_files(files, PLOTS)
    except Exception as err:
        logger.warning(f"{BENCH_ENV}: plotting {len(files)} file(s) failed: {err!r}")
        return
    logger.info(f"{BENCH_ENV}: {len(written)} plot(s) from {len(files)} file(s) in {PLOTS}")


def setup(app):
    app.add_directive("jaxmatch-docstring", DocstringDirective)
    app.connect("autodoc-skip-member", skip_namedtuple_fields)
    app.connect("autodoc-process-docstring", property_docstring, priority=600)
    app.connect("builder-inited", make_plots)
    app.connect("source-read", source_read)
    app.connect("env-get-outdated", always_reread)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
