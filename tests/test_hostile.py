"""Hostile uploads and links: every refusal is one sentence, within fixed budgets of
time and memory, and nothing from a file or a link is rendered as Markdown."""

import io
import tracemalloc
import unicodedata
import zipfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from mpcore import datasets as D
from ui.state import literal, plain


def _refused(parse, content, match):
    with pytest.raises(ValueError, match=match):
        parse(content)


def test_a_zip_bomb_is_refused_from_its_headers():
    buffer = io.BytesIO()
    np.savez_compressed(buffer, X=np.zeros((5_000_000, 3)))  # 120 MB of zeros, a few hundred KB packed
    bomb = buffer.getvalue()
    assert len(bomb) < 1_000_000
    tracemalloc.start()
    _refused(D.parse_npz, bomb, "unpacks to")
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    # refused from the headers: it never held the 120 MB it would unpack to (memory, not
    # wall-clock time, which a loaded machine stretches)
    assert peak < 20 * 2**20, peak


def test_an_npz_header_that_lies_about_its_size_is_refused_before_loading():
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:  # a small member whose header promises 10^8 rows
        header = io.BytesIO()
        np.lib.format.write_array_header_1_0(
            header, {"descr": "<f8", "fortran_order": False, "shape": (100_000_000, 3)}
        )
        archive.writestr("X.npy", header.getvalue() + b"\0" * 64)
    _refused(D.parse_npz, buffer.getvalue(), "rows")


@pytest.mark.parametrize(
    "array, match",
    [
        (np.zeros(5, dtype=[("a", "f8"), ("b", "i4")]), "only plain numbers"),
        (np.zeros(5, dtype=complex), "only plain numbers"),
        (np.array(["a", "b", "c"]), "only plain numbers"),
        (np.zeros((2, 2, 2)), "dimensions"),
        (np.zeros((10, 500)), "columns"),
    ],
)
def test_npz_with_anything_but_plain_numbers_is_refused(array, match):
    buffer = io.BytesIO()
    np.savez(buffer, X=array)
    _refused(D.parse_npz, buffer.getvalue(), match)


def _peak_refusing(text, match):
    tracemalloc.start()
    _refused(D.parse_csv, text, match)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak


def test_csv_parsing_stops_at_the_first_row_over_a_limit():
    """Measured in memory, not in seconds (a loaded machine stretches time): reading on
    past the limit would hold the rows read (a million rows of two cells: over 150 MB;
    three rows of 200,001 cells: about 30 MB)."""
    wide = ("1," * 200_000 + "1\n") * 3  # 3 rows x 200,001 columns: refused on the first row
    assert _peak_refusing(wide, "columns") < 15e6  # measured 7 MB
    long = "x,y\n" + "1,2\n" * 1_000_000  # 1,000,000 rows: stops after 20,001
    assert _peak_refusing(long, "rows") < 40e6  # measured 18 MB
    quoted = 'a,b\n"' + "x" * 5_000_000 + '",1\n1,2\n'  # one 5 MB quoted cell
    assert _peak_refusing(quoted, "cell|readable") < 8 * 5e6  # measured 26 MB: a few copies of the cell
    with pytest.raises(ValueError, match="MB"):
        D.parse_csv(b"1,2\n" * 6_000_000)  # 24 MB: over the file budget before any parsing


def test_the_limits_are_stated_in_one_sentence():
    text = D.LIMITS.describe()
    for number in ("20 MB", "20,000 rows", "200 columns", "1,000,000 cells", "64 MB"):
        assert number in text


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.binary(max_size=2_000))
def test_random_bytes_give_a_sentence_or_a_table(content):
    for parse in (D.parse_csv, D.parse_npz):
        try:
            table = parse(content)
        except ValueError as error:
            assert str(error).strip() and str(error)[0].isupper()
        else:
            assert len(table.cells) >= 2


@settings(max_examples=100, deadline=None)
@given(
    st.lists(
        st.lists(st.text(alphabet='0123456789.-eE,;\t "abc', max_size=8), min_size=1, max_size=6),
        min_size=0,
        max_size=12,
    )
)
def test_random_csv_text_gives_a_sentence_or_a_table(rows):
    content = "\n".join(",".join(row) for row in rows)
    try:
        table = D.parse_csv(content)
    except ValueError as error:
        assert str(error).strip()
    else:
        for column in table.columns:
            try:
                table.numeric(column)
            except ValueError as error:
                assert "not a number" in str(error) or "NaN" in str(error)


@pytest.mark.parametrize(
    "text",
    [
        "[Click here to fix](https://evil.example/phish) ![t](https://evil.example/pixel.png)",
        "<https://evil.example>",
        "www.evil.example",
        "`code` **bold** $x$",
        "a``b```c",
    ],
)
def test_text_from_outside_cannot_form_markdown(text):
    import markdown_it  # Streamlit's own markdown renderer is remark; CommonMark + linkify stands in for it

    md = (
        markdown_it.MarkdownIt("commonmark").enable("linkify")
        if _has_linkify()
        else markdown_it.MarkdownIt("commonmark")
    )
    for safe in (plain(text), literal(text)):
        html = md.render(safe)
        assert "<a " not in html and "<img" not in html and "<strong>" not in html, html


