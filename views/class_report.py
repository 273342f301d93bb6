"""A live class's report, for its lecturer after class: every question and prediction round,
its counts per answer, the first and second vote, the share correct and how many moved to
the right answer between the votes -- as CSV (a row per answer of each vote) and as one HTML
page that needs nothing but itself.  It is made from :meth:`views.classroom.Store.report`'s
records, which hold counts only: nothing in it names or tells apart a student.

No Streamlit here: the page offers the files (``ui/live.py``), the tests read them.
"""

from __future__ import annotations

import csv
import html
import io
import time
from dataclasses import dataclass
from typing import Any

COLUMNS = (
    "question",
    "kind",
    "asked",
    "step",
    "vote",
    "answer",
    "count",
    "share",
    "right_answer",
    "is_right",
    "answered",
    "correct_share",
    "moved_to_right",
    "moved_away",
    "revealed",
)


@dataclass(frozen=True)
class Vote:
    """One vote of a question: its counts per answer (a choice, 1-based, or a training point)."""

    counts: dict[int, int]
    right: int  # 0: not known

    @property
    def answered(self) -> int:
        return sum(self.counts.values())

    @property
    def correct(self) -> float | None:
        """The share of the answers that are right (None: no right answer, or none answered)."""
        if not self.right or not self.answered:
            return None
        return self.counts.get(self.right, 0) / self.answered


@dataclass(frozen=True)
class Question:
    """A question or a round of predicting the next pick, with one vote or two."""

    number: int
    kind: str  # "question" or "predict"
    asked: str
    step: int
    choices: int
    votes: tuple[Vote, ...]
    moved: int | None  # students who answered both votes and went to the right answer
    lost: int | None  # ... and went away from it
    revealed: bool

    def answer_name(self, answer: int) -> str:
        return chr(64 + answer) if self.kind == "question" and 1 <= answer <= 26 else f"point {answer}"


def questions(records: list[dict[str, Any]]) -> list[Question]:
    """The report's questions from the store's rounds: a second vote joins its first (its
    record holds the first vote's counts as ``before``), so a question with two votes is one
    question."""
    second_of = {r["round"] - 1 for r in records if r["vote"] == 2 and r.get("before") is not None}
    out: list[Question] = []
    for record in records:
        if record["vote"] == 1 and record["round"] in second_of:
            continue  # its second vote carries it
        right = int(record.get("right") or 0)
        votes = [Vote(_counts(record["answers"]), right)]
        if record["vote"] == 2 and record.get("before") is not None:
            votes.insert(0, Vote(_counts(record["before"]), right))
        kind = record["kind"]
        asked = record.get("label") or (
            f"The next pick at step {record['step']}" if kind == "predict" else "A question"
        )
        out.append(
            Question(
                number=len(out) + 1,
                kind=kind,
                asked=asked,
                step=int(record["step"]),
                choices=int(record.get("choices") or 0),
                votes=tuple(votes),
                moved=record.get("moved"),
                lost=record.get("lost"),
                revealed=bool(record.get("revealed")),
            )
        )
    return out


def _counts(raw: dict) -> dict[int, int]:
    return {int(answer): int(count) for answer, count in raw.items()}


def _answers(question: Question, vote: Vote) -> list[int]:
    """The answers a vote lists: every choice of a question, the points clicked of a prediction."""
    if question.kind == "question" and question.choices:
        return list(range(1, question.choices + 1))
    return sorted(vote.counts, key=lambda a: (-vote.counts[a], a))


def _cell(text: str) -> str:
    """Text for a spreadsheet's cell: one that begins like a formula (a lesson's words can be
    anyone's) is kept as text, with a leading apostrophe."""
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text


def _share(value: float | None) -> str:
    return "" if value is None else f"{value:.3f}"


def csv_text(records: list[dict[str, Any]]) -> str:
    """The report as CSV: one row per answer of each vote of each question."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    for q in questions(records):
        for number, vote in enumerate(q.votes, start=1):
            for answer in _answers(q, vote):
                count = vote.counts.get(answer, 0)
                writer.writerow(
                    [
                        q.number,
                        q.kind,
                        _cell(q.asked),
                        q.step,
                        number,
                        q.answer_name(answer),
                        count,
                        _share(count / vote.answered if vote.answered else None),
                        q.answer_name(vote.right) if vote.right else "",
                        "" if not vote.right else int(answer == vote.right),
                        vote.answered,
                        _share(vote.correct),
                        "" if q.moved is None else q.moved,
                        "" if q.lost is None else q.lost,
                        int(q.revealed),
                    ]
                )
    return out.getvalue()


def _percent(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.0f}%"


STYLE = """
body { font: 16px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: #1a1a1a; background: #fff;
       margin: 2rem auto; max-width: 60rem; padding: 0 1rem; }
