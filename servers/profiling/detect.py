"""What a file really is: its extension, checked against its first bytes.

Lakes hold files whose names lie (an HTML page saved as .csv, a workbook named .csv,
junk named .csv). Content wins over the extension; the mismatch is reported so a person
sees it in the profile.
"""

from __future__ import annotations

import re
import zipfile
from dataclasses import dataclass
from pathlib import Path

from lakeboard.servers.profiling import ipac
from lakeboard.servers.profiling.text_sample import (SNIFF_BYTES, compression_of, detect_encoding, looks_binary,
                                                     open_compressed, read_head)

# extension -> (format, reader module)
_EXTENSION_FORMATS: dict[str, tuple[str, str]] = {
    ".csv": ("csv", "delimited"),
    ".tsv": ("tsv", "delimited"),
    ".tab": ("tsv", "delimited"),
    ".psv": ("csv", "delimited"),
    ".ssv": ("csv", "delimited"),
    ".txt": ("text", "delimited"),
    ".dat": ("text", "delimited"),
    ".data": ("text", "delimited"),
    ".prn": ("text", "delimited"),
    ".asc": ("text", "delimited"),
    ".tle": ("text", "delimited"),  # orbital element sets: delimited.profile reads them by their columns
    ".3le": ("text", "delimited"),
    ".fasta": ("text", "delimited"),  # sequences: delimited.profile reads their records
    ".fa": ("text", "delimited"),
    ".faa": ("text", "delimited"),
    ".fna": ("text", "delimited"),
    ".fas": ("text", "delimited"),
    ".fwf": ("fwf", "delimited"),  # delimited.profile tries it as space-aligned first
    ".xlsx": ("excel", "excel"),
    ".xlsm": ("excel", "excel"),
    ".xltx": ("excel", "excel"),
    ".xltm": ("excel", "excel"),
    ".xls": ("excel", "excel"),
    ".xlsb": ("excel", "excel"),
    ".ods": ("excel", "excel"),
    ".json": ("json", "json_files"),
    ".jsonl": ("jsonl", "json_files"),
    ".ndjson": ("jsonl", "json_files"),
    ".jsonlines": ("jsonl", "json_files"),
    ".geojson": ("geo", "geo"),
    ".topojson": ("geo", "geo"),
    ".gpkg": ("geo", "geo"),
    ".shp": ("geo", "geo"),
    ".fgb": ("geo", "geo"),
    ".gml": ("geo", "geo"),
    ".kml": ("geo", "geo"),
    ".gpx": ("geo", "geo"),
    ".osm": ("geo", "geo"),  # OpenStreetMap XML: GDAL's OSM driver makes its nodes and ways points and lines
    ".dbf": ("geo", "geo"),
    ".parquet": ("parquet", "parquet"),
    ".pq": ("parquet", "parquet"),
    ".parq": ("parquet", "parquet"),
    ".feather": ("feather", "parquet"),
    ".arrow": ("feather", "parquet"),
    ".npy": ("npy", "arrays"),
    ".npz": ("npz", "arrays"),
    ".mat": ("mat", "matlab"),
    ".cdf": ("cdf", "cdf"),
    ".vot": ("votable", "votable"),
    ".votable": ("votable", "votable"),
    ".fits": ("fits", "fits"),
    ".fit": ("fits", "fits"),
    ".fts": ("fits", "fits"),
    ".dta": ("stata", "statistical_packages"),
    ".sav": ("spss", "statistical_packages"),
    ".zsav": ("spss", "statistical_packages"),
    ".por": ("spss", "statistical_packages"),
    ".sas7bdat": ("sas", "statistical_packages"),
    ".xpt": ("sas", "statistical_packages"),
    ".h5": ("hdf5", "hdf5"),
    ".hdf5": ("hdf5", "hdf5"),
    ".he5": ("hdf5", "hdf5"),
    ".nc": ("netcdf", "netcdf"),
    ".nc4": ("netcdf", "netcdf"),
    ".netcdf": ("netcdf", "netcdf"),
    ".zip": ("zip", "archives"),
    ".tar": ("tar", "archives"),
    ".tgz": ("tar", "archives"),
    ".tbz2": ("tar", "archives"),
    ".txz": ("tar", "archives"),
    ".xml": ("xml", "xml_records"),
    ".html": ("html", "html"),
    ".htm": ("html", "html"),
    ".xhtml": ("html", "html"),
    ".pdf": ("pdf", "text_documents"),
    ".docx": ("docx", "text_documents"),
    ".md": ("markdown", "text_documents"),
    ".markdown": ("markdown", "text_documents"),
    ".rst": ("text", "text_documents"),
    ".png": ("image", "images"),
    ".jpg": ("image", "images"),
    ".jpeg": ("image", "images"),
    ".gif": ("image", "images"),
    ".bmp": ("image", "images"),
    ".tif": ("image", "images"),
    ".tiff": ("image", "images"),
    ".webp": ("image", "images"),
    ".svg": ("image", "images"),
}
# Plain text that is not a table: code, configuration, logs.
_TEXT_EXTENSIONS = frozenset(
    ".py .r .sql .sh .bash .js .ts .java .c .h .cpp .go .rs .rb .jl .m .ipynb .toml .ini .cfg .conf "
    ".log .tex .bib .readme .license .rtf .srt .vtt .css".split()
)
SHAPEFILE_SIDECARS = frozenset(
    ".shx .dbf .prj .cpg .sbn .sbx .qix .qmd .atx .ain .aih .ixs .mxs .fbn .fbx .shp.xml".split()
)

