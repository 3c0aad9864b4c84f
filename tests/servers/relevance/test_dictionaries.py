def test_a_readme_beside_headerless_tables_describes_them():
    from lakeboard.schemas.profiles import FileProfile
    from lakeboard.servers.relevance.dictionaries import link_dictionaries
    from tests.servers.relevance.conftest import table_profile

    moves = [table_profile(f"pilot/moves_{y}.txt", {"0": ["A1", "A2"], "1": ["20210101", "20210102"]}) for y in (2021, 2022)]
    readme = FileProfile(path="pilot/README.txt", format="text", kind="document",
                         text="Pilot moves: one file per year. Fields: act number, boarding date, pilot code.")
    other_doc = FileProfile(path="elsewhere/README.txt", format="text", kind="document", text="unrelated")
    named = table_profile("pilot/tariffs.csv", {"fee": ["1", "2"], "class": ["a", "b"]})
    links = link_dictionaries([*moves, readme, other_doc, named])
    assert links.closest["pilot/moves_2021.txt"] == ["pilot/README.txt"]
    assert "pilot/tariffs.csv" not in links.closest  # a table with named columns needs no README
