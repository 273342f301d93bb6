"""Datasets: every registry entry loads offline; uploads are validated with clear messages."""

import io

import numpy as np
import pytest

from mpcore import datasets as D


@pytest.mark.parametrize("name", list(D.REGISTRY))
def test_every_registry_entry_loads_and_states_its_task_and_source(name):
    ds = D.load_dataset(name)
    assert ds.task in D.TASKS and ds.source and ds.licence
    assert np.all(np.isfinite(ds.X)) and ds.n_samples >= 100
    if ds.task == "binary":
        assert set(np.unique(ds.y)) == {-1.0, 1.0} and len(ds.class_names) == 2
    if ds.task == "two-view":
        assert ds.Y.shape[0] == ds.n_samples
    split = D.prepare(ds, subsample=120, seed=1)
    assert split.X_train.shape[0] + split.X_test.shape[0] == 120
    np.testing.assert_allclose(split.X_train.mean(axis=0), 0, atol=1e-9)


def test_generators_are_seeded():
    a, b, c = (D.load_dataset("moons", seed=s) for s in (1, 1, 2))
    np.testing.assert_array_equal(a.X, b.X)
    assert not np.array_equal(a.X, c.X)


def test_boston_drops_B_by_default_and_keeps_it_on_request():
    assert "B" not in D.load_dataset("boston").feature_names
    full = D.load_dataset("boston", keep_b=True)
    assert full.X.shape == (506, 13) and "B" in full.feature_names
    assert full.notes and "removed" in full.notes[0]


def test_two_view_rings_follow_seed_004_radii():
    ds = D.load_dataset("rings-two-view", n_samples=2000)
    rx, ry = np.linalg.norm(ds.X, axis=1), np.linalg.norm(ds.Y, axis=1)
    assert np.corrcoef(rx, ry)[0, 1] > 0.9  # both radii decrease in the shared latent Z
    assert np.all(np.isfinite(rx))


def test_csv_upload_round_trip():
    table = D.parse_csv(b"a,b,label\n1,2,yes\n3,4,no\n5,6,yes\n")
    ds = D.dataset_from_table(table, "binary", target="label")
    assert ds.X.shape == (3, 2) and ds.class_names == ("no", "yes")
    np.testing.assert_array_equal(ds.y, [1, -1, 1])
    headerless = D.parse_csv("1;2\n3;4\n5;7\n")
    assert headerless.columns == ("col1", "col2")


def test_a_column_of_two_values_is_named_and_one_of_three_is_not():
    table = D.parse_csv(b"x,sign,grade\n1,-1,a\n2, 1,b\n3,1,c\n4,-1,a\n")
    assert table.two_values("sign") == ("-1", "1")  # spaces around a value are not a third value
    assert table.two_values("sign", each_at_least=2) == ("-1", "1")
    assert table.two_values("sign", each_at_least=3) is None
    assert table.two_values("grade") is None and table.two_values("x") is None
    with pytest.raises(ValueError, match="no column 'y'"):
        table.two_values("y")
    split = D.prepare(
        D.dataset_from_table(
            D.parse_csv("a,y\n" + "\n".join(f"{i},{(-1) ** i}" for i in range(20))), "regression", target="y"
        )
    )
    assert split.task == "regression" and not split.classes  # read as numbers, as chosen
    split = D.prepare(
        D.dataset_from_table(
            D.parse_csv("a,y\n" + "\n".join(f"{i},{(-1) ** i}" for i in range(20))), "binary", target="y"
        )
    )
    assert split.classes


@pytest.mark.parametrize(
    "content,task,target,message",
    [
        (b"", "regression", "y", "empty"),
        (b"x,y\n1,2\n", "regression", "y", "at least 2"),
        (b"x,y\n1,2\nfoo,3\n", "regression", "y", "row 2: 'foo' is not a number"),
        (b"x,y\n1,2\nnan,3\n", "regression", "y", "NaN or infinite"),
        (b"x,y\n1,2\n3,2\n", "regression", "y", "constant"),
        (b"x,y\n1,a\n3,a\n", "binary", "y", "only one class"),
        (b"x,y\n1,a\n3,b\n4,c\n", "binary", "y", "exactly two"),
        (b"x,y\n1,2\n3\n", "regression", "y", "same number of cells"),
        (b"x,y\n1,2\n3,4\n", "regression", "z", "no column 'z'"),
    ],
)
def test_bad_uploads_say_what_is_wrong(content, task, target, message):
    with pytest.raises(ValueError, match=message):
        D.dataset_from_table(D.parse_csv(content), task, target=target)


def test_npz_upload_without_pickles():
    buffer = io.BytesIO()
    np.savez(buffer, X=np.arange(12.0).reshape(6, 2), y=np.array([1, 2, 3, 4, 5, 7.0]))
    ds = D.dataset_from_table(D.parse_npz(buffer.getvalue()), "regression", target="y")
    assert ds.X.shape == (6, 2)
    pickled = io.BytesIO()
    np.savez(pickled, X=np.array([{"a": 1}, {"b": 2}], dtype=object))
    with pytest.raises(ValueError, match="pickled"):
        D.parse_npz(pickled.getvalue())
    with pytest.raises(ValueError, match="not a readable"):
        D.parse_npz(b"not a zip")
    with pytest.raises(ValueError, match="not a readable"):  # text named .npz: a TypeError before
        D.parse_upload("data.npz", "X,y\n1,2\n")


def test_train_size_matches_prepare():
    data = D.load_dataset("moons", n_samples=137)
    for test_size, subsample in ((0.3, None), (0.25, 50), (0.5, 1000)):
        split = D.prepare(data, test_size=test_size, subsample=subsample)
        assert D.train_size(data.n_samples, test_size, subsample) == split.X_train.shape[0]


def test_one_vs_rest_datasets_list_their_classes():
    for name, count in (("digits", 10), ("wine", 3), ("iris", 3)):
        choices = D.REGISTRY[name].choices["positive_class"]
        assert len(choices) == count and D.REGISTRY[name].options["positive_class"] in choices


def test_a_labelled_csv_without_a_header_keeps_its_first_row():
    """The first row is data when its text cells are values its columns take below; a header
    names its columns (text above numbers, or a name that is no label)."""
    table = D.parse_csv(b"1.5,2,yes\n3,4,no\n5,6,yes\n7,8,no\n")
    assert table.columns == ("col1", "col2", "col3") and table.cells.shape == (4, 3)
    assert table.cells[0].tolist() == ["1.5", "2", "yes"]
    named = D.parse_csv(b"x1,x2,class\n1.5,2,yes\n3,4,no\n5,6,yes\n")
    assert named.columns == ("x1", "x2", "class") and named.cells.shape == (3, 3)
    label_only = D.parse_csv(b"1,2,class\n1.5,2,yes\n3,4,no\n")  # numbers as names, and a label column's name
    assert label_only.columns == ("1", "2", "class") and label_only.cells.shape == (2, 3)
    words = D.parse_csv(b"city,river\nparis,seine\nrome,tiber\nparis,seine\n")
    assert words.columns == ("city", "river")
    dataset = D.dataset_from_table(table, "binary", target="col3")
    assert dataset.n_samples == 4  # nothing lost on the way to a dataset