_MAGIC: tuple[tuple[bytes, str, str], ...] = (
    (b"PAR1", "parquet", "parquet"),
    (b"ARROW1", "feather", "parquet"),
    (b"\x93NUMPY", "npy", "arrays"),
    (b"MATLAB 5.0 MAT-file", "mat", "matlab"),
    (b"MATLAB 7.3 MAT-file", "mat", "matlab"),  # an HDF5 file after a 512-byte header: matlab.py hands it on
    (b"\xcd\xf3\x00\x01", "cdf", "cdf"),
    (b"\xcd\xf2\x60\x02", "cdf", "cdf"),
    (b"\xcc\xcc\x00\x01", "cdf", "cdf"),
    (b"\x00\x00\xff\xff", "cdf", "cdf"),
    (b"%PDF", "pdf", "text_documents"),
    (b"\x89PNG\r\n\x1a\n", "image", "images"),
    (b"\xff\xd8\xff", "image", "images"),
    (b"GIF87a", "image", "images"),
    (b"GIF89a", "image", "images"),
    (b"II*\x00", "image", "images"),
    (b"MM\x00*", "image", "images"),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "excel", "excel"),
    (b"\x89HDF\r\n\x1a\n", "hdf5", "hdf5"),  # NetCDF-4 files too
    (b"SIMPLE  =", "fits", "fits"),
    (b"<stata_dta>", "stata", "statistical_packages"),
    (b"$FL2", "spss", "statistical_packages"),
    (b"$FL3", "spss", "statistical_packages"),
    (b"HEADER RECORD*******LIB", "sas", "statistical_packages"),  # SAS transport, versions 5 and 8
    (b"CDF\x01", "netcdf", "netcdf"),
    (b"CDF\x02", "netcdf", "netcdf"),
    (b"SQLite format 3\x00", "sqlite", "fallback"),
    # formats named but not read here (fallback.UNREAD_FORMATS says what reads them)
    (b"GRIB", "grib", "fallback"),
    (b"BUFR", "bufr", "fallback"),
    (b"\x0e\x03\x13\x01", "hdf4", "fallback"),
    (b"LASF", "las", "fallback"),
)


# Readers that open the file by its path (random access, memory maps), never through decompression.
_READ_UNCOMPRESSED = frozenset(
    {"excel", "parquet", "arrays", "cdf", "hdf5", "netcdf", "fits", "votable", "statistical_packages", "images", "geo"}
)


@dataclass
class Detection:
    format: str
    reader: str  # module name in lakeboard.servers.profiling
    compression: str | None = None
    note: str | None = None  # e.g. "named .csv but the content is an Excel workbook"


_XML_EXTENSIONS = (".xml", ".kml", ".gml", ".gpx", ".svg", ".osm")  # XML that its own reader takes
_OSM_ROOT = re.compile(r"^(?:<\?xml[^>]*\?>\s*)?(?:<!--.*?-->\s*)*<osm[\s>]", re.S)


def _ext(path: Path) -> str:
    name = path.name.lower()
    if name.endswith(".shp.xml"):
        return ".shp.xml"
    return path.suffix.lower()


def _zip_kind(path: Path) -> tuple[str, str] | None:
    try:
        with zipfile.ZipFile(path) as z:
            names = z.namelist()
    except (zipfile.BadZipFile, OSError, ValueError):
        return None
    lower = [n.lower() for n in names]
    if "xl/workbook.xml" in lower or any(n.startswith("xl/") for n in lower):
        return ("excel", "excel")
    if "word/document.xml" in lower:
        return ("docx", "text_documents")
    if lower and all(n.endswith(".npy") for n in lower):
        return ("npz", "arrays")
    if any(n.endswith(".shp") for n in lower):
        return ("geo", "geo")
    if path.suffix.lower() == ".kmz" and any(n.endswith(".kml") for n in lower):
        return ("geo", "geo")  # Google Earth's zipped KML, which GDAL reads as it is
    if "content.xml" in lower and "mimetype" in lower:
        return ("excel", "excel")  # OpenDocument spreadsheet
    return ("zip", "archives")


