// Hilltop's pages: times in the reader's own words, live game pages, the replay stepper.
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

function followGame(root) {
  const live = document.getElementById("live");
  const board = document.getElementById("board");
  const source = new EventSource(root.dataset.events);
  source.addEventListener("game", (event) => {
    const data = JSON.parse(event.data);
    live.innerHTML = data.html;
    board.src = data.board;
    board.alt = board.alt.replace(/\d+$/, String(data.ply));
    root.dataset.ply = String(data.ply);
    showTimes(live);
    if (data.status !== "active" && data.status !== "challenge") source.close();
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
    frame.src = `/g/${game}/frames/${at}.png`;
    frame.alt = frame.alt.replace(/\d+$/, String(at));
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
  const game = document.querySelector("[data-events]");
  if (game) followGame(game);
  const replay = document.querySelector(".replay");
  if (replay) stepThrough(replay);
});
