"""The baselines' listings of helpers and files: lake text fenced as data, one line per item."""

from __future__ import annotations

import pytest

from lakeboard.common.prompt_data import DATA_NOTE
from lakeboard.host.baselines.listings import files_context, helpers_context
from lakeboard.schemas.profiles import FileEntry
from tests.support.forged_text import CONTROL, fence_structure, forged_texts


def _inside(text: str) -> list[str]:
    """The lines of the fenced block that ends `text`."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("```"))
    assert lines[-1] == lines[start]
    return lines[start + 1:-1]


@pytest.mark.parametrize("seed", range(4))
def test_files_and_helpers_stay_one_line_each_inside_a_data_block(seed):
    texts = iter(forged_texts(60, seed))
    entries = [FileEntry(path=f"rain/{next(texts)}.csv", format="csv", kind="table", status="ok", size_bytes=10,
                         summary=next(texts)) for _ in range(8)]
    helpers = [(f"lake-{i}{next(texts)}", next(texts)) for i in range(5)]
    for text, heading, count in ((files_context(entries, "Every file of the lake:"), "Every file of the lake:", 8),
                                 (helpers_context(helpers), "The helpers you can ask by name:", 5)):
        outside, blocks = fence_structure(text)
        assert outside == [heading, DATA_NOTE] and blocks == 1, outside
        inside = _inside(text)
        assert len(inside) == count and all(line.startswith("- ") for line in inside), inside
        assert not CONTROL.search(text)
