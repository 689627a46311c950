// Hilltop's pages: times in the reader's own words, live game and tournament pages, the
// replay stepper.
"use strict";

function showTimes(root) {
  const lang = document.documentElement.lang || "en";
  const relative = new Intl.RelativeTimeFormat(lang, { numeric: "auto" });
  const absolute = new Intl.DateTimeFormat(lang, { dateStyle: "medium", timeStyle: "short" });
  const units = [["year", 31536000], ["month", 2592000], ["day", 86400], ["hour", 3600], ["minute", 60], ["second", 1]];
  for (const el of root.querySelectorAll("time[datetime]")) {
    const when = new Date(el.getAttribute("datetime"));
    el.title = absolute.format(when);
    if (el.dataset.kind !== "relative") { el.textContent = absolute.format(when); continue; }
    const seconds = (when.getTime() - Date.now()) / 1000;
    const [unit, size] = units.find(([, s]) => Math.abs(seconds) >= s) || ["second", 1];
    el.textContent = relative.format(Math.round(seconds / size), unit);
  }
}

// A page's stream of changes, each event of `kind` handed to `on(event, source)`. The
// browser reconnects a stream that broke by itself, but gives up on one the site refused
// (too many open: it answers 503, Retry-After); such a stream is asked for again a while
// later. A stream the page closed itself stays closed.
const REOPEN_MS = 30000;

function follow(url, kind, on) {
  const source = new EventSource(url);
  source.addEventListener(kind, (event) => on(event, source));
  source.addEventListener("error", () => {
    if (source.readyState === EventSource.CLOSED) setTimeout(() => follow(url, kind, on), REOPEN_MS);
  });
}

// The moves made since this browser last showed the game are marked, and said so.
function markNew(root, seen) {
  const moves = Array.from(root.querySelectorAll("[data-ply]")).map((li) => [li, Number(li.dataset.ply)]);
  const fresh = moves.filter(([, ply]) => seen !== null && ply > seen);
  for (const [li] of fresh) li.classList.add("new");
  const since = root.querySelector(".since");
  if (!since || fresh.length === 0) return;
  const first = fresh[0][1];
  const last = fresh[fresh.length - 1][1];
  since.textContent = first === last
    ? since.dataset.one.replace("{n}", String(first))
    : since.dataset.many.replace("{first}", String(first)).replace("{last}", String(last));
  since.hidden = false;
}

function remember(game, ply) {
  try { localStorage.setItem(`hilltop:seen:${game}`, String(ply)); } catch (e) { /* private mode */ }
}

function lastSeen(game) {
  try {
    const kept = localStorage.getItem(`hilltop:seen:${game}`);
    return kept === null ? null : Number(kept);
  } catch (e) { return null; }
}

// The board of a game's page shows the game live, or a past position picked from the list
// of moves (its replay frame) until the reader goes back. Meanwhile what the stream says
// is kept, not shown: the reader is told that the game has moved on.
function boardView(root) {
  const board = document.getElementById("board");
  const spots = document.getElementById("spots");
  const past = document.getElementById("past");
  const what = document.getElementById("past-what");
  const news = document.getElementById("past-news");
  const base = document.body.dataset.root || "";
  let live = { src: board.getAttribute("src"), alt: board.alt };
  let shown = null;

  function marked() {
    for (const b of document.querySelectorAll("#live .mv[data-frame]")) {
      b.classList.toggle("shown", shown !== null && b.dataset.ply === shown.ply);
    }
  }
  function back() {
    if (shown === null) return;
    shown = null;
    board.src = live.src;
    board.alt = live.alt;
    spots.hidden = false;
    past.hidden = true;
    news.hidden = true;
    marked();
  }
  function pick(button) {
    const frame = button.dataset.frame;
    // The position on the board now is the live game itself.
    const list = document.querySelector("#live .movelist");
    if (list && list.dataset.frame === frame) { back(); return; }
    shown = { ply: button.dataset.ply, frame };
    const words = button.title || button.textContent.trim();
    board.src = `${base}/g/${root.dataset.game}/frames/${frame}.png`;
    board.alt = `${words} · ${past.dataset.alt.replace("{n}", frame)}`;
    spots.hidden = true;
    past.hidden = false;
    what.textContent = words;
    marked();
    // On a phone the list is below the board: the board is brought into view.
    const box = past.getBoundingClientRect();
    if (box.top < 0 || box.top > window.innerHeight / 2) past.scrollIntoView({ block: "start" });
  }
  document.getElementById("back-live").addEventListener("click", back);
  document.getElementById("live").addEventListener("click", (event) => {
    const button = event.target.closest("button.mv[data-frame]");
    if (button) pick(button);
  });
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && shown !== null) back();
  });
  return {
    back,
    // The live board changed: shown at once, unless a past position is being looked at.
    live(src, alt) {
      if (src === live.src && alt === live.alt) return;
      live = { src, alt };
      if (shown === null) { board.src = src; board.alt = alt; } else { news.hidden = false; }
    },
    // The list was laid out again: the position looked at stays marked.
    relisted: marked,
  };
}

