"""Ratings: games between people are rated once each, in the order they finished, per
server and globally; /ratings and /profile show them, only this server's; a
recomputation from the stored results gives the same tables, or corrects them."""

from __future__ import annotations

import asyncio
import json
import re
import sqlite3
from dataclasses import replace
from datetime import date

import asyncpg
import pytest

from data.daily import DailyRepository
from data.ratings import GLOBAL, Change, ToRate
from data.repository import GameRecord, NewGame, SeatRecord, UserRecord
from data.results import Ending, GameResult
from data.storage import Storage
from host.daily.calendar import utc_day
from host.model import Channel, ServiceError, User
from host.rating import Ratings, moved, to_rate
from host.ratings.pages import RatingPages
from host.service import GameService
from host.setup import GameSetup
from tests.host.conftest import (
    ALICE,
    BOB,
    BOT,
    CAROL,
    ENDGAME,
    HERE,
    each_moves_once,
    make_service,
)

ELSEWHERE = Channel(channel_id=800, guild_id=8, name="another-server")
#: OpenSkill's Plackett-Luce after one game between two newcomers (μ 25, σ 25/3): the
#: winner's μ becomes 27.635, the loser's 22.365, shown as 60·μ.
WINNER_AFTER_ONE, LOSER_AFTER_ONE = 1658, 1342


def pages(service: GameService, storage: Storage) -> RatingPages:
    assert service.ratings is not None
    return RatingPages(service.ratings, storage.daily)


async def won_by(service: GameService, winner: User, loser: User, where: Channel = HERE) -> int:
    """A Hokito game `winner` wins by resignation, after a move each (a game nobody
    played is aborted, not rated)."""
    [challenge] = await service.start(
        where, winner, GameSetup("hokito", seed=1, seat="first"), [loser]
    )
    await service.accept(where, loser)
    for player in (winner, loser):
        [move, *_] = await service.suggest_moves(where, player, "")
        await service.move(where, player, move.value)
    await service.resign(where, loser, confirmed=True)
    return challenge.game_id or 0


async def test_the_final_board_says_how_the_ratings_moved(service: GameService) -> None:
    await service.start(HERE, ALICE, GameSetup("hokito", position=ENDGAME, seat="first"), [BOB])
    await service.accept(HERE, BOB)
    [over] = await service.move(HERE, ALICE, "a1-a2")
    lines = over.text.splitlines()
    result = next(i for i, line in enumerate(lines) if line.startswith("Game over."))
    assert lines[result + 1] == (
        f"Ratings: alice {WINNER_AFTER_ONE} (+158), bob {LOSER_AFTER_ONE} (−158)."
    )


async def test_games_against_the_computer_and_aborted_games_are_not_rated(
    service: GameService, storage: Storage
) -> None:
    await service.start(HERE, ALICE, GameSetup("hokito", seed=1), [BOT])
    [over] = await service.resign(HERE, ALICE, confirmed=True)
    assert "Game aborted:" in over.text and "Ratings" not in over.text
    await service.start(HERE, ALICE, GameSetup("hokito", seed=1), [BOB])
    await service.accept(HERE, BOB)
    [ended] = await service.admin_end(HERE, User(4, "root", is_admin=True))
    assert "Ratings" not in ended.text
    [table] = await pages(service, storage).table(HERE, ALICE, "hokito")
    assert "No rated Hokito games yet" in table.text


def record(
    seats: list[tuple[int, bool]],
    result: dict[str, object],
    *,
    status: str = "finished",
    options: dict[str, object] | None = None,
) -> GameRecord:
    """A finished game as stored: seats of (user id, is a computer)."""
    return GameRecord(
        id=1,
        game="everest",
        kind="channel",
        guild_id=7,
        channel_id=500,
        status=status,  # type: ignore[arg-type]
        seed=1,
        variant=None,
        rules_version=1,
        start_position=None,
        ply=10,
        snapshot="",
        options=options or {},
        result=GameResult.from_stored(result),
        created_by=seats[0][0],
        created_at=0.0,
        updated_at=5.0,
        finished_at=5.0,
        seats=tuple(
            SeatRecord(i, UserRecord(user, f"u{user}", bot), True)
            for i, (user, bot) in enumerate(seats)
        ),
    )


