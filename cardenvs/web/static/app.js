// The page of `cardenvs serve`. It knows no rule of any game: the server sends the table
// (an SVG drawn by the package), the legal moves as strings, and the events; the page
// lets a person pick cards and moves, and sends one line of text, which the server reads
// as the terminal does and checks against the legal moves.
"use strict";

const $ = (id) => document.getElementById(id);
let games = [];
let tableId = null;
let selected = []; // the clicked hand cards, in the order they were clicked: [{el, card}]
let busy = false;
let eventTables = []; // the tables of the events (a round's last), by event index: sent once each
let movesPlayed = 0; // the moves of the match as last shown: a move is sent for that table only

async function api(method, path, body) {
  const init = { method, headers: {} };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = typeof body === "string" ? body : JSON.stringify(body);
  }
  const response = await fetch(path, init);
  const type = response.headers.get("content-type") || "";
  const data = type.startsWith("application/json") ? await response.json() : await response.text();
  if (!response.ok) {
    const error = new Error(typeof data === "object" && data.error ? data.error : `the server answered ${response.status}`);
    error.status = response.status;
    throw error;
  }
  return data;
}

function element(tag, attrs = {}, text = "") {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  if (text) el.textContent = text;
  return el;
}

// ------------------------------------------------------------------ the setup form
function currentGame() {
  return games.find((g) => g.name === $("game").value);
}

function fillSeats() {
  const game = currentGame();
  const players = Number($("players").value);
  const seat = $("seat");
  const keep = Number(seat.value) || 0;
  seat.replaceChildren();
  for (let s = 0; s < players; s++) seat.append(element("option", { value: s }, `player_${s}`));
  seat.value = String(Math.min(keep, players - 1));
  const box = $("opponents");
  const old = [...box.querySelectorAll("select")].map((s) => s.value);
  box.querySelectorAll("label").forEach((l) => l.remove());
  const fallback = game.agents.includes("heuristic") ? "heuristic" : "random";
  let k = 0;
  for (let s = 0; s < players; s++) {
    if (s === Number(seat.value)) continue;
    const select = element("select", { "data-seat": s, class: "opponent" });
    for (const name of game.agents) select.append(element("option", { value: name }, name));
    select.value = old[k] && game.agents.includes(old[k]) ? old[k] : fallback;
    const label = element("label", {}, `player_${s} `);
    label.append(select);
    box.append(label);
    k++;
  }
}

function fillGame() {
  const game = currentGame();
  $("game-summary").textContent = game.summary;
  const players = $("players");
  players.min = game.min_players;
  players.max = game.max_players;
  players.value = game.default_players;
  const box = $("options");
  box.replaceChildren();
  for (const option of game.options) {
    const label = element("label", {}, `${option.name} `);
    let input;
    if (option.kind === "bool") {
      input = element("input", { type: "checkbox", "data-option": option.name, "data-kind": "bool" });
      input.checked = Boolean(option.default);
    } else {
      input = element("input", {
        type: option.kind === "str" ? "text" : "number", "data-option": option.name, "data-kind": option.kind,
        placeholder: option.default === null ? "the game's default" : String(option.default),
      });
      if (option.kind === "int") input.step = "1";
    }
    label.append(input);
    box.append(label);
  }
  fillSeats();
}

// Only the options a person changed are sent, each as its kind (the server checks them).
function chosenOptions() {
  const game = currentGame();
  const options = {};
  for (const input of $("options").querySelectorAll("[data-option]")) {
    const name = input.dataset.option;
    const spec = game.options.find((o) => o.name === name);
    if (input.dataset.kind === "bool") {
      if (input.checked !== Boolean(spec.default)) options[name] = input.checked;
    } else if (input.value.trim() !== "") {
      options[name] = input.dataset.kind === "str" ? input.value.trim() : Number(input.value);
    }
  }
  return options;
}

async function deal(event) {
  event.preventDefault();
  $("setup-error").textContent = "";
  const body = {
    game: $("game").value,
    players: Number($("players").value),
    seat: Number($("seat").value),
    opponents: [...$("opponents").querySelectorAll("select")].map((s) => s.value),
    options: chosenOptions(),
  };
  // the seed goes as its digits: a JavaScript number is exact only up to 2**53 (the server checks it)
  if ($("seed").value.trim() !== "") body.seed = $("seed").value.trim();
  $("deal").disabled = true;
  $("deal").textContent = "Dealing... (the first match of a game may compile it)";
  try {
    const view = await api("POST", "/api/tables", body);
    tableId = view.id;
    eventTables = [];
    $("save-match").href = `/api/tables/${encodeURIComponent(tableId)}/match`;
    show(view);
    $("setup").hidden = true;
    $("play").hidden = false;
  } catch (e) {
    $("setup-error").textContent = e.message;
  } finally {
    $("deal").disabled = false;
    $("deal").textContent = "Deal";
  }
}

// ------------------------------------------------------------------ the table
function clearSelection() {
  for (const { el } of selected) el.classList.remove("selected");
  selected = [];
  showSelection();
}

function showSelection() {
  $("selection").textContent = selected.length ? selected.map((s) => s.card).join(" ") : "none";
  $("send-selection").disabled = busy || !selected.length;
  $("clear-selection").disabled = !selected.length;
}

function toggleCard(el) {
  if (busy || el.closest("#table").dataset.yourTurn !== "true") return;
  const at = selected.findIndex((s) => s.el === el);
  if (at >= 0) {
    selected.splice(at, 1);
    el.classList.remove("selected");
  } else {
    selected.push({ el, card: el.dataset.card });
    el.classList.add("selected");
  }
  showSelection();
}

