"""The works the library, the app and its lessons cite, in one place.

Each is cited in the text by author and year ("Hussain et al. 2011", "Vincent and Bengio
(2002)"); :data:`REFERENCES` gives the full entry: authors, year, title, where it
appeared, and what this project takes from it.  :func:`cite` gives the short form.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Reference:
    """One cited work.

    Parameters
    ----------
    key : str
        The first author's family name and the year ("hussain2011").
    authors : tuple of str
        The authors' full names, in order.
    year : int
        The year.
    title : str
        The title.
    venue : str
        Where it appeared (journal, volume, pages).
    used_for : str, default=""
        What this project takes from it.
    doi : str, default=""
        The Digital Object Identifier, where the work has one.
    """

    key: str  # "hussain2011": first author's family name and the year
    authors: tuple[str, ...]
    year: int
    title: str
    venue: str
    used_for: str = ""
    doi: str = ""  # the Digital Object Identifier, where the work has one

    def cite(self) -> str:
        """The short form the text uses: "Hussain et al. 2011", "Vincent and Bengio 2002".

        Returns
        -------
        str
            The author-year citation.
        """
        names = [author.rsplit(" ", 1)[-1] for author in self.authors]
        if len(names) > 2:
            lead = f"{names[0]} et al."
        elif len(names) == 2:
            lead = f"{names[0]} and {names[1]}"
        else:
            lead = names[0]
        return f"{lead} {self.year}"

    def entry(self) -> str:
        """The full entry, one line: authors, year, title, venue (and DOI).

        Returns
        -------
        str
            The entry.
        """
        authors = ", ".join(self.authors[:-1]) + (" and " if len(self.authors) > 1 else "") + self.authors[-1]
        return f"{authors} ({self.year}). {self.title}. {self.venue}." + (f" doi:{self.doi}" if self.doi else "")

    @property
    def url(self) -> str:
        """The DOI's address, or "" without one."""
        return f"https://doi.org/{self.doi}" if self.doi else ""


