import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from lakeboard.servers.relevance.relevance_model import LinearModel, relevance_weights
from lakeboard.servers.relevance.engine import GATE_INPUTS
from lakeboard.servers.relevance.features import FEATURES


def test_a_stored_model_gives_sklearns_probabilities():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(200, 3))
    y = (x[:, 0] + 0.5 * x[:, 1] > 0).astype(int)
    pipe = make_pipeline(StandardScaler(), LogisticRegression()).fit(x, y)
    stored = LinearModel.from_sklearn(["a", "b", "c"], pipe)
    again = LinearModel.model_validate_json(stored.model_dump_json())
    np.testing.assert_allclose(again.probability(x), pipe.predict_proba(x)[:, 1], rtol=1e-9)


def test_the_shipped_weights_name_only_evidence_the_code_computes():
    for dense in (True, False):
        w = relevance_weights(dense=dense)
        assert set(w.file.features) <= set(FEATURES)
        assert any(f.startswith("dense") for f in w.file.features) == dense
        assert w.gate.features == list(GATE_INPUTS)
        assert len(w.fitted_on) == 4 and 0 < w.policy.gate_at < 1
