"""How games end, kept as facts and told in each reader's words: who won and how, in
/history, /game and the replay, in any language; a game that ends before every person
in it has moved is aborted and never rated; the end is told to the players who did not
end it."""

from __future__ import annotations

from dataclasses import replace

import pytest

from data.results import Ending, GameResult
from data.storage import Storage
from engine import registry
from engine.text import speaking
from host import i18n
from host.face import FrontEnd, ServerChange
from host.model import Channel, Reply, ServiceError
from host.pages.views import Visitor
from host.payloads import Action
from host.play.results import short_line
from host.rating import to_rate
from host.service import GameService
from host.setup import GameSetup
from tests.host.conftest import (
    ADMIN,
    ALICE,
    BOB,
    BOT,
    CAROL,
    ENDGAME,
    HERE,
    each_moves_once,
)
from tests.houses import house_of


@pytest.fixture(autouse=True)
def polish() -> None:
    i18n.install()


async def duel(service: GameService, *, alice_first: bool = True) -> int:
    seat = "first" if alice_first else "second"
    [challenge] = await service.start(HERE, ALICE, GameSetup("hokito", seed=5, seat=seat), [BOB])
    await service.accept(HERE, BOB)
    return challenge.game_id or 0


def action(reply: Reply, label: str) -> Action:
    return next(a for a in reply.actions if a.label == label).payload.action


async def test_a_game_resigned_in_polish_reads_in_english_with_who_won(
    service: GameService,
) -> None:
    game_id = await duel(service)
    await each_moves_once(service, HERE, ALICE, BOB)
    with speaking("pl"):
        [end] = await service.resign(HERE, ALICE, confirmed=True)
    assert "poddaje się" in end.text  # the resigner read it in Polish
    stored = await service.repository.get_game(game_id)
    assert stored is not None and stored.result is not None
    assert stored.result == GameResult(Ending.RESIGNED, (1,), stored.result.scores, (0,))
    [history] = await service.finished(HERE)
    assert "alice vs bob: bob beat alice · alice resigned" in history.text
    [record] = await service.game_record(HERE, game_id)
    assert '[Result "0-1"]' in record.text
    assert '[Termination "alice (Black) resigned."]' in record.text
    with speaking("pl"):
        [polish_history] = await service.finished(HERE)
    assert "bob pokonuje alice · alice poddaje się" in polish_history.text
    # The replay's last frame says who won, and how.
    _, frames = await service.history._frames(HERE, game_id)
    assert frames[-1][1].caption == "Game over: bob beat alice · alice resigned"
    assert frames[0][1].caption == ""


async def test_a_game_over_by_its_rules_keeps_its_reason_code_and_tells_it_in_words(
    service: GameService,
) -> None:
    await service.start(HERE, ALICE, GameSetup("hokito", position=ENDGAME, seat="first"), [BOB])
    await service.accept(HERE, BOB)
    [over] = await service.move(HERE, ALICE, "a1-a2")
    record = await service.repository.get_game(1)
    assert record is not None and record.result == GameResult(
        Ending.RULES, (0,), (36, 0), code="no-legal-move"
    )
    assert "Game over. White has no legal move." in over.text
    [history] = await service.finished(HERE)
    assert "alice vs bob: alice beat bob · 36-0" in history.text
    [game] = await service.game_record(HERE, 1)
    assert '[Result "1-0"]' in game.text and '[Termination "White has no legal move."]' in game.text
    with speaking("pl"):
        [polish] = await service.game_record(HERE, 1)
    assert '[Termination "Brak dozwolonego ruchu: Białe."]' in polish.text


async def test_resigning_before_ones_first_move_aborts_and_is_not_rated(
    service: GameService,
) -> None:
    await duel(service, alice_first=False)  # bob moves first
    await each_moves_once(service, HERE, BOB)
    [end] = await service.resign(HERE, ALICE, confirmed=True)
    assert "Game aborted: alice (White) resigned." in end.text and "Ratings" not in end.text
    record = await service.repository.get_game(1)
    assert record is not None and record.status == "aborted"
    assert record.result is not None and record.result.aborted
    [history] = await service.finished(HERE)
    assert "bob vs alice: aborted · alice resigned" in history.text
    [game] = await service.game_record(HERE, 1)
    assert '[Result "*"]' in game.text
    assert to_rate(record).places == {}


async def test_a_draw_agreed_before_anyone_moved_is_aborted(service: GameService) -> None:
    await duel(service)
    [offer] = await service.draw(HERE, ALICE)
    accept = next(a for a in offer.actions if a.label == "Accept").payload
    [_, end] = await service.press(HERE, BOB, accept)
    assert "Game aborted" in end.text and "Ratings" not in end.text
    record = await service.repository.get_game(1)
    assert record is not None and record.status == "aborted"
    assert record.result is not None and record.result.ending is Ending.AGREED_DRAW


