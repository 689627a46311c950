"""The arithmetic of stored ratings, the same in both backends: the changes a rated game
makes, a player's record and streak, the head-to-head rows of each pair of players, and
every table computed again from nothing.

The rating system itself (`Rater`) comes from the host; this module only applies it and
keeps the numbers the tables hold.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from data.ratings import Change, Meeting, Outcome, Rater, Skill, ToRate


def changes_for(
    game: ToRate, scope: int, before: Mapping[int, Skill], rater: Rater
) -> list[Change]:
    after = rater(game.places, before)
    changes = []
    for user in game.places:
        others = tuple(sorted(u for u in game.places if u != user))
        others_mu = sum(before[u][0] for u in others) / len(others)
        outcome = game.outcomes[user]
        place = game.places[user]
        changes.append(
            Change(scope, user, outcome, place, before[user], after[user], others_mu, others)
        )
    return changes


#: What one game adds to a player's record, by outcome: wins, draws, losses, and the
#: streak's step (1: a win, 0: a draw ends it, -1: a loss).
TALLY: dict[Outcome, tuple[int, int, int, int]] = {
    "win": (1, 0, 0, 1),
    "draw": (0, 1, 0, 0),
    "loss": (0, 0, 1, -1),
}


def rated_again(
    games: Iterable[ToRate], rater: Rater
) -> tuple[list[tuple[ToRate, list[Change]]], list[tuple[object, ...]]]:
    """Every game rated again from nothing, in order: each game with its changes, and
    the rows of the ratings table they end with."""
    skills: dict[tuple[str, int, int], Skill] = {}
    records: dict[tuple[str, int, int], list[int]] = {}
    rows: list[tuple[ToRate, list[Change]]] = []
    for game in games:
        found: list[Change] = []
        for scope in game.scopes if game.places else ():
            current = {u: skills.get((game.game, scope, u), rater.start) for u in game.places}
            for change in changes_for(game, scope, current, rater):
                key = (game.game, scope, change.user_id)
                skills[key] = change.after
                count_outcome(records.setdefault(key, [0, 0, 0, 0, 0]), change.outcome)
                found.append(change)
        rows.append((game, found))
    return rows, [(*key, *skills[key], *record) for key, record in records.items()]


def against(mine: int, theirs: int) -> Outcome:
    """A player's result against another from their places (1 is first)."""
    return "win" if mine < theirs else "draw" if mine == theirs else "loss"


def meetings_of(game: ToRate, changes: Iterable[Change]) -> list[tuple[object, ...]]:
    """The rows one rated game adds to the head-to-head records: one for each ordered
    pair of its players in each scope."""
    return [
        (scope, user, other, game.game, *tally, game.game_id, game.finished_at, outcome)
        for (scope, user, other), (tally, outcome) in _meetings(changes).items()
    ]


def _meetings(
    changes: Iterable[Change],
) -> dict[tuple[int, int, int], tuple[tuple[int, int, int], Outcome]]:
    """(scope, player, other player): (wins, draws, losses) of one game, and its outcome."""
    by_scope: dict[int, list[Change]] = {}
    for change in changes:
        by_scope.setdefault(change.scope, []).append(change)
    found = {}
    for scope, players in by_scope.items():
        for a in players:
            for b in players:
                if a.user_id != b.user_id:
                    outcome = against(a.place, b.place)
                    tally = (int(outcome == "win"), int(outcome == "draw"), int(outcome == "loss"))
                    found[(scope, a.user_id, b.user_id)] = (tally, outcome)
    return found


def meetings_again(rated: Iterable[tuple[ToRate, list[Change]]]) -> list[tuple[object, ...]]:
    """Every head-to-head record from games rated again in order, as rows of the table."""
    found: dict[tuple[int, int, int, str], Meeting] = {}
    for game, changes in rated:
        for (scope, user, other), ((won, drew, lost), outcome) in _meetings(changes).items():
            key = (scope, user, other, game.game)
            was = found.get(key)
            found[key] = Meeting(
                game.game,
                won + (was.wins if was else 0),
                drew + (was.draws if was else 0),
                lost + (was.losses if was else 0),
                game.game_id,
                game.finished_at,
                outcome,
            )
    return [
        (*key, m.wins, m.draws, m.losses, m.last_game_id, m.last_finished_at, m.last_outcome)
        for key, m in found.items()
    ]


def count_outcome(record: list[int], outcome: Outcome) -> None:
    """Add a game to [games, wins, draws, losses, streak], as the table's upsert does."""
    record[0] += 1
    if outcome == "win":
        record[1] += 1
        record[4] = record[4] + 1 if record[4] > 0 else 1
    elif outcome == "draw":
        record[2] += 1
        record[4] = 0
    else:
        record[3] += 1
        record[4] = record[4] - 1 if record[4] < 0 else -1