def _describe(fmt: str) -> str:
    return {
        "excel": "an Excel workbook",
        "html": "an HTML page",
        "json": "JSON",
        "jsonl": "JSON lines",
        "parquet": "a Parquet file",
        "pdf": "a PDF document",
        "image": "an image",
        "zip": "a zip archive",
        "tar": "a tar archive",
        "xml": "XML",
        "npy": "a NumPy array",
        "npz": "a NumPy archive",
        "grib": "a GRIB file",
        "bufr": "a BUFR file",
        "hdf4": "an HDF4 file",
        "las": "a LAS point cloud",
        "mat": "a MATLAB file",
        "binary": "binary data",
        "text": "plain text",
        "csv": "delimited text",
        "geo": "geographic data",
        "docx": "a Word document",
        "hdf5": "an HDF5 file",
        "netcdf": "a NetCDF file",
        "fits": "a FITS file",
        "votable": "a VOTable (astronomical table XML)",
        "ipac": "an IPAC table",
        "stata": "a Stata data file",
        "spss": "an SPSS data file",
        "sas": "a SAS data file",
    }.get(fmt, fmt)


# a page's own tags, not an XML's <header> or <table_name> (CCSDS orbit messages have <header> and <body>)
_HTML_TAG = re.compile(r"<(?:table|body|head)[\s>]")
# "[Header]" or "[Data],,,": a section of an INI-like sample sheet, not a JSON array (whose first
# word could only be true, false or null)
_SECTION_LINE = re.compile(r"\[\s*(?!(?:true|false|null)\b)[a-z][\w .-]*\]")


def detect(path: Path, head: bytes | None = None) -> Detection:
    """Format and reader for `path`, from its extension and its first bytes."""
    ext = _ext(path)
    if head is None:
        head = read_head(path, SNIFF_BYTES)
    compression = None
    inner_ext = ext
    compressed = compression_of(head)
    if compressed:
        compression, suffixes = compressed
        inner_ext = Path(path.name[: -len(ext)]).suffix.lower() if ext in suffixes else ext
        try:
            with open_compressed(path, compression) as f:
                head = f.read(SNIFF_BYTES)
        except Exception as e:  # noqa: BLE001 - each library raises its own errors for damaged data
            return Detection("binary", "fallback", compression, f"{compression} data that does not decompress ({e})")
    expected = _EXTENSION_FORMATS.get(inner_ext)
    found = _sniff(path, head, inner_ext, compression)
    det = found or Detection(*(expected or ("unknown", "fallback")))
    if compression and det.reader in _READ_UNCOMPRESSED:
        # these readers open the file itself, not a decompressed stream: say so plainly
        return Detection("binary", "fallback", compression,
                         f"{_describe(det.format)} compressed with {compression}: decompress it to read it")
    det.compression = compression
    if found and expected and _family(found.format) != _family(expected[0]) and not det.note:
        det.note = f"named {inner_ext} but the content is {_describe(found.format)}"
    return det


_PICKLE_EXTENSIONS = frozenset({".pkl", ".pickle", ".pck", ".joblib"})


def _pickled(head: bytes, ext: str) -> bool:
    """A Python pickle: PROTO 2-5 first, and a pickle's extension or, from protocol 4, a FRAME next."""
    if len(head) < 3 or head[0] != 0x80 or not 2 <= head[1] <= 5:
        return False
    return ext in _PICKLE_EXTENSIONS or (head[1] >= 4 and head[2] == 0x95)


def _family(fmt: str) -> str:
    # a NetCDF-4 file is an HDF5 file; a VOTable is XML
    return {"csv": "text", "tsv": "text", "fwf": "text", "markdown": "text", "ipac": "text", "jsonl": "json", "netcdf": "hdf5",
            "votable": "xml"}.get(fmt, fmt)


