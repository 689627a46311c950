// Hilltop's Discord Activity shell: signs the player in through Discord, asks the site
// which game this launch is for, and opens that game's page in the Activity's frame.
//
// Inside Discord every request goes through Discord's proxy under /.proxy/; the page
// (web/templates/activity.html) gives the address of the site's API there, the
// application's client id and the words to show, already in the player's language.
import { DiscordSDK } from "@discord/embedded-app-sdk";

// Discord may never answer the handshake of a page reloaded inside it: after this long the
// player is asked to launch the Activity again.
const READY_MS = 10000;
const SCOPES = ["identify", "guilds"];

const shell = document.getElementById("activity");
const said = document.getElementById("said");

// Show one of the page's own messages (`data-say-<key>`), or words the site sent.
function say(key, words) {
  said.textContent = words || shell.dataset[`say${key[0].toUpperCase()}${key.slice(1)}`];
  shell.dataset.step = key;
}

class Stop extends Error {
  constructor(key, words) {
    super(key);
    this.key = key;
    this.words = words;
  }
}

function within(promise, ms) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Stop("stuck")), ms);
    promise.then(
      (value) => { clearTimeout(timer); resolve(value); },
      (error) => { clearTimeout(timer); reject(error); },
    );
  });
}

// A request to the site, answered with JSON: its body, or a Stop with the site's words.
async function ask(path, options) {
  let answer;
  try {
    answer = await fetch(`${shell.dataset.api}${path}`, options);
  } catch (error) {
    throw new Stop("unreachable");
  }
  let body = {};
  try {
    body = await answer.json();
  } catch (error) {
    throw new Stop("unreachable");
  }
  if (!answer.ok) throw new Stop("refused", body.message);
  return body;
}

async function open() {
  const clientId = shell.dataset.client;
  let sdk;
  try {
    sdk = new DiscordSDK(clientId);
  } catch (error) {
    throw new Stop("outside");
  }
  say("connecting");
  await within(sdk.ready(), READY_MS);
  say("signing");
  let code;
  try {
    ({ code } = await sdk.commands.authorize({
      client_id: clientId,
      response_type: "code",
      state: "",
      prompt: "none",
      scope: SCOPES,
    }));
  } catch (error) {
    throw new Stop("declined");
  }
  const { access_token } = await ask("/token", {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ code }),
  });
  try {
    await sdk.commands.authenticate({ access_token });
  } catch (error) {
    throw new Stop("declined");
  }
  say("finding");
  const query = new URLSearchParams();
  if (sdk.customId) query.set("custom_id", sdk.customId);
  if (sdk.guildId) query.set("guild_id", sdk.guildId);
  if (sdk.channelId) query.set("channel_id", sdk.channelId);
  const { url } = await ask(`/launch?${query}`);
  say("opening");
  window.location.replace(url);
}

open().catch((error) => {
  if (error instanceof Stop) say(error.key, error.words);
  else say("failed");
});
