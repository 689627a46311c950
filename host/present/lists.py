"""Replies that are not about a board: a player's list of legal moves, and a game's rules
pages."""

from __future__ import annotations

from collections.abc import Callable

from engine.text import Text, t
from host.catalog import Listing
from host.model import Choice, Reply
from host.payloads import Action, Payload
from host.play.live import Loaded, search_key
from host.present.painting import Painter
from render.core import RenderContext

#: A Discord embed holds 4,096 characters; long move lists are cut below that.
MAX_LIST_CHARS = 3800


def move_list(loaded: Loaded, seat: int, start: str | None = None) -> Reply:
    """`/moves`: the seat's legal moves (those starting with `start`), grouped by what
    they start with, cut to what one message holds; or, for moves too many to list,
    how to write one."""
    guide = loaded.state.move_guide(seat) if not start else None
    if guide is not None:
        title = str(t("Your legal moves ({n})", n=len(loaded.keyed_moves(seat))))
        return Reply(title=title, text=str(guide), ephemeral=True)
    moves = _matching(loaded, seat, start)
    title = str(t("Your legal moves ({n})", n=len(moves)))
    if start and not moves:
        text = str(t("No legal move starts with {start}.", start=start.strip()))
        return Reply(title=title, text=text, ephemeral=True)
    groups: dict[str, list[str]] = {}
    for first, text in moves:
        groups.setdefault(first, []).append(text)
    if len(groups) == len(moves):
        groups = {"": [text for _, text in moves]}  # one move each: no headings
    lines: list[str] = []
    room, shown = MAX_LIST_CHARS, 0
    for first, texts in groups.items():
        head = f"**{first}** " if first else ""
        items: list[str] = []
        used = len(head)
        for text in texts:
            cost = len(text) + (3 if items else 0)  # " · " between moves
            if used + cost > room:
                break
            items.append(text)
            used += cost
        if items:
            lines.append(head + " · ".join(items))
            room -= used + 1
            shown += len(items)
        if len(items) < len(texts):
            break
    if shown < len(moves):
        lines.append(
            str(
                t(
                    "… and {n} more. Narrow the list with /moves <start>, or use the buttons.",
                    n=len(moves) - shown,
                )
            )
        )
    return Reply(title=title, text="\n".join(lines), ephemeral=True)


def _matching(loaded: Loaded, seat: int, start: str | None) -> list[tuple[str, str]]:
    """(first part, text) of the seat's legal moves, or of those starting with `start`
    (a square, a piece or the first letters of the notation)."""
    state = loaded.state
    key = search_key(start) if start else ""
    first = start.strip().lower() if start else ""
    found = []
    for (k, text), move in zip(loaded.keyed_moves(seat), state.legal_moves(seat), strict=True):
        tokens = state.move_tokens(move)
        head = tokens[0] if tokens else text
        if not start or k.startswith(key) or head.lower() == first:
            found.append((head, text))
    return found


async def rules_page(
    painter: Painter, listing: Listing, page: int = 0, *, images: bool = True, edit: bool = False
) -> Reply:
    """One page of a game's rules, with buttons to the others; the first page shows
    the game's starting board as an example."""
    pages = listing.rules_pages()
    page = min(max(page, 0), len(pages) - 1)
    titles = [str(t("The game")), str(t("How to move")), str(t("House rulings"))]
    titles += [str(t("Page {n}", n=n)) for n in range(len(titles) + 1, len(pages) + 1)]
    actions = tuple(
        Choice(
            Payload(Action.RULES, 0, 0, (listing.id, str(i))),
            titles[i],
            "primary" if i == page else "secondary",
            disabled=i == page,
        )
        for i in range(len(pages))
    )
    image = None
    if page == 0 and images:
        game = listing.game
        start = game.new_state(1, game.min_players, None).view(None)
        names = tuple(str(Text(name)) for name in game.seat_names[: game.min_players])
        image = (await painter.board(start, RenderContext(names=names), None)).board
    return Reply(
        title=str(t("{game}: rules · {page}", game=listing.game.name, page=titles[page])),
        text=pages[page],
        image=image,
        ephemeral=True,
        actions=actions,
        edit=edit,
        footer=str(t("Page {n} of {total}", n=page + 1, total=len(pages))),
    )


def paged(
    title: str,
    text: str,
    page: int,
    pages: int,
    turn: Callable[[int], Payload],
    *,
    edit: bool,
) -> Reply:
    """A private list, one page of it, with ◀ ▶ buttons (`turn(page)` is the payload
    that shows another page) and the page's number when there are several."""
    actions = []
    if pages > 1:
        for label, target in (("◀", page - 1), ("▶", page + 1)):
            payload = turn(max(0, min(pages - 1, target)))
            actions.append(Choice(payload, label, disabled=not 0 <= target < pages))
    footer = str(t("Page {page} of {pages}", page=page + 1, pages=pages)) if pages > 1 else ""
    return Reply(
        title=title, text=text, ephemeral=True, actions=tuple(actions), footer=footer, edit=edit
    )


def paged_from(
    title: str,
    text: str,
    number: int,
    newer: tuple[Payload, bool],
    older: tuple[Payload, bool],
    *,
    edit: bool,
) -> Reply:
    """A private list cut where the previous page ended, with ◀ ▶ buttons: `newer` and
    `older` are the payloads of the pages beside it, each with whether there is one that
    way (if not, its button is shown disabled), and `number` counts pages from the newest
    (0). Both buttons are shown when either way leads on."""
    actions: tuple[Choice, ...] = ()
    if newer[1] or older[1]:
        actions = (
            Choice(newer[0], "◀", disabled=not newer[1]),
            Choice(older[0], "▶", disabled=not older[1]),
        )
    footer = str(t("Page {page}", page=number + 1)) if actions else ""
    return Reply(title=title, text=text, ephemeral=True, actions=actions, footer=footer, edit=edit)