// The tab's title says whose turn it is: "Your turn" to the player the game waits for.
function showTurn(root) {
  const told = document.getElementById("to-move");
  const base = root.dataset.title;
  if (!told || !base) return;
  const acting = (told.dataset.acting || "").split(" ").filter(Boolean);
  const whose = root.dataset.me && acting.includes(root.dataset.me) ? root.dataset.yourTurn : told.textContent.trim();
  document.title = whose ? `${whose} · ${base}` : base;
}

function followGame(root) {
  const live = document.getElementById("live");
  const game = root.dataset.game;
  const seen = lastSeen(game);
  const moves = Array.from(live.querySelectorAll("[data-ply]")).map((li) => Number(li.dataset.ply));
  const view = boardView(root);
  markNew(live, seen);
  remember(game, moves.length ? Math.max(...moves) : 0);
  if (!root.dataset.events) return;
  const playing = root.dataset.player ? playOn(root, view) : null;
  follow(root.dataset.events, "game", (event, source) => {
    const data = JSON.parse(event.data);
    live.innerHTML = data.html;
    if (playing) {
      playing.changed(data);
    } else {
      view.live(data.board, data.alt);
    }
    showTimes(live);
    showTurn(root);
    view.relisted();
    markNew(live, seen);
    const now = Array.from(live.querySelectorAll("[data-ply]")).map((li) => Number(li.dataset.ply));
    remember(game, now.length ? Math.max(...now) : 0);
    if (data.status !== "active" && data.status !== "challenge") source.close();
  });
}

