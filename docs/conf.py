"""Sphinx configuration: the documentation of Matching Pursuit Lab (``make docs``).

Built offline with warnings as errors: numpydoc renders and validates the API's docstrings,
autosummary writes one page per public object, and sphinx-gallery runs ``examples/`` and
keeps their figures and output.
"""

import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

import mpcore  # noqa: E402
from mpcore.references import REFERENCES  # noqa: E402

project = "Matching Pursuit Lab"
author = "Seed 0b949135 maintainers"
copyright = "2026, " + author
version = release = mpcore.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
    "myst_parser",  # the pages moved from the README, the changelog: Markdown as it was
]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
myst_heading_anchors = 3
templates_path = ["_templates"]
exclude_patterns = ["_build", "_generated/*.rst.txt", "_generated/*.md.txt"]
html_theme = "pydata_sphinx_theme"
html_title = f"Matching Pursuit Lab {release}"
html_static_path = ["_static"]
html_theme_options = {
    "navigation_with_keys": False,
    "show_prev_next": True,
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version"],
}
html_show_sourcelink = False

# --- API pages -----------------------------------------------------------------------------
autosummary_generate = True
autosummary_imported_members = True
autodoc_typehints = "none"  # numpydoc's Parameters sections say the types
autodoc_default_options = {"members": False}
numpydoc_show_class_members = False  # the class template lists the methods
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
# The checks every documented public object must pass (warnings, hence errors under -W):
# numpydoc's whole set but the four sections a scientific library usually leaves optional
# (GL01 a summary on the opening line's own, ES01 an extended summary, SA01 See Also, EX01
# Examples).
numpydoc_validation_checks = {"all", "GL01", "ES01", "SA01", "EX01"}
numpydoc_validation_exclude = {
    r"\.__init__$",
    r"\.(get|set)_params$",
    r"\.set_output$",
    r"\.get_feature_names_out$",
    r"\.set_\w+_request$",
    r"\.get_metadata_routing$",
    # Result records: their fields are documented as Attributes; the constructor is internal.
    r"\.(PursuitPath|CCAResult|KCCAResult|NystromKCCAResult|FisherModel)$",
}

# --- the gallery ---------------------------------------------------------------------------
sphinx_gallery_conf = {
    "examples_dirs": str(ROOT / "examples"),
    "gallery_dirs": "auto_examples",
    "filename_pattern": r".*\.py$",  # run every example, keep its figure and output
    "download_all_examples": False,
    "remove_config_comments": True,
    "show_memory": False,
    "show_signature": False,
    "min_reported_time": 10**6,
    # no page of the examples' run times: its table loads DataTables from a CDN (the site is offline)
    "write_computation_times": False,
    "matplotlib_animations": False,
    # each API page lists the examples that use it (sphinx-gallery's back-references)
    "doc_module": ("mpcore",),
    "backreferences_dir": "_generated/backreferences",
    "reference_url": {"mpcore": None},
}


# --- the bibliography, from the one list the app and the library use --------------------
def write_bibliography(app):
    lines = []
    for number, reference in enumerate(REFERENCES):
        if number == 0:
            lines += ["The papers the library implements", "---------------------------------", ""]
        elif number == 5:
            lines += [
                "Works they build on, and the sources of the data",
                "------------------------------------------------",
                "",
            ]
        entry = reference.entry()
        if reference.doi:
            entry = entry.replace(f"doi:{reference.doi}", f"`doi:{reference.doi} <{reference.url}>`__")
        lines += [
            f".. _{reference.key}:",
            "",
            f"**{reference.cite()}.** {entry}",
            "",
            f"   *Used for:* {reference.used_for}.",
            "",
        ]
    write_generated("bibliography.rst.txt", "\n".join(lines))


def write_generated(name, text):
    """``_generated/name`` holding ``text``, written only when it changed (so that Sphinx
    does not rebuild the pages that include it for nothing)."""
    folder = HERE / "_generated"
    folder.mkdir(exist_ok=True)
    target = folder / name
    if not target.exists() or target.read_text(encoding="utf-8") != text:
        target.write_text(text, encoding="utf-8")


# --- how to cite, from CITATION.cff (the file GitHub's "Cite this repository" reads) --------
def citation_bibtex():
    """CITATION.cff as a BibTeX entry."""
    import yaml

    cff = yaml.safe_load((ROOT / "CITATION.cff").read_text(encoding="utf-8"))
    names = [a.get("name") or f"{a['family-names']}, {a['given-names']}" for a in cff["authors"]]
    fields = {
        "title": cff["title"],
        "author": " and ".join(
            f"{{{name}}}" if "name" in author else name for name, author in zip(names, cff["authors"])
        ),
        "version": cff["version"],
        "year": str(cff["date-released"])[:4],
        "license": cff["license"],
        "note": cff["abstract"].strip(),
    }
    body = ",\n".join(f"  {key} = {{{value}}}" for key, value in fields.items())
    return f"@software{{matching_pursuit_lab,\n{body}\n}}\n"


def write_citation(app):
    write_generated("citation.bib", citation_bibtex())


# --- the shipped lessons, counted from their files -------------------------------------------
def lessons_text():
    """The guided lessons in ``views/lessons/`` as a sentence and a list, their scenes counted."""
    import tomllib

    numbers = ["no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten"]
    found = [
        tomllib.loads(path.read_text(encoding="utf-8")) for path in sorted((ROOT / "views" / "lessons").glob("*.toml"))
    ]
    total = sum(len(lesson["scene"]) for lesson in found)
    count = numbers[len(found)] if len(found) < len(numbers) else str(len(found))
    lines = [
        f"The **Guided lessons** page (linked from Home) offers {count} narrated paths through the ideas, "
        f"{total} scenes in all, grounded in the papers:",
        "",
    ]
    lines += [f"- *{lesson['title']}* ({len(lesson['scene'])} scenes)" for lesson in found]
    return "\n".join(lines) + "\n"


def write_lessons(app):
    write_generated("lessons.md.txt", lessons_text())


def setup(app):
    app.connect("builder-inited", write_lessons)
    app.connect("builder-inited", write_bibliography)
    app.connect("builder-inited", write_citation)
