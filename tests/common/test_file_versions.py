"""read_once: a file parsed again only when a new version replaces it."""

from __future__ import annotations

import gc
import shutil
import weakref

from lakeboard.common.file_versions import read_once


def test_a_file_is_parsed_once_per_version(tmp_path):
    calls = []

    def parse(path):
        calls.append(path)
        return path.read_text()

    f = tmp_path / "clusters.json"
    f.write_text("one")
    assert read_once(f, parse) == "one" and read_once(f, parse) == "one"
    assert len(calls) == 1
    new = tmp_path / "new.json"
    new.write_text("two")
    new.replace(f)  # as configs are written: a new file renamed over the old one
    assert read_once(f, parse) == "two" and len(calls) == 2


def test_what_was_read_from_a_deleted_file_is_let_go_at_the_next_read(tmp_path):
    """A re-index removes old set folders: their mapped arrays must not stay held."""

    class Parsed:
        def __init__(self, path):
            self.text = path.read_text()

    old, new = tmp_path / "set-1", tmp_path / "set-2"
    for folder in (old, new):
        folder.mkdir()
        (folder / "vectors.npy").write_text(folder.name)
    first = weakref.ref(read_once(old / "vectors.npy", Parsed))
    shutil.rmtree(old)
    gc.collect()
    assert first() is not None  # still held: nothing was read since
    assert read_once(new / "vectors.npy", Parsed).text == "set-2"
    gc.collect()
    assert first() is None
