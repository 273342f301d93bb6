"""The pages' registry (views/site.py): each page declared once, and every list of pages read
from it."""

from dataclasses import replace

import pytest

from views import code, lessons, pictures, site


def test_the_apps_pages_are_declared_without_a_problem():
    assert site.problems() == []


def test_a_registry_with_mistakes_is_refused_with_a_sentence_each():
    kmp = site.by_key("kmp")
    pages = (
        *site.PAGES,
        replace(kmp, key="kmp2", url_path="kmp", file="app_pages/kmp2.py"),  # its address taken, its picture another's
        replace(kmp, key="kmp3", url_path="kmp3", file="app_pages/kmp3.py", picture="", study="mpcore.studies:nope"),
        replace(kmp, key="kmp4", url_path="kmp4", file="app_pages/kmp4.py", printer="everything"),
    )
    said = site.problems(pages)
    assert "two pages have the url_path 'kmp'" in said
    assert "the picture of 'kmp2' (views.pictures.kmp) names another page" in said
    assert any(line.startswith("the study of 'kmp3' (mpcore.studies:nope) cannot be imported") for line in said)
    assert "'kmp3' has a study, numbers or a card but no picture" in said
    assert "'kmp4' prints 'everything'; Copy as code has study, deflations, columns" in said
    assert "the picture of 'kmp4' (views.pictures.kmp) names another page" in said
    assert len(said) == 6


def test_every_list_of_pages_is_read_from_the_registry():
    players = [page.key for page in site.PAGES if page.picture]
    assert list(lessons.NUMBERS) == players == [page.key for page in site.PLAYER_PAGES]
    assert set(pictures.STUDIES) == {page.key for page in site.PLAYER_PAGES if page.study}
    for page in site.PLAYER_PAGES:
        assert lessons.NUMBERS[page.key] == page.numbers
        if page.study:
            assert pictures.STUDIES[page.key] is page.study_function()
            script = code.study_script(page.key, page.title, *_choices())
            assert f"from {page.study.split(':')[0]} import {page.study.split(':')[1]}" in script


def _choices():
    from views.pictures.settings import KernelChoice, data_choice

    return data_choice("sinc", (), 0.3, 0, True, 100), KernelChoice("rbf", "median", 3), {"k": 3}


# --- each page's controls: declared once, one meaning per name ------------------------------


def test_no_two_controls_of_a_page_share_a_name():
    assert [problem for page in site.PLAYER_PAGES for problem in pictures.control_problems(page.key)] == []


def test_a_control_that_takes_another_ones_name_is_refused():
    """KMP's own "noise" (a label noise, say) would read the dataset's ``noise`` from a link:
    refused where the controls are listed, and when a page reads both."""
    from views.controls import Control
    from views.pictures.settings import Address

    label_noise = Control("noise", 0.0, float, lo=0.0, hi=0.5, widget="slider", label="Label noise")
    assert pictures.control_problems("kmp", [label_noise]) == [
        "kmp: two controls of this page are called 'noise' ('Noise' and 'Label noise'): an address could not "
        "tell them apart; rename one"
    ]
    address = Address({"data": "moons", "noise": "0.3"})
    _, read = pictures.read_address("kmp", {"data": "moons", "noise": "0.3"})
    assert read.values["noise"][0] == 0.3
    address.get(next(c for c in pictures.controls("kmp") if c.name == "noise"))
    with pytest.raises(ValueError, match="two controls of this page are called 'noise'"):
        address.get(label_noise)


def _openings():
    """Every address a page is opened at by the app's own links: its defaults, each preset
    and each scene of the shipped lessons."""
    from views.presets import PRESETS

    for page in site.PLAYER_PAGES:
        yield page.key, {}
        for preset in PRESETS.get(page.key, ()):
            yield page.key, preset.params
    for lesson in lessons.shipped().values():
        for scene in lesson.scenes:
            yield scene.page, scene.query()


def test_every_control_a_page_reads_is_one_it_declares():
    """Each page opened at its defaults, presets and lesson scenes: every control it reads
    is among its declared ones, by the same label (what the address and a lesson check)."""
    undeclared = set()
    for page, query in _openings():
        declared = {control.name: control for control in pictures.controls(page)}
        _, address = pictures.read_address(page, query)
        for name, control in address.asked.items():
            if name in ("present", "text"):
                continue
            mine = declared.get(name)
            if mine is None or mine.kind != control.kind or mine.label != control.label.replace(" (on the x axis)", ""):
                undeclared.add((page, name, control.label))
    assert undeclared == set()
