"""The benchmarks' own arithmetic: what they print is read as a measurement, so a wrong sum
or ratio there would mislead as surely as a slow test."""

from collections import Counter

from benchmarks import suite_times

REPORT = """\
============================= slowest durations ==============================
12.50s call     tests/test_a.py::test_one[x]
0.50s setup    tests/test_a.py::test_one[x]
0.25s teardown tests/test_a.py::test_one[x]
3.00s call     tests/test_b.py::test_two
1602 passed, 20 skipped in 49.23s
(0.00 durations hidden)
507 passed, 2 skipped in 1071.17s (0:17:51)
"""


def test_a_files_time_is_its_tests_set_up_call_and_tear_down_and_the_wall_is_the_last_pass():
    times, wall = suite_times.per_file(REPORT)
    assert times == {"tests/test_a.py": 13.25, "tests/test_b.py": 3.0}
    assert wall == 1071.17


def test_two_runs_side_by_side_give_each_files_ratio_and_the_totals(tmp_path):
    before, after = tmp_path / "before.txt", tmp_path / "after.txt"
    before.write_text(REPORT)
    after.write_text(
        "6.00s call     tests/test_a.py::test_one[x]\n0.40s call     tests/test_c.py::test\n1 passed in 535.5s\n"
    )
    lines = {}
    for line in suite_times.side_by_side(
        [("old", *suite_times.per_file(before.read_text())), ("new", *suite_times.per_file(after.read_text()))]
    ).splitlines()[1:]:
        name, *cells = line.rsplit(None, 3)
        lines[name.strip()] = cells
    assert lines["tests/test_a.py"] == ["13.2", "6.0", "0.45"]
    assert lines["tests/test_b.py"] == ["3.0", "-", "-"]  # gone from the second run
    assert lines["tests/test_c.py"] == ["-", "0.4", "-"]  # new in it: no ratio
    assert lines[suite_times.TOTAL] == ["16.2", "6.4", "0.39"]
    assert lines[suite_times.WALL_ROW] == ["1071.2", "535.5", "0.50"]


def test_the_command_names_each_run_as_told(tmp_path, capsys):
    report = tmp_path / "run.txt"
    report.write_text(REPORT)
    assert suite_times.main([f"old={report}", str(report)]) == 0
    head = capsys.readouterr().out.splitlines()[0].split()
    assert head == ["file", "old", "run", "ratio"]
    odd = tmp_path / "a=b"  # a file whose name has "=" in it is a file, not a name
    odd.mkdir()
    (odd / "run.txt").write_text(REPORT)
    assert suite_times.main([str(odd / "run.txt")]) == 0
    assert "tests/test_a.py" in capsys.readouterr().out


def test_a_report_that_is_not_there_or_has_no_durations_gets_a_sentence(tmp_path, capsys):
    assert suite_times.main([f"old={tmp_path / 'missing.txt'}"]) == 1
    assert capsys.readouterr().out.strip() == f"{tmp_path / 'missing.txt'}: no such file"
    empty = tmp_path / "empty.txt"
    empty.write_text("nothing here\n")
    assert suite_times.main([str(empty)]) == 1
    assert "has no --durations=0 report" in capsys.readouterr().out


def test_page_loads_are_counted_per_test_and_summed_per_file(tmp_path, capsys):
    """Two processes' counts: a file's loads are its tests' gotos and reloads, its contexts
    their new contexts and pages, most loads first; a folder without counts gets a sentence."""
    from benchmarks import page_loads

    class Page:
        def goto(self, url):
            return url

    counts, current = Counter(), ["tests/test_a.py::test_one"]
    page_loads.watch(counts, current, [(Page, "goto")])
    assert Page().goto("x") == "x"
    current[0] = "tests/test_a.py::test_two"
    Page().goto("y")
    Page().goto("z")
    assert counts == {("tests/test_a.py::test_one", "Page.goto"): 1, ("tests/test_a.py::test_two", "Page.goto"): 2}
    page_loads._write(tmp_path, counts)
    (tmp_path / "other.tsv").write_text(
        "tests/test_b.py::test_x\tPage.goto\t5\ntests/test_b.py::test_x\tBrowser.new_context\t4\n"
        "tests/test_a.py::test_two\tPage.reload\t1\ntests/test_a.py::test_two\tBrowser.new_page\t2\n"
    )
    files = page_loads.by_file(tmp_path)
    assert files == {"tests/test_a.py": {"loads": 4, "contexts": 2}, "tests/test_b.py": {"loads": 5, "contexts": 4}}
    assert page_loads.main([str(tmp_path)]) == 0
    lines = [line.split() for line in capsys.readouterr().out.splitlines()]
    assert [line[0] for line in lines[1:]] == ["tests/test_b.py", "tests/test_a.py", "all"]
    assert lines[-1][-2:] == ["9", "6"]
    assert page_loads.main([str(tmp_path / "none")]) == 1
    assert "holds no counts" in capsys.readouterr().out
