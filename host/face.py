"""The service's face: all that a front-end (the Discord layer, the console, the web) may
use of the service. A front-end imports this module and nothing else of `host/`, and
nothing of `data/` or `engine/` (`tests/test_layering.py`): whatever a player can do is a
call on what is named here, which any front-end can make."""

from __future__ import annotations

from data.console import ConsoleMemoryError
from data.events import FORMATS
from data.fair import serving
from data.repository import DatabaseUnavailableError, GameRecord, OneServer, Shards
from engine.rng import seed_from_text
from engine.text import ENGLISH, Text, current_language, languages, speaking, t, tn
from host.daily.replays import RUNS
from host.daily.service import PERIODS, DailyService
from host.digests import timezone_choices
from host.events.rounds import MAX_ROUNDS
from host.events.service import Events, EventSetup
from host.history.records import MAX_RECORD_BYTES, MAX_RECORD_MOVES
from host.house import FrontEnd, House, HouseSettings, build_house
from host.i18n import COMMANDS, CommandNames, catalogue, command_names, language_of, locale_dir
from host.model import (
    SCOPES,
    Channel,
    ChannelBusyError,
    Choice,
    Direct,
    Reply,
    ServiceError,
    StaleControlsError,
    User,
    Where,
    unreachable_database,
)
from host.pages.local import local_user
from host.pages.service import WebPages
from host.pages.views import (
    Card,
    DailyDay,
    GameCard,
    GameView,
    HistoryRow,
    HistoryView,
    MovePanel,
    PageNotFoundError,
    PanelChoice,
    PlayDone,
    PlayerView,
    ReplayView,
    ServerInfo,
    ServerView,
    SignInNeededError,
    TournamentView,
    TurnLine,
    TurnsView,
    Visitor,
)
from host.payloads import PATTERN, Payload
from host.play.live import game_of
from host.present.painting import SPEEDS
from host.privacy.words import privacy, privacy_notice
from host.ratings.pages import RatingPages
from host.service import BOT_NAME, GameService
from host.settings import WEB_ACCESS, ServerChange
from host.setup import LEVELS, MAX_COMPUTERS, MAX_DEADLINE_MINUTES, MAX_SEED, GameSetup, SeatChoice

__all__ = [
    "BOT_NAME",
    "COMMANDS",
    "ENGLISH",
    "FORMATS",
    "LEVELS",
    "MAX_COMPUTERS",
    "MAX_DEADLINE_MINUTES",
    "MAX_RECORD_BYTES",
    "MAX_RECORD_MOVES",
    "MAX_ROUNDS",
    "MAX_SEED",
    "PATTERN",
    "PERIODS",
    "RUNS",
    "SCOPES",
    "SPEEDS",
    "WEB_ACCESS",
    "Card",
    "Channel",
    "ChannelBusyError",
    "Choice",
    "CommandNames",
    "ConsoleMemoryError",
    "DailyDay",
    "DailyService",
    "DatabaseUnavailableError",
    "Direct",
    "EventSetup",
    "Events",
    "FrontEnd",
    "GameCard",
    "GameRecord",
    "GameService",
    "GameSetup",
    "GameView",
    "HistoryRow",
    "HistoryView",
    "House",
    "HouseSettings",
    "MovePanel",
    "OneServer",
    "PageNotFoundError",
    "PanelChoice",
    "Payload",
    "PlayDone",
    "PlayerView",
    "RatingPages",
    "ReplayView",
    "Reply",
    "SeatChoice",
    "ServerChange",
    "ServerInfo",
    "ServerView",
    "ServiceError",
    "Shards",
    "SignInNeededError",
    "StaleControlsError",
    "Text",
    "TournamentView",
    "TurnLine",
    "TurnsView",
    "User",
    "Visitor",
    "WebPages",
    "Where",
    "build_house",
    "catalogue",
    "command_names",
    "current_language",
    "game_of",
    "language_of",
    "languages",
    "local_user",
    "locale_dir",
    "privacy",
    "privacy_notice",
    "seed_from_text",
    "serving",
    "speaking",
    "t",
    "timezone_choices",
    "tn",
    "unreachable_database",
]
