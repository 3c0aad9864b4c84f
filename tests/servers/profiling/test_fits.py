"""FITS via astropy: tables and images per HDU, header keywords, a loader that returns them."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from astropy.io import fits

from lakeboard.servers.profiling import profile_file
from lakeboard.servers.relevance.search_fields import profile_texts
from tests.servers.profiling.loading import profile_and_load


def _fits(path: Path) -> None:
    primary = fits.PrimaryHDU(np.arange(60, dtype=np.float32).reshape(3, 4, 5))
    primary.header["OBJECT"] = "NGC 1300"
    primary.header["TELESCOP"] = "survey telescope"
    stars = fits.BinTableHDU.from_columns([
        fits.Column(name="NAME", format="10A", array=np.array(["alpha", "beta", "gamma"])),
        fits.Column(name="RA", format="D", unit="deg", array=np.array([10.5, 11.0, 12.25])),
        fits.Column(name="MAG", format="E", array=np.array([4.5, 5.0, 6.5], dtype=np.float32)),
        fits.Column(name="SPECTRUM", format="4E", array=np.ones((3, 4), dtype=np.float32)),
    ], name="STARS")
    sci = [fits.ImageHDU(np.full((2, 2), k, dtype=np.int16), name="SCI") for k in (1, 2)]
    fits.HDUList([primary, stars, *sci]).writeto(path)


def test_tables_images_keywords_and_loader(tmp_path: Path) -> None:
    f = tmp_path / "galaxy.fits"
    _fits(f)
    prof, ns = profile_and_load(f)
    assert prof.status == "ok" and prof.format == "fits" and prof.kind == "table"
    assert prof.attributes["OBJECT"] == "NGC 1300" and "NAXIS" not in prof.attributes
    (stars,) = prof.tables
    assert stars.name == "STARS" and stars.n_rows == 3 and stars.n_rows_exact
    assert [c.name for c in stars.columns] == ["NAME", "RA", "MAG"]  # the vector column is left out
    assert any("SPECTRUM (4,)" in n for n in stars.notes) and any("RA [deg]" in n for n in stars.notes)
    assert stars.sample_rows[0]["NAME"] == "alpha"
    arrays = {a.name: a for a in prof.arrays}
    assert set(arrays) == {"PRIMARY", "SCI", "SCI_2"}  # two extensions named alike get two names
    assert arrays["PRIMARY"].shape == [3, 4, 5] and arrays["PRIMARY"].dtype == "float32"
    assert arrays["PRIMARY"].sample == [0.0, 1.0, 2.0, 3.0, 4.0]
    assert "NGC 1300" in prof.summary and "STARS (table, 3 rows" in prof.summary
    data = ns["data"]
    assert list(data["STARS"].columns) == ["NAME", "RA", "MAG"] and data["SCI_2"][0, 0] == 2
    assert prof.loader_check is not None and prof.loader_check.verified, prof.loader_check
    texts = profile_texts(prof)
    assert {"NAME", "RA", "MAG"} <= set(texts.columns) and "NGC 1300" in texts.titles


def test_a_scaled_image_is_profiled_as_the_floats_it_loads_as(tmp_path: Path) -> None:
    f = tmp_path / "scaled.fits"
    hdu = fits.PrimaryHDU(np.arange(12, dtype=np.float32).reshape(3, 4) / 2)
    hdu.scale("int16", bscale=0.5)  # stored as 16-bit integers, read back as floats
    hdu.writeto(f)
    prof, ns = profile_and_load(f)
    (image,) = prof.arrays
    assert image.dtype == "float32" and image.sample == [0.0, 0.5, 1.0, 1.5]
    assert ns["data"]["PRIMARY"].dtype == np.float32


def test_a_file_of_headers_alone_is_empty(tmp_path: Path) -> None:
    empty = tmp_path / "header_only.fits"
    fits.PrimaryHDU().writeto(empty)
    prof = profile_file(empty, tmp_path)
    assert prof.status == "empty" and "no table and no image" in prof.reason


def test_scaled_and_logical_table_columns_come_as_their_values(tmp_path: Path) -> None:
    f = tmp_path / "flags.fits"
    fits.BinTableHDU.from_columns([
        fits.Column(name="COUNT", format="I", bzero=32768, array=np.array([40000, 50000], dtype=np.uint16)),
        fits.Column(name="GOOD", format="L", array=np.array([True, False])),
    ], name="FLAGS").writeto(f)
    prof, ns = profile_and_load(f)
    (table,) = prof.tables
    assert table.sample_rows == [{"COUNT": 40000, "GOOD": True}, {"COUNT": 50000, "GOOD": False}]
    assert prof.loader_check is not None and prof.loader_check.verified, prof.loader_check


def test_compressed_images_unsigned_images_and_tables_without_rows(tmp_path: Path) -> None:
    f = tmp_path / "mixed.fits"
    fits.HDUList([
        fits.PrimaryHDU(),
        fits.CompImageHDU(np.arange(100, dtype=np.float32).reshape(10, 10), name="COMP"),
        fits.BinTableHDU.from_columns([fits.Column(name="A", format="D", array=np.array([]))], name="NONE"),
        fits.ImageHDU(np.arange(6, dtype=np.uint16).reshape(2, 3), name="U16"),
    ]).writeto(f)
    prof, ns = profile_and_load(f)
    arrays = {a.name: a for a in prof.arrays}
    assert arrays["COMP"].sample[:3] == [0.0, 1.0, 2.0] and arrays["U16"].dtype == "uint16"
    (empty,) = prof.tables
    assert empty.n_rows == 0 and [c.name for c in empty.columns] == ["A"] and "no rows" in empty.notes[0]
    assert prof.loader_check is not None and prof.loader_check.verified, prof.loader_check
    assert ns["data"]["U16"].dtype == np.uint16


def test_a_file_cut_in_its_second_hdu_keeps_the_first(tmp_path: Path) -> None:
    whole = tmp_path / "whole.fits"
    fits.HDUList([fits.PrimaryHDU(np.arange(10.0)), fits.ImageHDU(np.arange(2000.0), name="B")]).writeto(whole)
    cut = tmp_path / "cut.fits"
    cut.write_bytes(whole.read_bytes()[:2880 * 2 + 1000])
    prof = profile_file(cut, tmp_path)
    assert prof.status == "ok" and [a.name for a in prof.arrays] == ["PRIMARY"]
