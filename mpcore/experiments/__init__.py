"""The papers' figures and tables, rerun: one function per item, plain arrays out.

Every function takes a ``size`` -- ``"tiny"`` (the test suite), ``"quick"`` (the app's
gallery: seconds) or ``"full"`` (the paper's sizes: minutes) -- and returns an
:class:`Experiment`: a CSV-ready ``table`` of equal-length columns, further ``arrays``,
the ``settings`` it ran with and its headline ``findings``.  Any size's setting can be
overridden by keyword (``kmp_bound_boston("quick", k=30)``).

Repetitions (splits, seeds) run through scikit-learn's joblib wrapper, so
``with joblib.parallel_config(backend="dask"): ...`` spreads them over a Dask cluster
unchanged; ``n_jobs`` sets how many run at once (None: joblib's default, one).

>>> from mpcore import experiments
>>> result = experiments.run("000-fig7", size="tiny")
>>> result.table["t"].shape == result.table["SKCCA bound"].shape
True
>>> sorted(experiments.FIGURES)[:3]
['000-fig1', '000-fig2', '000-fig3']

``python -m mpcore.experiments NAME --out DIR`` writes the figure (Plotly HTML) and the
table (CSV) of one item; see ``--help``.  ``data_dir`` (``--data-dir``) points at a
folder with the Raetsch benchmark sets (``raetsch/*.npz``), used by the seed 002 items
instead of the bundled binary sets; nothing else needs it.
"""
from __future__ import annotations

import time
from dataclasses import dataclass, field, replace

from ._common import SIZES, Experiment, run_parallel
from .seed000 import kcca_test_distances, kmp_bound_boston, skcca_bound, skcca_test_distances, skcca_vs_kcca, \
    skpca_bounds_boston, skpca_bounds_toy
from .seed002 import BUNDLED_BINARY, PAPER_002_AER, PAPER_002_ART, PAPER_CRITERIA, PAPER_DEFLATIONS, binary_sources, \
    binary_split, fisher_criterion_deflation, fisher_stages, n_realisations
from .seed003 import KMP_PICTURE_METHODS, KMP_SVM_METHODS, PAPER_003_TABLE1, PAPER_003_TABLE3, USPS_METHODS, \
    corrected_resampled_ttest, kmp_2d_picture, kmp_usps, kmp_vs_svm
from .seed004 import COLUMN_EXPERIMENT_METHODS, column_selection_rings


# --- the registry: one entry per paper figure / table -----------------------------------------------


@dataclass(frozen=True)
class FigureInfo:
    """One paper item: which function reproduces it and how to show it.

    ``view``: presentation hints for the figure builder (e.g. ``{"log": True}``);
    ``needs_data``: runs only with ``data_dir`` (files not bundled with the package);
    ``finding``: the paper's finding in a sentence, with its numbers; ``differences``:
    what differs in our setting.
    """

    name: str
    paper: str
    title: str
    function: object
    finding: str
    differences: str
    view: dict = field(default_factory=dict)
    needs_data: bool = False


def _info(name, paper, title, function, finding, differences, needs_data=False, **view):
    return FigureInfo(name, paper, title, function, finding, differences, view, needs_data)


