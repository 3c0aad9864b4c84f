"""Geodata via pyogrio: layers, CRS, fields and first features; shapefile parts."""

from __future__ import annotations

from pathlib import Path

import geopandas as gpd
import shapely

from lakeboard.servers.profiling import profile_file
from tests.servers.profiling.loading import profile_and_load


def _points(n: int) -> gpd.GeoDataFrame:
    return gpd.GeoDataFrame(
        {
            "name": [f"site {i}" for i in range(n)],
            "kind": [["well", "spring"][i % 2] for i in range(n)],
            "depth": range(n),
        },
        geometry=[shapely.Point(10 + i * 0.1, 50 + i * 0.1) for i in range(n)],
        crs="EPSG:4326",
    )


def test_geopackage_layers(tmp_path: Path) -> None:
    f = tmp_path / "sites.gpkg"
    _points(12).to_file(f, layer="wells")
    zones = gpd.GeoDataFrame(
        {"zone": ["a", "b"]}, geometry=[shapely.box(0, 0, 1, 1), shapely.box(1, 1, 2, 2)], crs="EPSG:3857"
    )
    zones.to_file(f, layer="zones")
    prof, ns = profile_and_load(f)
    assert prof.status == "ok" and prof.kind == "geo" and prof.format == "geo"
    layers = {t.name: t for t in prof.tables}
    assert set(layers) == {"wells", "zones"}
    wells = layers["wells"]
    assert wells.n_rows == 12 and wells.options["geometry_type"] == "Point"
    assert [c.name for c in wells.columns] == ["name", "kind", "depth", "geometry"]
    assert set(next(c for c in wells.columns if c.name == "kind").top_values) == {"well", "spring"}
    assert wells.sample_rows[0]["geometry"].startswith("POINT")
    assert "EPSG:4326" in prof.attributes["crs"]
    assert set(ns["data"]) == {"wells", "zones"} and len(ns["data"]["wells"]) == 12


def test_geojson_and_shapefile(tmp_path: Path) -> None:
    gj = tmp_path / "sites.geojson"
    _points(5).to_file(gj, driver="GeoJSON")
    shp = tmp_path / "sites.shp"
    _points(7).to_file(shp)
    p1, ns1 = profile_and_load(gj)
    p2, ns2 = profile_and_load(shp)
    assert p1.tables[0].n_rows == 5 and len(ns1["data"]) == 5
    assert p2.tables[0].n_rows == 7 and len(ns2["data"]) == 7
    dbf = profile_file(tmp_path / "sites.dbf", tmp_path)
    assert dbf.status == "skipped" and "sites.shp" in dbf.reason


def test_geojson_under_a_json_name(tmp_path: Path) -> None:
    f = tmp_path / "areas.json"
    _points(3).to_file(f, driver="GeoJSON")
    prof, ns = profile_and_load(f)
    assert prof.format == "geo" and len(ns["data"]) == 3


def test_unreadable_geodata(tmp_path: Path) -> None:
    f = tmp_path / "broken.gpkg"
    f.write_bytes(b"SQLite format 3\x00" + b"\x00" * 200)
    prof = profile_file(f, tmp_path)
    assert prof.status == "unreadable" and prof.reason


