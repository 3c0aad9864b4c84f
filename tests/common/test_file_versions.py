"""read_once: a file parsed again only when a new version replaces it."""

from __future__ import annotations

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