// Playing on the page: the move is built a choice at a time, on the board (the spots) or
// with the buttons, as the board's buttons build it on Discord; each choice asks the site
// for the next ones, naming the move the page was drawn at, and the move is sent once
// confirmed. A page the game has left behind is told so and shown the game as it is.
function playOn(root, view) {
  const game = root.dataset.game;
  const base = document.body.dataset.root || "";
  const check = document.body.dataset.check || "";
  const panel = document.getElementById("play");
  const spots = document.getElementById("spots");
  const told = document.getElementById("told");
  let prefix = [];
  // The public board at the latest move heard of, shown when nothing is to be chosen.
  let publicBoard = null;
  let busy = false;
  // A change heard while the page was asking the site: asked about once that is done.
  let missed = false;
  // The asking about a change heard, while it is under way.
  let refreshing = null;
  // Whether the site said, on being asked about a change, that the page was left behind.
  let leftBehind = false;

  function say(text, refused) {
    told.textContent = text || "";
    told.classList.toggle("refused", Boolean(refused));
  }

  function showBoard(next) {
    if (!next) return;
    if (publicBoard && next.ply < publicBoard.ply) return;
    publicBoard = next;
    if (panel.hidden) view.live(next.board, next.alt);
  }

  // An answer that carries no panel (a refusal of the request itself) changes nothing
  // but the words.
  function show(data) {
    if (data.idle) {
      panel.hidden = true;
      panel.innerHTML = "";
      spots.innerHTML = "";
      prefix = [];
      if (publicBoard) view.live(publicBoard.board, publicBoard.alt);
      return;
    }
    if (!data.panel) return;
    const focused = panel.contains(document.activeElement) || spots.contains(document.activeElement);
    panel.hidden = false;
    panel.dataset.ply = String(data.ply);
    panel.innerHTML = data.panel;
    spots.innerHTML = data.spots;
    view.live(data.picture, data.alt);
    prefix = data.prefix || [];
    // Keyboards and screen readers carry on from the new choices' heading.
    if (focused) panel.querySelector("h2")?.focus();
  }

  async function ask(url, options) {
    busy = true;
    panel.setAttribute("aria-busy", "true");
    spots.setAttribute("aria-busy", "true");
    try {
      const response = await fetch(url, { credentials: "same-origin", ...options });
      const type = response.headers.get("Content-Type") || "";
      if (!type.includes("application/json")) throw new Error(String(response.status));
      return await response.json();
    } finally {
      busy = false;
      panel.removeAttribute("aria-busy");
      spots.removeAttribute("aria-busy");
    }
  }

  async function choose(steps) {
    const query = new URLSearchParams([["ply", panel.dataset.ply], ...steps.map((s) => ["step", s])]);
    const data = await ask(`${base}/g/${game}/play?${query}`);
    say(data.message, Boolean(data.message));
    // A whole move with nothing to confirm is played at once, as on Discord.
    if (data.at_once && !data.message) await play(data.prefix);
    else show(data);
  }

  async function play(steps) {
    const data = await ask(`${base}/g/${game}/play`, {
      method: "POST",
      headers: { "Content-Type": "application/json", "X-Hilltop-Check": check },
      body: JSON.stringify({ ply: Number(panel.dataset.ply), step: steps }),
    });
    if (data.done) {
      say(data.done, false);
      root.dataset.moves = String(Number(root.dataset.moves || 0) + 1);
      showBoard({ ply: data.played, board: `${base}/g/${game}/board.png?ply=${data.played}`, alt: root.dataset.alt });
    } else {
      say(data.message, true);
    }
    show(data);
  }

  async function refresh() {
    // Nothing was being built: the game as it is now. A move half built: at its move.
    const query = panel.hidden
      ? ""
      : new URLSearchParams([["ply", panel.dataset.ply], ...prefix.map((s) => ["step", s])]);
    const fresh = await ask(`${base}/g/${game}/play?${query}`);
    if (fresh.message && !fresh.idle) {
      leftBehind = true;
      say(fresh.message, true);
    }
    show(fresh);
  }

  // Ask about the changes heard, one request at a time, until none is left unasked.
  async function catchUp() {
    while (missed) {
      missed = false;
      await refresh();
    }
  }

  // Catch up now, unless the page is asking already (it catches up when that is done).
  function askAgain() {
    if (busy || refreshing || root.dataset.working || !missed) return;
    refreshing = catchUp()
      .catch(() => {})
      .finally(() => {
        refreshing = null;
        askAgain();
      });
  }

  // The choice offered now that is the one `button` offered before the panel was drawn
  // again, if it still is.
  function stillOffered(button) {
    const kind = button.dataset.play !== undefined ? "play" : "choose";
    const offered = [...panel.querySelectorAll(`[data-${kind}]`), ...spots.querySelectorAll(`[data-${kind}]`)];
    return offered.find((b) => b.dataset[kind] === button.dataset[kind]) || null;
  }

  async function clicked(event) {
    const button = event.target.closest("[data-choose], [data-play]");
    if (!button || root.dataset.working) return;
    event.preventDefault();
    // A choice is made on the game as it is now: the board shows it again.
    view.back();
    root.dataset.working = "1";
    try {
      // A click while the page asks about a change is answered once the page knows it,
      // if the move being built still stands and what was clicked is still offered;
      // else what the site said and the new choices are what the player sees.
      leftBehind = false;
      while (refreshing) await refreshing;
      if (leftBehind) return;
      const choice = button.isConnected ? button : stillOffered(button);
      if (!choice) return;
      if (choice.dataset.play !== undefined) await play(JSON.parse(choice.dataset.play));
      else await choose(JSON.parse(choice.dataset.choose));
      await catchUp();
    } catch (error) {
      say(told.dataset.failed, true);
    } finally {
      delete root.dataset.working;
      root.dataset.clicks = String(Number(root.dataset.clicks || 0) + 1);
      askAgain();
    }
  }
  panel.addEventListener("click", clicked);
  spots.addEventListener("click", clicked);

  return {
    // The game moved (any player, anywhere): the panel is asked again at the page's move
    // and choices, so a half-built plan survives another player's plan. A change heard
    // while the page is asking is asked about after, never lost.
    changed(data) {
      showBoard(data);
      missed = true;
      askAgain();
    },
  };
}

