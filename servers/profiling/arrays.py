"""NumPy .npy and .npz: keys, shapes, dtypes and a few values, without loading big arrays."""

from __future__ import annotations

import zipfile
from pathlib import Path
from typing import IO, Any

from lakeboard.schemas.profiles import ArrayProfile, FileProfile
from lakeboard.servers.profiling.column_stats import json_value
from lakeboard.servers.profiling.detect import Detection

SAMPLE_VALUES = 8
MAX_ARRAYS = 200


def profile(path: Path, prof: FileProfile, det: Detection) -> None:
    prof.kind = "array"
    if det.format == "npz":
        _npz(path, prof)
    else:
        _npy(path, prof)


def _header(f: IO[bytes]) -> tuple[tuple[int, ...], Any, bool]:
    import numpy as np

    version = np.lib.format.read_magic(f)
    if version == (1, 0):
        shape, fortran, dtype = np.lib.format.read_array_header_1_0(f)
    else:
        shape, fortran, dtype = np.lib.format.read_array_header_2_0(f)
    return shape, dtype, fortran


def _sample(f: IO[bytes], shape: tuple[int, ...], dtype: Any) -> list[Any]:
    """First values in storage order, read straight from the stream."""
    import numpy as np

    if dtype.hasobject:
        return []
    total = 1
    for s in shape:
        total *= s
    n = min(SAMPLE_VALUES, total)
    if not n or not dtype.itemsize:
        return []
    raw = f.read(n * dtype.itemsize)
    vals = np.frombuffer(raw, dtype=dtype, count=len(raw) // dtype.itemsize)
    return [json_value(v) for v in vals.tolist()]


def _array_profile(name: str, f: IO[bytes]) -> ArrayProfile:
    shape, dtype, fortran = _header(f)
    ap = ArrayProfile(name=name, shape=list(shape), dtype=str(dtype))
    if dtype.hasobject:
        ap.attributes["note"] = "object array: np.load needs allow_pickle=True (only for files you trust)"
    else:
        ap.sample = _sample(f, shape, dtype)
        if fortran:
            ap.attributes["order"] = "fortran"
    if dtype.names:
        ap.attributes["fields"] = ", ".join(dtype.names)
    return ap


def _npy(path: Path, prof: FileProfile) -> None:
    prof.format = "npy"
    with open(path, "rb") as f:
        try:
            ap = _array_profile(path.stem, f)
        except ValueError as e:
            prof.status = "unreadable"
            prof.reason = f"not a valid .npy file: {e}"
            return
    _check_size(path, prof, [ap], path.stat().st_size)
    prof.arrays = [ap]
    prof.summary = f"NumPy array {ap.name}: shape {tuple(ap.shape)}, dtype {ap.dtype}"


def _check_size(path: Path, prof: FileProfile, arrays: list[ArrayProfile], size: int) -> None:
    import numpy as np

    need = 0
    for a in arrays:
        try:
            n = int(np.prod(a.shape)) * np.dtype(a.dtype).itemsize
        except TypeError:
            continue
        need += n
    if need > size + 128 * len(arrays) and prof.format == "npy":
        prof.status = "unreadable"
        prof.reason = f"the .npy file is truncated: the header promises {need:,} bytes of data, the file has {size:,}"


def _npz(path: Path, prof: FileProfile) -> None:
    prof.format = "npz"
    try:
        z = zipfile.ZipFile(path)
    except zipfile.BadZipFile as e:
        prof.status = "unreadable"
        prof.reason = f"not a valid .npz archive (damaged zip): {e}"
        return
    with z:
        infos = [i for i in z.infolist() if i.filename.endswith(".npy")]
        for info in infos[:MAX_ARRAYS]:
            name = info.filename[: -len(".npy")]
            try:
                with z.open(info) as f:
                    prof.arrays.append(_array_profile(name, f))
            except (ValueError, zipfile.BadZipFile, OSError, EOFError) as e:
                prof.arrays.append(
                    ArrayProfile(name=name, shape=[], dtype="unknown", attributes={"error": str(e)[:200]})
                )
        compressed = any(i.compress_type != zipfile.ZIP_STORED for i in infos)
    if not prof.arrays:
        prof.status = "empty"
        prof.reason = "the .npz archive holds no arrays"
        return
    if all(a.dtype == "unknown" for a in prof.arrays):
        prof.status = "unreadable"
        prof.reason = "no array in the .npz archive could be read: " + prof.arrays[0].attributes.get("error", "")
    prof.attributes["compressed"] = str(compressed).lower()
    if len(infos) > MAX_ARRAYS:
        prof.attributes["arrays"] = f"{len(infos)} (first {MAX_ARRAYS} profiled)"
    desc = ", ".join(f"{a.name} {tuple(a.shape)} {a.dtype}" for a in prof.arrays[:6])
    more = f", ... (+{len(prof.arrays) - 6})" if len(prof.arrays) > 6 else ""
    prof.summary = f"NumPy archive with {len(infos)} arrays: {desc}{more}"
