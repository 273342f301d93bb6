"""Every script in examples/ is listed, with what it must print.  The documentation's
gallery runs each one (``tests/test_docs.py`` builds it and checks that each printed this)."""

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXPECT = {
    "sparse_kpca.py": "Alg. 6 picks the same 40 points as Alg. 2 (Thm 5): True",
    "kernel_matching_pursuit.py": "5-fold CV picks",
    "sparse_kcca.py": "40 shared basis points",
    "greedy_fisher.py": "P(class",
    "nystrom_kcca_columns.py": "d_eff):",
    "bounds.py": "KMP: bound lowest at t =",
    "paper_figure.py": "The paper says: “We see that",
}


def test_every_example_is_listed_here_and_in_the_library_guide():
    scripts = {path.name for path in (ROOT / "examples").glob("*.py")}
    assert scripts == set(EXPECT)
    readme = (ROOT / "docs" / "library.md").read_text()
    assert all(f"examples/{name}" in readme for name in scripts)