FIGURES = {info.name: info for info in (
    _info("000-fig1", "seed 000", "KMP bound against KMP test error (Boston housing)", kmp_bound_boston,
          "The KMP bound (Thm 4) follows the test error of kernel matching pursuit as basis vectors are added, "
          "so its minimum suggests how many to use.",
          "The paper gives neither alpha, the kernel width nor the split. We use its 450/56 split of the 506 houses "
          "(seeded, 20 splits quick, 100 full), RBF gamma = 0.05 on standardised features and alpha = 0.25 x the "
          "training target's standard deviation; pre-fitting KMP. The bound's minimum ends the steep fall of the "
          "test error; after it the test error creeps down over a long flat stretch, so the exact test-error "
          "argmin of a single 56-point split is noisy: the second panel shows both argmins per split, the third "
          "how far apart their medians move at neighbouring widths and alphas."),
    _info("000-fig2", "seed 000", "Sparse KPCA: compression bound against the PCA bound (Boston)",
          skpca_bounds_boston,
          "The sample compression bound (Cor. 1) is much tighter than the global Rademacher PCA bound (Thm 7) "
          "and non-trivial; it is lowest after 43 basis vectors.",
          "The paper's 'width sigma = 0.035' fits no Gaussian convention on Boston's raw or standardised features "
          "except as the exponent's factor, so we read it as gamma = 0.035 on standardised features (all 13, B "
          "included; seeded 2/3 splits). The compression bound's argmin moves with gamma (about 7 at 0.0175, 13 at "
          "0.035, 28 at 0.1, 42 at 0.2): the sweep table shows where, and names the gamma closest to the paper's 43."),
    _info("000-fig3", "seed 000", "Sparse KPCA bounds on the 50-of-450 Gaussian toy", skpca_bounds_toy,
          "With 1000 points in 450 dimensions, 50 of them dominant, the compression bound is lowest at 46 "
          "dimensions; the global Rademacher PCA bound is lowest at 29, too optimistic.",
          "'Considerably larger eigenvalues' is not quantified: the 50 dimensions get 10x the standard deviation "
          "(the sweep tries 2-20x; below 5x the bounds' argmins jump to 1 or 100); the data are scaled into the unit "
          "ball; linear kernel; 500 fresh test points (quick)."),
    _info("000-fig4", "seed 000", "Fig. 2 on a log axis, with the local Rademacher bound (Boston)",
          skpca_bounds_boston,
          "On a log axis all three bounds fit: the local Rademacher bound (Thm 8, c = 80) is far looser than "
          "the other two.",
          "As Fig. 2. Thm 8 prints K-bar = (I - 11')K'K(I - 11'), which no reading makes exact: (I - 11') is not "
          "a centring and K'K is neither K nor Blanchard, Bousquet and Zwald's kernel k(x, y)^2. The paper's text "
          "cannot decide, so both are drawn: the centred K (the spec's reading, solid) and the centred Gram "
          "matrix of k^2 (dashed 'k² reading'); the finding holds under both.", log=True),
    _info("000-fig5", "seed 000", "Fig. 3 on a log axis, with the local Rademacher bound (toy)", skpca_bounds_toy,
          "As Fig. 4 for the toy: the local Rademacher bound (c = 80) lies orders of magnitude above the others.",
          "As Fig. 3, with both readings of Thm 8's K-bar (see Fig. 4).", log=True),
    _info("000-fig6", "seed 000", "Sparse KCCA against KCCA at several regularisations", skcca_vs_kcca,
          "On an English-Spanish text corpus, SKCCA's test reconstruction error ||P_x - P_y|| is competitive with "
          "KCCA at several regularisation parameters, suggesting sparsity is a robust regulariser.",
          "The text corpus is not available offline: we use two views of handwritten digits (left and right "
          "halves, scikit-learn's copy), RBF gamma = 1/d per view, variates scaled to unit training variance; "
          "KCCA here is the exact regularised solution, not Gram-Schmidt."),
    _info("000-fig7", "seed 000", "Sparse KCCA bound (first direction)", skcca_bound,
          "The SKCCA bound (Thm 9) for one direction with alpha = 0.0095 (plotted scaled down by 5) tracks the "
          "test error as basis vectors are added.",
          "Two-view rings (seed 004's generator) instead of the text corpus; alpha = 1 on unit-variance variates; "
          "the bound is shown unscaled."),
    _info("002-fig1", "seed 002", "MPKFDA: error per criterion x deflation", fisher_criterion_deflation,
          "Over 13 benchmark sets, projection, Schur and the ortho deflations are close (AER 0.185-0.194 with the "
          "optimal and pseudo criteria), none and Hotelling are worst (0.283/0.255 optimal, 0.271/0.197 pseudo), "
          "and the reverse criteria are worse than random; best: pseudo + ortho-Schur, 0.185.",
          "Bundled sets (breast cancer WDBC, sonar, Pima, ionosphere) with seeded 70/30 splits, subsampled to 150 "
          "training points and a fixed k = 10 (quick); the full run chooses k on a held-out quarter, as the paper "
          "does on validation data; --data-dir uses the Raetsch sets. The RBF width is chosen as in the paper: "
          "5-fold cross-validation of the original algorithm (optimal + Schur) over widths 2^-5 ... 2^5 of its "
          "kernel exp(-||x - y||^2 / width) on the first five training splits, the median of the five choices "
          "(our gamma = 1 / width). 'random' draws the same points whatever the deflation, so its column is flat. "
          "Schur and ortho-Schur always pick the same points here: Schur steps depend only on the span of the "
          "tau's, which Gram-Schmidt keeps, whether tau is read from the deflated or the original kernel "
          "(tau_from); the paper's rows differ, which no reading of sec. 3.2.4 explains. With k validated (full), "
          "our small sets choose far more bases (11-39% of m; the paper: 2-14%) and the variants' errors draw "
          "together."),
    _info("002-fig3", "seed 002", "MPKFDA: running time per criterion x deflation",
          fisher_criterion_deflation,
          "Random + no deflation is fastest (0.30 s, the Nystroem method); Hotelling is second fastest but "
          "inaccurate; ortho-Schur with pseudo is fast (0.63 s) and most accurate.",
          "As Figure 1; times are seconds of the selection on this machine, with fixed k (quick), so they compare "
          "methods, not machines.", table="seconds"),
    _info("002-fig5", "seed 002", "MPKFDA with 1, 2, 5 or 10 bases per stage", fisher_stages,
          "With pseudo + ortho-Schur, 2 stages are as accurate as 1 (AER 0.121 vs 0.122) and faster (0.17 s vs "
          "0.24 s); performance degrades slowly and drops at 10 stages.",
          "Bundled sets, fixed k (20 quick, 40 full) instead of the validated k; error and time averaged over "
          "splits per set, boxes over sets."),
    _info("003-table1", "seed 003", "USPS digits: KMP against SVM at the SVM's number of support vectors", kmp_usps,
          "On USPS (7291 training, 2007 test digits, each digit against the rest), KMP-mse with as many bases as "
          "the SVM has support vectors makes about as many test errors as the SVM (192 against 187 summed over "
          "the ten digits), and only a few more with half as many (219); k-means RBF makes far more (290).",
          "The same kernel as the paper (Schoelkopf et al.'s exp(-||x - y||^2 / (0.3 x 256)) on pixels in "
          "[-1, 1]: gamma = 0.052 on our [0, 1] pixels) and SVM C = 10; scikit-learn's SVC, so its #sv differ "
          "from the paper's. The quick size trains on 2000 of the 7291 digits; full on all. k-means RBF is not "
          "rerun. Needs the USPS file (--data-dir). Table 2 (the Mushrooms data through Delve) is not "
          "reproduced: the data are not available offline.", needs_data=True),
    _info("003-table3", "seed 003", "KMP against SVM: error and support vectors", kmp_vs_svm,
          "On four UCI sets the error rates of SVM, KMP-mse and KMP-tanh are not significantly different, but KMP "
          "uses far fewer support vectors (Pima: SVM 24.1% with 146, KMP-mse 23.9% with 7).",
          "scikit-learn's WDBC stands in for the original Wisconsin data; the paper fixed sigma by hand per set, "
          "here each method picks gamma from the same grid (0.25-1 / d quick, 0.25-2 / d full) on the validation third; 3 repeats "
          "(quick) or 50 (full) of random thirds."),
    _info("003-fig6", "seed 003", "Basic, back-fitting and pre-fitting KMP against an SVM in 2-D",
          kmp_2d_picture,
          "With as many bases as the hard-margin SVM has support vectors (7 there), pre-fitting and back-fitting "
          "KMP find reasonable boundaries with different, not-near-the-boundary points; basic KMP after 100 steps "
          "still cannot separate the data.",
          "The paper's 2-D set is not given: we use 120 two-moons points (noise 0.1), RBF gamma = 2 on "
          "standardised inputs, and measure test error on fresh points. This set is easy enough that basic KMP "
          "separates it too."),
    _info("004-fig1", "seed 004", "Column selection for Nystroem KCCA on the two-view rings",
          column_selection_rings,
          "On N = 3000 points, ridge-leverage sampling approximates KCCA better than uniform sampling; the kernel "
          "stability is far below its Thm 2 bound, and the incremental path's speed-up grows with the number of "
          "ranks visited.",
          "N = 700 (quick) or 1500 (full) training points and as many for tuning, instead of 3000; ranks up to "
          "250 / 500. As in the paper, the RBF width and lambda are those whose exact KCCA correlates best on the "
          "tuning set, and gamma_lev = lambda. Ranks are also given in units of the effective dimension d_eff: "
          "ridge-leverage sampling (with replacement, as Lemma 3) only wins once M is several times d_eff; below "
          "d_eff, uniform columns do as well or better. An earlier version ran ranks 0.6-3 d_eff only, and so "
          "contradicted the paper. Greedy (sparse KPCA order) is added for comparison: it stops where the kernel "
          "is numerically exhausted."),
)}


