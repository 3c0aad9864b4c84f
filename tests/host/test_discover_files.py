"""The host's choice across volunteers: the best data file over all partitions, and the next ones shown."""

from lakeboard.host.discover_files import discovery_of
from lakeboard.schemas.board import HelperOutcome, Posting
from lakeboard.schemas.messages import BlackboardRequest, FileAgentResponse, FileMatch, HelpDecision


def _outcome(name: str, matches: list[FileMatch]) -> HelperOutcome:
    decision = HelpDecision(agent_name=name, can_help=True, reason="", confidence=matches[0].score)
    response = FileAgentResponse(agent_name=name, can_help=True, reason="", files=[matches[0].path], matches=matches)
    return HelperOutcome(helper=name, decision=decision, response=response)


def test_the_best_file_over_every_volunteer_then_the_next_data_files_not_chosen():
    posting = Posting(request=BlackboardRequest(request="income of the most populous district"), outcomes=[
        _outcome("a", [FileMatch(path="a/pop.csv", score=0.8), FileMatch(path="a/readme.md", score=0.9, role="dictionary"),
                       FileMatch(path="a/old.csv", score=0.3)]),
        _outcome("b", [FileMatch(path="b/income.html", score=0.75), FileMatch(path="a/pop.csv", score=0.2)]),
    ])
    result = discovery_of(posting)
    assert result.files == ["a/pop.csv"]
    assert [(m.path, m.score) for m in result.ranked_next] == [("b/income.html", 0.75), ("a/old.csv", 0.3)]


def test_discover_prints_the_files_ranked_next_with_their_names_escaped(capsys):
    from lakeboard.host.cli import _print_discovery
    from lakeboard.schemas.discovery_result import DiscoveryResult

    best = FileMatch(path="a/pop.csv", score=0.8)
    _print_discovery(DiscoveryResult(request="income", files=[best.path], matches=[best],
                                     ranked_next=[FileMatch(path="b/in\x1b[2Jcome.html", score=0.75)]))
    out = capsys.readouterr().out
    assert "Ranked next, not chosen: b/in\\x1b[2Jcome.html (0.75)" in out and "\x1b" not in out
    _print_discovery(DiscoveryResult(request="income", files=[best.path], matches=[best],
                                     ranked_next=[FileMatch(path="b/submission.csv", score=0.9, role="template")]))
    assert "Ranked next, not chosen: b/submission.csv (0.90, an answer template)" in capsys.readouterr().out


def test_a_copy_is_named_once_beside_the_file_and_printed_as_the_same_bytes(capsys):
    from lakeboard.host.cli import _print_discovery

    posting = Posting(request=BlackboardRequest(request="fires"), outcomes=[
        _outcome("a", [FileMatch(path="fires.csv", score=0.9, copies=["old/fires_copy.csv"])]),
        _outcome("b", [FileMatch(path="old/fires_copy.csv", score=0.85, copies=["fires.csv"]),
                       FileMatch(path="rain.csv", score=0.4)]),
    ])
    result = discovery_of(posting)
    assert result.files == ["fires.csv"]
    assert [m.path for m in result.ranked_next] == ["rain.csv"]  # the copy is not offered as a rival
    _print_discovery(result)
    assert "fires.csv (the same bytes as old/fires_copy.csv)" in capsys.readouterr().out


def _declined(name: str, closest: list[FileMatch]) -> HelperOutcome:
    decision = HelpDecision(agent_name=name, can_help=False, reason="none of my files", confidence=0.1, closest=closest)
    return HelperOutcome(helper=name, decision=decision)


def test_when_every_agent_declines_their_best_data_files_are_shown_ranked_across_them(capsys):
    from lakeboard.host.cli import _print_discovery

    posting = Posting(request=BlackboardRequest(request="fares of the passengers"), outcomes=[
        _declined("a", [FileMatch(path="a/trips.csv", score=0.3), FileMatch(path="a/notes.md", score=0.5, role="dictionary")]),
        _declined("b", [FileMatch(path="b/fa\x1b[2Jres.csv", score=0.4), FileMatch(path="a/trips.csv", score=0.1)]),
    ])
    result = discovery_of(posting)
    assert result.files == [] and result.ranked_next == []
    assert [(m.path, m.score) for m in result.closest] == [("b/fa\x1b[2Jres.csv", 0.4), ("a/trips.csv", 0.3)]
    _print_discovery(result)
    out = capsys.readouterr().out
    assert "No file of this lake covers the request well enough." in out
    assert "Closest all the same, each below its agent's threshold: b/fa\\x1b[2Jres.csv (0.40), a/trips.csv (0.30)" in out
    assert "\x1b" not in out


def test_once_a_file_is_chosen_the_decliners_best_files_rank_next_among_the_volunteers():
    posting = Posting(request=BlackboardRequest(request="fares before and after"), outcomes=[
        _outcome("a", [FileMatch(path="a/fares.csv", score=0.9), FileMatch(path="a/old.csv", score=0.2)]),
        _declined("b", [FileMatch(path="b/fares_after.csv", score=0.6), FileMatch(path="b/notes.md", score=0.5,
                                                                                   role="dictionary")]),
    ])
    result = discovery_of(posting)
    assert result.files == ["a/fares.csv"] and result.closest == []
    assert [m.path for m in result.ranked_next] == ["b/fares_after.csv", "a/old.csv"]