def test_who_counts_and_in_which_place() -> None:
    people = [(1, False), (2, False), (3, False)]
    won = to_rate(record(people, {"winners": [1]}))
    assert won.scopes == (7, GLOBAL)
    assert won.places == {1: 2, 2: 1, 3: 2}
    assert won.outcomes == {1: "loss", 2: "win", 3: "loss"}
    draw = to_rate(record(people[:2], {"winners": []}))
    assert draw.places == {1: 1, 2: 1} and draw.outcomes == {1: "draw", 2: "draw"}
    # Against the computer from the start: not rated.
    assert not to_rate(record([(1, False), (9, True)], {"winners": [0]})).places
    # Aborted, or ended by an admin: not rated.
    assert not to_rate(record(people, {"winners": [], "aborted": True})).places
    assert not to_rate(record(people, {"winners": []}, status="aborted")).places
    # One person in every seat: nobody to be rated against.
    assert not to_rate(record([(1, False), (1, False)], {"winners": [0]})).places
    # Player 3 resigned and a computer took seat 2 over: they come last, whoever won.
    taken = {"taken_over": [2], "resigned": [3]}
    handed = to_rate(record([(1, False), (2, False), (9, True)], {"winners": [2]}, options=taken))
    assert handed.places == {1: 2, 2: 2, 3: 3}
    assert handed.outcomes == {1: "loss", 2: "loss", 3: "loss"}


async def test_a_resigner_whose_seat_a_computer_took_is_rated_last(
    service: GameService,
) -> None:
    await service.start(HERE, ALICE, GameSetup("everest", seed=5), [BOB, CAROL])
    await service.accept(HERE, BOB)
    await service.accept(HERE, CAROL)
    await service.resign(HERE, CAROL, confirmed=True)
    stored = await service.repository.get_game(1)
    assert stored is not None
    # However the game ends, carol is behind everyone still playing.
    finished = replace(stored, status="finished", result=GameResult(Ending.RULES, (0,)))
    rated = to_rate(finished)
    assert rated.places == {ALICE.id: 1, BOB.id: 2, CAROL.id: 3}


async def test_the_table_shows_the_top_ten_and_your_own_place(
    service: GameService, storage: Storage
) -> None:
    # Twelve players: each of the first eleven beats the last one once, who is then last.
    last = User(2000, "zed")
    for n in range(11):
        await won_by(service, User(1100 + n, f"p{n:02}"), last)
    # The winners' ratings fall as zed's does: the first beat the strongest zed.
    [table] = await pages(service, storage).table(HERE, last, "hokito")
    lines = table.text.splitlines()
    assert table.title == "Hokito ratings: this server"
    assert len(lines) == 12 and lines[10] == "…"
    assert lines[11].startswith("12. **zed**: ")
    assert lines[0].startswith("1. p00: ") and "1 game: 1 win, 0 draws, 0 losses" in lines[0]
    assert "provisional" in table.footer
    # The global table has them too; another server's table has nobody.
    [everyone] = await pages(service, storage).table(ELSEWHERE, last, "hokito", "global")
    assert everyone.title == "Hokito ratings: everyone" and "**zed**" in everyone.text
    [there] = await pages(service, storage).table(ELSEWHERE, last, "hokito")
    assert "No rated Hokito games yet" in there.text


async def test_a_rating_is_provisional_for_five_games(
    service: GameService, storage: Storage
) -> None:
    for _ in range(4):
        await won_by(service, ALICE, BOB)
    [table] = await pages(service, storage).table(HERE, ALICE, "hokito")
    assert all("?" in line for line in table.text.splitlines())
    await won_by(service, ALICE, BOB)
    [table] = await pages(service, storage).table(HERE, ALICE, "hokito")
    first, second = table.text.splitlines()
    assert first.startswith("1. **alice**: ") and "?" not in first
    assert "5 games: 5 wins, 0 draws, 0 losses" in first
    assert second.startswith("2. bob: ") and "?" not in second


