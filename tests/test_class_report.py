"""The lecturer's report of a live class (views/class_report.py), from a class run on the store:
every round someone answered, both votes of a question side by side, the share correct and
who moved, as CSV and as one offline HTML page that names no student."""

import csv
import io
import re

import pytest

from views import class_report
from views.classroom import Store


@pytest.fixture
def taught():
    """A class: a question voted twice (right answer B), then two steps of predicting the pick."""
    store = Store(":memory:")
    code, key = store.start("kmp?data=xor")
    seats = [store.admit(code, None, "a") for _ in range(4)]
    first = store.drive(code, key, question=3, right=2, label="Which <b>deflation</b> keeps PSD?").state
    for seat, choice in zip(seats, [1, 2, 3, 3]):
        store.answer(code, seat, first["round"], choice)
    second = store.drive(code, key, again=True).state
    for seat, choice in zip(seats, [2, 2, 2, 1]):
        store.answer(code, seat, second["round"], choice)
    store.drive(code, key, reveal=True)
    store.drive(code, key, question=0, predict=True, step=3, right=17)
    pick = store.find(code).state["round"]
    for seat, point in zip(seats, [17, 17, 40, 9]):
        store.answer(code, seat, pick, point)
    store.drive(code, key, step=4, right=8)  # nobody answers step 4's prediction
    return store.report(code, key), seats


def test_a_question_voted_twice_is_one_question_with_both_votes_and_who_moved(taught):
    records, _ = taught
    found = class_report.questions(records)
    assert [q.kind for q in found] == ["question", "predict"]
    question, pick = found
    assert [v.counts for v in question.votes] == [{1: 1, 2: 1, 3: 2}, {1: 1, 2: 3}]
    assert [v.correct for v in question.votes] == [0.25, 0.75]
    # seats: 1->2 and 3->2 moved to B; 3->1 moved between wrong answers; 2->2 stayed
    assert (question.moved, question.lost) == (2, 0)
    assert question.revealed and not pick.revealed
    assert pick.votes[0].correct == 0.5 and pick.moved is None and pick.step == 3


def test_the_csv_has_a_row_per_answer_whose_counts_add_up(taught):
    records, seats = taught
    text = class_report.csv_text(records)
    rows = list(csv.DictReader(io.StringIO(text)))
    assert tuple(rows[0]) == class_report.COLUMNS
    by_vote = {}
    for row in rows:
        by_vote.setdefault((row["question"], row["vote"]), []).append(row)
    assert sorted(by_vote) == [("1", "1"), ("1", "2"), ("2", "1")]
    for group in by_vote.values():
        assert sum(int(r["count"]) for r in group) == int(group[0]["answered"]) == len(seats)
        assert sum(int(r["is_right"]) for r in group) == 1
    second = by_vote[("1", "2")]
    assert [r["answer"] for r in second] == ["A", "B", "C"]  # every choice, the unchosen too
    assert [r["count"] for r in second] == ["1", "3", "0"] and second[0]["correct_share"] == "0.750"
    assert second[0]["moved_to_right"] == "2" and second[0]["asked"] == "Which <b>deflation</b> keeps PSD?"
    assert [r["answer"] for r in by_vote[("2", "1")]] == ["point 17", "point 9", "point 40"]  # most clicked first
    assert not any(seat in text for seat in seats)


def test_the_html_page_is_offline_shows_text_as_text_and_names_no_student(taught):
    records, seats = taught
    page = class_report.html_page(records, when=0)
    assert "<b>deflation</b>" not in page and "&lt;b&gt;deflation&lt;/b&gt;" in page
    assert not re.search(r"<script|\bsrc=|\bhref=|https?://|@import|url\(", page)
    assert "25%" in page and "75%" in page and "2 moved to the right answer" in page
    assert "The right answer: point 17 (not revealed in class)." in page
    assert not any(seat in page for seat in seats)


def test_a_class_nobody_answered_says_so():
    assert "No one answered" in class_report.html_page([], when=0)
    assert class_report.csv_text([]).strip() == ",".join(class_report.COLUMNS)


def test_a_question_that_reads_as_a_formula_stays_text_in_the_csv():
    store = Store(":memory:")
    code, key = store.start("kmp?")
    seat = store.admit(code, None, "a")
    asked = store.drive(code, key, question=2, right=1, label='=HYPERLINK("http://x","click")').state
    store.answer(code, seat, asked["round"], 1)
    rows = list(csv.DictReader(io.StringIO(class_report.csv_text(store.report(code, key)))))
    assert {row["asked"] for row in rows} == {'\'=HYPERLINK("http://x","click")'}
