"""Write ``benchmarks/mutation.md`` from the last ``mutmut run`` (``make mutation`` runs both).

Per module of ``[tool.mutmut] source_paths``: how many mutants were killed (a test failed or
timed out), how many survived, and each survivor with the line it changed.  A survivor is
explained when a note of ``benchmarks/mutation_notes.toml`` matches it (its function and a
piece of the changed line): the note says why no test can tell the mutant from the code.  A
survivor no note explains is listed as such: a test is missing, or a note is.

    python tools/mutation_report.py [--check]

``--check`` exits 1 when a module has fewer than 90 % of its mutants killed or a survivor is
unexplained.
"""

from __future__ import annotations

import datetime
import json
import sys
import tomllib
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "benchmarks" / "mutation.md"
NOTES = ROOT / "benchmarks" / "mutation_notes.toml"
TARGET = 0.90


def source_paths():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    return [Path(p) for p in config["tool"]["mutmut"]["source_paths"]]


def statuses(path):
    """``{mutant name: status}`` of one module, from mutmut's record of the last run."""
    from mutmut.stats import status_by_exit_code

    meta = ROOT / "mutants" / f"{path}.meta"
    if not meta.is_file():
        return {}
    codes = json.loads(meta.read_text(encoding="utf-8"))["exit_code_by_key"]
    return {name: status_by_exit_code[code] for name, code in dict(codes).items()}


def changed_line(name, path):
    """The line a mutant adds (its diff's ``+`` line, stripped), or the diff's gist."""
    from mutmut.mutation.diff_apply import get_diff_for_mutant

    diff = get_diff_for_mutant(name, path=path)
    added = [line[1:].strip() for line in diff.splitlines() if line.startswith("+") and not line.startswith("+++")]
    removed = [line[1:].strip() for line in diff.splitlines() if line.startswith("-") and not line.startswith("---")]
    if added:
        return added[0]
    return f"(deleted) {removed[0]}" if removed else "(no change shown)"


def function_of(name):
    """``mpcore.kmp.x_kmp_columns_path__mutmut_3`` -> ``kmp_columns_path``;
    ``mpcore.kmp.xǁ_LossPursuitǁdeflate__mutmut_1`` -> ``_LossPursuit.deflate``."""
    tail = name.rsplit(".", 1)[1].rsplit("__mutmut_", 1)[0]
    if tail.startswith("xǁ"):
        return ".".join(part for part in tail[2:].split("ǁ") if part)
    return tail[2:] if tail.startswith("x_") else tail


def load_notes():
    if not NOTES.is_file():
        return []
    return tomllib.loads(NOTES.read_text(encoding="utf-8")).get("note", [])


def explain(notes, module, function, line):
    for note in notes:
        if note.get("module", module) != module or note["function"] not in ("*", function):
            continue
        if any(piece in line for piece in note["changes"]):
            return note["why"]
    return None


def collect():
    notes = load_notes()
    modules = {}
    for path in source_paths():
        found = statuses(path)
        survivors = defaultdict(list)
        for name, status in found.items():
            if status != "survived":
                continue
            line = changed_line(name, path)
            why = explain(notes, path.stem, function_of(name), line)
            survivors[why].append((function_of(name), line, name))
        counts = defaultdict(int)
        for status in found.values():
            counts[status] += 1
        killed = counts["killed"] + counts["timeout"] + counts["caught by type check"]
        tested = sum(counts.values()) - counts["skipped"] - counts["not checked"]
        modules[str(path)] = {"counts": dict(counts), "killed": killed, "tested": tested, "survivors": survivors}
    return modules


def markdown(modules, version):
    lines = [
        "# Mutation testing of the core",
        "",
        "Written by `tools/mutation_report.py` from the last `make mutation` run "
        f"(mutmut {version}, {datetime.date.today().isoformat()}); do not edit by hand: add a test, or a note to "
        "`benchmarks/mutation_notes.toml` saying why a survivor cannot be told apart from the code.",
        "",
        "mutmut changes the code one small edit at a time (an operator, a constant, a string, an argument) and "
        "runs the tests that reach the changed function; a mutant is *killed* when one fails or runs out of time "
        f"and *survives* otherwise. The target is {TARGET:.0%} killed in every module. A mutant *not run yet* "
        "was left when a run was stopped (`mutmut run` takes it up again).",
        "",
        "| module | mutants run | killed | survived | no test reaches it | not run yet | share killed |",
        "|---|---|---|---|---|---|---|",
    ]
    for path, m in modules.items():
        c = m["counts"]
        share = m["killed"] / m["tested"] if m["tested"] else float("nan")
        lines.append(
            f"| `{path}` | {m['tested']} | {m['killed']} | {c.get('survived', 0)} | {c.get('no tests', 0)} | "
            f"{c.get('not checked', 0)} | {share:.1%} |"
        )
    for path, m in modules.items():
        if not m["survivors"]:
            continue
        lines += ["", f"## `{path}`: the survivors", ""]
        for why, items in sorted(m["survivors"].items(), key=lambda kv: (kv[0] is None, kv[0] or "")):
            head = why or "**Not explained**: no note covers these; a test is missing (or a note)."
            lines.append(f"- {head} ({len(items)})")
            for function, line, name in sorted(items):
                lines.append(f"  - `{function}`: `{line}` ({name.rsplit('__mutmut_', 1)[1]})")
    return "\n".join(lines) + "\n"


def main(argv):
    from importlib.metadata import version

    modules = collect()
    if not any(m["tested"] for m in modules.values()):
        raise SystemExit("No mutmut results under mutants/: run `make mutation` (or `mutmut run`) first.")
    OUT.write_text(markdown(modules, version("mutmut")), encoding="utf-8")
    print(f"wrote {OUT.relative_to(ROOT)}")
    short = [p for p, m in modules.items() if m["tested"] and m["killed"] / m["tested"] < TARGET]
    unexplained = sum(len(m["survivors"].get(None, [])) for m in modules.values())
    for path in short:
        print(f"{path}: below {TARGET:.0%} killed")
    if unexplained:
        print(f"{unexplained} survivors are not explained")
    if "--check" in argv and (short or unexplained):
        raise SystemExit(1)


if __name__ == "__main__":
    main(sys.argv[1:])