// A tournament's page follows its games: the standings and rounds are laid out again by
// the site whenever one of its games changes, and sent down the page's stream.
function followTournament(root) {
  const live = document.getElementById("live");
  const state = document.getElementById("state");
  follow(root.dataset.events, "tournament", (event, source) => {
    const data = JSON.parse(event.data);
    live.innerHTML = data.html;
    if (state.textContent !== data.state) state.textContent = data.state;
    showTimes(live);
    if (data.status !== "open" && data.status !== "running") source.close();
  });
}

// A player's own page follows their games: the list of games waiting for them is laid out
// again by the site whenever one of their games changes, and its count is in the title.
function followTurns(root) {
  const live = document.getElementById("live");
  follow(root.dataset.events, "turns", (event) => {
    const data = JSON.parse(event.data);
    live.innerHTML = data.html;
    document.title = data.title;
    showTimes(live);
  });
}

function stepThrough(root) {
  const last = Number(root.dataset.last);
  const game = root.dataset.game;
  const frame = document.getElementById("frame");
  const caption = document.getElementById("caption");
  const where = document.getElementById("where");
  const links = Array.from(root.querySelectorAll("[data-frame]"));
  const buttons = Object.fromEntries(Array.from(root.querySelectorAll("[data-step]")).map((b) => [b.dataset.step, b]));
  let at = last;
  function show(n) {
    at = Math.max(0, Math.min(last, n));
    frame.src = `${document.body.dataset.root || ""}/g/${game}/frames/${at}.png`;
    // What the move did, then which position this is: "… · The position after move 6".
    frame.alt = `${links[at].textContent.trim()} · ${root.dataset.alt.replace("{n}", String(at))}`;
    caption.innerHTML = links[at].innerHTML;
    where.textContent = `${at} / ${last}`;
    links.forEach((a, i) => (i === at ? a.setAttribute("aria-current", "step") : a.removeAttribute("aria-current")));
    buttons.first.disabled = buttons.back.disabled = at === 0;
    buttons.next.disabled = buttons.last.disabled = at === last;
    if (location.hash !== `#${at}`) history.replaceState(null, "", `#${at}`);
  }
  const moves = { first: () => 0, back: () => at - 1, next: () => at + 1, last: () => last };
  for (const [name, button] of Object.entries(buttons)) button.addEventListener("click", () => show(moves[name]()));
  for (const a of links) a.addEventListener("click", (e) => { e.preventDefault(); show(Number(a.dataset.frame)); });
  document.addEventListener("keydown", (e) => {
    if (e.target.closest && e.target.closest("input, select, textarea")) return;
    const to = { ArrowLeft: at - 1, ArrowRight: at + 1, Home: 0, End: last }[e.key];
    if (to !== undefined) { e.preventDefault(); show(to); }
  });
  const start = Number((location.hash || "").slice(1));
  show(location.hash && Number.isInteger(start) ? start : last);
}

document.addEventListener("DOMContentLoaded", () => {
  showTimes(document);
  const game = document.querySelector(".game[data-game]");
  if (game && document.getElementById("live")) followGame(game);
  const tournament = document.querySelector(".tournament[data-events]");
  if (tournament) followTournament(tournament);
  const turns = document.querySelector(".turns[data-events]");
  if (turns) followTurns(turns);
  const replay = document.querySelector(".replay");
  if (replay) stepThrough(replay);
});
