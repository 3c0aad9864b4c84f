"""Files of a lake that hold the same bytes, found by size, then a first block, then the whole file."""

import os

from lakeboard.common.byte_copies import byte_copies, copies_by_file


def _write(root, rel, data: bytes):
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return rel


def _sizes(root, rels):
    return [(r, (root / r).stat().st_size) for r in rels]


def test_copies_in_other_folders_and_names_are_one_group_and_lookalikes_are_not(tmp_path):
    rels = [
        _write(tmp_path, "a.csv", b"x,y\n1,2\n"),
        _write(tmp_path, "backup/a_old.csv", b"x,y\n1,2\n"),
        _write(tmp_path, "other/b.csv", b"x,y\n1,3\n"),  # same size, other bytes
        _write(tmp_path, "empty1.txt", b""),
        _write(tmp_path, "empty2.txt", b""),  # empty files are copies of nothing
    ]
    assert byte_copies(tmp_path, _sizes(tmp_path, rels)) == [["a.csv", "backup/a_old.csv"]]
    assert copies_by_file(tmp_path, rels) == {"a.csv": ["backup/a_old.csv"], "backup/a_old.csv": ["a.csv"]}


def test_large_files_that_share_their_first_block_differ_at_the_end(tmp_path):
    head = os.urandom(200_000)
    rels = [_write(tmp_path, "one.bin", head + b"A"), _write(tmp_path, "two.bin", head + b"B"),
            _write(tmp_path, "three.bin", head + b"A")]
    assert byte_copies(tmp_path, _sizes(tmp_path, rels)) == [["one.bin", "three.bin"]]


def test_a_link_out_of_the_lake_or_a_vanished_file_is_no_copy_and_stops_nothing(tmp_path):
    lake, outside = tmp_path / "lake", tmp_path / "outside.csv"
    lake.mkdir()
    outside.write_bytes(b"secret,1\n")
    _write(lake, "in.csv", b"secret,1\n")
    os.symlink(outside, lake / "link.csv")
    sizes = [("in.csv", 9), ("link.csv", 9), ("gone.csv", 9)]
    assert byte_copies(lake, sizes) == []
