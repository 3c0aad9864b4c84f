"""FITS files via astropy: each HDU as a table (binary and ASCII tables) or an array (images).

The headers say what the file holds (OBJECT, TELESCOP, INSTRUME, EXTNAME, BUNIT); the
structural keywords (NAXIS, TFORM ...) are left out. The file is memory-mapped: a table's
first rows and an image's first values are read, never a whole HDU. A table's columns of
more than one value a row (a spectrum in a cell) are listed in its notes and left out of
the table, as the loader leaves them out of its DataFrame.
"""

from __future__ import annotations

import re
import warnings
from pathlib import Path
from typing import Any

from lakeboard.schemas.profiles import ArrayProfile, FileProfile, TableProfile
from lakeboard.servers.profiling.column_stats import json_value, profile_frame, unique_name, value_text
from lakeboard.servers.profiling.detect import Detection

MAX_HDUS = 50
SAMPLE_ROWS = 2000
SAMPLE_VALUES = 8
MAX_KEYWORDS = 60
_STRUCTURAL = re.compile(
    r"^(SIMPLE|BITPIX|NAXIS\d*|EXTEND|PCOUNT|GCOUNT|XTENSION|TFIELDS|T(TYPE|FORM|UNIT|DIM|NULL|SCAL|ZERO|DISP|BCOL)\d+"
    r"|BSCALE|BZERO|BLANK|CHECKSUM|DATASUM|COMMENT|HISTORY|)$"
)


def profile(path: Path, prof: FileProfile, det: Detection) -> None:
    from astropy.io import fits

    prof.format = "fits"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # astropy warns of every non-standard keyword
        try:
            hdul = fits.open(path, memmap=True, lazy_load_hdus=True)
        except (OSError, ValueError, TypeError, IndexError) as e:
            prof.status, prof.reason = "unreadable", f"not a readable FITS file (truncated or corrupt?): {value_text(str(e), 200)}"
            return
        with hdul:
            names: set[str] = set()
            try:
                for i, hdu in enumerate(hdul):
                    if i >= MAX_HDUS:
                        prof.attributes["hdus"] = f"more than {MAX_HDUS} (first {MAX_HDUS} profiled)"
                        break
                    keywords = _keywords(hdu.header)
                    if i == 0:
                        prof.attributes.update(keywords)
                    keywords.pop("EXTNAME", None)  # it names the table or the array
                    # several extensions may share an EXTNAME (SCI, SCI, ...)
                    _hdu(path, i, hdu, unique_name(_hdu_name(i, hdu.header), names), keywords, prof)
            except Exception as e:  # noqa: BLE001 - astropy raises many kinds on a damaged HDU: it ends the walk, not the profile
                prof.attributes["error"] = f"HDU {len(names)} and those after it could not be read: {value_text(str(e), 200)}"
    prof.kind = "table" if prof.tables else "array"
    if not prof.tables and not prof.arrays:
        if "error" in prof.attributes:
            prof.status, prof.reason = "unreadable", prof.attributes["error"]
        else:
            prof.status, prof.reason = "empty", "the FITS file holds no table and no image data"
        return
    title = next((prof.attributes[k] for k in ("OBJECT", "TITLE", "TELESCOP") if prof.attributes.get(k)), "")
    parts = [f"{t.name} (table, {t.n_rows} rows: {', '.join(c.name for c in t.columns[:6])})" for t in prof.tables[:5]]
    parts += [f"{a.name} (image {tuple(a.shape)} {a.dtype})" for a in prof.arrays[:5]]
    prof.summary = f"FITS file{' (' + title[:100] + ')' if title else ''}: " + "; ".join(parts)


def _hdu_name(i: int, header: Any) -> str:
    """An HDU's name: its EXTNAME, PRIMARY for the first, HDU<i> for an unnamed extension."""
    name = str(header.get("EXTNAME", "") or "").strip()
    return name or ("PRIMARY" if i == 0 else f"HDU{i}")


