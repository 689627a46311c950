"""Every kind of reply the bot makes, posted through a fake Discord that refuses what
Discord refuses (`tests/cogs/discord_rules.py`): each game played from seeded positions
through its start, its middle and its end (resigned, or from a late position to the end
its rules bring: final boards, results, Mole Hill's second round), with its boards, move
builders and previews, and every private panel and list, on a deployment whose boards
link to their pages and open them in the Activity; then again, shorter, for players whose
Discord speaks Polish, whose longer words must fit Discord's limits too. Discord must
accept all of it."""

from __future__ import annotations

import io
import random
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from PIL import Image

from cogs.client import HilltopBot
from data.storage import Storage
from engine.core import GameState
from engine.hillbert_par import ParResult
from host.catalog import Listing, all_listings
from host.commands.game_lists import PAGE_SIZE
from host.model import Channel, Reply, User
from host.play.live import Loaded
from host.setup import GameSetup
from tests.cogs.fake_discord import (
    MANAGE_GUILD,
    CallbackType,
    Exchange,
    FakeDiscord,
    FakeUser,
    Message,
    serving,
)
from tests.cogs.test_gateway import Clock, Players, hilltop
from tests.cogs.test_gateway import nothing_logged_an_error as nothing_logged_an_error

#: The positions looked at closely, by the number of decisions made before them: the
#: start, the first reply, the middle and the last before the game is resigned (games
#: that end sooner end by their rules). A position is looked at closely too when it
#: asks for a kind of decision not seen before (Everest's roll-off, flight, damage), and
#: in a game played to its end, when whatever is chosen ends it.
LOOK_AT = (0, 1, 5)
#: Presses at most through one private panel (a move builder, a plan builder).
PANEL_PRESSES = 8
#: The decision before which a draw and a takeback are asked for, and declined.
OFFERS_AT = 2
#: Decisions enough for any game below played to its end by its rules: a bound, in
#: case a rule change let one run on, never the reason a game stops.
TO_THE_END = 60


ROLL_OFF = (
    "everest n=2 cap=30 round=30 stage=pick step=1 pos=h2,g5 aside=-,2 dmg=0,0 peak=- "
    "plans=3W+AN+s0E,s0S+5N+4E pick=act:0 result=- rng=15:6 "
    "ev=reveal,step.1,dice.3.3,dice.0.0,dice.5.2"
)
ROUND_END = (
    "everest n=2 cap=30 round=11 stage=end step=3 pos=off,e6 aside=-,- dmg=0,1 peak=- "
    "plans=s0W+4W+3E,3W+AN+2S end=-,h chosen=-,- result=- rng=1:0 "
    "ev=reveal,step.1,move.1.g5.e5.W,snow.0.a2.a2.W.2,step.2,off.0.a2.W,move.1.e5.e6.N,"
    "fall.1.e6,step.3,move.1.e6.e6.S"
)
# Late positions of seeded games played with random legal moves, a few decisions before
# their ends.
#: Hokito, White to move: a few moves before one side has none left.
HOKITO_LATE = (
    ".,.,.,w1w2w3w3w3b1,.,./.,w2w1w1w2b1w1,.,w2w1,.,./.,.,w2,w2b3,.,w3w3b2b2/"
    ".,.,.,b2,.,./.,.,.,b3b3w1b3,.,./.,.,.,b2b1b1b3b3b2b1b1b2w3,.,. w"
)
#: Mole Hill's round 1, its mole (alice) hemmed in on the east side: round 2 begins,
#: the roles swapped and the lawn cleared.
MOLE_ROUND_1 = (
    "1g i1,i2,i3,h4,g4,f5,f6,f7,g6,g7,h6,g5,h5,i6,i7 "
    "c1e,c4e,g4e,a5e,e5e,e6e,b7e,e7e,f1n,i1n,c2n,h2n,c4n,g5n e1,a4,i4,e7/b2,h2,b6,h6 -"
)
#: Mole Hill's round 2, its mole (bob) three squares from its 22nd: the game's end, told
#: with both rounds' scores.
MOLE_ROUND_2 = (
    "2g h5,g5,g6,h7,g7,f7,e6,d6,c7,b6,a5,a6,b5,c4,b3,a2,b2,c1,d2 "
    "c1e,a3e,a4e,d4e,f4e,g4e,h4e,f6e,b7e,g1n,h1n,i1n,d2n,f3n,g4n,b5n,i5n,d6n "
    "e1,a4,i4,e7/b2,h2,b6,h6 7"
)
#: Hollowtown with one Beehive tile left in the Market: the town fills up (or the buying
#: stops) and the buttons are counted.
HOLLOWTOWN_LATE = (
    "-,Muh,Mu/D,Me,Hd/Be,Be5,Mu7 market=0/0,0/1,0/0 bank=2 supply=1/0 turn=dooky "
    "round=24 lastbuy=21 rng=1:9"
)
#: Hillbert small and hungry for a turn already: he starves soon unless he eats.
HILLBERT_LATE = (
    ".H...../......./......./.o.bb../...BB.o/...obb./.ommBB. "
    "score=3 turns=9 hungry=1 facing=3 jumped=0 seed=1"
)


