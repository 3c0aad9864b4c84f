"""The fitted relevance model: linear weights over named evidence, read from a file in the package.

Two small logistic models, fitted on real lakes by `benchmarks/fit_relevance.py`:
- `file`: how likely a file holds what a request needs (file agents score their files);
- `gate`: whether a lake (or a partition) holds anything a request needs at all, from its
  strongest evidence (an off-topic request gets no files).
The one number that remains, the gate's threshold, is in `RelevancePolicy`, fitted with the rest.
"""

from __future__ import annotations

from functools import cache
from importlib.resources import files

import numpy as np
from pydantic import BaseModel, Field

WEIGHTS_FILE = "relevance_weights.json"


class LinearModel(BaseModel):
    """A standardised logistic model: sigmoid(((x - mean) / scale) . coef + intercept)."""

    features: list[str]
    mean: list[float]
    scale: list[float]
    coef: list[float]
    intercept: float

    def probability(self, rows: np.ndarray) -> np.ndarray:
        """`rows`: one row per case, columns in the order of `features`."""
        if rows.size == 0:
            return np.zeros(len(rows))
        z = ((rows - np.asarray(self.mean)) / np.asarray(self.scale)) @ np.asarray(self.coef) + self.intercept
        return 1.0 / (1.0 + np.exp(-z))

    @classmethod
    def from_sklearn(cls, features: list[str], pipeline) -> LinearModel:
        """From a fitted pipeline: a logistic regression, after a StandardScaler or on raw features."""
        lr = pipeline[-1]
        n = len(features)
        scaler = pipeline[0] if len(pipeline) > 1 else None
        mean = scaler.mean_.tolist() if scaler is not None else [0.0] * n
        scale = scaler.scale_.tolist() if scaler is not None else [1.0] * n
        return cls(features=list(features), mean=mean, scale=scale, coef=lr.coef_[0].tolist(),
                   intercept=float(lr.intercept_[0]))


class RelevancePolicy(BaseModel):
    gate_at: float = Field(description="a lake or partition serves a request when the gate reaches this")


class RelevanceWeights(BaseModel):
    file: LinearModel
    gate: LinearModel
    policy: RelevancePolicy
    fitted_on: list[str] = Field(default_factory=list, description="the lakes the weights were fitted on")


class WeightsFile(BaseModel):
    """Weights fitted with the dense similarity among the evidence, and without it (for a
    lake indexed where no sentence embedding could run)."""

    dense: RelevanceWeights
    lexical: RelevanceWeights


@cache
def _weights_file() -> WeightsFile:
    text = files("lakeboard.servers.relevance").joinpath(WEIGHTS_FILE).read_text()
    return WeightsFile.model_validate_json(text)


def relevance_weights(*, dense: bool) -> RelevanceWeights:
    w = _weights_file()
    return w.dense if dense else w.lexical