async def test_bad_table_requests_are_refused(service: GameService, storage: Storage) -> None:
    ratings = pages(service, storage)
    with pytest.raises(ServiceError, match="played alone"):
        await ratings.table(HERE, ALICE, "hillbert")
    with pytest.raises(ServiceError, match="There is no game 'chess'"):
        await ratings.table(HERE, ALICE, "chess")
    with pytest.raises(ServiceError, match="scope: choose server or global"):
        await ratings.table(HERE, ALICE, "hokito", "galaxy")


async def test_a_profile_shows_record_streak_best_win_and_head_to_head(
    service: GameService, storage: Storage
) -> None:
    await won_by(service, BOB, CAROL)
    await won_by(service, BOB, CAROL)  # bob at his strongest
    best = await won_by(service, ALICE, BOB)
    await won_by(service, ALICE, CAROL)
    last = await won_by(service, BOB, ALICE)
    await won_by(service, ALICE, CAROL)
    [profile] = await pages(service, storage).profile(HERE, CAROL, ALICE, BOB)
    fields = dict(profile.fields)
    assert profile.title == "Profile: alice"
    hokito = fields["Hokito"].splitlines()
    # Provisional after four games, the same in the server's table as in the global one.
    assert re.fullmatch(r"\*\*(\d{4})\?\*\* · #\d · global \1\?", hokito[0]), hokito[0]
    assert hokito[1] == "4 games: 3 wins, 0 draws, 1 loss"
    assert hokito[2] == "Streak: 1 win"
    assert hokito[3].startswith(f"Best win: game #{best} against bob (")
    assert fields["Against bob"].splitlines() == [
        "Hokito: 2 games: 1 win, 0 draws, 1 loss",
        f"Last: game #{last}, a loss.",
    ]
    assert fields["Daily Hillbert"] == "No daily run yet: /daily plays today's hill."


async def test_a_profile_shows_only_this_servers_games(
    service: GameService, storage: Storage
) -> None:
    await won_by(service, ALICE, BOB)
    [there] = await pages(service, storage).profile(ELSEWHERE, ALICE, None, BOB)
    assert "alice has no rated game here yet" in there.text
    assert "Hokito" not in dict(there.fields)
    assert dict(there.fields)["Against bob"] == (
        "alice and bob have no rated game together here yet."
    )
    # In a direct message: the global tables, where the game counts.
    [direct] = await pages(service, storage).profile(Channel(900, None), ALICE, None, None)
    assert "1 game: 1 win" in dict(direct.fields)["Hokito"]


async def test_a_profile_shows_daily_stats(service: GameService, storage: Storage) -> None:
    daily = storage.daily
    day = utc_day(service.clock())
    for back in (2, 1, 0):
        played = date.fromordinal(day.toordinal() - back).isoformat()
        assert await _daily_run(daily, played, score=10 + back)
    [profile] = await pages(service, storage).profile(HERE, ALICE, None, None)
    assert dict(profile.fields)["Daily Hillbert"] == "3 runs, best 12 rows, streak 3 days"


def new_game(game: str, players: tuple[User, ...], guild: int | None = 7) -> NewGame:
    """A game as created: its players seated, in `guild` (None: a daily run)."""
    return NewGame(
        game=game,
        guild_id=guild,
        channel_id=500 if guild else None,
        status="active",
        seed=1,
        variant=None,
        rules_version=1,
        start_position=None,
        snapshot="",
        created_by=UserRecord(players[0].id, players[0].name),
        seats=tuple((UserRecord(u.id, u.name), True) for u in players),
        kind="channel" if guild else "daily",
    )


async def _daily_run(daily: DailyRepository, day: str, score: int) -> bool:
    new = new_game("hillbert", (ALICE,), None)
    record, _ = await daily.start_run(new, UserRecord(ALICE.id, ALICE.name), day, "W", 0.0)
    return await daily.finish_run(record.id, score, 20, "1", 1.0)