def _keywords(header: Any) -> dict[str, str]:
    out: dict[str, str] = {}
    for key, value in header.items():
        if len(out) >= MAX_KEYWORDS:
            break
        if _STRUCTURAL.match(key) or value is None or isinstance(value, bool):
            continue
        out[key] = value_text(value, 200)
    return out


def _hdu(path: Path, i: int, hdu: Any, name: str, keywords: dict[str, str], prof: FileProfile) -> None:
    """`keywords`: the HDU's header less its structural keywords and its name."""
    from astropy.io import fits

    if isinstance(hdu, (fits.BinTableHDU, fits.TableHDU)):
        prof.tables.append(_table(i, hdu, name, keywords))
    elif getattr(hdu, "shape", ()) and hdu.header.get("NAXIS", 0):
        prof.arrays.append(_image(path, i, hdu, name, keywords))


def _table(i: int, hdu: Any, name: str, keywords: dict[str, str]) -> TableProfile:
    from astropy.table import Table

    tp = TableProfile(name=name, options={"hdu": i}, n_rows=int(hdu.header.get("NAXIS2", 0)), n_rows_exact=True)
    data = hdu.data
    if data is None:
        tp.notes.append("the table has no columns")
        return tp
    if not len(data):
        tp.notes.append("the table has no rows")
    table = Table(data[:SAMPLE_ROWS])  # scaled (TSCAL, TZERO) and logical columns as the loader gets them
    flat = [c for c in table.colnames if table[c].ndim <= 1]
    wide = [f"{c} {tuple(table[c].shape[1:])}" for c in table.colnames if table[c].ndim > 1]
    if wide:
        tp.notes.append("columns of several values a row, left out of the table: " + ", ".join(wide[:20]))
    # from the header: reading `hdu.columns` once the data is mapped makes astropy copy whole columns at close
    header = hdu.header
    units = [f"{header.get(f'TTYPE{n}')} [{header[f'TUNIT{n}']}]"
             for n in range(1, int(header.get("TFIELDS", 0)) + 1) if header.get(f"TUNIT{n}")]
    if units:
        tp.notes.append("units: " + ", ".join(units[:40]))
    tp.notes += [f"{k}: {v}" for k, v in keywords.items()][:10]
    tp.columns, tp.sample_rows = profile_frame(table[flat].to_pandas())
    return tp


def _image(path: Path, i: int, hdu: Any, name: str, keywords: dict[str, str]) -> ArrayProfile:
    import numpy as np
    from astropy.io import fits

    shape = [int(s) for s in hdu.shape]
    bitpix = int(hdu.header.get("BITPIX", -64))
    ap = ArrayProfile(name=name, shape=shape, dtype=_BITPIX.get(bitpix, "float64"), attributes={"hdu": str(i)})
    ap.attributes.update(keywords)
    first_values = (0,) * (len(shape) - 1) + (slice(0, SAMPLE_VALUES),)
    try:
        if any(k in hdu.header for k in ("BSCALE", "BZERO", "BLANK")):
            # a scaled image has no section in a memory-mapped file; unmapped, a section still reads only its bytes
            with fits.open(path, memmap=False, lazy_load_hdus=True) as unmapped:
                first = np.atleast_1d(unmapped[i].section[first_values])
        else:
            first = np.atleast_1d(hdu.section[first_values])
    except (OSError, ValueError, TypeError, IndexError, AttributeError) as e:  # a compressed image without sections
        ap.attributes["error"] = value_text(str(e), 200)
        return ap
    ap.dtype = str(first.dtype.newbyteorder("="))  # as the loader gets it: a scaled image (BSCALE, BZERO) in floats
    ap.sample = [json_value(v) for v in first.tolist()]
    return ap


_BITPIX = {8: "uint8", 16: "int16", 32: "int32", 64: "int64", -32: "float32", -64: "float64"}
