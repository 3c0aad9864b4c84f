"""Discovery with no model: post the request, rank the volunteers' files, keep the best.

This is the offline main agent's `request_help` step: the blackboard broadcasts, every
helper decides on its own, and the host only reads the response board.
"""

from __future__ import annotations

from collections.abc import Callable

from lakeboard.host.blackboard import Blackboard
from lakeboard.common.file_choice import SHOWN_FILES, next_data_files, select_files
from lakeboard.schemas.board import Posting
from lakeboard.schemas.discovery_result import DiscoveryResult
from lakeboard.schemas.messages import BlackboardRequest, FileAgentResponse, FileMatch

RANKED_NEXT = SHOWN_FILES - 1  # files ranked after the chosen one that a person or a model is shown
TEMPLATE_NOTE = "an answer template"  # said of a file that holds the form of an answer, not data


def scored_paths(matches: list[FileMatch], show: Callable[[str], str] = str) -> str:
    """`path (score)` for each match (its path written by `show`), comma-separated: how ranked files are
    said in one line. An answer template is said to be one: its score can be above the chosen file's."""
    return ", ".join(f"{show(m.path)} ({m.score:.2f}{', ' + TEMPLATE_NOTE if m.role == 'template' else ''})"
                     for m in matches)


async def discover(board: Blackboard, request: str, *, reason: str = "") -> DiscoveryResult:
    return discovery_of(await board.post(BlackboardRequest(request=request, reason=reason)))


def discovery_of(posting: Posting) -> DiscoveryResult:
    """The files a posting's volunteers offer, ranked across them (the host's own choice); ranked
    next, every agent's best files, the decliners' closest among them."""
    matches: list[FileMatch] = []
    responses = []
    for outcome in posting.responses:
        resp = outcome.response
        if isinstance(resp, FileAgentResponse) and resp.can_help:
            matches.extend(resp.matches)
        if outcome.response_raw:
            responses.append(outcome.response_raw)
    chosen = select_files(matches)
    declined = _declined_matches(posting)
    return DiscoveryResult(
        request=posting.request.request,
        files=[m.path for m in chosen],
        matches=chosen,
        # every agent's scores are on one lake-wide scale: the decliners' best files rank among the rest
        ranked_next=next_data_files(matches + declined, chosen, RANKED_NEXT) if chosen else [],
        closest=[] if chosen else _closest(declined),
        responses=responses,
        volunteers=[o.helper for o in posting.volunteers],
        errors={o.helper: o.error.message for o in posting.errors if o.error},
        broadcast_s=round(posting.elapsed_s, 4),
    )


def _declined_matches(posting: Posting) -> list[FileMatch]:
    return [m for o in posting.outcomes if o.decision is not None and not o.decision.can_help
            for m in o.decision.closest]


def closest_declined(posting: Posting) -> list[FileMatch]:
    """The best files (dictionaries aside) of the file agents that declined, ranked across them (their scores are on
    one lake-wide scale): what is shown, marked as below every threshold, when no file is chosen.
    A model or a person may still look there; the lake may also not hold what the request needs."""
    return _closest(_declined_matches(posting))


def _closest(declined: list[FileMatch]) -> list[FileMatch]:
    return next_data_files(declined, [], SHOWN_FILES)