async def test_an_admin_ending_a_game_nobody_played_marks_it_aborted(
    service: GameService,
) -> None:
    await duel(service)
    [end] = await service.admin_end(HERE, ADMIN)
    record = await service.repository.get_game(1)
    assert record is not None and record.status == "aborted" and record.result is not None
    assert record.result.ending is Ending.ADMIN and record.result.aborted
    assert record.result.actor is not None and record.result.actor.name == "root"
    assert "Ended by root, an admin." in end.text
    [history] = await service.finished(HERE)
    assert "aborted · ended by an admin" in history.text


async def test_a_game_both_played_is_rated_when_resigned(service: GameService) -> None:
    await duel(service)
    await each_moves_once(service, HERE, ALICE, BOB)
    [end] = await service.resign(HERE, ALICE, confirmed=True)
    assert "Ratings: alice 1342 (−158), bob 1658 (+158)." in end.text


async def test_resign_asks_to_confirm_and_gives_up_nothing_until_yes(
    service: GameService,
) -> None:
    await duel(service)
    [ask] = await service.resign(HERE, ALICE)
    assert ask.ephemeral and ask.title == "Resign?"
    assert action(ask, "Yes, resign") is Action.RESIGN_CONFIRMED
    record = await service.repository.live_game_in_channel(HERE.channel_id)
    assert record is not None and record.status == "active"
    sure = next(a for a in ask.actions if a.label == "Yes, resign").payload
    [end] = await service.press(HERE, ALICE, sure)
    assert "alice (Black) resigned." in end.text


async def test_the_end_pings_those_who_did_not_end_it(service: GameService) -> None:
    await service.start(HERE, ALICE, GameSetup("hokito", position=ENDGAME, seat="first"), [BOB])
    await service.accept(HERE, BOB)
    [over] = await service.move(HERE, ALICE, "a1-a2")
    assert over.mentions == (BOB,)
    await duel(service)
    await each_moves_once(service, HERE, ALICE, BOB)
    [resigned] = await service.resign(HERE, BOB, confirmed=True)
    assert resigned.mentions == (ALICE,)


async def test_an_admin_who_plays_and_ends_the_game_pings_only_the_others(
    service: GameService,
) -> None:
    await duel(service)
    await each_moves_once(service, HERE, ALICE, BOB)
    [end] = await service.admin_end(HERE, replace(ALICE, is_admin=True))
    assert end.mentions == (BOB,)


async def test_a_player_who_takes_direct_messages_gets_the_end_as_one(
    service: GameService,
) -> None:
    await service.notify(BOB, dm=True)
    await service.start(HERE, ALICE, GameSetup("hokito", position=ENDGAME, seat="first"), [BOB])
    await service.accept(HERE, BOB)
    [over] = await service.move(HERE, ALICE, "a1-a2")
    [(where, [message])] = await service.turn_messages(1, over.mentions)
    assert getattr(where, "user", None) == BOB
    assert message.title == "Hokito: game over"
    assert "Your game in <#500> is over" in message.text
    assert "alice (Black) wins." in message.text


async def test_computers_are_listed_by_their_seats(service: GameService) -> None:
    await service.start(HERE, ALICE, GameSetup("everest", computers=3, seed=11, seat="first"))
    await service.resign(HERE, ALICE, confirmed=True)
    [history] = await service.finished(HERE)
    # alice, the last person, resigned: her seat went to a computer, and she is named.
    assert (
        "alice vs hilltop (Blue) vs hilltop (Green) vs hilltop (Purple): aborted · alice resigned"
        in history.text
    )


async def test_a_resigner_against_computers_finds_the_game_in_their_history(
    service: GameService,
) -> None:
    setup = GameSetup("everest", computers=3, seed=11, seat="first")
    [started, *_] = await service.start(HERE, ALICE, setup)
    await service.resign(HERE, ALICE, confirmed=True)
    # /history as alice asks for it: her own games, and she is the one who looks.
    [mine] = await service.finished(HERE, ALICE, viewer=ALICE)
    assert mine.title == "Finished games of alice"
    [line] = [line for line in mine.text.splitlines() if line.startswith("`#")]
    assert line.startswith(f"`#{started.game_id}`")
    assert (
        "**Everest** · alice vs hilltop (Blue) vs hilltop (Green) vs hilltop (Purple):"
        " aborted · alice resigned" in line
    )


