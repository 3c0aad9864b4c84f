"""NASA CDF via cdflib: global attributes, variables with units and first values; time series
loaded as a DataFrame per epoch, fill values as NaN."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from cdflib.cdfwrite import CDF

from tests.servers.profiling.loading import profile_and_load


def _cdf(path: Path) -> None:
    w = CDF(str(path), cdf_spec={"Compressed": False}, delete=True)
    w.write_globalattrs({"Project": {0: "Solar wind monitor"}, "Source_name": {0: "probe A"}})
    w.write_var(
        {"Variable": "Epoch", "Data_Type": 33, "Num_Elements": 1, "Rec_Vary": True, "Dim_Sizes": []},
        var_attrs={"UNITS": "ns"},
        var_data=np.arange(10, dtype=np.int64) * 10**9 + 631152069184000000,
    )
    w.write_var(
        {"Variable": "B_field", "Data_Type": 45, "Num_Elements": 1, "Rec_Vary": True, "Dim_Sizes": [3]},
        var_attrs={"UNITS": "nT", "CATDESC": "magnetic field vector"},
        var_data=np.arange(30, dtype=float).reshape(10, 3),
    )
    w.close()


def test_cdf_variables_and_attributes(tmp_path: Path) -> None:
    f = tmp_path / "wind.cdf"
    _cdf(f)
    prof, ns = profile_and_load(f)
    assert prof.status == "ok" and prof.format == "cdf" and prof.kind == "array"
    assert prof.attributes["Project"] == "Solar wind monitor"
    arrays = {a.name: a for a in prof.arrays}
    assert arrays["B_field"].shape == [10, 3] and arrays["B_field"].attributes["UNITS"] == "nT"
    assert arrays["B_field"].sample[:3] == [0.0, 1.0, 2.0]
    assert "first_times" in arrays["Epoch"].attributes
    assert "Solar wind monitor" in prof.summary and "B_field [nT]" in prof.summary
    df = ns["data"]
    assert list(df.columns) == ["Epoch", "B_field_0", "B_field_1", "B_field_2"] and len(df) == 10
    assert str(df["Epoch"].iloc[0]).startswith("2020-01-01") and df["B_field_2"].iloc[1] == 5.0
    assert prof.loader_check.verified


def _var(w: CDF, name: str, data_type: int, data: np.ndarray, dims: list[int], **attrs) -> None:
    w.write_var({"Variable": name, "Data_Type": data_type, "Num_Elements": 1 if data_type != 51 else len(data[0]),
                 "Rec_Vary": bool(attrs.pop("rec_vary", True)), "Dim_Sizes": dims}, var_attrs=attrs, var_data=data)


def test_time_series_per_epoch_with_fill_values_and_labels(tmp_path: Path) -> None:
    """Two cadences (an epoch each): a DataFrame per epoch. A vector's components are named by
    the labels its LABL_PTR_1 points to; its fill value is NaN; a spectrum stays out of the frames."""
    f = tmp_path / "mag.cdf"
    w = CDF(str(f), cdf_spec={"Compressed": False}, delete=True)
    start = 631152069184000000
    _var(w, "Epoch", 33, np.arange(6, dtype=np.int64) * 60 * 10**9 + start, [])
    _var(w, "Epoch_hr", 33, np.arange(2, dtype=np.int64) * 3600 * 10**9 + start, [])
    _var(w, "labels", 51, np.array(["Bx GSE", "By GSE", "Bz GSE"]), [3], rec_vary=False)
    b = np.arange(18, dtype=np.float32).reshape(6, 3)
    b[2] = -1e31
    _var(w, "B", 21, b, [3], DEPEND_0="Epoch", LABL_PTR_1="labels", FILLVAL=np.float32(-1e31), UNITS="nT")
    _var(w, "quality", 4, np.array([0, 1, 0, -2147483648, 0, 0], dtype=np.int32), [], DEPEND_0="Epoch",
         FILLVAL=np.int32(-2147483648))
    _var(w, "spectrum", 21, np.ones((6, 40), dtype=np.float32), [40], DEPEND_0="Epoch")
    _var(w, "density", 45, np.array([5.5, 6.5]), [], DEPEND_0="Epoch_hr")
    w.close()
    prof, ns = profile_and_load(f)
    assert prof.loader_check.verified, prof.loader_check.reasons
    frames = ns["data"]
    assert set(frames) == {"Epoch", "Epoch_hr"}
    minute = frames["Epoch"]
    assert list(minute.columns) == ["Epoch", "Bx GSE", "By GSE", "Bz GSE", "quality"] and len(minute) == 6
    assert minute["Bx GSE"].isna().tolist() == [False, False, True, False, False, False]
    assert minute["quality"].isna().sum() == 1 and minute["quality"].max() == 1
    assert frames["Epoch_hr"]["density"].tolist() == [5.5, 6.5]
    assert "spectrum" in prof.loader


def test_without_an_epoch_every_variable_by_name(tmp_path: Path) -> None:
    f = tmp_path / "grid.cdf"
    w = CDF(str(f), cdf_spec={"Compressed": False}, delete=True)
    _var(w, "height", 45, np.arange(4, dtype=float), [])
    w.close()
    prof, ns = profile_and_load(f)
    assert prof.loader_check.verified and ns["data"]["height"].tolist() == [0.0, 1.0, 2.0, 3.0]
