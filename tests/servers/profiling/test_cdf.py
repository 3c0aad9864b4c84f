"""NASA CDF via cdflib: global attributes, variables with units and first values."""

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
    assert ns["data"]["B_field"].shape == (10, 3)
