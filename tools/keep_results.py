"""Keep a full-size report's results with the package, in the docs and in the README.

``python tools/keep_results.py DIR/results.json`` copies the file to
``mpcore/experiments/results/full.json`` (what the gallery shows first) and rewrites what
sits between ``<!-- verdicts:start -->`` and ``<!-- verdicts:end -->``: the verdict table on
the docs' reproduction page (``docs/reproducing.md``), its one-sentence summary in the README.
"""

import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from mpcore.experiments.report import KEPT, load_kept, verdict_summary, verdict_table  # noqa: E402

START, END = "<!-- verdicts:start -->", "<!-- verdicts:end -->"


def readme_with(table, text):
    """``text`` with the block between the markers replaced by ``table``."""
    head, rest = text.split(START, 1)
    _, tail = rest.split(END, 1)
    return f"{head}{START}\n{table}{END}{tail}"


def main(argv):
    if len(argv) != 1 or not Path(argv[0]).is_file():
        raise SystemExit("usage: python tools/keep_results.py DIR/results.json (from report --size full)")
    kept = load_kept(argv[0])
    if kept["meta"]["size"] != "full":
        raise SystemExit(f"{argv[0]} is a {kept['meta']['size']} run; keep only full-size results.")
    KEPT.parent.mkdir(exist_ok=True)
    if Path(argv[0]).resolve() != KEPT.resolve():
        shutil.copyfile(argv[0], KEPT)
    blocks = {ROOT / "docs" / "reproducing.md": verdict_table(kept), ROOT / "README.md": verdict_summary(kept) + "\n"}
    for path, block in blocks.items():
        path.write_text(readme_with(block, path.read_text(encoding="utf-8")), encoding="utf-8")
    print(f"kept {KEPT.relative_to(ROOT)}, the docs' verdict table and the README's summary")


if __name__ == "__main__":
    main(sys.argv[1:])