def test_numbers_a_kml_leaves_empty_are_missing_not_zero(tmp_path: Path) -> None:
    """An ArcGIS KML export: a typed field whose <SimpleData> is empty for some fires. GDAL reads
    those as 0 ("0% contained"); the profile and the loader read them as missing."""
    marks = []
    for i in range(20):
        value = "" if i % 5 == 0 else str(10 * (i % 4))
        flag = "" if i % 4 == 1 else ["true", "false"][i % 2]
        marks.append(f'<Placemark><name>Fire {i}</name><ExtendedData><SchemaData schemaUrl="#s">'
                     f'<SimpleData name="Contained">{value}</SimpleData><SimpleData name="Acres">{i * 7}</SimpleData>'
                     f'<SimpleData name="Mapped">{flag}</SimpleData>'
                     f'</SchemaData></ExtendedData><Point><coordinates>-{110 + i * 0.1},{40 + i * 0.05}</coordinates></Point></Placemark>')
    f = tmp_path / "perimeters.kml"
    f.write_text('<?xml version="1.0" encoding="UTF-8"?><kml xmlns="http://www.opengis.net/kml/2.2"><Document>'
                 '<Schema name="s" id="s"><SimpleField name="Contained" type="int"/><SimpleField name="Acres" type="int"/>'
                 '<SimpleField name="Mapped" type="bool"/>'
                 "</Schema><Folder><name>fires</name>" + "".join(marks) + "</Folder></Document></kml>")
    prof, ns = profile_and_load(f)
    gdf = ns["data"]
    assert gdf["Contained"].isna().sum() == 4 and (gdf["Contained"] == 0).sum() == 4  # reported zeros stay
    assert gdf["Acres"].notna().all()
    assert gdf["Mapped"].isna().sum() == 5 and (gdf["Mapped"] == False).sum() == 5  # noqa: E712
    assert prof.loader_check.verified


def test_a_kmz_a_shapefile_in_a_zipped_folder_and_geoparquet(tmp_path: Path) -> None:
    """Google Earth's zipped KML, a city portal's zip of a folder holding a shapefile, and a
    GeoParquet file are read as geographic data, each by what its content is."""
    import zipfile

    kml = tmp_path / "doc.kml"
    _points(6).to_file(kml, driver="KML")
    kmz = tmp_path / "stops.kmz"
    with zipfile.ZipFile(kmz, "w") as z:
        z.write(kml, "doc.kml")
    folder = tmp_path / "zones"
    folder.mkdir()
    _points(9).to_file(folder / "zones.shp")
    zipped = tmp_path / "zones_shp.zip"
    with zipfile.ZipFile(zipped, "w") as z:
        for f in folder.iterdir():
            z.write(f, f"zones/{f.name}")
    gpq = tmp_path / "points.parquet"
    _points(11).to_parquet(gpq)
    for path, n in ((kmz, 6), (zipped, 9), (gpq, 11)):
        prof, ns = profile_and_load(path)
        assert prof.status == "ok" and prof.kind == "geo", (path.name, prof.reason)
        frame = ns["data"]
        assert len(frame) == n and frame.geometry.iloc[0].geom_type == "Point", path.name
        assert prof.loader_check.verified, path.name


def test_openstreetmap_xml_is_read_as_points_and_lines(tmp_path: Path) -> None:
    """An OSM extract (nodes with tags, ways of node references): GDAL's OSM driver makes the tagged
    nodes points and the ways lines; read as records, the ways' shapes and untagged nodes were lost."""
    nodes = [f'<node id="{i}" lat="45.5{i:02d}" lon="-122.6{i:02d}" version="1">'
             + (f'<tag k="amenity" v="cafe"/><tag k="name" v="Cafe {i}"/>' if i % 4 == 0 else "") + "</node>"
             for i in range(40)]
    ways = [f'<way id="{1000 + w}" version="1">' + "".join(f'<nd ref="{w * 5 + k}"/>' for k in range(5))
            + f'<tag k="highway" v="residential"/><tag k="name" v="Street {w}"/></way>' for w in range(6)]
    f = tmp_path / "extract.xml"  # named .xml: its <osm> root says what it is
    f.write_text('<?xml version="1.0" encoding="UTF-8"?>\n<osm version="0.6" generator="test">\n'
                 + "\n".join(nodes + ways) + "\n</osm>\n")
    prof, ns = profile_and_load(f)
    assert prof.kind == "geo" and {"points", "lines"} <= {t.name for t in prof.tables}
    layers = ns["data"]
    assert len(layers["points"]) == 10 and len(layers["lines"]) == 6
    assert set(layers["lines"]["name"]) == {f"Street {w}" for w in range(6)}
    assert prof.loader_check.verified
