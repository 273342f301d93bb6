"""The reproduction report: every item run once, with the paper's finding, ours, a verdict
and its reason, written as one Markdown and one HTML page (no plotting library needed).

``python -m mpcore.experiments report --out DIR [--size quick] [--data-dir D]`` writes
``DIR/report.md`` and ``DIR/report.html``.
"""

from __future__ import annotations

import html
import json
import os
import platform
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np

from . import FIGURES, READINGS, Experiment, run_items

BADGES = {
    "reproduced": "✅ reproduced",
    "partly": "🟡 partly",
    "not reproduced": "❌ not reproduced",
    "not judged": "⚪ not judged at this size",
    None: "— no verdict",
    "skipped": "⏭ skipped",
}


@dataclass(frozen=True)
class ReportRow:
    """One item of the report: ``status`` is a verdict, ``"skipped"`` (data missing) or None."""

    name: str
    paper: str
    title: str
    finding: str
    ours: str
    status: str | None
    reason: str
    seconds: float
    quoted: str = ""
    criterion: str = ""
    differences: str = ""
    findings: tuple[tuple[str, str], ...] = ()


def write_whole(path: Path, text: str) -> None:
    """Write ``text`` to a temporary file beside ``path``, then rename it: an interrupted
    run leaves the old file or the new one, never half of one."""
    partial = path.with_name(f".{path.name}.partial")
    try:
        partial.write_text(text, encoding="utf-8")
        partial.replace(path)
    finally:
        partial.unlink(missing_ok=True)


def short(value: object) -> str:
    """A finding as one short line of text (numbers to 3 significant digits)."""
    if isinstance(value, dict):
        return "; ".join(f"{k} {short(v)}" for k, v in value.items())
    if isinstance(value, (list, tuple, np.ndarray)):
        return ", ".join(short(v) for v in value)
    if isinstance(value, (float, np.floating)):
        return f"{value:.3g}"
    return str(value)


def collect(
    size: str = "quick",
    *,
    data_dir: str | Path | None = None,
    seed: int = 0,
    n_jobs: int | None = None,
    progress: Callable[[str], None] | None = None,
) -> list[ReportRow]:
    """Run every item once (items sharing a computation share the run) and return the rows
    in registry order.  ``progress(name)`` is called before each computed item."""

    def announce(name: str) -> None:
        if progress is not None:
            progress(name)

    rows: list[ReportRow] = []
    for name, result in run_items(FIGURES, size, seed=seed, n_jobs=n_jobs, data_dir=data_dir, progress=announce):
        info = FIGURES[name]
        if result is None:
            rows.append(
                ReportRow(
                    name,
                    info.paper,
                    info.title,
                    info.finding,
                    "",
                    "skipped",
                    "Needs files that are not bundled; rerun with --data-dir.",
                    0.0,
                    info.quoted,
                    info.criterion,
                    info.differences,
                )
            )
            continue
        verdict = result.verdict
        ours = "; ".join(f"{key}: {short(value)}" for key, value in list(result.findings.items())[:4])
        rows.append(
            ReportRow(
                name,
                info.paper,
                info.title,
                info.finding,
                ours,
                None if verdict is None else verdict.status,
                "" if verdict is None else verdict.reason,
                result.seconds,
                info.quoted,
                info.criterion,
                info.differences,
                tuple((str(k), short(v)) for k, v in result.findings.items()),
            )
        )
    return rows


