import pytest

from lakeboard.host.eval.discovery_scores import score_discovery

LAKE = ["a.csv", "data/Sub Dir/x.csv", "data/Sub Dir/y.csv", "data/other/z.csv", "top/b.xlsx"]


@pytest.mark.parametrize(
    "returned, units, recall, precision",
    [
        (["a.csv"], ["a.csv"], 1.0, 1.0),
        (["top/b.xlsx"], ["b.xlsx"], 1.0, 1.0),  # bare name of a nested file
        (["data/Sub Dir/x.csv", "data/Sub Dir/y.csv"], ["sub dir/"], 1.0, 1.0),  # folder, any case
        (["data/Sub Dir/x.csv", "a.csv"], ["Sub Dir/*.csv"], 1.0, 0.5),  # glob
        (["data/Sub Dir/x.csv"], ["all csv in Sub Dir/"], 1.0, 1.0),  # prose before the unit
        (["a.csv"], ["a.csv", "missing.csv"], 0.5, 1.0),  # files absent from the lake count as missed
        ([], ["a.csv"], 0.0, 0.0),
    ],
)
def test_units(returned, units, recall, precision):
    s = score_discovery(returned, units, LAKE)
    assert (s.recall, s.precision) == (recall, precision)


def test_f1_is_harmonic_mean():
    s = score_discovery(["a.csv", "data/other/z.csv"], ["a.csv"], LAKE)
    assert s.f1 == pytest.approx(2 * 1.0 * 0.5 / 1.5)


def test_a_file_with_the_same_bytes_as_a_unit_is_that_unit_whoever_returned_it():
    copies = {"a.csv": ["data/other/z.csv"], "data/other/z.csv": ["a.csv"]}
    s = score_discovery(["data/other/z.csv", "top/b.xlsx"], ["a.csv"], LAKE, copies)
    assert (s.recall, s.precision) == (1.0, 0.5)
    # without the lake's copies the same answer misses
    assert score_discovery(["data/other/z.csv"], ["a.csv"], LAKE).recall == 0.0