async def test_bad_profile_requests_are_refused(service: GameService, storage: Storage) -> None:
    ratings = pages(service, storage)
    with pytest.raises(ServiceError, match="computer player: it has no profile"):
        await ratings.profile(HERE, ALICE, BOT, None)
    with pytest.raises(ServiceError, match="opponent: choose someone other than alice"):
        await ratings.profile(HERE, BOB, ALICE, ALICE)


async def test_a_game_finished_but_not_rated_is_rated_later_and_once(storage: Storage) -> None:
    # A service without ratings stands for a process stopped between the game's end
    # and its rating.
    unrated = GameService(storage.games, bot_user=BOT, render_images=False)
    await won_by(unrated, ALICE, BOB)
    first, second = make_service(storage), make_service(storage)
    assert first.ratings is not None and second.ratings is not None
    done = await asyncio.gather(first.ratings.settle(), second.ratings.settle())
    assert sorted(len(d) for d in done) == [0, 1]  # one of the two rated it
    rows = await storage.database.fetch("SELECT count(*) FROM rating_changes WHERE game_id = 1")
    assert rows[0][0] == 4  # two players, in the server's table and the global one
    [table] = await pages(first, storage).table(HERE, ALICE, "hokito")
    assert f"1. **alice**: {WINNER_AFTER_ONE}?" in table.text


async def test_a_recomputation_gives_the_same_tables_or_corrects_them(
    service: GameService, storage: Storage
) -> None:
    for winner, loser in ((ALICE, BOB), (BOB, CAROL), (CAROL, ALICE), (ALICE, BOB)):
        await won_by(service, winner, loser)
    assert service.ratings is not None
    before = await storage.database.fetch("SELECT * FROM ratings ORDER BY game, scope, user_id")
    assert await service.ratings.recompute() == 4
    after = await storage.database.fetch("SELECT * FROM ratings ORDER BY game, scope, user_id")
    assert [tuple(r) for r in after] == [tuple(r) for r in before]
    # A corrected result: game 1 was in fact won by bob.
    game = await service.repository.get_game(1)
    assert game is not None
    assert game.result is not None
    corrected = json.dumps({**game.result.stored(), "winners": [game.seats_of(BOB.id)[0]]})
    await storage.database.write(
        "UPDATE games SET result = '{}' WHERE id = 1".format(corrected.replace("'", "''"))
    )
    await service.ratings.recompute()
    repo = storage.ratings
    alice = await repo.standing("hokito", HERE.guild_id or 0, ALICE.id)
    assert alice is not None and (alice.wins, alice.losses) == (1, 2)


def test_how_far_a_rating_moved_is_signed() -> None:
    def change(before: float, after: float) -> Change:
        return Change(7, 1, "win", 1, (before, 8.0), (after, 8.0), 25.0, (2,))

    assert moved(change(25.0, 27.635)) == "+158"
    assert moved(change(25.0, 22.365)) == "−158"
    assert moved(change(25.0, 25.001)) == "±0"


async def test_ratings_are_rated_in_the_order_games_finished(storage: Storage) -> None:
    # Rated out of order (a later game first), a rating would differ: the rating reads
    # unrated games oldest first.
    unrated = GameService(storage.games, bot_user=BOT, render_images=False)
    await won_by(unrated, ALICE, BOB)
    await won_by(unrated, BOB, ALICE)
    ratings = Ratings(storage.ratings)
    done = await ratings.settle()
    assert list(done) == [1, 2]
    second = {c.user_id: c for c in done[2] if c.scope == GLOBAL}
    first = {c.user_id: c for c in done[1] if c.scope == GLOBAL}
    assert second[ALICE.id].before == first[ALICE.id].after