h1 { font-size: 1.6rem; margin-bottom: 0.2rem; }
h2 { font-size: 1.15rem; margin: 1.8rem 0 0.4rem; }
table { border-collapse: collapse; margin: 0.6rem 0; }
th, td { border-bottom: 1px solid #bbb; padding: 0.25rem 0.6rem; text-align: left; vertical-align: top; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
.bar { display: inline-block; height: 0.9rem; background: #0072b2; vertical-align: middle; }
.bar.first { background: #9ecae1; }
.right { font-weight: 700; }
.note { color: #444; }
"""


def html_page(
    records: list[dict[str, Any]], title: str = "Live class report", when: float | None = None, note: str = ""
) -> str:
    """The report as one HTML page: no script, no file or address outside it.  ``note``: a
    sentence above it (why it is empty: the class's record could not be read)."""
    found = questions(records)
    stamp = time.strftime("%Y-%m-%d %H:%M", time.localtime(when if when is not None else time.time()))
    esc = html.escape
    parts = [
        "<!DOCTYPE html>",
        '<html lang="en"><head><meta charset="utf-8">',
        '<meta name="viewport" content="width=device-width, initial-scale=1">',
        f"<title>{esc(title)}</title><style>{STYLE}</style></head><body>",
        f"<h1>{esc(title)}</h1>",
        f'<p class="note">Made {esc(stamp)}. Counts only: nothing here names or tells apart a student.</p>',
    ]
    if note:
        parts.append(f"<p>{esc(note)}</p>")
    if not found:
        parts.append("<p>No one answered a question or predicted a pick in this class.</p>")
    else:
        parts.append(
            "<table><thead><tr><th>#</th><th>Asked</th><th>Answers</th><th>Correct, first vote</th>"
            "<th>Correct, second vote</th><th>Moved to the right answer</th><th>Moved away</th></tr></thead><tbody>"
        )
        for q in found:
            first, last = q.votes[0], q.votes[-1]
            parts.append(
                f"<tr><td class='n'>{q.number}</td><td>{esc(q.asked)}</td>"
                f"<td class='n'>{' / '.join(str(v.answered) for v in q.votes)}</td>"
                f"<td class='n'>{_percent(first.correct)}</td>"
                f"<td class='n'>{_percent(last.correct) if len(q.votes) == 2 else '–'}</td>"
                f"<td class='n'>{'–' if q.moved is None else q.moved}</td>"
                f"<td class='n'>{'–' if q.lost is None else q.lost}</td></tr>"
            )
        parts.append("</tbody></table>")
        for q in found:
            parts.append(_detail(q))
    parts.append("</body></html>")
    return "\n".join(parts)


def _detail(q: Question) -> str:
    esc = html.escape
    kind = "Question" if q.kind == "question" else "Predict the next pick"
    right = q.votes[-1].right
    head = [f"<h2>{q.number}. {esc(q.asked)}</h2>", f"<p class='note'>{kind}, step {q.step}."]
    if right:
        unsaid = "" if q.revealed else " (not revealed in class)"
        head.append(f" The right answer: {esc(q.answer_name(right))}{unsaid}.")
    head.append("</p>")
    names = ["First vote", "Second vote"] if len(q.votes) == 2 else ["Answers"]
    answers = _answers(q, q.votes[-1])
    for answer in _answers(q, q.votes[0]):
        if answer not in answers:
            answers.append(answer)
    if q.kind == "predict":
        answers = answers[:20]
    rows = ["<table><thead><tr><th>Answer</th>" + "".join(f"<th>{n}</th>" for n in names) + "</tr></thead><tbody>"]
    for answer in answers:
        mark = " class='right'" if answer == right else ""
        cells = []
        for index, vote in enumerate(q.votes):
            count = vote.counts.get(answer, 0)
            share = count / vote.answered if vote.answered else 0.0
            width = round(12 * share, 2)
            first = " first" if len(q.votes) == 2 and index == 0 else ""
            bar = f"<span class='bar{first}' style='width:{width}rem'></span>"
            cells.append(f"<td class='n'>{bar} {count} ({100 * share:.0f}%)</td>")
        tick = " ✓" if answer == right else ""
        rows.append(f"<tr><td{mark}>{esc(q.answer_name(answer))}{tick}</td>{''.join(cells)}</tr>")
    rows.append("</tbody></table>")
    foot = []
    if len(q.votes) == 2 and q.moved is not None:
        foot.append(
            f"<p>{q.moved} moved to the right answer between the votes; {q.lost} moved away from it "
            "(students who answered both votes).</p>"
        )
    return "\n".join(["".join(head), *rows, *foot])
