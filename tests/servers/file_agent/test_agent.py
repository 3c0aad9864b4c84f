"""FileAgent: a request ranked for can_help is not ranked again for respond."""

from __future__ import annotations

from lakeboard.common.request_embedding import request_embedding
from lakeboard.schemas.clusters import ClusterConfig
from lakeboard.schemas.messages import BlackboardRequest
from lakeboard.servers.file_agent.agent import _RANKINGS_KEPT, FileAgent


def test_respond_reuses_the_ranking_can_help_made_and_old_ones_are_dropped(demo_config):
    config = ClusterConfig.model_validate_json((demo_config / "clusters.json").read_text())
    agent = FileAgent(config, config.clusters[0].name)
    request = "daily rainfall by town"
    first = agent.rank(request)
    agent.decide(BlackboardRequest(request=request))
    agent.respond(BlackboardRequest(request=request))
    assert agent.rank(request) is first
    # the host's vector is another key: ranked once, then kept
    sent = request_embedding(request)
    with_vector = agent.rank(request, sent)
    assert with_vector is not first and agent.rank(request, sent) is with_vector
    assert [m.score for m in with_vector.matches] == [m.score for m in first.matches]
    for i in range(_RANKINGS_KEPT):
        agent.rank(f"another request {i}")
    assert agent.rank(request) is not first, "only the last few rankings are kept"


def _daily(start: str, days: int) -> str:
    import datetime as dt

    first = dt.date.fromisoformat(start)
    rows = [f"{first + dt.timedelta(days=i)},{(i * 7) % 13 / 10:.1f}" for i in range(days)]
    return "date,rain_mm\n" + "\n".join(rows) + "\n"


def test_a_period_takes_the_months_of_a_series_but_not_the_other_places_of_a_family(tmp_path):
    from lakeboard.servers.indexing.build import index_lake

    lake = tmp_path / "lake"
    (lake / "towns").mkdir(parents=True)
    (lake / "monthly").mkdir()
    for town in ("ashford", "barton", "colby", "dunmore", "elsing"):
        (lake / "towns" / f"rain_{town}.csv").write_text(_daily("2023-01-01", 365))
    for month in range(1, 7):
        (lake / "monthly" / f"gauge_2022-{month:02d}.csv").write_text(_daily(f"2022-{month:02d}-01", 28))
    config_dir = index_lake(lake, name="rain", out=tmp_path / "configs").config_dir
    config = ClusterConfig.model_validate_json((config_dir / "clusters.json").read_text())
    agents = [FileAgent(config, c.name) for c in config.clusters]

    def files(request: str) -> list[str]:
        return [f for a in agents for f in a.respond(BlackboardRequest(request=request)).files]

    town = files("daily rain at Barton in March 2023")
    assert "towns/rain_barton.csv" in town
    assert len([f for f in town if f.startswith("towns/")]) < 5, "the other towns cover March 2023 too, but were not asked for"
    series = files("gauge readings from February to April 2022")
    assert {"monthly/gauge_2022-02.csv", "monthly/gauge_2022-03.csv", "monthly/gauge_2022-04.csv"} <= set(series)


def test_a_decline_names_the_best_files_that_share_the_request_s_words(demo_config):
    config = ClusterConfig.model_validate_json((demo_config / "clusters.json").read_text())
    cluster = next(c.name for c in config.clusters if "districts/population_2024.csv" in c.files)
    agent = FileAgent(config, cluster)
    penguins = agent.decide(BlackboardRequest(request="population of penguins"))
    assert not penguins.can_help
    assert penguins.closest and penguins.closest[0].path == "districts/population_2024.csv"
    assert all(m.matched_terms for m in penguins.closest)
    assert agent.decide(BlackboardRequest(request="unicorns on Mars")).closest == []


def test_data_is_chosen_over_an_answer_template_whose_columns_echo_the_request(tmp_path):
    from lakeboard.servers.indexing.build import index_lake

    lake = tmp_path / "lake"
    (lake / "task").mkdir(parents=True)
    rows = [f"2023-01-{i % 28 + 1:02d},{('Oslo', 'Rome', 'Lima')[i % 3]},{(i * 7) % 31 - 5}.5" for i in range(90)]
    (lake / "task" / "observations.csv").write_text("date,city,temp_c\n" + "\n".join(rows) + "\n")
    (lake / "task" / "submission.csv").write_text("city,average_temperature\nOslo,0\nRome,0\nLima,0\n")
    config_dir = index_lake(lake, name="task", out=tmp_path / "configs", workers=0).config_dir
    config = ClusterConfig.model_validate_json((config_dir / "clusters.json").read_text())
    (agent,) = [FileAgent(config, c.name) for c in config.clusters]
    request = BlackboardRequest(request="average temperature per city")
    roles = {m.path: m.role for m in agent.rank(request.request).matches}
    assert roles == {"task/submission.csv": "template", "task/observations.csv": "data"}
    decision = agent.decide(request)
    assert decision.can_help and decision.reason.startswith("task/observations.csv")
    assert agent.respond(request).files == ["task/observations.csv"]


def test_the_readme_of_a_task_folder_leads_to_its_data_and_is_not_chosen_in_its_place(tmp_path):
    from lakeboard.servers.indexing.build import index_lake

    lake = tmp_path / "lake"
    tasks = {"t1": ("Bike rentals of a city bike-share scheme.", "season,hr,cnt"),
             "t2": ("Quality ratings of wines from one winery.", "acidity,alcohol,quality"),
             "t3": ("Cancellations of hotel bookings.", "hotel,lead_time,is_canceled")}
    for folder, (readme, header) in tasks.items():
        (lake / folder).mkdir(parents=True)
        (lake / folder / "README.md").write_text(f"# Task\n\n{readme} Each row is one record.\n")
        rows = [",".join(str((i * (j + 3)) % 17) for j in range(3)) for i in range(40)]
        (lake / folder / "data.csv").write_text(header + "\n" + "\n".join(rows) + "\n")
    config_dir = index_lake(lake, name="tasks", out=tmp_path / "configs", workers=0).config_dir
    config = ClusterConfig.model_validate_json((config_dir / "clusters.json").read_text())
    agents = [FileAgent(config, c.name) for c in config.clusters]
    answers = [a.respond(BlackboardRequest(request="Which season has the most bike rentals?")) for a in agents]
    assert [f for a in answers if a.can_help for f in a.files] == ["t1/data.csv"]