def run(name, size="quick", *, seed=0, n_jobs=None, progress=None, data_dir=None, **overrides):
    """Run the reproduction of ``name`` (a key of :data:`FIGURES`); an :class:`Experiment`
    named after ``name`` (items sharing a computation, like Figs 2 and 4, return the same
    numbers under their own name)."""
    if name not in FIGURES:
        raise ValueError(f"Unknown figure {name!r}; choose one of: {', '.join(FIGURES)}.")
    started = time.perf_counter()
    result = FIGURES[name].function(size, seed=seed, n_jobs=n_jobs, progress=progress, data_dir=data_dir,
                                    **overrides)
    return replace(result.as_item(name), seconds=time.perf_counter() - started)


def run_items(names, size="quick", *, seed=0, n_jobs=None, data_dir=None, progress=None):
    """Run the items ``names`` in order, each computation once.  Yields ``(name, result)``:
    an :class:`Experiment`; for an item sharing an earlier item's run (Figs 2 and 4, 3 and
    5, Figures 1 and 3) the same numbers under its own name with ``seconds`` 0; None for an
    item that needs ``data_dir`` when there is none.  ``progress(name)`` gives the
    ``progress(done, total)`` callback of each computed item (or None)."""
    done = {}
    for name in names:
        info = FIGURES[name]
        if info.needs_data and data_dir is None:
            yield name, None
        elif info.function in done:
            yield name, replace(done[info.function].as_item(name), seconds=0.0)
        else:
            done[info.function] = run(name, size, seed=seed, n_jobs=n_jobs, data_dir=data_dir,
                                      progress=None if progress is None else progress(name))
            yield name, done[info.function]


__all__ = [
    "run_items",
    "SIZES",
    "Experiment",
    "FigureInfo",
    "FIGURES",
    "run",
    "run_parallel",
    "kmp_bound_boston",
    "skpca_bounds_boston",
    "skpca_bounds_toy",
    "skcca_vs_kcca",
    "skcca_bound",
    "fisher_criterion_deflation",
    "fisher_stages",
    "kmp_vs_svm",
    "kmp_usps",
    "USPS_METHODS",
    "PAPER_003_TABLE1",
    "kmp_2d_picture",
    "column_selection_rings",
    "binary_sources",
    "n_realisations",
    "BUNDLED_BINARY",
    "PAPER_CRITERIA",
    "PAPER_DEFLATIONS",
    "PAPER_002_AER",
    "PAPER_002_ART",
    "PAPER_003_TABLE3",
    "KMP_PICTURE_METHODS",
    "KMP_SVM_METHODS",
    "COLUMN_EXPERIMENT_METHODS",
    "binary_split",
    "corrected_resampled_ttest",
    "kcca_test_distances",
    "skcca_test_distances",
]