def _cell(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def markdown(rows: Sequence[ReportRow], size: str) -> str:
    """The report as Markdown: a summary table, then one section per item."""
    counts = {status: sum(row.status == status for row in rows) for status in BADGES}
    lines = [
        f"# Reproduction report ({size} size)",
        "",
        "Each paper item rerun on offline data; the verdict is judged from this run's numbers against the "
        "paper's own sentence, quoted, by a criterion written before the runs, with the reason in one sentence.",
        "",
        "How the papers' vague words are read, for every item alike:",
        "",
        *(f"- {word}: {reading}." for word, reading in READINGS),
        "",
        ", ".join(f"{BADGES[s]}: {n}" for s, n in counts.items() if n),
        "",
        "| item | paper | verdict | seconds |",
        "| --- | --- | --- | --- |",
    ]
    lines += [f"| {row.name} | {_cell(row.title)} | {BADGES[row.status]} | {row.seconds:.1f} |" for row in rows]
    lines.append(f"\nTotal: {sum(row.seconds for row in rows):.1f} s.\n")
    for row in rows:
        lines += [
            f"## {row.name}: {row.title} ({row.paper})",
            "",
            f"**Verdict:** {BADGES[row.status]}. {row.reason}",
            "",
        ]
        lines += [f"**{label}:** {text}" + "\n" for label, text in _texts(row) if text]
        if row.ours:
            lines += [f"**Ours:** {row.ours}", ""]
        lines += [f"Run time: {row.seconds:.1f} s.", ""]
    return "\n".join(lines)


def _texts(row: ReportRow) -> tuple[tuple[str, str], ...]:
    return (
        ("The paper says", row.quoted),
        ("Judged by", row.criterion),
        ("The paper's finding", row.finding),
        ("Settings, the paper's and ours", row.differences),
    )


def html_report(rows: Sequence[ReportRow], size: str) -> str:
    """The same report as a standalone HTML page (every text escaped)."""
    e = html.escape
    colours = {"reproduced": "#d8f0dc", "partly": "#fff3c4", "not reproduced": "#f8d7d3", "not judged": "#e4e4e4"}
    head = [
        f"<h1>Reproduction report ({e(size)} size)</h1>",
        "<p>Each paper item rerun on offline data; the verdict is judged from this run's numbers against the "
        "paper's own sentence, quoted, by a criterion written before the runs.</p>",
        "<p>How the papers' vague words are read, for every item alike:</p><ul>",
        *(f"<li>{e(word)}: {e(reading)}.</li>" for word, reading in READINGS),
        "</ul>",
        "<table border='1' cellpadding='6' style='border-collapse: collapse'>",
        "<tr><th>item</th><th>paper</th><th>verdict</th><th>reason</th><th>seconds</th></tr>",
    ]
    for row in rows:
        colour = colours.get(row.status or "", "#eeeeee")
        head.append(
            f"<tr><td><a href='#{e(row.name)}'>{e(row.name)}</a></td><td>{e(row.title)}</td>"
            f"<td style='background: {colour}'>{e(BADGES[row.status])}</td><td>{e(row.reason)}</td>"
            f"<td>{row.seconds:.1f}</td></tr>"
        )
    head.append(f"</table><p>Total: {sum(row.seconds for row in rows):.1f} s.</p>")
    for row in rows:
        head.append(f"<h2 id='{e(row.name)}'>{e(row.name)}: {e(row.title)} ({e(row.paper)})</h2>")
        head += [f"<p><b>{e(label)}:</b> {e(text)}</p>" for label, text in _texts(row) if text]
        if row.ours:
            head.append(f"<p><b>Ours:</b> {e(row.ours)}</p>")
    return (
        "<!DOCTYPE html><html><head><meta charset='utf-8'><title>Reproduction report</title></head>"
        "<body style='font-family: sans-serif; max-width: 1200px; margin: auto; font-size: 18px'>"
        + "\n".join(head)
        + "</body></html>"
    )


def item_page(result: Experiment) -> str:
    """One item as a standalone HTML page without figures: the paper's finding, our
    setting, the verdict, our findings, the settings and the data table (every text
    escaped; the table's numbers to 4 significant digits)."""
    e = html.escape
    info = FIGURES[result.name]
    verdict = result.verdict
    parts = [
        f"<h1>{e(info.paper)}, {e(result.name)}: {e(info.title)}</h1>",
        f"<p><b>The paper says:</b> {e(info.quoted)}</p>",
        f"<p><b>Judged by:</b> {e(info.criterion)}</p>",
        f"<p><b>The paper's finding:</b> {e(info.finding)}</p>",
        f"<p><b>Settings, the paper's and ours:</b> {e(info.differences)}</p>",
    ]
    if verdict is not None:
        parts.append(f"<p><b>Verdict: {e(BADGES[verdict.status])}.</b> {e(verdict.reason)}</p>")
    parts.append("<p><b>Our findings:</b></p><ul>")
    parts += [f"<li>{e(str(key))}: {e(short(value))}</li>" for key, value in result.findings.items()]
    parts.append(
        f"</ul><p>Size {e(str(result.settings.get('size')))}; {result.seconds:.1f} s; settings: "
        f"{e(short(result.settings))}.</p>"
    )
    parts.append(FIGURE_HOOK)
    names = list(result.table)
    rows = zip(*(np.asarray(result.table[name]) for name in names))
    parts.append(
        "<table border='1' cellpadding='4' style='border-collapse: collapse'><tr>"
        + "".join(f"<th>{e(str(name))}</th>" for name in names)
        + "</tr>"
    )
    parts += ["<tr>" + "".join(f"<td>{e(_number(v))}</td>" for v in row) + "</tr>" for row in rows]
    parts.append("</table>")
    return (
        "<!DOCTYPE html><html><head><meta charset='utf-8'><title>" + e(info.title) + "</title></head>"
        "<body style='font-family: sans-serif; max-width: 1100px; margin: auto'>" + "\n".join(parts) + "</body></html>"
    )


#: Where a writer that draws figures puts them in :func:`item_page`'s HTML.
FIGURE_HOOK = "<!-- figures -->"


def _number(value: object) -> str:
    if isinstance(value, (str, np.str_)):
        return str(value)
    number = float(value)  # type: ignore[arg-type]  # (a table holds numbers and text)
    return "" if not np.isfinite(number) else f"{number:.4g}"


# --- the kept results: a run's verdicts as data ---------------------------------------------------

#: The full-size results kept in the package (``report --size full`` with the validation data).
KEPT = Path(__file__).with_name("results") / "full.json"


def _versions() -> dict[str, str]:
    from .. import __version__

    out = {"matching-pursuit-lab": __version__}
    for name in ("numpy", "scipy", "scikit-learn"):
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            out[name] = "unknown"
    return out


def results_json(
    rows: Sequence[ReportRow], size: str, *, seed: int = 0, data: str = "bundled", seconds: float | None = None
) -> str:
    """A report's results as JSON text: when, with what and on what it ran (no host name or
    path), and per item the verdict, its reason, our findings (short text) and run time."""
    meta = {
        "size": size,
        "seed": seed,
        "data": data,
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "versions": _versions() | {"python": platform.python_version()},
        "machine": f"{platform.system()} {platform.machine()}, {os.cpu_count()} cores",
        "seconds": round(float(seconds if seconds is not None else sum(r.seconds for r in rows)), 1),
    }
    items = {
        row.name: {
            "status": row.status,
            "reason": row.reason,
            "seconds": round(row.seconds, 1),
            "findings": dict(row.findings),
        }
        for row in rows
    }
    return json.dumps({"meta": meta, "items": items}, indent=1, ensure_ascii=False) + "\n"


def load_kept(path: str | Path = KEPT) -> dict[str, Any] | None:
    """The kept results (``{"meta": ..., "items": {name: ...}}``), or None without a file."""
    path = Path(path)
    if not path.is_file():
        return None
    kept: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return kept


def verdict_summary(kept: dict[str, Any]) -> str:
    """One sentence on the kept run: its size, date, version, machine and the verdicts
    counted (the README shows it, the docs' reproduction page heads its table with it)."""
    meta = kept["meta"]
    counts = {
        status: sum(item["status"] == status for item in kept["items"].values())
        for status in ("reproduced", "partly", "not reproduced", "not judged", "skipped")
    }
    return (
        f"Size {meta['size']}, run {meta['date']} with matching-pursuit-lab "
        f"{meta['versions']['matching-pursuit-lab']} on {meta['machine']} ({meta['seconds'] / 60:.0f} min): "
        + ", ".join(f"{n} {status}" for status, n in counts.items() if n)
        + "."
    )


def verdict_table(kept: dict[str, Any]) -> str:
    """The kept verdicts as a Markdown table, one line per item, under
    :func:`verdict_summary` (the docs' reproduction page shows it)."""
    lines = [
        verdict_summary(kept),
        "",
        "| item | paper | verdict | why |",
        "| --- | --- | --- | --- |",
    ]
    for name, item in kept["items"].items():
        info = FIGURES[name]
        lines.append(f"| {name} | {info.paper} | {BADGES[item['status']]} | {_cell(item['reason'])} |")
    return "\n".join(lines) + "\n"
