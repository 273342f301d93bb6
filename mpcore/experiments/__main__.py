"""``python -m mpcore.experiments NAME [NAME ...] --out DIR``: rerun the papers' items;
``python -m mpcore.experiments report --out DIR``: the reproduction report.

Writes ``DIR/NAME.csv`` (the data) and ``DIR/NAME.html`` (the paper's finding, our
setting, the verdict, our findings and the data as a table) for each NAME, with a
progress bar on stderr.  NAME is a key of ``mpcore.experiments.FIGURES``, a paper prefix
(``hussain2011``, ``diethe2015``, ``vincent2002``, ``wang2016``) or ``all``.  The core needs no plotting library:
the app's ``python -m views.paper_figures`` runs this same command with a writer that adds
the interactive Plotly figures (:func:`main` takes the writer as an argument, so the core
never imports the app).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TextIO

from . import FIGURES, PAPER_GROUPS, SIZES, VERDICTS, Experiment, resolve, run_items
from .report import item_page, write_whole


def _names(requested: Iterable[str]) -> list[str]:
    names: list[str] = []
    for item in map(resolve, requested):
        if item == "all":
            names.extend(FIGURES)
        elif item in FIGURES:
            names.append(item)
        elif any(name.startswith(item + "-") for name in FIGURES):
            names.extend(name for name in FIGURES if name.startswith(item + "-"))
        else:
            raise SystemExit(
                f"Unknown figure {item!r}; choose from: all, {', '.join(PAPER_GROUPS)}, {', '.join(FIGURES)}."
            )
    return list(dict.fromkeys(names))


class ProgressBar:
    """A one-line text progress bar: ``NAME [#####.....] 5/10 3.2 s``."""

    def __init__(self, label: str, stream: TextIO | None = None, width: int = 30) -> None:
        self.label, self.width, self.started = label, width, time.perf_counter()
        self.stream = stream if stream is not None else sys.stderr

    def __call__(self, done: int, total: int) -> None:
        filled = int(self.width * done / total) if total else self.width
        bar = "#" * filled + "." * (self.width - filled)
        seconds = time.perf_counter() - self.started
        self.stream.write(f"\r{self.label:<18} [{bar}] {done}/{total} {seconds:6.1f} s")
        if done >= total:
            self.stream.write("\n")
        self.stream.flush()


def write_page(result: Experiment, out_dir: Path) -> None:
    """The core's writer: ``out_dir/NAME.csv`` and ``out_dir/NAME.html`` (no figures)."""
    write_whole(out_dir / f"{result.name}.csv", result.to_csv())
    write_whole(out_dir / f"{result.name}.html", item_page(result))


def _check_out(folder: Path) -> None:
    """The output folder exists (made if need be) and takes files, or one sentence why not."""
    if folder.exists() and not folder.is_dir():
        raise SystemExit(f"--out: {folder} is a file, not a folder; give a folder for the HTML and CSV files.")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        probe = folder / ".write-test"
        probe.write_text("")
        probe.unlink()
    except OSError as error:
        raise SystemExit(f"--out: cannot write to {folder} ({error.strerror or error}).") from None


def _report(args: argparse.Namespace) -> int:
    """``report``: every item once, then DIR/report.md and DIR/report.html (no Plotly needed)."""
    from .report import collect, html_report, markdown, results_json

    _check_out(args.out)
    started = time.perf_counter()

    def progress(name: str) -> None:
        sys.stderr.write(f"\rreport: running {name:<11} {time.perf_counter() - started:6.1f} s")
        sys.stderr.flush()

    try:
        rows = collect(args.size, data_dir=args.data_dir, seed=args.seed, n_jobs=args.jobs, progress=progress)
    except ValueError as error:
        raise SystemExit(f"report: {error}") from error
    sys.stderr.write("\n")
    write_whole(args.out / "report.md", markdown(rows, args.size))
    write_whole(args.out / "report.html", html_report(rows, args.size))
    write_whole(
        args.out / "results.json",
        results_json(
            rows,
            args.size,
            seed=args.seed,
            data="validation data" if args.data_dir else "bundled",
            seconds=time.perf_counter() - started,
        ),
    )
    counts = {status: sum(row.status == status for row in rows) for status in VERDICTS}
    tally = ", ".join(f"{n} {s}" for s, n in counts.items())
    print(
        f"report: wrote {args.out / 'report.md'}, .html and results.json ({tally}; "
        f"{time.perf_counter() - started:.1f} s)"
    )
    return 0


def main(
    argv: Sequence[str] | None = None,
    writer: Callable[[Experiment, Path], None] | None = None,
    prog: str = "python -m mpcore.experiments",
) -> int:
    """The command; ``writer(result, out_dir)`` writes one item's files (default
    :func:`write_page`; the app passes one that adds Plotly figures)."""
    parser = argparse.ArgumentParser(
        prog=prog,
        description="Rerun the papers' figures and tables: DIR/NAME.html (the paper's finding, our setting, "
        "the verdict, our numbers" + (" and the figures" if writer else "") + ") and DIR/NAME.csv (the "
        "data) for each NAME.",
    )
    parser.add_argument(
        "names",
        nargs="+",
        metavar="NAME",
        help=f"an item ({', '.join(FIGURES)}), a paper ({', '.join(PAPER_GROUPS)}), 'all', or "
        "'report' alone: every item, then DIR/report.md and DIR/report.html with verdicts",
    )
    parser.add_argument("--out", required=True, type=Path, help="folder for NAME.html and NAME.csv")
    parser.add_argument(
        "--size",
        choices=SIZES,
        default="full",
        help="full: the paper's sizes (default); quick: the app's gallery; tiny: a smoke test",
    )
    parser.add_argument(
        "--data-dir",
        type=Path,
        default=None,
        help="folder with the validation data: raetsch/*.npz (the Diethe 2015 items then run on the "
        "Raetsch benchmark sets) and usps/usps.npz (needed by vincent2002-table1)",
    )
    parser.add_argument("--jobs", type=int, default=-1, help="repetitions run at once (joblib n_jobs; -1: all cores)")
    parser.add_argument("--seed", type=int, default=0, help="first seed of the splits / draws")
    args = parser.parse_args(argv)
    if args.data_dir is not None and not args.data_dir.is_dir():
        raise SystemExit(f"--data-dir: {args.data_dir} is not a folder.")
    if args.names == ["report"]:
        return _report(args)
    names = _names(args.names)
    write_item = writer or write_page
    _check_out(args.out)
    computing = [names[0]]  # the item whose run a ValueError comes from

    def bar(name: str) -> ProgressBar:
        computing[0] = name
        return ProgressBar(name)

    try:
        for name, result in run_items(
            names, args.size, seed=args.seed, n_jobs=args.jobs, data_dir=args.data_dir, progress=bar
        ):
            if result is None:
                print(f"{name}: skipped, it needs files that are not bundled; give --data-dir (see --help).")
                continue
            write_item(result, args.out)
            print(f"{name}: wrote {args.out / name}.html and .csv ({result.seconds:.1f} s)")
    except ValueError as error:
        raise SystemExit(f"{computing[0]}: {error}") from error
    return 0


def run_main(
    argv: Sequence[str] | None = None,
    writer: Callable[[Experiment, Path], None] | None = None,
    prog: str = "python -m mpcore.experiments",
) -> int:
    """``main`` with Ctrl-C ending in one line (files already written are whole: each is
    written to a temporary name and renamed)."""
    try:
        return main(argv, writer, prog)
    except KeyboardInterrupt:
        print("\nInterrupted; the files written before it are complete, none is partial.", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(run_main())