async def test_games_are_rated_in_the_order_they_finished_not_by_number(storage: Storage) -> None:
    unrated = GameService(storage.games, bot_user=BOT, render_images=False)
    await unrated.start(HERE, ALICE, GameSetup("hokito", seed=1, seat="first"), [BOB])  # game 1
    await unrated.accept(HERE, BOB)
    await each_moves_once(unrated, HERE, ALICE, BOB)
    await won_by(unrated, BOB, ALICE, ELSEWHERE)  # game 2 finishes first
    await unrated.resign(HERE, BOB, confirmed=True)  # then game 1
    done = await Ratings(storage.ratings).settle()
    assert list(done) == [2, 1]
    first = {c.user_id: c for c in done[2] if c.scope == GLOBAL}
    later = {c.user_id: c for c in done[1] if c.scope == GLOBAL}
    assert later[ALICE.id].before == first[ALICE.id].after


def test_players_who_resigned_come_last_the_earliest_lowest() -> None:
    # Carol, then bob resigned; computers took seats 1 and 2; alice won.
    left = {"taken_over": [2, 1], "resigned": [CAROL.id, BOB.id]}
    seats = [(ALICE.id, False), (9, True), (9, True)]
    rated = to_rate(record(seats, {"winners": [0]}, options=left))
    assert rated.places == {ALICE.id: 1, BOB.id: 2, CAROL.id: 3}
    # Everybody resigned and a computer won: the last to resign is first of the people.
    everyone = {"taken_over": [0, 1, 2], "resigned": [ALICE.id, CAROL.id, BOB.id]}
    alone = to_rate(record([(9, True)] * 3, {"winners": [1]}, options=everyone))
    assert alone.places == {BOB.id: 2, CAROL.id: 3, ALICE.id: 4}


async def test_head_to_head_in_a_larger_game_compares_the_two_places(storage: Storage) -> None:
    # The users and the game's row.
    await make_service(storage).repository.create_game(
        new_game("everest", (ALICE, BOB, CAROL)), 0.0
    )
    repo = storage.ratings
    # Carol won; alice came second, bob third.
    game = ToRate(
        1,
        "everest",
        5.0,
        (7, GLOBAL),
        {CAROL.id: 1, ALICE.id: 2, BOB.id: 3},
        {CAROL.id: "win", ALICE.id: "loss", BOB.id: "loss"},
    )
    assert await repo.rate(game, Ratings(repo).rater, 6.0)
    [against_bob] = await repo.head_to_head(ALICE.id, BOB.id, 7)
    [against_carol] = await repo.head_to_head(ALICE.id, CAROL.id, 7)
    assert (against_bob.last_outcome, against_carol.last_outcome) == ("win", "loss")
    assert (against_bob.wins, against_bob.losses, against_carol.losses) == (1, 0, 1)
    assert await repo.rate(game, Ratings(repo).rater, 7.0) is None  # never twice
    [against_bob] = await repo.head_to_head(ALICE.id, BOB.id, 7)
    assert against_bob.games == 1 and against_bob.last_game_id == 1


#: How each backend refuses a write it cannot make now.
REFUSALS = {
    "sqlite": lambda: sqlite3.OperationalError("database is locked"),
    "postgresql": lambda: asyncpg.exceptions.DeadlockDetectedError("deadlock detected"),
}