REFERENCES = (
    # --- the five papers the project implements --------------------------------------------------
    Reference(
        "hussain2011",
        ("Zakria Hussain", "John Shawe-Taylor", "David R. Hardoon", "Charanpal Dhanjal"),
        2011,
        "Design and generalization analysis of orthogonal matching pursuit algorithms",
        "IEEE Transactions on Information Theory 57(8), 5326-5341",
        "kernel matching pursuit, sparse kernel PCA and sparse kernel CCA (Alg. 1-5), the generic matching "
        "pursuit (Alg. 4, Table I), the VC, sample compression and Rademacher bounds (Thm 1-9), Figs 1-7",
        doi="10.1109/TIT.2011.2158880",
    ),
    Reference(
        "hussain2008",
        ("Zakria Hussain", "John Shawe-Taylor"),
        2008,
        "Theory of matching pursuit",
        "Advances in Neural Information Processing Systems 21",
        "the conference version of the above: sparse KPCA as a compression scheme, the first KMP bound",
    ),
    Reference(
        "diethe2015",
        ("Tom Diethe",),
        2015,
        "An empirical study of greedy kernel Fisher discriminants",
        "Mathematical Problems in Engineering 2015, article 793986",
        "MPKFDA: the selection criteria, the deflations, stagewise selection (Alg. 1), the bound (Thm 1), the "
        "comparison on 13 benchmark sets (Figures 1-9)",
        doi="10.1155/2015/793986",
    ),
    Reference(
        "vincent2002",
        ("Pascal Vincent", "Yoshua Bengio"),
        2002,
        "Kernel matching pursuit",
        "Machine Learning 48, 165-187",
        "basic, back-fitting and pre-fitting matching pursuit, the margin losses, the comparison with SVMs "
        "(Tables 1-3)",
        doi="10.1023/A:1013955821559",
    ),
    Reference(
        "wang2016",
        ("Weiran Wang",),
        2016,
        "On column selection in approximate kernel canonical correlation analysis",
        "Manuscript (revised 2018)",
        "Nystrom KCCA, ridge leverage scores (eq. 10-12), the approximation guarantee (Thm 1), the "
        "incremental rank path (Alg. 1), kernel stability (Thm 2), Fig. 1",
    ),
    # --- works they build on, cited where the app uses them -------------------------------------
    Reference(
        "smola2000",
        ("Alex J. Smola", "Bernhard Schölkopf"),
        2000,
        "Sparse greedy matrix approximation for machine learning",
        "Proceedings of the 17th International Conference on Machine Learning, 911-918",
        "the greedy low-rank approximation equivalent to sparse KPCA, and the '59 trick'",
    ),
    Reference(
        "williams2001",
        ("Christopher K. I. Williams", "Matthias Seeger"),
        2001,
        "Using the Nyström method to speed up kernel machines",
        "Advances in Neural Information Processing Systems 13, 682-688",
        "the Nyström approximation",
    ),
    Reference(
        "shawe-taylor2005",
        ("John Shawe-Taylor", "Christopher K. I. Williams", "Nello Cristianini", "Jaz Kandola"),
        2005,
        "On the eigenspectrum of the Gram matrix and the generalization error of kernel-PCA",
        "IEEE Transactions on Information Theory 51(7), 2510-2522",
        "the PCA bound compared in Figs 2-3",
        doi="10.1109/TIT.2005.850052",
    ),
    Reference(
        "mackey2009",
        ("Lester Mackey",),
        2009,
        "Deflation methods for sparse PCA",
        "Advances in Neural Information Processing Systems 21, 1017-1024",
        "the orthogonalised deflations",
    ),
    Reference(
        "blanchard2007",
        ("Gilles Blanchard", "Olivier Bousquet", "Laurent Zwald"),
        2007,
        "Statistical properties of kernel principal component analysis",
        "Machine Learning 66(2-3), 259-294",
        "the source of the local Rademacher bound, and why its eigenvalues are those of K/m",
        "10.1007/s10994-006-6895-9",
    ),
    Reference(
        "lopezpaz2014",
        ("David Lopez-Paz", "Suvrit Sra", "Alex J. Smola", "Zoubin Ghahramani", "Bernhard Schölkopf"),
        2014,
        "Randomized nonlinear component analysis",
        "Proceedings of the 31st International Conference on Machine Learning, PMLR 32(2), 1359-1367",
        "the random-feature KCCA the column lab compares Nyström columns with",
    ),
    Reference(
        "rahimi2008",
        ("Ali Rahimi", "Benjamin Recht"),
        2008,
        "Random features for large-scale kernel machines",
        "Advances in Neural Information Processing Systems 20, 1177-1184",
        "random Fourier features",
    ),
    Reference(
        "giraud2005",
        ("Luc Giraud", "Julien Langou", "Miroslav Rozloznik"),
        2005,
        "The loss of orthogonality in the Gram-Schmidt orthogonalization process",
        "Computers & Mathematics with Applications 50(7), 1069-1075",
        "orthogonalising twice in the orthogonalised deflations",
        "10.1016/j.camwa.2005.08.009",
    ),
    Reference(
        "alaoui2015",
        ("Ahmed El Alaoui", "Michael W. Mahoney"),
        2015,
        "Fast randomized kernel methods with statistical guarantees",
        "Advances in Neural Information Processing Systems 28, 775-783",
        "ridge leverage scores",
    ),
    Reference(
        "fukumizu2007",
        ("Kenji Fukumizu", "Francis R. Bach", "Arthur Gretton"),
        2007,
        "Statistical consistency of kernel canonical correlation analysis",
        "Journal of Machine Learning Research 8, 361-383",
        "the two-view rings data",
    ),
    # --- the sources of the bundled datasets and the colours --------------------------------
    Reference(
        "harrison1978",
        ("David Harrison", "Daniel L. Rubinfeld"),
        1978,
        "Hedonic housing prices and the demand for clean air",
        "Journal of Environmental Economics and Management 5(1), 81-102",
        "the Boston housing data",
        doi="10.1016/0095-0696(78)90006-2",
    ),
    Reference(
        "efron2004",
        ("Bradley Efron", "Trevor Hastie", "Iain Johnstone", "Robert Tibshirani"),
        2004,
        "Least angle regression",
        "Annals of Statistics 32(2), 407-499",
        "the diabetes data",
        doi="10.1214/009053604000000067",
    ),
    Reference(
        "fisher1936",
        ("Ronald A. Fisher",),
        1936,
        "The use of multiple measurements in taxonomic problems",
        "Annals of Eugenics 7(2), 179-188",
        "the iris data",
        doi="10.1111/j.1469-1809.1936.tb02137.x",
    ),
    Reference(
        "smith1988",
        ("Jack W. Smith", "James E. Everhart", "William C. Dickson", "William C. Knowler", "Robert S. Johannes"),
        1988,
        "Using the ADAP learning algorithm to forecast the onset of diabetes mellitus",
        "Proceedings of the Annual Symposium on Computer Application in Medical Care, 261-265",
        "the Pima diabetes data",
    ),
    Reference(
        "okabe2008",
        ("Masataka Okabe", "Kei Ito"),
        2008,
        "Color Universal Design (CUD): how to make figures and presentations that are friendly to colorblind people",
        "J*Fly, online",
        "the charts' colours",
    ),
    Reference(
        "platt1999",
        ("John C. Platt",),
        1999,
        "Probabilistic outputs for support vector machines and comparisons to regularized likelihood methods",
        "Advances in Large Margin Classifiers, MIT Press",
        "the probabilities of the classifiers",
    ),
)

BY_KEY = {reference.key: reference for reference in REFERENCES}


def cite(key: str) -> str:
    """The short citation of a work.

    Parameters
    ----------
    key : str
        A key of :data:`BY_KEY` ("hussain2011").

    Returns
    -------
    str
        For example "Hussain et al. 2011".

    Examples
    --------
    >>> from mpcore.references import cite
    >>> cite("vincent2002")
    'Vincent and Bengio 2002'
    """
    return BY_KEY[key].cite()