function moveButton(move) {
  const button = element("button", { type: "button", class: "move", "data-move": move.text }, move.text);
  button.addEventListener("click", () => send(move.text));
  return button;
}

function show(view) {
  $("table-title").textContent = `${view.title}: you are player_${view.seat}`;
  movesPlayed = view.moves_played;
  // the match file shows every hand and the deals to come: offered once the match is over
  $("save-match").hidden = !view.over;
  $("replay-match").hidden = !view.over;
  const table = $("table");
  selected = [];
  table.innerHTML = view.picture.svg; // the package's drawing of the table from the person's seat
  table.dataset.yourTurn = String(view.your_turn);
  table.querySelectorAll(".card.in-hand").forEach((el) => {
    el.setAttribute("tabindex", "0");
    el.setAttribute("role", "button");
  });
  showSelection();

  $("hint").textContent = view.hint || "";
  $("status").textContent = view.over ? "The match is over." : view.your_turn ? "Your turn." : "";
  const moves = $("moves");
  const all = $("all-moves");
  moves.replaceChildren();
  all.replaceChildren();
  for (const move of view.moves) {
    if (!move.cards) moves.append(moveButton(move));
    all.append(moveButton(move));
  }
  $("turn").hidden = view.over;

  const events = $("events");
  view.events.forEach((e, k) => {
    if (e.svg) eventTables[k] = e.svg;
  });
  events.replaceChildren(...view.events.map((e, k) => {
    const item = element("li", { class: `kind-${e.kind}` }, e.text);
    if (eventTables[k]) {
      const box = element("details", { class: "event-table" });
      box.append(element("summary", {}, e.kind === "round" && !view.over ? "the round's last table" : "the table"));
      const picture = element("div");
      picture.innerHTML = eventTables[k]; // the package's drawing, from the person's seat
      box.append(picture);
      item.append(box);
    }
    return item;
  }));
  events.scrollTop = events.scrollHeight;

  const result = $("result");
  result.hidden = !view.over;
  if (view.over) {
    const last = view.events.filter((e) => e.kind === "match").pop();
    const verdict = view.outcome.truncated ? "No winner." : view.outcome.you_won ? "You won!" : "You lost.";
    result.replaceChildren(element("strong", {}, verdict), element("p", {}, last ? last.text : ""));
  }
}

async function send(line) {
  if (busy || !tableId) return;
  busy = true;
  $("error").textContent = "";
  document.body.classList.add("busy");
  try {
    const since = $("events").children.length; // the events shown: their tables are here already
    const path = `/api/tables/${encodeURIComponent(tableId)}`;
    show(await api("POST", `${path}/move?since=${since}`, { line, expect: movesPlayed }));
    $("typed").value = "";
  } catch (e) {
    if (e.status === 409) {
      // the match moved on since this table was shown (a move sent twice): show it as it is now
      try {
        show(await api("GET", `/api/tables/${encodeURIComponent(tableId)}`));
      } catch (reload) {
        /* the message below says what happened */
      }
    }
    $("error").textContent = e.message; // the table is as it was: the selection is kept
  } finally {
    busy = false;
    document.body.classList.remove("busy");
    showSelection();
  }
}

// ------------------------------------------------------------------ the replay viewer
function showReplay(html, from) {
  $("replay-frame").srcdoc = html; // the replay page is self-contained: it runs sandboxed, fetching nothing
  $("replay").hidden = false;
  $("replay").dataset.from = from;
  $(from).hidden = true;
}

async function openReplay() {
  const file = $("replay-file").files[0];
  if (!file) return;
  $("setup-error").textContent = "";
  try {
    showReplay(await api("POST", "/api/replay", await file.text()), "setup");
  } catch (e) {
    $("setup-error").textContent = e.message;
  } finally {
    $("replay-file").value = "";
  }
}

async function replayThisMatch() {
  try {
    showReplay(await api("GET", `/api/tables/${encodeURIComponent(tableId)}/replay`), "play");
  } catch (e) {
    $("error").textContent = e.message;
  }
}

// ------------------------------------------------------------------ wiring
async function start() {
  try {
    games = (await api("GET", "/api/games")).games;
  } catch (e) {
    $("setup-error").textContent = e.message;
    return;
  }
  for (const game of games) $("game").append(element("option", { value: game.name }, game.title));
  fillGame();
  $("game").addEventListener("change", fillGame);
  $("players").addEventListener("change", fillSeats);
  $("seat").addEventListener("change", fillSeats);
  $("setup-form").addEventListener("submit", deal);
  $("replay-file").addEventListener("change", openReplay);
  $("table").addEventListener("click", (e) => {
    const card = e.target.closest(".card.in-hand");
    if (card) toggleCard(card);
  });
  $("table").addEventListener("keydown", (e) => {
    const card = e.target.closest(".card.in-hand");
    if (card && (e.key === "Enter" || e.key === " ")) {
      e.preventDefault();
      toggleCard(card);
    }
  });
  $("send-selection").addEventListener("click", () => send(selected.map((s) => s.card).join(" ")));
  $("clear-selection").addEventListener("click", clearSelection);
  $("typed-form").addEventListener("submit", (e) => {
    e.preventDefault();
    if ($("typed").value.trim()) send($("typed").value);
  });
  $("new-match").addEventListener("click", () => {
    tableId = null;
    $("play").hidden = true;
    $("setup").hidden = false;
  });
  $("replay-match").addEventListener("click", replayThisMatch);
  $("close-replay").addEventListener("click", () => {
    $("replay").hidden = true;
    $("replay-frame").srcdoc = "";
    $($("replay").dataset.from || "setup").hidden = false;
  });
  document.body.dataset.ready = "true";
}

start();
