"""The choice of files from ranked matches, with a hand-made `further` model so that the
mechanism, not the fitted numbers, is under test."""

import numpy as np
import pytest

from lakeboard.common.file_choice import FURTHER, further_rows, merge_matches, select_files
from lakeboard.common.relevance_model import LinearModel, RelevancePolicy, RelevanceWeights, relevance_weights
from lakeboard.schemas.messages import FileMatch


def m(path, score, terms, **kw):
    return FileMatch(path=path, score=score, matched_terms=terms, **kw)


W = {"noaa": 1.0, "nifc": 1.0, "fire": 0.3}


def _weights(coef: dict[str, float], further_at=0.5, max_files=3) -> RelevanceWeights:
    """`further` = sigmoid(sum of coef * feature - 1): a file is taken when its features say so."""
    n = len(FURTHER)
    further = LinearModel(features=list(FURTHER), mean=[0.0] * n, scale=[1.0] * n,
                          coef=[coef.get(f, 0.0) for f in FURTHER], intercept=-1.0)
    shipped = relevance_weights(dense=False)
    return RelevanceWeights(file=shipped.file, gate=shipped.gate, further=further,
                            policy=RelevancePolicy(gate_at=0.5, further_at=further_at, max_files=max_files))


def test_what_a_further_file_adds_to_the_best():
    ranked = [m("noaa.csv", 0.8, ["noaa", "fire"]), m("nifc.csv", 0.4, ["nifc", "fire"], group="g"),
              m("copy.csv", 0.2, ["noaa", "fire"], companions=["noaa.csv"])]
    rows = further_rows(ranked, W)
    got = {f: list(rows[:, i]) for i, f in enumerate(FURTHER)}
    assert got["ratio"] == pytest.approx([0.5, 0.25])
    assert got["rank"] == pytest.approx([1 / 2, 1 / 3])
    assert got["gain"] == pytest.approx([1.0 / 2.3, 0.0])  # nifc is new; the copy adds nothing
    assert got["overlap"] == pytest.approx([0.3 / 1.3, 1.0])
    assert got["companion"] == [0.0, 1.0]


def test_a_complement_is_taken_and_a_rival_is_not():
    matches = [m("noaa.csv", 0.8, ["noaa", "fire"]), m("nifc.csv", 0.5, ["nifc", "fire"]),
               m("copy.csv", 0.7, ["noaa", "fire"])]
    got = [x.path for x in select_files(matches, W, _weights({"gain": 6.0, "overlap": -3.0}))]
    assert got == ["noaa.csv", "nifc.csv"]


def test_at_most_max_files_and_one_match_per_path():
    matches = [m(f"f{i}.csv", 0.9 - i / 100, ["noaa"]) for i in range(6)] + [m("f0.csv", 0.1, ["noaa"])]
    assert len(merge_matches(matches)) == 6
    got = select_files(matches, W, _weights({"p": 10.0}, max_files=3))
    assert [x.path for x in got] == ["f0.csv", "f1.csv", "f2.csv"]
    assert select_files([], W, _weights({})) == []


def test_the_shipped_further_model_prefers_a_complement_to_a_rival():
    w = relevance_weights(dense=True)
    rows = further_rows([m("noaa.csv", 0.8, ["noaa", "fire"]), m("nifc.csv", 0.6, ["nifc", "fire"]),
                         m("copy.csv", 0.6, ["noaa", "fire"])], W)
    complement, rival = w.further.probability(rows)
    assert complement > rival
    assert np.all((0 <= rows) & (rows <= 1))