def _has_linkify():
    try:
        import linkify_it  # noqa: F401

        return True
    except ImportError:
        return False


# --- the app ------------------------------------------------------------------------------------


def _app(page, query=None):
    from tests.test_app import open_page

    return open_page(page, query)


def test_a_link_cannot_put_markdown_in_the_page():
    evil = "[Click here to fix](https://evil.example/phish) ![t](https://evil.example/pixel.png)"
    at = _app("kmp", {"data": evil, "variant": evil, "step": evil})
    assert not at.exception
    notes = [w.value for w in at.warning]
    assert len(notes) == 3
    for note in notes:
        assert "` [Click here to fix](https://evil.example/phish)" in note  # inside a code span


def test_invisible_controls_from_a_link_are_shown_escaped_not_obeyed():
    """A right-to-left override or a zero-width space in a link would make a note read
    otherwise than it says; they reach the page as visible escapes."""
    sneaky = "moons\u202egnp.exe\u200b\u2066x\u2069\ufeff"
    at = _app("kmp", {"data": sneaky})
    assert not at.exception
    notes = " ".join(w.value for w in at.warning)
    assert "\\u202e" in notes and "\\u200b" in notes and "\\u2066" in notes and "\\ufeff" in notes
    assert not any(ch in notes for ch in "\u202e\u200b\u2066\u2069\ufeff")
    for text in (literal(sneaky), plain(sneaky)):
        assert not any(unicodedata.category(ch) in ("Cf", "Cc") for ch in text)


def test_out_of_range_link_values_are_clamped_with_a_note():
    at = _app("kmp", {"data": "moons", "k": "1e9", "points": "-5"})
    assert not at.exception
    notes = " ".join(w.value for w in at.warning)
    assert "k =" in notes and "points =" in notes
    assert at.query_params["points"] == "20"


def test_a_tiny_upload_is_refused_and_the_previous_data_stays():
    at = _app("kmp", {"data": "sinc"})
    at.file_uploader(key="upload_file").upload("tiny.csv", b"x,y\n1,2\n2,3\n3,5\n", "text/csv").run()
    assert not at.exception
    assert any("at least" in e.value for e in at.error)
    assert at.selectbox(key="w:data:kmp").value == "sinc"


def test_a_file_name_and_its_cells_cannot_put_markdown_in_the_page():
    rows = "\n".join(f"{i},{i % 3},[x](https://evil.example)" for i in range(30))
    at = _app("kmp")
    at.file_uploader(key="upload_file").upload(
        "[a](https://evil.example).csv", f"a,b,c\n{rows}\n".encode(), "text/csv"
    ).run()
    assert not at.exception
    messages = [e.value for e in at.error] + [s.value for s in at.success]
    assert messages
    for message in messages:
        assert "](https://evil" not in message.replace("` [a](https://evil.example).csv `", "")


# --- the experiments command ---------------------------------------------------------------------


def test_the_command_says_why_it_cannot_write_or_read(tmp_path, capsys):
    from mpcore.experiments.__main__ import run_main

    a_file = tmp_path / "a-file"
    a_file.write_text("")
    for out, words in ((a_file, "is a file"), (Path("/proc/no/such/place"), "cannot write")):
        with pytest.raises(SystemExit) as stop:
            run_main(["hussain2011-fig1", "--size", "tiny", "--out", str(out)])
        assert words in str(stop.value.code)
    corrupt = tmp_path / "data" / "raetsch"
    corrupt.mkdir(parents=True)
    (corrupt / "banana.npz").write_bytes(b"PK not really a zip")
    with pytest.raises(SystemExit) as stop:
        run_main(
            ["diethe2015-fig5", "--size", "tiny", "--out", str(tmp_path / "o"), "--data-dir", str(tmp_path / "data")]
        )
    assert "banana.npz is not a readable" in str(stop.value.code)


def test_ctrl_c_ends_in_one_line_and_leaves_no_partial_file(tmp_path, capsys, monkeypatch):
    from mpcore.experiments import __main__ as command

    calls = []

    def interrupted(*args, **kwargs):
        calls.append(args)
        if len(calls) > 1:
            raise KeyboardInterrupt
        return real_run(*args, **kwargs)

    import mpcore.experiments as experiments

    real_run = experiments.run
    monkeypatch.setattr(experiments, "run", interrupted)  # what run_items calls
    assert command.run_main(["hussain2011-fig1", "hussain2011-fig3", "--size", "tiny", "--out", str(tmp_path)]) == 130
    err = capsys.readouterr().err
    assert err.strip().splitlines()[-1].startswith("Interrupted")
    assert "Traceback" not in err
    names = sorted(p.name for p in tmp_path.iterdir())
    assert "hussain2011-fig1.html" in names and not any(name.endswith(".partial") for name in names)
    assert not any(name.startswith("hussain2011-fig3") for name in names)