async def test_a_rating_that_fails_costs_the_final_board_nothing(
    service: GameService, storage: Storage, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert service.ratings is not None

    async def locked(*args: object) -> None:
        raise REFUSALS[storage.backend]()

    monkeypatch.setattr(service.ratings.repository, "rate_all", locked)
    await service.start(HERE, ALICE, GameSetup("hokito", position=ENDGAME, seat="first"), [BOB])
    await service.accept(HERE, BOB)
    [over] = await service.move(HERE, ALICE, "a1-a2")
    assert "Game over." in over.text and "Ratings" not in over.text
    monkeypatch.undo()
    await service.settle_ratings()  # the next sweep
    [table] = await pages(service, storage).table(HERE, ALICE, "hokito")
    assert f"1. **alice**: {WINNER_AFTER_ONE}?" in table.text


async def test_the_final_board_tells_the_ratings_even_if_another_process_rated_it(
    storage: Storage,
) -> None:
    ours, theirs = make_service(storage), make_service(storage)
    assert ours.ratings is not None and theirs.ratings is not None
    await ours.start(HERE, ALICE, GameSetup("hokito", position=ENDGAME, seat="first"), [BOB])
    await ours.accept(HERE, BOB)
    original = ours.ratings.settle

    async def beaten_to_it() -> dict[int, list[Change]]:
        assert theirs.ratings is not None
        await theirs.ratings.settle()  # the other process's sweep came first
        return await original()

    ours.ratings.settle = beaten_to_it  # type: ignore[method-assign]
    [over] = await ours.move(HERE, ALICE, "a1-a2")
    assert f"Ratings: alice {WINNER_AFTER_ONE} (+158), bob {LOSER_AFTER_ONE} (−158)." in over.text


async def test_when_the_last_person_resigns_the_game_ends_there(service: GameService) -> None:
    await service.start(HERE, ALICE, GameSetup("everest", computers=2, seed=11, seat="first"))
    before = await service.repository.get_game(1)
    [end] = await service.resign(HERE, ALICE, confirmed=True)
    assert "resigned, and nobody is left to play." in end.text
    record = await service.repository.get_game(1)
    # alice never made a move: the game is aborted.
    assert before is not None and record is not None and record.status == "aborted"
    assert record.ply == before.ply  # the computers did not play it out
    assert "Ratings" not in end.text  # against the computer from the start: not rated
    # Three people who all resign: the last to go ranks first of them.
    await service.start(HERE, ALICE, GameSetup("everest", seed=5), [BOB, CAROL])
    await service.accept(HERE, BOB)
    await service.accept(HERE, CAROL)
    await service.resign(HERE, CAROL, confirmed=True)
    await service.resign(HERE, ALICE, confirmed=True)
    [last] = await service.resign(HERE, BOB, confirmed=True)
    assert "bob resigned, and nobody is left to play." in last.text
    game = await service.repository.get_game(2)
    # Nobody had sent a plan: aborted, and not rated (the order of those who resign is
    # rated in a game that was played; see the test before).
    assert game is not None and game.status == "aborted" and not to_rate(game).places


async def test_finished_games_waiting_together_are_rated_in_one_pass(
    storage: Storage, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Games finished while nothing rated them (a service without ratings), then ten
    # finishing moves asking at once: one pass, one transaction, rates them all.
    unrated = GameService(storage.games, bot_user=BOT, render_images=False)
    for winner, loser in ((ALICE, BOB), (BOB, CAROL), (CAROL, ALICE)):
        await won_by(unrated, winner, loser)
    ratings = Ratings(storage.ratings)
    transactions: list[list[int]] = []
    rate_all = storage.ratings.rate_all

    async def counted(games: list[ToRate], *rest: object) -> dict[int, list[Change]]:
        transactions.append([g.game_id for g in games])
        return await rate_all(games, *rest)  # type: ignore[arg-type]

    reads: list[int] = []
    unrated_games = storage.ratings.unrated_games

    async def read(limit: int) -> list[GameRecord]:
        reads.append(limit)
        return await unrated_games(limit)

    monkeypatch.setattr(storage.ratings, "rate_all", counted)
    monkeypatch.setattr(storage.ratings, "unrated_games", read)
    done = await asyncio.gather(*(ratings.settle() for _ in range(10)))
    assert transactions == [[1, 2, 3]]
    # The first asks alone; the nine who asked while it ran are served by one more pass.
    assert len(reads) == 2
    assert sorted(game for d in done for game in d) == [1, 2, 3]
    # Rated in the order they finished, each from the one before.
    first = {c.user_id: c for c in done[0][1] if c.scope == GLOBAL}
    third = {c.user_id: c for c in done[0][3] if c.scope == GLOBAL}
    assert third[ALICE.id].before == first[ALICE.id].after
    # A game finished later is rated by the next pass.
    await won_by(unrated, ALICE, CAROL)
    assert list(await ratings.settle()) == [4]
    assert transactions == [[1, 2, 3], [4]]
