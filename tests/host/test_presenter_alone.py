"""The presenter formats what it is given and reads nothing: a board is made from a game
held in memory alone, with no database, no repository and no service behind it; who
follows the game and how it moved the ratings come in from the flow that asks."""

from __future__ import annotations

from data.repository import GameRecord, SeatRecord, UserRecord
from data.results import Ending, GameResult
from engine import registry
from engine.text import t
from host.model import User
from host.play.live import Loaded
from host.present.painting import ThreadPainter
from host.present.presenter import BoardFacts, Presenter
from host.present.words import Happened

ALICE = UserRecord(1, "alice", False)
BOB = UserRecord(2, "bob", False)
CAROL = User(3, "carol")


def hokito(status: str = "active", result: GameResult | None = None) -> Loaded:
    """A Hokito game at its start, as a record and state in memory."""
    game = registry.get("hokito")
    state = game.new_state(1, 2, None)
    record = GameRecord(
        id=42,
        game="hokito",
        kind="channel",
        guild_id=7,
        channel_id=500,
        status=status,  # type: ignore[arg-type]
        seed=1,
        variant=None,
        rules_version=game.rules_version,
        start_position=None,
        ply=0,
        snapshot=state.to_text(),
        options={},
        result=result,
        created_by=ALICE.id,
        created_at=0.0,
        updated_at=0.0,
        finished_at=None,
        seats=(SeatRecord(0, ALICE, True), SeatRecord(1, BOB, True)),
    )
    return Loaded(record, game, state, None, None)


def presenter() -> Presenter:
    return Presenter(ThreadPainter(), render_images=False)


async def test_a_board_needs_no_repository() -> None:
    board = await presenter().board(hokito())
    assert board.title == "Hokito · move 0"
    assert "alice (Black) to move." in board.text
    assert board.followers == () and board.followers_direct == ()


async def test_what_the_flow_read_is_shown_as_given() -> None:
    facts = BoardFacts(
        followers=(CAROL,), followers_direct=(User(4, "dave"),), rating_line=t("Ratings: up")
    )
    loaded = hokito("finished", GameResult(Ending.RESIGNED, (0,), (36, 36), (1,)))
    board = await presenter().board(loaded, [Happened(t("bob resigned."))], facts=facts)
    assert board.followers == (CAROL,) and [u.name for u in board.followers_direct] == ["dave"]
    assert board.text.endswith("Ratings: up") and "bob resigned." in board.text