async def test_a_resigners_web_history_lists_the_game(storage: Storage) -> None:
    house = house_of(storage, front=FrontEnd(BOT))
    try:
        public = ServerChange(web="public", name="general club")
        await house.service.server_settings(HERE, ADMIN, public)
        setup = GameSetup("everest", computers=3, seed=11, seat="first")
        [started, *_] = await house.service.start(HERE, ALICE, setup)
        await house.service.resign(HERE, ALICE, confirmed=True)
        view = await house.pages.history(HERE.guild_id or 0, Visitor(), player=ALICE.id)
        assert [row.id for row in view.rows] == [started.game_id]
        assert view.player == (ALICE.id, "alice")
        assert view.rows[0].players[0] == (0, "alice")  # a computer's seat, named for her
    finally:
        house.close()


async def test_a_resigners_profile_page_and_history_pages_know_them_by_name(
    storage: Storage,
) -> None:
    house = house_of(storage, front=FrontEnd(BOT))
    try:
        public = ServerChange(web="public", name="general club")
        await house.service.server_settings(HERE, ADMIN, public)
        setup = GameSetup("everest", computers=3, seed=11, seat="first")
        await house.service.start(HERE, ALICE, setup)
        await house.service.resign(HERE, ALICE, confirmed=True)
        # Her newest game is one a computer now sits in for her.
        card = await house.pages.profile(HERE.guild_id or 0, Visitor(), ALICE.id)
        assert "alice" in card.title
        [page] = await house.service.history.turn_page(HERE, ALICE.id, (), 0, ALICE)
        assert "alice" in page.title and "?" not in page.title
    finally:
        house.close()


async def test_a_closed_challenge_says_who_closed_it(service: GameService) -> None:
    await service.start(HERE, ALICE, GameSetup("hokito", seed=5), [BOB])
    [closed] = await service.decline(HERE, BOB)
    assert "bob declined the challenge." in closed.text
    rows = await service.repository.get_game(1)
    assert rows is not None and rows.result is not None
    assert rows.result.ending is Ending.DECLINED and rows.result.actor is not None
    with pytest.raises(ServiceError):
        await service.game_record(HERE, 999)


async def test_results_round_trip_as_stored(storage: Storage) -> None:
    result = GameResult(Ending.CLAIMED, (1,), (3, 4), (1,), aborted=True)
    assert GameResult.from_stored(result.stored()) == result


async def test_the_final_picture_says_the_game_is_over_not_whose_turn_it_was(
    service: GameService,
) -> None:
    await duel(service)
    await each_moves_once(service, HERE, ALICE, BOB)
    await service.resign(HERE, ALICE, confirmed=True)
    loaded = await service.live.locked_load(1)
    context = service.presenter.render_context(loaded)
    assert context.caption == "Game over: bob beat alice · alice resigned"
    # While a game goes on, its picture says whose turn it is, as before.
    await duel(service)
    live = await service.live.locked_load(2)
    assert service.presenter.render_context(live).caption == ""


async def test_each_person_who_left_a_game_is_named_in_it_and_may_read_it(
    service: GameService,
) -> None:
    setup = GameSetup("everest", computers=1, seed=11, seat="first")
    [started, *_] = await service.start(HERE, ALICE, setup, [BOB, CAROL])
    await service.accept(HERE, BOB)
    await service.accept(HERE, CAROL)
    for person in (ALICE, BOB, CAROL):
        await service.resign(HERE, person, confirmed=True)
    # alice and bob left while the game went on, carol last: all three are named.
    [history] = await service.finished(HERE)
    assert "alice vs bob vs carol vs hilltop (Purple)" in history.text, history.text
    [bobs] = await service.finished(HERE, BOB)
    assert f"`#{started.game_id}`" in bobs.text


async def test_a_direct_message_game_one_resigned_stays_theirs_to_read(
    service: GameService,
) -> None:
    alices_dm = Channel(channel_id=900, guild_id=None, name="alice")
    setup = GameSetup("everest", computers=3, seed=11, seat="first")
    [started, *_] = await service.start(alices_dm, ALICE, setup)
    await service.resign(alices_dm, ALICE, confirmed=True)
    [record] = await service.game_record(alices_dm, started.game_id or 0, viewer=ALICE)
    assert "alice" in record.text
    with pytest.raises(ServiceError, match="There is no game"):
        await service.game_record(alices_dm, started.game_id or 0, viewer=BOB)


@pytest.mark.parametrize(("score", "words"), [(1, "1 point"), (0, "0 points"), (7, "7 points")])
def test_a_solo_score_reads_in_the_singular_or_plural(score: int, words: str) -> None:
    hillbert = registry.get("hillbert")
    line = short_line(hillbert, GameResult(Ending.RULES, scores=(score,)), ["alice"])
    assert str(line) == words