# --- sizes the machine cannot hold: refused with a sentence, before allocating -------------------


def test_sizes_the_memory_cannot_hold_are_refused_before_allocating(monkeypatch):
    import mpcore
    from mpcore import _validation
    from mpcore.labs import column_selection

    monkeypatch.setattr(_validation, "available_memory", lambda: 50_000_000)  # a machine with 50 MB free
    X = np.random.default_rng(0).normal(size=(2000, 3))  # a 2000 x 2000 kernel: 32 MB, 96 MB with temporaries
    tracemalloc.start()
    try:
        with pytest.raises(MemoryError, match=r"A 2,000 x 2,000 kernel matrix needs about 96 MB of memory and 50 MB"):
            mpcore.kernel_matrix(X)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 5_000_000  # refused before the matrix was made
    with pytest.raises(ValueError, match="needs about"):  # a ValueError too: the app's sentence path
        mpcore.SparseKPCA(n_components=3).fit(X)
    with pytest.raises(ValueError, match=r"A 1,000 x 50,000 dataset needs about"):
        D.load_dataset("toy-dominant", n_features=50_000)
    assert mpcore.kernel_matrix(X[:500]).shape == (500, 500)  # what fits still runs
    with pytest.raises(ValueError, match="n_features must be a whole number from 1 to 100,000"):
        D.load_dataset("toy-dominant", n_features=10**9)
    split = D.prepare(D.load_dataset("rings-two-view", n_samples=100), seed=0)
    with pytest.raises(ValueError, match="repeats must be a whole number from 1 to 100"):
        column_selection(split, (2, 4), repeats=10**6)


def test_a_polynomial_kernel_that_overflows_is_refused_with_a_sentence():
    import mpcore

    X = np.full((6, 3), 1e3)
    with pytest.raises(ValueError, match=r"poly kernel overflows .* scale the data or lower the degree"):
        mpcore.kernel_matrix(X, kernel="poly", degree=200, gamma=1.0)
    assert np.all(np.isfinite(mpcore.kernel_matrix(X / 1e3, kernel="poly", degree=3)))


def _big_csv(rows=20_000, ragged_at=None):
    lines = ["x1,x2,x3,y"]
    for i in range(rows):
        lines.append(f"{i * 0.5},{i % 7},{-i},{i % 2}" + (",9" if i == ragged_at else ""))
    return ("\n".join(lines) + "\n").encode()


def test_a_large_upload_is_parsed_in_a_worker_process_with_the_same_table_and_sentences():
    """A file past ``IN_WORKER_BYTES`` is read in another process (the server's interpreter
    stays free for the other students): the same table as reading it here, the same
    sentence for a bad file, and a worker that died is replaced."""
    import os
    from concurrent.futures.process import BrokenProcessPool

    from ui import choose

    content = _big_csv()
    assert len(content) >= choose.IN_WORKER_BYTES
    here, there = D.parse_upload("big.csv", content), choose.parse_upload("big.csv", content)
    assert choose._WORKER is not None  # it went to the worker
    assert there.columns == here.columns and np.array_equal(there.cells, here.cells)
    bad = _big_csv(ragged_at=1234)
    with pytest.raises(ValueError) as in_process:
        D.parse_upload("bad.csv", bad)
    with pytest.raises(ValueError) as in_worker:
        choose.parse_upload("bad.csv", bad)
    assert str(in_worker.value) == str(in_process.value) and "Row 1235" in str(in_worker.value)
    with pytest.raises(BrokenProcessPool):  # the worker dies (as if killed for its memory)
        choose._WORKER.submit(os._exit, 1).result()
    with pytest.raises(ValueError, match="could not be read"):
        choose.parse_upload("big.csv", content)
    assert choose.parse_upload("big.csv", content).columns == here.columns  # a new worker


def test_an_upload_that_takes_too_long_in_the_worker_is_stopped_with_a_sentence(monkeypatch):
    """Past ``WORKER_SECONDS`` the worker's process is ended (it cannot hold a core for
    minutes), the student reads a sentence, and the next upload gets a new worker.  The limit
    is set far below what starting a worker takes, so the first read must exceed it."""
    from ui import choose

    content = _big_csv()
    monkeypatch.setattr(choose, "_WORKER", None)
    monkeypatch.setattr(choose, "WORKER_SECONDS", 0.001)
    with pytest.raises(ValueError, match=r"took longer than 0\.001 s, so it was stopped; try a smaller file"):
        choose.parse_upload("big.csv", content)
    assert choose._WORKER is None
    monkeypatch.setattr(choose, "WORKER_SECONDS", 60.0)
    assert choose.parse_upload("big.csv", content).columns == ("x1", "x2", "x3", "y")  # a new worker