def _sniff(path: Path, head: bytes, ext: str, compression: str | None) -> Detection | None:
    """Detection from content, or None when the content fits the extension's reader."""
    if head.startswith(b"SQLite format 3\x00"):
        if ext == ".gpkg" or head[68:72] in (b"GPKG", b"GP10", b"GP11"):
            return Detection("geo", "geo")  # a GeoPackage is an SQLite file with an application id
    for magic, fmt, reader in _MAGIC:
        if head.startswith(magic):
            if fmt == "cdf" and ext not in (".cdf",) and magic == b"\x00\x00\xff\xff":
                continue  # too weak a signature on its own
            if fmt in ("grib", "bufr", "las") and not looks_binary(head):
                continue  # a word at the start of a text ("GRIB_file,run"), not a signature
            return Detection(fmt, reader)
    if _pickled(head, ext):
        return Detection("pickle", "fallback")
    if head[257:262] == b"ustar":
        return Detection("tar", "archives")  # a tar's header (a compressed one's, decompressed)
    if head[8:12] == b"WEBP" and head.startswith(b"RIFF"):
        return Detection("image", "images")
    if head.startswith(b"BM") and ext == ".bmp":
        return Detection("image", "images")
    # Stata 12 and older (what pandas' to_stata writes by default): a version byte (102-115), the
    # byte order (1, 2), the file type (1), 0; too weak a signature without the name
    if ext == ".dta" and len(head) > 4 and 102 <= head[0] <= 115 and head[1] in (1, 2) and head[2:4] == b"\x01\x00":
        return Detection("stata", "statistical_packages")
    if head.startswith(b"\x00\x00\x27\x0a") and ext == ".shp":
        return Detection("geo", "geo")
    if head.startswith(b"PK\x03\x04") or head.startswith(b"PK\x05\x06"):
        if compression:
            return Detection("binary", "fallback", note=f"a zip archive compressed again ({compression})")
        kind = _zip_kind(path)
        if kind is None and _EXTENSION_FORMATS.get(ext, ("", ""))[1] in ("excel", "text_documents", "arrays", "geo", "archives"):
            return None  # a damaged container: its own reader says what is wrong with it
        return Detection(*(kind or ("binary", "fallback")))
    if not head:
        return None
    if looks_binary(head):
        expected = _EXTENSION_FORMATS.get(ext)
        if expected and expected[1] in ("excel", "geo", "parquet", "arrays", "cdf", "images", "text_documents"):
            return None  # binary formats: their reader checks the content itself
        if ext in SHAPEFILE_SIDECARS:
            return None
        return Detection("binary", "fallback")
    # Text: look at how it starts.
    enc = detect_encoding(head, final=False)
    text = head.decode(enc, errors="replace").lstrip("\ufeff \t\r\n")
    low = text[:2048].lower()
    if text.startswith(("\\", "|")) and ipac.is_ipac(text):
        return Detection("ipac", "ipac")
    if low.startswith("<"):
        if "<votable" in low:  # its <TABLE>, <TR> and <TD> are no HTML
            return Detection("votable", "votable") if ext not in (".vot", ".votable") else None
        if "<html" in low or "<!doctype html" in low:
            return Detection("html", "html")
        # an XML document with a <body> or <header> of its own (CCSDS orbit messages) is no page;
        # a fragment of a page is
        if _HTML_TAG.search(low) and not (low.startswith("<?xml") or ext in _XML_EXTENSIONS):
            return Detection("html", "html")
        if "<svg" in low:
            return Detection("image", "images")
        if _OSM_ROOT.search(low[:1000]):
            return Detection("geo", "geo")
        if ext in _XML_EXTENSIONS:
            return None
        if low.startswith("<?xml"):
            return Detection("xml", "xml_records")
        return Detection("text", "text_documents") if ext not in _EXTENSION_FORMATS else None
    if low.startswith("{") or (low.startswith("[") and not _SECTION_LINE.match(low)):
        if ext in (".geojson", ".topojson"):
            return None
        if ext in (".jsonl", ".ndjson", ".jsonlines"):
            return Detection("jsonl", "json_files")
        if '"featurecollection"' in low.replace(" ", "") or '"type":"feature"' in low.replace(" ", ""):
            return Detection("geo", "geo")
        if ext in (".json", ".csv", ".txt", ".dat", ".tsv", "") or ext not in _EXTENSION_FORMATS:
            return Detection("json", "json_files")
        return None
    if low.startswith("%pdf"):
        return Detection("pdf", "text_documents")
    expected = _EXTENSION_FORMATS.get(ext)
    if ext in (".yaml", ".yml"):
        return Detection("yaml", "json_files")
    if ext in _TEXT_EXTENSIONS:
        return Detection("text", "text_documents")
    if expected is None:
        # Unknown extension, text content: maybe a table, else a document.
        return Detection("text", "delimited")
    if expected[1] in ("excel", "parquet", "arrays", "cdf", "images") and ext != ".svg":
        return Detection("text", "delimited")  # a text file under a binary format's name
    if expected[1] == "json_files":
        return Detection("text", "delimited")  # not JSON after all; sniff as text
    return None
