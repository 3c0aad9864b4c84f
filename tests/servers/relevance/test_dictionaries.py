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
    assert "pilot/tariffs.csv" not in links.closest  # a table with named columns needs no README to be read
    assert links.beside["pilot/tariffs.csv"] == ["pilot/README.txt"]  # but it says what the folder holds


def test_a_document_beside_named_tables_says_what_they_hold_when_it_is_a_readme_of_a_small_folder_or_names_them():
    from lakeboard.schemas.profiles import FileProfile
    from lakeboard.servers.relevance.dictionaries import README_FOLDER_TABLES, link_dictionaries
    from tests.servers.relevance.conftest import table_profile

    def table(path):
        return table_profile(path, {"season": ["1", "2"], "count": ["5", "9"]})

    towns = ["ashby", "barton", "colby", "dunmore", "elsing", "fenwick", "garth", "holme", "irby", "jarrow", "kelso"]
    big = [table(f"big/{town}.csv") for town in towns[:README_FOLDER_TABLES + 1]]
    docs = [FileProfile(path=f"{folder}/README.md", format="markdown", kind="document", text=text)
            for folder, text in (("task", "Bike rentals of a city scheme."), ("big", "Rentals per town; dunmore is the pilot."))]
    notes = FileProfile(path="task/history.txt", format="text", kind="document", text="How trips.csv was collected.")
    links = link_dictionaries([table("task/trips.csv"), table("task/weather.csv"), *big, *docs, notes])
    assert links.beside["task/trips.csv"] == ["task/README.md", "task/history.txt"]  # its README, and a text naming it
    assert links.beside["task/weather.csv"] == ["task/README.md"]
    assert links.beside["big/dunmore.csv"] == ["big/README.md"]  # named in a README of a folder of many tables
    assert "big/elsing.csv" not in links.beside  # a README of many tables that does not name it
    assert links.closest == {}  # none of them is needed to read a table, so none is served with one


def test_a_document_beside_the_data_is_never_its_rival_and_not_served_with_it():
    from lakeboard.schemas.profiles import FileProfile
    from lakeboard.servers.relevance.dictionaries import link_dictionaries
    from lakeboard.servers.relevance.file_facts import file_facts
    from tests.servers.relevance.conftest import table_profile

    data = table_profile("task/data.csv", {"season": ["1", "2"], "cnt": ["5", "9"]})
    readme = FileProfile(path="task/README.md", format="markdown", kind="document", text="Bike rentals of a city.")
    profiles = [data, readme]
    facts = {f.path: f for f in file_facts(profiles, [], link_dictionaries(profiles))}
    assert facts["task/README.md"].describes == ["task/data.csv"]
    assert facts["task/data.csv"].described_by == []