@dataclass(frozen=True, slots=True)
class Setup:
    game: str
    #: People in the game (alice first), and computer seats after them.
    people: int
    computers: int = 0
    #: Decisions made before the last person resigns.
    decisions: int = 10
    seed: int = 1
    #: A position to start from (the game's notation), for a decision rare in play.
    position: str | None = None
    #: Played to its end by the game's rules (`decisions` only bounds it): the end must
    #: come, not a resignation.
    ends: bool = False
    #: The start of a position the game must reach before it is resigned (Mole Hill's
    #: round 2: "2"); its first such position is looked at closely.
    reaches: str | None = None


def opening(listing: Listing, decisions: int) -> Setup:
    """`listing`'s game from its seeded start, seated as its declared facts allow: one
    person in a game played alone, two in a game for two, and a game for more played by
    one person and computers filling its seats, whose answers come through Discord too
    (such a game makes two fifths of the decisions, at least two: each waits on the
    computers' plans)."""
    game = listing.game
    if game.solo:
        return Setup(game.id, 1, decisions=decisions)
    if game.max_players > 2:
        return Setup(game.id, 1, game.max_players - 1, decisions=max(2, decisions * 2 // 5))
    return Setup(game.id, 2, decisions=decisions)


#: Every game of the catalogue from its start, then positions rare in play and games
#: played on from late positions: their ends, their final boards and results.
SETUPS = (
    *(opening(listing, decisions=10) for listing in all_listings()),
    # A roll-off won by alice, who picks its outcome (the roll-off browser).
    Setup("everest", 2, decisions=3, position=ROLL_OFF),
    # bob, hurt, chooses to heal or stay at the end of a round.
    Setup("everest", 2, decisions=3, position=ROUND_END),
    Setup("hokito", 2, decisions=TO_THE_END, position=HOKITO_LATE, ends=True),
    # Into round 2, resigned there.
    Setup("molehill", 2, decisions=8, position=MOLE_ROUND_1, reaches="2"),
    Setup("molehill", 2, decisions=TO_THE_END, position=MOLE_ROUND_2, ends=True),
    Setup("hollowtown", 2, decisions=TO_THE_END, position=HOLLOWTOWN_LATE, ends=True),
    Setup("hillbert", 1, decisions=TO_THE_END, position=HILLBERT_LATE, ends=True),
)

#: A few decisions of each game, and a game to its end, for players whose Discord speaks
#: Polish: its words are longer than English ones, on buttons, in menus and titles.
POLISH_SETUPS = (
    *(opening(listing, decisions=3) for listing in all_listings()),
    Setup("everest", 2, decisions=3, position=ROLL_OFF),
    Setup("everest", 2, decisions=3, position=ROUND_END),
    Setup("molehill", 2, decisions=TO_THE_END, position=MOLE_ROUND_2, ends=True),
)


#: A Polish word of the reply to each command of `lists_and_pages`.
POLISH_WORDS = {
    "games here": "Trwające partie",
    "games mine": "Twoje partie",
    "help": "jak grać",
    "notify": "Twoje powiadomienia",
    "history": "Zakończone partie",
    "rules hokito": "zasady",
    "ratings hokito": "Ranking",
    "profile": "Profil",
    "daily": "Dzisiejsze wzgórze",
    "leaderboard week": "tydzień",
    "stats": "Statystyki",
    "admin settings": "Ustawienia tego serwera",
}


@dataclass(frozen=True, slots=True)
class Words:
    """The labels and titles the test presses and reads, in the players' language."""

    accept: str
    decline: str
    resign: str
    sure: str
    rematch: str
    back: str
    download: str
    step_through: str
    #: A replay's title: which position of how many ("move {ply} of {last}").
    position: str

    def at(self, ply: int, last: int) -> str:
        return self.position.format(ply=ply, last=last)


ENGLISH = Words(
    accept="Accept",
    decline="Decline",
    resign="Resign",
    sure="Yes, resign",
    rematch="Rematch",
    back="Back",
    download="Download log",
    step_through="Step through",
    position="move {ply} of {last}",
)
POLISH = Words(
    accept="Przyjmij",
    decline="Odrzuć",
    resign="Poddaj się",
    sure="Tak, poddaję się",
    rematch="Rewanż",
    back="Wstecz",
    download="Pobierz zapis",
    step_through="Krok po kroku",
    position="ruch {ply} z {last}",
)


@dataclass
class Seen:
    """What the test has done: the interactions, and the kinds of decision met."""

    exchanges: list[Exchange] = field(default_factory=list)
    #: The kinds of decision already looked at closely, per game.
    kinds: set[tuple[str, str]] = field(default_factory=set)


@pytest.fixture
async def fake() -> AsyncIterator[FakeDiscord]:
    async with serving(activities=True) as server:
        yield server


@pytest.fixture
def activity(monkeypatch: pytest.MonkeyPatch) -> None:
    """Pages served, and the Activity that opens them, as `bot.py` reads them."""
    monkeypatch.setenv("HILLTOP_ACTIVITY", "on")
    monkeypatch.setenv("DISCORD_CLIENT_ID", "1250000000000000001")
    monkeypatch.setenv("HILLTOP_WEB_URL", "https://hilltop.example")


async def fixed_par(seed: int) -> ParResult:
    return ParResult(100, 250, ())


async def shown(exchange: Exchange, seen: Seen) -> Message:
    """The answer as it shows, once it does."""
    seen.exchanges.append(exchange)
    return await exchange.shown(within=120)


class Player:
    """The people of the test, pressing and typing through the fake."""

    def __init__(
        self, fake: FakeDiscord, bot: HilltopBot, seen: Seen, words: Words = ENGLISH
    ) -> None:
        self.fake = fake
        self.bot = bot
        self.seen = seen
        #: What the bot's buttons say to these people.
        self.words = words

    async def slash(self, who: FakeUser, command: str, /, **options: Any) -> Message:
        exchange = await self.fake.slash(who, command, within=10, **options)
        return await shown(exchange, self.seen)

    async def click(self, user: FakeUser, message: Message, custom_id: str) -> Message:
        exchange = await self.fake.click(user, message, custom_id=custom_id, within=10)
        return await shown(exchange, self.seen)

    async def choose(self, user: FakeUser, message: Message, select: dict[str, Any]) -> None:
        value = select["options"][0]["value"]
        exchange = await self.fake.choose(user, message, select["custom_id"], [value])
        await shown(exchange, self.seen)

    async def walk(self, user: FakeUser, panel: Message | None, *, commit: bool) -> None:
        """Through a private panel, pressing its first choice each time (never Back), until
        it is done or PANEL_PRESSES presses; without `commit`, it stops at the preview,
        before the button that would play the move."""
        for _ in range(PANEL_PRESSES):
            if panel is None or not panel.ephemeral:
                return
            panel = self.fake.message(panel.id)
            usable = [
                c
                for c in panel.components()
                if not c.get("disabled")
                and c.get("label") != self.words.back
                and (commit or ":play:" not in str(c.get("custom_id")))
            ]
            if not usable:
                return
            first = usable[0]
            if first["type"] == 3:
                await self.choose(user, panel, first)
                continue
            answer = await self.click(user, panel, first["custom_id"])
            if answer.id != panel.id:
                panel = answer


async def live_state(bot: HilltopBot, game_id: int) -> Loaded:
    return await bot.service.live.locked_load(game_id)


async def look_closely(
    player: Player, user: FakeUser, channel: int, rng: random.Random, *, commit: bool
) -> None:
    """Everything one person can ask of a position: the board again, the legal moves,
    autocomplete, and each of the board's controls: its move builders (walked through to
    a preview or a move) and its actions (hint, moves, follow)."""
    fake = player.fake
    board = await player.slash(user, "board", channel_id=channel)
    await player.slash(user, "moves", channel_id=channel)
    for typed in ("", "a"):
        hint = await fake.autocomplete(user, "move", "text", channel_id=channel, text=typed)
        player.seen.exchanges.append(hint)
    for component in board.components():
        label = str(component.get("label", ""))
        custom_id = str(component.get("custom_id", ""))
        if component.get("disabled") or label == player.words.resign or ":claim:" in custom_id:
            continue
        if component["type"] == 3:
            await player.choose(user, board, component)
            continue
        if ":launch:" in custom_id:
            # The board opens in the Activity: the press posts nothing.
            launched = await fake.click(user, board, custom_id=custom_id, within=10)
            assert launched.callback_type == CallbackType.LAUNCH_ACTIVITY
            player.seen.exchanges.append(launched)
            continue
        builder = any(f":{a}:" in custom_id for a in ("pick", "group+"))
        if builder and rng.random() < 0.5:
            continue  # some of a position's builders are enough
        answer = await player.click(user, board, custom_id)
        if answer.ephemeral:
            await player.walk(user, answer, commit=commit)
        if board_moved_on(fake, channel, board):
            return  # a builder played a move: this board is stale


def board_moved_on(fake: FakeDiscord, channel: int, board: Message) -> bool:
    """A newer public message with controls than `board` is in the channel."""
    latest = [m for m in fake.channel_messages(channel) if not m.ephemeral and m.components()]
    return bool(latest) and latest[-1].id != board.id


async def play_a_game(
    player: Player,
    storage: Storage,
    setup: Setup,
    users: list[FakeUser],
    channel: int,
    seed: int,
) -> int:
    """A game from its start to its end, through Discord; its id."""
    fake, bot, words = player.fake, player.bot, player.words
    alice = users[0]
    where = {"position": setup.position} if setup.position else {}
    if setup.people == 2:
        await player.slash(
            alice,
            "play",
            game=setup.game,
            opponent=users[1],
            seed=seed,
            seat="first",
            channel_id=channel,
            **where,
        )
        [challenge] = [m for m in fake.channel_messages(channel) if words.accept in m.labels()]
        await player.click(users[1], challenge, challenge.find(label=words.accept)["custom_id"])
    else:
        extra = {"computers": setup.computers, "level": "easy"} if setup.computers else {}
        await player.slash(
            alice, "play", game=setup.game, seed=seed, channel_id=channel, **extra, **where
        )
    record = await storage.games.live_game_in_channel(channel)
    assert record is not None, f"{setup.game} did not start"
    game_id = record.id
    by_id = {u.id: u for u in users}
    rng = random.Random(seed)
    reached = False
    for decision in range(setup.decisions):
        loaded = await live_state(bot, game_id)
        state = loaded.state
        if not loaded.record.is_live or not state.to_act:
            break
        people = [s for s in sorted(state.to_act) if loaded.record.seats[s].user.id in by_id]
        assert people, f"{setup.game}: nobody to act at decision {decision}"
        seat = people[0]
        user = by_id[loaded.record.seats[seat].user.id]
        kind = (setup.game, str(getattr(state, "stage", "")))
        last = decision == setup.decisions - 1 or (setup.ends and every_move_ends(state, seat))
        arrived = bool(setup.reaches) and not reached
        arrived = arrived and state.to_text().startswith(str(setup.reaches))
        reached = reached or arrived
        if decision in LOOK_AT or last or arrived or kind not in player.seen.kinds:
            player.seen.kinds.add(kind)
            await look_closely(player, user, channel, rng, commit=decision == 1)
            again = await live_state(bot, game_id)
            if again.record.ply != loaded.record.ply or not again.record.is_live:
                continue  # a builder played the move
        if decision == OFFERS_AT and setup.people == 2 and not setup.position:
            await offers(player, user, by_id, channel)
        moves = state.move_texts(seat)
        await player.slash(user, "move", text=moves[rng.randrange(len(moves))], channel_id=channel)
    loaded = await live_state(bot, game_id)
    if setup.ends:
        assert not loaded.record.is_live, f"{setup.game} did not end by its rules"
        assert loaded.state.outcome() is not None, f"{setup.game} ended off the board"
    if setup.reaches:
        assert reached, f"{setup.game} never reached {setup.reaches!r}"
    if loaded.record.is_live:
        board = await player.slash(alice, "board", channel_id=channel)
        confirm = await player.click(alice, board, board.find(label=words.resign)["custom_id"])
        assert confirm.ephemeral
        await player.click(alice, confirm, confirm.find(label=words.sure)["custom_id"])
    end = [m for m in fake.channel_messages(channel) if words.rematch in m.labels()]
    if setup.people == 2:
        assert end, f"{setup.game}: no rematch offered at the end"
        pressed = await fake.click(users[1], end[-1], label=words.rematch, within=10)
        player.seen.exchanges.append(pressed)
        [challenge] = await pressed.followups(1, within=30)
        await player.click(alice, challenge, challenge.find(label=words.decline)["custom_id"])
    return game_id


def every_move_ends(state: GameState[Any], seat: int) -> bool:
    """Whether each of `seat`'s moves ends the game: its last decision, whatever it is."""
    moves = state.legal_moves(seat)
    return len(moves) <= 200 and all(state.play(seat, move).is_over for move in moves)


async def offers(player: Player, user: FakeUser, by_id: dict[int, FakeUser], channel: int) -> None:
    """`user`, to move, offers a draw; the other asks to take back their move; both are
    declined by the buttons of the offer."""
    other = next(u for u in by_id.values() if u.id != user.id)
    for asker, answerer, command in ((user, other, "draw"), (other, user, "takeback")):
        offer = await player.slash(asker, command, channel_id=channel)
        if player.words.decline in offer.labels():
            await player.click(answerer, offer, offer.find(label=player.words.decline)["custom_id"])


async def look_back(player: Player, user: FakeUser, channel: int, game_id: int, full: bool) -> None:
    """A finished game's record (and its download), its replay, and its positions stepped
    through privately: every one both ways when `full`, else the ends and one step."""
    words = player.words
    record = await player.slash(user, "game", id=game_id, channel_id=channel)
    await player.click(user, record, record.find(label=words.download)["custom_id"])
    replay = await player.slash(user, "replay", id=game_id, channel_id=channel)
    panel = await player.click(user, replay, replay.find(label=words.step_through)["custom_id"])
    assert panel.ephemeral
    last = int(re.findall(r"\d+", panel.text.splitlines()[0])[-1])
    assert words.at(0, last) in panel.text
    ways = ["▶"] * last + ["◀"] * last if full else ["⏭", "◀", "⏮", "▶"]
    ply = 0
    for way in ways:
        panel = player.fake.message(panel.id)
        await player.click(user, panel, panel.find(label=way)["custom_id"])
        ply = {"▶": ply + 1, "◀": ply - 1, "⏭": last, "⏮": 0}[way]
        assert words.at(ply, last) in player.fake.message(panel.id).text


async def turn_pages(player: Player, user: FakeUser, message: Message) -> None:
    """A private list's pages by its buttons: forward twice and back once (paged lists),
    or each page once (a game's rules)."""
    labels = [c.get("label") for c in message.components()]
    presses = ["▶", "▶", "◀"] if "▶" in labels else labels
    for label in presses:
        now = player.fake.message(message.id)
        found = [c for c in now.components() if c.get("label") == label]
        if found and not found[0].get("disabled"):
            await player.click(user, now, found[0]["custom_id"])


async def finish_quickly(
    bot: HilltopBot, fake: FakeDiscord, alice: FakeUser, bob: FakeUser, *, games: int
) -> None:
    """Games started and ended by an admin, without Discord: /history gets pages."""
    here = Channel(fake.channel_id, fake.guild_id, "general")
    first, second = User(alice.id, alice.name), User(bob.id, bob.name)
    admin = User(fake.owner.id, fake.owner.name, is_admin=True)
    for seed in range(games):
        await bot.service.start(here, first, GameSetup("hokito", seed=seed + 1), [second])
        await bot.service.accept(here, second)
        await bot.service.admin_end(here, admin)


async def start_quickly(
    bot: HilltopBot, fake: FakeDiscord, alice: FakeUser, bob: FakeUser, *, games: int
) -> None:
    """Games in play in channels of their own, without Discord: /games here gets pages."""
    first, second = User(alice.id, alice.name), User(bob.id, bob.name)
    for seed in range(games):
        where = fake.text_channel(f"busy-{seed}")
        here = Channel(where, fake.guild_id, f"busy-{seed}")
        await bot.service.start(here, first, GameSetup("hokito", seed=seed + 1), [second])
        await bot.service.accept(here, second)


async def play_them_all(
    player: Player,
    storage: Storage,
    setups: tuple[Setup, ...],
    channels: list[int],
    users: Players,
) -> list[tuple[str, int, int]]:
    """Each set-up played in its channel, then looked back on: the game, its channel and
    its id, for each."""
    finished = []
    for setup, channel in zip(setups, channels, strict=True):
        people = [users.alice, users.bob][: setup.people]
        game_id = await play_a_game(player, storage, setup, people, channel, seed=setup.seed)
        finished.append((setup.game, channel, game_id))
    hokito = next(game_id for game, _, game_id in finished if game == "hokito")
    for _, channel, game_id in finished:
        await look_back(player, users.carol, channel, game_id, full=game_id == hokito)
    return finished


async def lists_and_pages(
    player: Player, users: Players, admin: FakeUser, games: list[str]
) -> dict[str, Message]:
    """What is asked for besides the games: lists with pages turned, each game's rules,
    ratings, profiles, the daily puzzle, leaderboards; some of the replies, by command."""
    fake, bot = player.fake, player.bot
    alice, bob, carol = users
    general = fake.channel_id
    said = {}
    for command in ("games here", "games mine", "help", "notify"):
        said[command] = await player.slash(alice, command, channel_id=general)
    await finish_quickly(bot, fake, alice, bob, games=5)
    said["history"] = await player.slash(alice, "history", channel_id=general)
    assert "▶" in said["history"].labels(), "/history has pages"
    await turn_pages(player, alice, said["history"])
    await player.slash(alice, "history", user=bob, game="hokito", channel_id=general)
    await start_quickly(bot, fake, alice, bob, games=PAGE_SIZE + 1)
    here = await player.slash(alice, "games here", channel_id=general)
    assert "▶" in here.labels(), "/games here has pages"
    await turn_pages(player, alice, here)
    for game in games:
        said[f"rules {game}"] = await player.slash(carol, "rules", game=game, channel_id=general)
        await turn_pages(player, carol, said[f"rules {game}"])
        said[f"ratings {game}"] = await player.slash(
            alice, "ratings", game=game, channel_id=general
        )
    said["profile"] = await player.slash(alice, "profile", channel_id=general)
    await player.slash(alice, "profile", user=bob, opponent=alice, channel_id=general)
    said["daily"] = await player.slash(carol, "daily", channel_id=general)
    for _ in range(3):
        typed = await fake.autocomplete(carol, "daily", "move", channel_id=general, move="")
        player.seen.exchanges.append(typed)
        turn = typed.choices[0]["value"]
        await player.slash(carol, "daily", move=turn, channel_id=general)
    await player.slash(carol, "daily-replay", channel_id=general)
    for period in ("today", "week", "all"):
        said[f"leaderboard {period}"] = await player.slash(
            carol, "leaderboard", period=period, channel_id=general
        )
    said["stats"] = await player.slash(carol, "stats", channel_id=general)
    said["admin settings"] = await player.slash(admin, "admin settings", channel_id=general)
    return said


async def test_discord_accepts_every_reply_of_every_game_and_every_panel(
    fake: FakeDiscord, sqlite_storage: Storage, activity: None
) -> None:
    storage = sqlite_storage
    users = Players(fake.user("alice"), fake.user("bob"), fake.user("carol"))
    admin = fake.user("root", permissions=MANAGE_GUILD)
    channels = [fake.text_channel(s.game) for s in SETUPS]
    seen = Seen()
    async with hilltop(fake, storage, Clock()) as bot:
        bot.service.computers.wait = None  # computer answers join the reply they follow
        bot.daily.par.runner = fixed_par
        player = Player(fake, bot, seen)
        await player.slash(admin, "admin settings", web="public", channel_id=fake.channel_id)
        await play_them_all(player, storage, SETUPS, channels, users)
        games = list(dict.fromkeys(s.game for s in SETUPS))
        await lists_and_pages(player, users, admin, games)
    refused = [(c.method, c.path, reason) for c, reason in fake.rejections]
    assert refused == [], "Discord would have refused these requests"
    # Every decision of Everest was met: plans (their builder), a roll-off's pick (its
    # browser) and a round's end.
    assert {("everest", kind) for kind in ("plan", "pick", "end")} <= seen.kinds
    # The controls met: builders and previews, the board's actions, offers, pages.
    pressed = {
        str(e.payload["data"]["custom_id"]).split(":")[1]
        for e in seen.exchanges
        if "custom_id" in e.payload["data"]
    }
    assert {
        "pick",
        "step",
        "play",
        "group+",
        "open",
        "hint",
        "moves",
        "follow",
        "resign",
        "resign!",
        "rematch",
        "decline",
        "draw-",
        "undo-",
        "replay",
        "download",
        "history",
        "rules",
        "launch",
    } <= pressed


async def test_discord_accepts_every_reply_to_players_whose_discord_speaks_polish(
    fake: FakeDiscord, sqlite_storage: Storage, activity: None
) -> None:
    storage = sqlite_storage
    users = Players(*(fake.user(name, locale="pl") for name in ("alice", "bob", "carol")))
    admin = fake.user("root", permissions=MANAGE_GUILD, locale="pl")
    channels = [fake.text_channel(s.game) for s in POLISH_SETUPS]
    seen = Seen()
    async with hilltop(fake, storage, Clock()) as bot:
        bot.service.computers.wait = None
        bot.daily.par.runner = fixed_par
        player = Player(fake, bot, seen, POLISH)
        await player.slash(admin, "admin settings", web="public", channel_id=fake.channel_id)
        finished = await play_them_all(player, storage, POLISH_SETUPS, channels, users)
        games = list(dict.fromkeys(s.game for s in POLISH_SETUPS))
        said = await lists_and_pages(player, users, admin, games)
    refused = [(c.method, c.path, reason) for c, reason in fake.rejections]
    assert refused == [], "Discord would have refused these requests"
    # Every game was played, its buttons pressed by their Polish names (Przyjmij,
    # Poddaj się, Rewanż, Krok po kroku, Wstecz), its boards titled in Polish.
    assert {game for game, _, _ in finished} == {listing.id for listing in all_listings()}
    for game, channel, _ in finished:
        titles = [m.text.splitlines()[0] for m in fake.channel_messages(channel) if m.embeds]
        assert any(" · ruch " in title for title in titles), f"{game}: {titles}"
    # A game's end, with its result, and the lists and pages speak Polish too.
    assert any("Koniec gry." in m.text for m in fake.channel_messages(channels[-1]))
    for command, word in POLISH_WORDS.items():
        assert word in said[command].text, f"/{command} is not in Polish: {said[command].text}"


async def test_a_replay_is_stepped_through_from_the_first_position_to_the_last_and_back(
    fake: FakeDiscord, sqlite_storage: Storage
) -> None:
    alice, bob = fake.user("alice"), fake.user("bob")
    channel = fake.text_channel("hokito")
    seen = Seen()
    async with hilltop(fake, sqlite_storage, Clock()) as bot:
        player = Player(fake, bot, seen)
        setup = Setup("hokito", 2, decisions=4)
        game_id = await play_a_game(player, sqlite_storage, setup, [alice, bob], channel, seed=3)
        # Each position once forward, once back: ⏮ and ◀ lead to the same position from
        # the second one, ▶ and ⏭ from the one before the last, yet are different buttons.
        await look_back(player, bob, channel, game_id, full=True)
    refused = [(c.method, c.path, reason) for c, reason in fake.rejections]
    assert refused == [], "Discord would have refused these requests"


def embed_text(embed: dict[str, Any]) -> int:
    """The characters of an embed that Discord counts toward a message's 6,000."""
    fields = embed.get("fields") or []
    return (
        len(embed.get("title") or "")
        + len(embed.get("description") or "")
        + sum(len(f["name"]) + len(f["value"]) for f in fields)
        + len((embed.get("footer") or {}).get("text") or "")
        + len((embed.get("author") or {}).get("name") or "")
    )


def picture() -> bytes:
    out = io.BytesIO()
    Image.new("RGB", (8, 8), (200, 220, 240)).save(out, "PNG")
    return out.getvalue()


async def test_a_gallery_of_long_captions_beside_the_longest_board_is_posted_within_the_limit(
    fake: FakeDiscord, sqlite_storage: Storage
) -> None:
    """Nine captioned pictures and a board of 4,096 characters: Discord counts every
    embed of a message toward one 6,000, so the captions give way and the board's own
    words are posted whole. A board whose fields and footer alone pass the limit is cut
    too, the cut marked."""
    png = picture()
    words = ("The yeti climbs toward the peak, snowballs fly. " * 90)[:4096]
    captions = [
        f"Round 3 · step {n}: " + "Red throws a snowball east and Blue is pushed off. " * 6
        for n in range(1, 10)
    ]
    gallery = Reply(
        title="Everest · move 12",
        text=words,
        image=png,
        gallery=tuple((caption, png) for caption in captions),
        fields=(("Red", "3 coins"), ("Blue", "2 coins")),
        footer="Game 7 · round 3",
        tone="turn",
    )
    crowded = Reply(
        title="t" * 300,
        text="w" * 5000,
        fields=tuple((f"field {n} " + "n" * 250, "v" * 1024) for n in range(25)),
        footer="f" * 2048,
    )
    here = Channel(fake.channel_id, fake.guild_id, "general")
    async with hilltop(fake, sqlite_storage, Clock()) as bot:
        await bot.post(here, [gallery, crowded])
    refused = [(c.method, c.path, reason) for c, reason in fake.rejections]
    assert refused == [], "Discord would have refused these requests"
    first, second = [m for m in fake.channel_messages(fake.channel_id) if m.embeds]
    *pictures, board = first.embeds
    assert len(pictures) == 9 and sum(embed_text(e) for e in first.embeds) <= 6000
    assert board["description"] == words and board["title"] == "Everest · move 12"
    assert [(f["name"], f["value"]) for f in board["fields"]] == [
        ("Red", "3 coins"),
        ("Blue", "2 coins"),
    ]
    assert board["footer"]["text"] == "Game 7 · round 3"
    for embed, caption in zip(pictures, captions, strict=True):
        title = embed["title"]
        assert len(title) >= 40 and title.endswith("…") and caption.startswith(title[:-1])
    [alone] = second.embeds
    assert embed_text(alone) <= 6000
    assert alone["title"] == "t" * 255 + "…" and alone["description"] == "w" * 4095 + "…"
