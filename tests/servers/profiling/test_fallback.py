"""Files no reader handles: first lines of text, or what the binary content is."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from lakeboard.servers.profiling import profile_file
from tests.servers.profiling.loading import profile_and_load


def test_unknown_binary_is_skipped_with_a_reason(tmp_path: Path) -> None:
    f = tmp_path / "firmware.bin"
    f.write_bytes(bytes(range(256)) * 8)
    prof, ns = profile_and_load(f)
    assert prof.status == "skipped" and prof.kind == "binary" and "binary" in prof.reason
    assert ns["data"] is None


def test_unknown_text_shows_its_first_lines(tmp_path: Path) -> None:
    f = tmp_path / "run.log"
    f.write_text("".join(f"line {i}: step done\n" for i in range(100)))
    prof, ns = profile_and_load(f)
    assert prof.status == "ok" and prof.kind == "document"
    assert ns["data"].startswith("line 0: step done")


def test_sqlite_database(tmp_path: Path) -> None:
    f = tmp_path / "store.db"
    con = sqlite3.connect(f)
    con.execute("create table sales (id integer, region text)")
    con.executemany("insert into sales values (?, ?)", [(1, "north"), (2, "south")])
    con.commit()
    con.close()
    prof, ns = profile_and_load(f)
    assert prof.format == "sqlite" and "sales" in prof.attributes["tables"]
    assert ns["data"]["sales"].shape == (2, 2)


def test_missing_file_never_raises(tmp_path: Path) -> None:
    prof = profile_file(tmp_path / "gone.csv", tmp_path)
    assert prof.status == "unreadable" and "cannot open" in prof.reason and prof.path == "gone.csv"


class _Payload:
    """Unpickling this creates a file: the test's proof that nothing was unpickled."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self):
        return (Path.touch, (self.marker,))


def test_a_pickle_is_named_and_never_loaded(tmp_path: Path) -> None:
    import pickle

    lake, marker = tmp_path / "lake", tmp_path / "unpickled"
    lake.mkdir()
    (lake / "model.pkl").write_bytes(pickle.dumps(_Payload(marker), protocol=2))
    (lake / "frame").write_bytes(pickle.dumps({"rows": list(range(100))}, protocol=5))  # no extension
    for name in ("model.pkl", "frame"):
        prof, ns = profile_and_load(lake / name, lake)
        assert prof.format == "pickle" and prof.status == "skipped" and ns["data"] is None
        assert "loading a pickle runs whatever code it holds" in prof.reason
    assert not marker.exists()


def test_scientific_formats_known_by_their_first_bytes_are_named_with_what_reads_them(tmp_path: Path) -> None:
    lake = tmp_path / "lake"
    lake.mkdir()
    heads = {"forecast.grb2": (b"GRIB\x00\x00\x00\x02", "grib", "cfgrib"), "obs.bufr": (b"BUFR\x00\x00\x10\x04", "bufr", "eccodes"),
             "MOD021KM.hdf": (b"\x0e\x03\x13\x01\x00\x10", "hdf4", "pyhdf"), "tile.las": (b"LASF\x00\x00", "las", "laspy")}
    for name, (head, fmt, reader) in heads.items():
        (lake / name).write_bytes(head + bytes(range(256)) * 4)
        prof = profile_file(lake / name, lake)
        assert (prof.format, prof.status) == (fmt, "skipped") and reader in prof.reason and reader in prof.summary
    (lake / "runs.csv").write_text("GRIB_file,run\na.grb,1\nb.grb,2\n")
    assert profile_file(lake / "runs.csv", lake).format == "csv"
