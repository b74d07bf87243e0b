// The play page: /play/{slug} (today's puzzle) and /play/{slug}/{date}.
//
// Everything a player does becomes an action in gapgrid notation ("12-3",
// "redeal", "undo") sent to the API; the board is redrawn from the answer.
// Clicks and keys are queued and handled one at a time, so a fast player (or
// a test) never has two requests racing to change the game.

import { ApiError, capabilities, enc, getJSON, postJSON, serverNow } from "./api.js";
import { BoardView } from "./board.js";
import { cardText, describeMove, isFinished, readable, runLengths } from "./cards.js";
import { actionsCounted, cardMoves, effectiveActions, Game, saved } from "./game.js";

// The server's rule (api/names.py), checked on the NFKC form: letters and digits of any
// script, spaces, _ . - inside, a letter or digit at both ends (the last one's combining
// marks after it: सीता ends in a vowel sign), nothing invisible (nor the marks and letters
// Unicode shows as nothing: variation selectors, Hangul fillers).
const PLAYER_NAME = new RegExp("^(?!.*\\p{Default_Ignorable_Code_Point})"
  + "[\\p{L}\\p{N}](?:[\\p{L}\\p{M}\\p{N}\\p{Zs}_.-]*[\\p{L}\\p{N}])?\\p{M}*$", "u");
const PLAYER_LENGTH = 32; // characters, as the server counts them (not UTF-16 units)
const LEADERBOARD_RETRIES = 8; // a busy leaderboard asked again after 1, 2, ... 8 s: 36 s in all

/** Case folded as the server folds it (Python's casefold), letter by letter: ß and ẞ
 * become ss (lower case alone kept Straße and STRASSE apart, and the page sent no token for
 * the second), and the dotless ı stays itself (upper case made it i: Kıral took Kiral's
 * token). */
function caseFolded(text) {
  return Array.from(text, (letter) => (letter === "ı" ? letter
    : letter.toLowerCase().toUpperCase().toLowerCase())).join("");
}

/** One player's spellings share this, as the server's key does (api/names.py). */
function playerKey(name, fold = caseFolded) {
  return fold(name.normalize("NFKC")).normalize("NFKC").split(/\s+/u)
    .filter(Boolean).join(" ");
}

/** Player tokens, one per name, kept in this browser: the server gives each only once. */
const playerTokens = {
  // a token that could not be a header (a damaged or edited store) is not sent: fetch
  // refused it, and the page said the server could not be reached
  get: (name) => {
    const token = saved.get(`player-token:${playerKey(name)}`)
      // kept by an earlier page, under the name in lower case
      ?? saved.get(`player-token:${playerKey(name, (text) => text.toLowerCase())}`);
    return token && /^[\x21-\x7e]+$/.test(token) ? token : null;
  },
  set: (name, token) => saved.set(`player-token:${playerKey(name)}`, token),
};

const $ = (id) => document.getElementById(id);

const CHANGED_ELSEWHERE = "This game was changed in another tab or window: reload this page "
  + "to go on from there (nothing more is played or saved here).";
const action = (name) => document.querySelector(`[data-action="${name}"]`);

/** `count` and its noun, singular for one: "1 move", "3 moves". */
function counted(count, noun) {
  return `${count} ${noun}${count === 1 ? "" : "s"}`;
}

/** "its first action", "its first 3 actions". */
function firstOf(count, noun) {
  return count === 1 ? `its first ${noun}` : `its first ${counted(count, noun)}`;
}

/** How long a task may wait for the server before the page says it is waiting. */
const WAITING_SAID_AFTER_MS = 1000;
const WAITING = "Waiting for the server…";
const CAPS_AGAIN_MS = 5000; // the least time between two reads of what the server offers

/** "3:07", or "1:02:03" past the hour. */
function clock(seconds) {
  const total = Math.max(0, Math.floor(seconds));
  const hours = Math.floor(total / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const rest = String(total % 60).padStart(2, "0");
  return hours ? `${hours}:${String(minutes).padStart(2, "0")}:${rest}` : `${minutes}:${rest}`;
}

function element(tag, attributes = {}, ...children) {
  const made = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (key === "class") made.className = value;
    else made.setAttribute(key, value);
  }
  made.append(...children);
  return made;
}

function shiftDate(date, days) {
  const moment = new Date(`${date}T00:00:00Z`);
  moment.setUTCDate(moment.getUTCDate() + days);
  return moment.toISOString().slice(0, 10);
}

function problemText(error) {
  if (error instanceof ApiError) {
    const first = error.problem?.errors?.[0];
    const most = first?.pointer === "#/moves" && /more than ([\d,]+)/.exec(first.detail || "");
    if (most) {
      return `This game has reached the most actions one game may have here (${most[1]}, `
        + "undos included): no more can be played in it.";
    }
    return error.message;
  }
  return `something went wrong: ${error.message}`;
}

class PlayPage {
  constructor(slug, date) {
    this.slug = slug;
    this.requestedDate = date;
    this.queue = Promise.resolve();
    this.pending = 0;
    this.selection = null; // {kind: "gap"|"card", slot, targets: Set}
    this.hint = null; // [source, target] of the last hint, until the next move
    this.last = null;
    this.caps = new Set();
    this.queuedKinds = new Set(); // redeal, hint: the ones waiting in the queue
    this.waits = 0; // guarded tasks under way
    this.beforeWaiting = null; // what "Waiting for the server…" covers, while it shows
    this.capsAskedAt = 0;
  }

  // -- loading -------------------------------------------------------------------------

  async start() {
    try {
      this.caps = await capabilities();
      const [variant, puzzle] = await Promise.all([
        getJSON(`/v1/variants/${enc(this.slug)}`),
        getJSON(this.requestedDate ? `/v1/puzzles/${enc(this.requestedDate)}/${enc(this.slug)}`
          : `/v1/daily/${enc(this.slug)}`),
      ]);
      this.variant = variant;
      this.puzzle = puzzle;
    } catch (error) {
      this.cannotShow(error);
      return;
    }
    this.game = new Game(this.puzzle, this.variant);
    this.game.init(this.caps);
    this.stored = saved.load(this.puzzle.id) || { moves: [] };
    // from now on: another tab writing while this one replays its save was overwritten
    this.watchOtherTabs();
    this.mendSave();
    // The saved game first, then the board and the controls: a key pressed while it was
    // being replayed (a slow connection) made a game of its own and overwrote the save.
    // Its answer also sets the server's clock (`serverNow`), which what follows goes by.
    this.loading = this.guard(() => this.game.load(this.stored.moves));
    const refused = await this.loading;
    this.mendStartTime();
    // Today's puzzle is today's by the server's clock, whatever this device's says (a
    // phone a few minutes slow at midnight, or set to the wrong zone, showed it as a past
    // day's: untimed, no submission); on a dated page too.
    const now = serverNow();
    this.live = !this.requestedDate || (Date.parse(this.puzzle.starts_at) <= now
      && now < Date.parse(this.puzzle.ends_at));
    // A game started on its day (its start token kept) may still be submitted after
    // midnight: the server takes it, with the token, until the solution opens.
    this.submittable = this.live || (Boolean(this.stored.token) && now
      < Date.parse(this.puzzle.solution_opens_at || this.puzzle.ends_at));
    if (!this.submittable) { // said where the clock is: the summary alone said it
      $("time").title = "Not timed: a past day's game takes no submission";
    }
    this.drawHeading();
    if (!this.game.position) { // the server could not replay anything: the save is kept
      this.cannotShow(null);
      return;
    }
    this.board = new BoardView($("board"), this.variant, (slot) => this.enqueue(() =>
      this.activate(slot)));
    this.wireControls();
    if (refused?.unreadable) {
      this.say(`Your saved game could not be read (${refused.reason}): the game starts `
        + "again from the deal.", "error");
    } else if (refused) {
      this.say(`Your saved game was cut back to ${firstOf(this.game.moves.length, "action")}: `
        + `the server refused ${refused.move} (${readable(refused.reason)}).`, "error");
    } else if (this.stored.moves.length) {
      // the moves on the board: not the ones taken back, which the rankings count
      const standing = effectiveActions(this.game.moves).filter((move) => move !== "redeal");
      this.say(`Welcome back: your game of ${this.puzzle.date} is restored `
        + `(${counted(standing.length, "move")}).`);
    }
    this.keep();
    this.update();
    $("board").removeAttribute("aria-busy");
    setInterval(() => this.tick(), 1000);
    this.loadLeaderboard();
    this.drawSolution();
  }

  /** A save damaged or edited by hand, mended where it can be: a time that is not a number
   * goes (not NaN:NaN), and a start token that could not be one goes (every hint and
   * submission with it was refused, so the game could never be submitted). */
  mendSave() {
    const stored = this.stored;
    for (const field of ["startedAt", "finishedSeconds", "lastMoveSeconds"]) {
      if (stored[field] !== undefined && !Number.isFinite(stored[field])) delete stored[field];
    }
    if (stored.token !== undefined && !(typeof stored.token === "string"
        && /^[A-Za-z0-9._-]{1,512}$/.test(stored.token))) {
      delete stored.token;
    }
  }

  /** A start time lost from a save (damaged) taken again from the server's, which is kept
   * with it, moved onto this device's clock as the timer counts (it stayed at 0:00). */
  mendStartTime() {
    const serverStart = Date.parse(this.stored.serverStartedAt);
    if (this.stored.startedAt === undefined && Number.isFinite(serverStart)) {
      this.stored.startedAt = serverStart - (serverNow() - Date.now());
    }
  }

  /** The page when the puzzle cannot be shown: why (`error`, or what the guard said), and
   * for a busy server (503) a way to try again. */
  cannotShow(error) {
    $("title").textContent = "This puzzle cannot be shown";
    if (error) this.say(problemText(error), "error");
    $("board").dataset.state = "error";
    $("board").removeAttribute("aria-busy");
    $("leaderboard-panel").hidden = true;
    if (!error || error.status === 503 || error.status === 429 || error.status === 0) {
      const again = element("button", { type: "button", class: "again" }, "Try again");
      again.addEventListener("click", () => location.reload());
      $("message").append(" ", again);
    }
  }

  /** A game started yesterday and not submitted may still be, in the first hour of today:
   * the link to yesterday's page says so while the server takes it. */
  async pointToLateGame(previous, link) {
    let puzzle;
    try {
      puzzle = await getJSON(`/v1/puzzles/${previous}/${enc(this.puzzle.variant)}`);
    } catch {
      return; // the link stays as it was
    }
    await this.loading; // the server's clock
    if (serverNow() < Date.parse(puzzle.solution_opens_at)) {
      link.textContent = `← ${previous}: your game there can still be submitted until `
        + `${puzzle.solution_opens_at.slice(11, 16)} UTC`;
    }
  }

  /** The puzzle's day (today's or not), its grid, redeals and certificate. */
  drawSubtitle() {
    const { puzzle, variant } = this;
    const redeals = variant.redeals === 0 ? "no redeal"
      : variant.redeals === "unlimited" ? "unlimited redeals"
        : `${variant.redeals} redeal${variant.redeals === 1 ? "" : "s"}`;
    $("subtitle").textContent = `${this.live ? "Today's puzzle" : "Puzzle"} of ${puzzle.date}`
      + ` · ${variant.rows} × ${variant.rstep} · ${redeals}`
      + (puzzle.certified ? " · certified winnable" : "");
  }

  drawHeading() {
    const { puzzle, variant } = this;
    const name = puzzle.name || variant.name;
    document.title = `${name}, ${puzzle.date} · gapgrid`;
    $("title").textContent = name;
    this.drawSubtitle();
    $("rules-summary").textContent = variant.summary || "";
    // Par and difficulty come with certified puzzles (issue 11): shown when the
    // puzzle has them, left out of the status bar otherwise (the summary says so).
    if (Number.isInteger(puzzle.par)) {
      $("par").textContent = String(puzzle.par);
      $("par-box").title = "The fewest actions known to win";
      $("par-box").hidden = false;
    }
    if (puzzle.difficulty?.label) {
      $("difficulty").textContent = puzzle.difficulty.label;
      $("difficulty-box").title = `${puzzle.difficulty.label} (${puzzle.difficulty.value})`;
      $("difficulty-box").hidden = false;
    }
    if (puzzle.pysolfc?.how) $("pysolfc").textContent = puzzle.pysolfc.how;
    const days = $("days");
    const previous = shiftDate(puzzle.date, -1);
    // nofollow: a crawler walking back day by day would make every past day's puzzle
    const back = element("a", { href: `/play/${enc(this.slug)}/${previous}`, rel: "nofollow" },
      `← ${previous}`);
    days.append(back);
    const left = saved.load(`${previous}-${puzzle.variant}`);
    if (this.live && left?.token && !left.submittedAs) this.pointToLateGame(previous, back);
    if (!this.live) {
      days.append(element("a", { href: `/play/${enc(this.slug)}` }, "Today →"));
    }
    this.drawHintNote();
  }

  /** Another tab (or window) playing the same puzzle writes the same saved game: the two
   * overwrote each other's moves, silently. Once it does, this one stops saving and
   * playing, and says to reload, which takes up the other's game. */
  watchOtherTabs() {
    // Back or Forward may bring this page back from the browser's cache as it was left,
    // while this same tab went on with the game on a later page: read the save again
    // (it showed the old board, saying the game was changed "in another tab or window")
    window.addEventListener("pageshow", (event) => {
      if (event.persisted) window.location.reload();
    });
    window.addEventListener("storage", (event) => {
      if (event.key === null) { // the storage cleared in another tab: keep this game
        if (this.game?.position) this.keep();
        return;
      }
      if (!saved.concerns(event, this.puzzle.id) || this.changedElsewhere) return;
      this.changedElsewhere = true;
      this.say(CHANGED_ELSEWHERE, "error");
      $("submit-panel").hidden = true;
    });
  }

  wireControls() {
    action("undo").addEventListener("click", () => this.enqueue(() => this.undo()));
    action("redeal").addEventListener("click", () => this.enqueue(() => this.redeal(), "redeal"));
    action("hint").addEventListener("click", () => this.enqueue(() => this.askHint(), "hint"));
    // queued: a move still on its way closed the summary opened before it landed, and the
    // submission's answer went into the hidden panel
    action("finish").addEventListener("click", () => this.enqueue(() => this.showEnd(true)));
    action("copy").addEventListener("click", () => this.copyShare());
    $("submit-form").addEventListener("submit", (event) => {
      event.preventDefault();
      this.enqueue(() => this.submit());
    });
    const remembered = saved.get("player");
    if (remembered) $("player").value = remembered;
    document.addEventListener("keydown", (event) => {
      if (event.altKey || event.ctrlKey || event.metaKey) return;
      if (event.target.closest("input, textarea, select")) return;
      const shortcuts = { u: () => this.undo(), r: () => this.redeal(), h: () => this.askHint() };
      const kinds = { r: "redeal", h: "hint" };
      const key = event.key.toLowerCase();
      if (key in shortcuts) {
        event.preventDefault();
        // a held key repeats: held r spent every redeal; u may repeat, to undo a stretch
        if (event.repeat && key !== "u") return;
        this.enqueue(shortcuts[key], kinds[key]);
      } else if (event.key === "Escape" && this.selection) {
        this.selection = null;
        this.say("Selection cleared.");
        this.update();
      }
    });
  }

  // -- the queue ----------------------------------------------------------------------

  /** Run `task` after every task before it; the board says it is busy meanwhile. Once
   * another tab has changed this game, nothing more is played here (see `watchOtherTabs`). */
  enqueue(task, kind = null) {
    if (this.changedElsewhere) {
      this.say(CHANGED_ELSEWHERE, "error");
      return this.queue;
    }
    // A second redeal or hint pressed while the first waits for a slow server is the
    // same wish, not a second one: both were played once the server answered.
    if (kind && this.queuedKinds.has(kind)) {
      this.say(`Waiting for the server: the ${kind} asked for is on its way.`);
      return this.queue;
    }
    if (kind) this.queuedKinds.add(kind);
    this.pending += 1;
    $("board").setAttribute("aria-busy", "true");
    // checked again when the task's turn comes: the other tab may have written meanwhile
    this.queue = this.queue.then(() => (this.changedElsewhere ? null : this.guard(task)))
      .finally(() => {
      if (kind) this.queuedKinds.delete(kind);
      this.pending -= 1;
      if (this.pending === 0) $("board").removeAttribute("aria-busy");
    });
    return this.queue;
  }

  async guard(task) {
    // A slow answer is said, not left to look like a page that ignores its player: see
    // sayWaiting. Tasks overlap (a summary's check beside a submission), so the waits
    // are counted, and the last one to end takes the message down.
    this.waits += 1;
    const waiting = setTimeout(() => this.sayWaiting(), WAITING_SAID_AFTER_MS);
    try {
      // the first read of what the server offers failed: until it is read, the board
      // marks no card for a gap and never sees a lost game end (read at most every few
      // seconds, and only once the page is drawn)
      if (this.caps.unknown && this.board && Date.now() - this.capsAskedAt > CAPS_AGAIN_MS) {
        this.capsAskedAt = Date.now();
        await this.refreshCapabilities();
      }
      return await task();
    } catch (error) {
      this.say(problemText(error), "error");
      return null;
    } finally {
      clearTimeout(waiting);
      this.waits -= 1;
      if (this.waits === 0 && this.beforeWaiting) { // nothing said since: put it back
        const { nodes, kind } = this.beforeWaiting;
        this.beforeWaiting = null;
        $("message").replaceChildren(...nodes);
        $("message").dataset.kind = kind;
      }
    }
  }

  /** "Waiting for the server…", keeping what it covers (with its links and buttons) to
   * put back if nothing else is said by the time the answers are in. */
  sayWaiting() {
    if (this.beforeWaiting || this.changedElsewhere) return;
    const message = $("message");
    const covered = { nodes: [...message.childNodes].map((node) => node.cloneNode(true)),
      kind: message.dataset.kind || "info" };
    this.say(WAITING, "info");
    this.beforeWaiting = covered;
  }

  // -- playing -------------------------------------------------------------------------

  get rows() {
    return this.game.position.rows;
  }

  codeAt(slot) {
    return BoardView.codeAt(this.rows, this.variant.rstep, slot);
  }

  gaps() {
    const gaps = [];
    this.rows.flat().forEach((code, slot) => {
      if (code === null) gaps.push(slot);
    });
    return gaps;
  }

  async activate(slot) {
    if (this.game.position.won) {
      this.say("The game is won: there is nothing left to move.");
      return;
    }
    const code = this.codeAt(slot);
    const selection = this.selection;
    if (code === null) {
      if (selection?.kind === "card") {
        await this.tryMove(selection.slot, slot);
      } else if (selection?.kind === "gap" && selection.slot === slot) {
        this.selection = null;
        this.say(`Gap at slot ${slot} no longer selected.`);
      } else {
        const sources = this.game.sourcesOf(slot);
        this.selection = { kind: "gap", slot, targets: new Set(sources || []) };
        this.say(sources === null ? `Gap at slot ${slot} selected: now choose a card.`
          : sources.length === 0 ? `Gap at slot ${slot} selected, but no card fits it now.`
            : `Gap at slot ${slot} selected: ${sources.map((source) =>
              cardText(this.codeAt(source))).join(", ")} ${sources.length === 1 ? "fits" : "fit"}.`);
      }
    } else if (selection?.kind === "gap") {
      await this.tryMove(slot, selection.slot);
    } else if (selection?.kind === "card" && selection.slot === slot) {
      this.selection = null;
      this.say(`${cardText(code)} no longer selected.`);
    } else {
      const targets = await this.game.targetsOf(slot, this.gaps());
      if (targets.length === 1) {
        await this.tryMove(slot, targets[0]);
        return;
      }
      if (targets.length === 0) {
        this.selection = null;
        await this.explainNoFit(slot);
      } else {
        this.selection = { kind: "card", slot, targets: new Set(targets) };
        this.say(`${cardText(code)} fits ${targets.length} gaps (slots ${targets.join(", ")}): `
          + "choose one.");
      }
    }
    this.update();
  }

  /** Play `source`-`target`, or say the engine's reason why not. */
  async tryMove(source, target) {
    this.selection = null;
    const code = this.codeAt(source);
    const move = `${source}-${target}`;
    try {
      const refusal = await this.game.play(move);
      if (refusal) {
        this.say(`${cardText(code)} cannot go to slot ${target}: ${readable(refusal.reason)}`, "error");
      } else {
        this.afterAction([source, target]);
        this.say(`${cardText(code)} moved from slot ${source} to slot ${target}.`);
        this.announceEnd();
      }
    } finally {
      // also when the server could not be reached: the selection is gone, and the board
      // showed it still, so the next click went to a gap other than the one shown
      this.update();
    }
  }

  async explainNoFit(source) {
    const code = this.codeAt(source);
    const gaps = this.gaps();
    // One verification per gap, so each refusal is the engine's own sentence.
    const refusals = await Promise.all(gaps.map((gap) => this.game.refusal(`${source}-${gap}`)));
    const reasons = [...new Set(refusals.filter(Boolean).map((refusal) => readable(refusal.reason)))];
    this.say(`${cardText(code)} fits no gap now: ${reasons.join("; ")}`, "error");
  }

  afterAction(slots) {
    this.hint = null;
    this.hintRedeal = false;
    this.last = slots;
    this.endedByPlayer = false; // played on after "End game": its summary would go stale
    if (this.stored.startedAt) {
      this.stored.lastMoveSeconds = (Date.now() - this.stored.startedAt) / 1000;
    }
    this.keep();
    if (this.live && !this.stored.token) this.requestToken();
  }

  async undo() {
    if (!this.game.canUndo) {
      this.say("There is nothing to undo.");
      return;
    }
    const before = effectiveActions(this.game.moves).at(-1);
    const refusal = await this.game.play("undo");
    if (refusal) {
      this.say(`Undo refused: ${readable(refusal.reason)}`, "error");
    } else {
      this.selection = null;
      this.afterAction(null);
      // in words, as moves are said (the card is back at its slot now): not "32-21"
      this.say(before === "redeal" ? "Redeal undone."
        : `Undone: ${describeMove(before, this.rows, this.variant.rstep)}.`);
    }
    this.update();
  }

  async redeal() {
    const refusal = await this.game.play("redeal");
    if (refusal) {
      this.say(`No redeal: ${readable(refusal.reason)}`, "error");
    } else {
      this.selection = null;
      this.afterAction(null);
      const left = this.game.position.redeals_left;
      const how = this.variant.redeal_placement === "no-shuffle" ? "dealt back unshuffled"
        : "shuffled and dealt again";
      this.say(`Redealt: the cards not in sequence were ${how} (${
        left === "unlimited" ? "unlimited redeals" : `${left} left`}).`);
      this.announceEnd();
    }
    this.update();
  }

  /** The hint button's note: hints not served here, or nothing (unknown: they may be). */
  drawHintNote() {
    const absent = !this.caps.unknown && !this.caps.has("POST /v1/hint");
    action("hint").title = absent ? "Hints are not available on this server yet" : "";
    $("hint-note").textContent = absent ? "(not available yet)" : "";
  }

  /** Read the server's capabilities again, the first read having failed; what they decide
   * is drawn again. */
  async refreshCapabilities() {
    this.caps = await capabilities();
    if (this.caps.unknown) return;
    this.game.hasMoves = this.caps.has("POST /v1/moves");
    if (this.game.hasMoves && this.game.position?.legal === null) {
      // read without the legal moves: read again with them, or a gap marks no card
      this.game.position = await this.game.positionAfter(this.game.moves);
    }
    this.drawHintNote();
    this.drawSolution();
  }

  async askHint() {
    if (this.caps.unknown) await this.refreshCapabilities(); // the first read failed
    if (!this.caps.has("POST /v1/hint")) {
      this.say(this.caps.unknown ? "The server's list of what it offers could not be read: "
        + "try the hint again in a moment." : "Hints are not available on this server yet.");
      return;
    }
    if (this.game.over) {
      this.say("The game is over: no hint can help now.");
      return;
    }
    // A hint counts against the game only through its start token: one asked before the
    // first move went unrecorded while the page called the game assisted.
    if (this.live && !this.stored.token) {
      this.requestToken();
      await this.tokenRequest;
      if (!this.stored.token && this.live) { // (not live now: its day is over, see dayOver)
        this.say("No hint: a hint is recorded with the game's start token, which the server "
          + "did not give just now. Try again in a moment.", "error");
        return;
      }
    }
    const body = { ...this.game.request(this.game.moves) };
    if (this.stored.token) body.token = this.stored.token;
    const answer = await postJSON("/v1/hint", body);
    this.stored.assisted = true;
    this.keep();
    if (answer.verdict === "won" && answer.next) {
      const left = Number.isInteger(answer.remaining) ? ` (${answer.remaining} action${
        answer.remaining === 1 ? "" : "s"} to win from here)` : "";
      if (answer.next === "redeal") {
        this.hint = null;
        this.hintRedeal = true;
        this.say(`Hint: redeal${left}.`);
      } else {
        this.hint = answer.next.split("-").map(Number);
        this.say(`Hint: ${describeMove(answer.next, this.rows, this.variant.rstep)}${left}.`);
      }
    } else if (answer.verdict === "lost") {
      this.say("Hint: no winning line is left from here. Undo some moves"
        + (this.game.position.redeal_allowed ? " or redeal." : "."));
    } else {
      this.say("Hint: the solver found no answer in time from this position.");
    }
    this.update();
  }

  // -- time --------------------------------------------------------------------------

  async requestToken() {
    if (this.tokenRequest) return;
    const { date, variant } = this.puzzle;
    this.tokenRequest = postJSON(`/v1/puzzles/${enc(date)}/${enc(variant)}/start`, {})
      .then((answer) => {
        // The server's start time, moved onto this browser's clock, so the
        // timer shows what the server will count even if the clocks differ.
        const received = Date.now();
        this.stored.token = answer.token;
        this.stored.startedAt = received;
        this.stored.serverStartedAt = answer.started_at;
        this.keep();
        this.tick();
      }, (error) => {
        this.tokenRequest = null;
        if (error instanceof ApiError && error.status === 409) {
          this.dayOver(); // the page was opened before midnight UTC
        } else {
          this.say(`The timer could not start: ${problemText(error)}`, "error");
        }
      });
  }

  /** Midnight (UTC) passed while the page was open, before its game got a start token: the
   * puzzle is a past day's now, so the game is neither timed nor taken. Said once, with the
   * way to today's puzzle (every move asked for a token again, and hints and Submit failed
   * with a word about trying again). */
  dayOver() {
    if (!this.live) return;
    this.live = false;
    this.submittable = false;
    this.drawSubtitle();
    this.say(`The day of this puzzle is over (midnight UTC has passed): this game can no `
      + `longer be timed or submitted. Hints still work.`, "error");
    $("message").append(" ", element("a", { href: `/play/${enc(this.slug)}` },
      "Today's puzzle →"));
    this.update();
  }

  /** The time shown: running while the game goes on, or while a finished one can still
   * be submitted (the time ranked); else the time of its last move (a game never
   * submitted), or, once submitted, the time the server ranked. */
  elapsed() {
    const running = this.stored.startedAt ? (Date.now() - this.stored.startedAt) / 1000 : 0;
    if (this.timedUntilSubmitted) return running;
    if (this.stored.finishedSeconds !== undefined) return this.stored.finishedSeconds;
    // a game that can no longer be submitted stops at its last action (a past day's game
    // left unfinished showed the hours since it began, and counted on)
    return this.submittable ? running : this.stored.lastMoveSeconds ?? running;
  }

  /** Whether the clock runs on after the game ends: the server times a game from its
   * start token to its submission, so until then the time shown is the one ranked (it
   * stopped at the last move, and the ranked time came out longer). */
  get timedUntilSubmitted() {
    return Boolean(this.submittable && this.stored.token && !this.stored.submittedAs
      && serverNow() < Date.parse(this.puzzle.solution_opens_at || this.puzzle.ends_at));
  }

  tick() {
    const shown = clock(this.elapsed());
    $("time").textContent = shown;
    const figure = document.querySelector('#summary-figures [data-figure="time"]');
    if (figure && this.stored.startedAt) figure.textContent = shown;
    this.followTheClock();
  }

  /** The server's clock passing midnight, then the late hour's end, while a game with its
   * start token is open: the page follows (it went on saying "Today's puzzle" after
   * midnight, and offered past 01:00 a submission the server then refused). A game
   * without a token learns of midnight from its refused token (`dayOver`). */
  followTheClock() {
    if (!this.puzzle || !this.stored.token) return;
    const now = serverNow();
    const opens = Date.parse(this.puzzle.solution_opens_at || this.puzzle.ends_at);
    if (this.live && now >= Date.parse(this.puzzle.ends_at)) {
      this.live = false;
      this.drawSubtitle();
      this.loadLeaderboard();
      if (!this.stored.submittedAs) {
        this.say(`Midnight UTC has passed: this game can still be submitted until `
          + `${new Date(opens).toISOString().slice(11, 16)} UTC.`);
        $("message").append(" ", element("a", { href: `/play/${enc(this.slug)}` },
          "Today's puzzle →"));
      }
    }
    if (this.submittable && !this.live && now >= opens) {
      this.submittable = false;
      if (!this.stored.submittedAs) { // a result stored before stays said
        $("submit-panel").hidden = true;
        this.say("The late hour is over (the solution is open): this game can no longer "
          + "be submitted.", "error");
      }
      $("submit-form").hidden = true;
      this.summaryFor = null; // its time no longer runs until a submission
      this.drawSolution();
      this.update();
    }
  }

  // -- drawing ----------------------------------------------------------------------

  keep() {
    if (!this.puzzle || this.changedElsewhere) return;
    this.stored.moves = this.game.moves;
    if (this.game.over && this.stored.finishedSeconds === undefined && this.stored.startedAt) {
      this.stored.finishedSeconds = (Date.now() - this.stored.startedAt) / 1000; // last move
    } else if (!this.game.over && this.stored.finishedSeconds !== undefined
        && !this.stored.submittedAs) {
      delete this.stored.finishedSeconds; // undone back into play: the clock runs again
    }
    saved.save(this.puzzle.id, this.stored);
  }

  say(text, kind = "info") {
    // once another tab has changed the game, that stays said (a move answered later
    // wrote over it)
    if (this.changedElsewhere && text !== CHANGED_ELSEWHERE) return;
    this.beforeWaiting = null; // something new is said: the waiting message is gone
    const message = $("message");
    message.textContent = text;
    message.dataset.kind = kind;
  }

  state() {
    const position = this.game.position;
    if (position.won) return "won";
    if (position.stuck === true) return "stuck";
    return "playing";
  }

  update() {
    const position = this.game.position;
    const board = $("board");
    board.dataset.state = this.state();
    const selection = this.selection;
    this.board.render(position.rows, {
      selected: selection?.slot,
      targets: selection?.targets,
      hint: this.hint,
      last: this.last,
    });
    $("moves").textContent = String(cardMoves(this.game.moves));
    const left = position.redeals_left;
    $("redeals-left").textContent = left === "unlimited" ? "∞" : String(left ?? "–");
    $("redeal-note").textContent = this.variant.redeals === 0 ? "(none)"
      : left === "unlimited" ? "(∞)" : `(${left ?? 0} left)`;
    const focused = document.activeElement;
    action("undo").disabled = !this.game.canUndo;
    // A refused redeal is explained by the engine, so the button stays usable
    // while redeals remain, even when this moment does not allow one.
    action("redeal").disabled = position.won || left === 0 || this.variant.redeals === 0;
    if (focused?.disabled) this.board.focus(this.board.focused); // it fell to the page
    action("redeal").classList.toggle("hinted", this.hintRedeal === true);
    action("hint").disabled = position.won
      || (!this.caps.unknown && !this.caps.has("POST /v1/hint"));
    const over = this.game.over;
    action("finish").hidden = over || !this.submittable
      || effectiveActions(this.game.moves).length === 0;
    if (over) this.showEnd(false);
    else if (!this.endedByPlayer) this.hideEnd();
    this.tick();
  }

  announceEnd() {
    const position = this.game.position;
    if (position.won) {
      this.say(`Won in ${counted(cardMoves(this.game.moves), "move")}! Every row is finished.`,
        "success");
    } else if (this.game.over) {
      this.say("No move and no redeal left: the game is over. Undo to try another way, "
        + "or submit your result.", "error");
    } else if (position.stuck === true) {
      this.say("No card can move: redeal, or undo.");
    }
  }

  // -- the end ---------------------------------------------------------------------

  async showEnd(byPlayer) {
    if (byPlayer) this.endedByPlayer = true;
    const won = this.game.position.won;
    $("summary").hidden = false;
    $("summary-title").textContent = won ? "You won!" : this.game.over ? "Game over"
      : "Your game so far";
    $("submit-panel").hidden = !this.submittable && !this.stored.submittedAs;
    // a result that counts is final: the form offered a second submission, then refused it
    $("submit-form").hidden = !this.submittable
      || Boolean(this.stored.submittedAs && this.stored.submittedCounts);
    const result = $("submit-result");
    if (this.stored.submittedAs && !result.textContent) { // reloaded after submitting
      result.textContent = `Submitted as ${this.stored.submittedAs}.`;
      result.dataset.kind = "success";
    }
    $("share-panel").hidden = false;
    $("share-text").value = this.shareText();
    const key = this.game.moves.join(" ");
    if (this.summaryFor === key) return;
    this.summaryFor = key;
    const figures = [
      ["Result", won ? "won" : `${counted(this.cardsInSequence(), "card")} in sequence`],
      ["Moves", String(cardMoves(this.game.moves))],
      // par counts actions: moves and redeals (49 moves and a redeal are par 50, not under)
      ["Actions (moves and redeals)", String(actionsCounted(this.game.moves))],
      [this.timedUntilSubmitted ? "Time (runs until you submit)" : "Time",
        this.stored.startedAt ? clock(this.elapsed()) : "not timed"],
      ["Par", Number.isInteger(this.puzzle.par) ? counted(this.puzzle.par, "action")
        : "not available yet"],
    ];
    if (this.stored.assisted) figures.push(["Hints", "used (assisted)"]);
    this.drawFigures(figures);
    const answer = await this.guard(() => postJSON("/v1/verify", {
      ...this.game.request(this.game.moves), scoring: ["all"] }));
    if (this.summaryFor !== key || !answer?.scores) return;
    for (const name of ["frontier", "cards"]) {
      const scheme = answer.scores[name];
      if (scheme) figures.push([`Score (${name})`, String(scheme.total)]);
    }
    this.drawFigures(figures);
  }

  drawFigures(figures) {
    $("summary-figures").replaceChildren(...figures.map(([term, value]) =>
      element("div", {}, element("dt", {}, term), element("dd", {
        ...(value.startsWith("not ") ? { class: "absent" } : {}),
        ...(term.startsWith("Time") ? { "data-figure": "time" } : {}),
      }, value))));
  }

  hideEnd() {
    $("summary").hidden = true;
    $("submit-panel").hidden = true;
    $("share-panel").hidden = true;
    this.summaryFor = null;
  }

  cardsInSequence() {
    return runLengths(this.rows, this.variant).reduce((sum, length) => sum + length, 0);
  }

  /** The cards in sequence as dealt: a game with no more has made no progress. */
  dealtInSequence() {
    return runLengths(this.puzzle.rows, this.variant).reduce((sum, length) => sum + length, 0);
  }

  /** A result to paste anywhere that gives nothing away: squares, not cards. */
  shareText() {
    const runs = runLengths(this.rows, this.variant);
    const grid = this.rows.map((row, index) => row.map((code, column) => {
      if (code === null) return "⬜";
      if (column < runs[index]) return isFinished(runs[index], this.variant) ? "🟩" : "🟨";
      return "⬛";
    }).join(""));
    const won = this.game.position.won;
    const moves = counted(cardMoves(this.game.moves), "move");
    const outcome = won ? `won in ${moves}`
      : `${counted(this.cardsInSequence(), "card")} in sequence, ${moves}`;
    const time = this.stored.startedAt ? `, ${clock(this.elapsed())}` : "";
    const assisted = this.stored.assisted ? " (with hints)" : "";
    return [`gapgrid ${this.puzzle.name || this.variant.name} ${this.puzzle.date}`,
      `${outcome}${time}${assisted}`, ...grid,
      `${location.origin}/play/${this.slug}/${this.puzzle.date}`].join("\n");
  }

  async copyShare() {
    const text = $("share-text").value;
    try {
      await navigator.clipboard.writeText(text);
      $("copy-note").textContent = "Copied.";
    } catch {
      $("share-text").select();
      $("copy-note").textContent = "Selected: copy it with your device's copy command.";
    }
  }

  // -- submitting and the leaderboard --------------------------------------------------

  async submit() {
    const player = $("player").value.trim();
    const result = $("submit-result");
    if (!PLAYER_NAME.test(player.normalize("NFKC")) || [...player].length > PLAYER_LENGTH) {
      result.textContent = "Choose a name of 1 to 32 letters, digits, spaces, _ . or -, "
        + "starting and ending with a letter or digit (its accents or vowel signs included).";
      result.dataset.kind = "error";
      $("player").setAttribute("aria-invalid", "true");
      return;
    }
    $("player").removeAttribute("aria-invalid");
    if (this.tokenRequest) await this.tokenRequest; // the game's start token, when on its way
    saved.set("player", player);
    const body = { player, moves: this.game.moves };
    if (this.stored.token) body.token = this.stored.token;
    const { date, variant } = this.puzzle;
    const token = playerTokens.get(player);
    const headers = token ? { Authorization: `Bearer ${token}` } : {};
    try {
      // Never given up on: a first submission under a new name claims it, and its answer
      // carries the name's token once; given up after 30 s, the game was stored and the
      // name lost to this browser (the server bounds its own work)
      const answer = await postJSON(`/v1/puzzles/${enc(date)}/${enc(variant)}/submissions`,
        body, headers, null);
      if (answer.player_token) playerTokens.set(player, answer.player_token);
      if (!answer.stored) {
        const error = answer.result?.error;
        result.textContent = `Not stored: the server refused move ${error?.index + 1} `
          + `(${error?.move}): ${readable(error?.reason)}`;
        result.dataset.kind = "error";
        return;
      }
      this.stored.submittedAs = answer.player;
      // the server lets a game with progress replace one without, and nothing else
      this.stored.submittedCounts = Boolean(answer.result?.won)
        || this.cardsInSequence() > this.dealtInSequence();
      if (Number.isFinite(answer.elapsed_seconds)) {
        this.stored.finishedSeconds = answer.elapsed_seconds; // the time ranked, from now on
      }
      this.keep();
      this.summaryFor = null; // its time is the ranked one now
      if (!$("summary").hidden) this.showEnd(false);
      const time = answer.elapsed_seconds === null || answer.elapsed_seconds === undefined ? ""
        : `, in ${clock(answer.elapsed_seconds)}`;
      // no rank while the server is still keying submissions stored before its ranking,
      // or when its database did not answer once the game was stored
      result.textContent = answer.rank === null
        ? `Stored for ${answer.player}${time}: its rank shows on the leaderboard soon.`
        : `Stored for ${answer.player}${time}: rank ${answer.rank} of ${answer.players}.`;
      result.dataset.kind = "success";
    } catch (error) {
      result.textContent = error instanceof ApiError && (error.status === 401
        || error.status === 403)
        ? `The name ${player} belongs to a player whose token this browser does not have: `
          + "choose another name (or play in the browser that first used it)."
        : problemText(error);
      result.dataset.kind = "error";
    }
    await this.loadLeaderboard();
  }

  async loadLeaderboard(attempt = 0) {
    const { date, variant } = this.puzzle;
    const holder = $("leaderboard");
    let board;
    try {
      board = await getJSON(`/v1/puzzles/${enc(date)}/${enc(variant)}/leaderboard?per_page=20`);
    } catch (error) {
      // 503: busy for now (a server keying submissions stored before its ranking, say):
      // asked again a few times, a little later each time, rather than left as an error
      if (error instanceof ApiError && error.status === 503 && attempt < LEADERBOARD_RETRIES) {
        holder.replaceChildren(element("p", { class: "muted" },
          "The leaderboard is being brought up to date: it shows in a moment."));
        setTimeout(() => this.loadLeaderboard(attempt + 1), 1000 * (attempt + 1));
        return;
      }
      holder.replaceChildren(element("p", { class: "muted" }, problemText(error)));
      return;
    }
    if (!board.entries.length) {
      // a past day whose late games may still come in has no final word yet
      const late = serverNow() < Date.parse(this.puzzle.solution_opens_at || this.puzzle.ends_at);
      holder.replaceChildren(element("p", { class: "muted" }, this.live
        ? "No result yet today: be the first." : late ? "No result submitted yet."
          : "Nobody submitted a result that day."));
      return;
    }
    const me = playerKey(saved.get("player") || "");
    // actions, as the ranking and par count them (moves alone looked under par at par)
    const head = element("tr", {}, ...["#", "Player", "Result", "Actions", "Time"].map((text) =>
      element("th", { scope: "col" }, text)));
    const rows = board.entries.map((entry) => {
      const notes = [];
      if (entry.at_par) notes.push("at par");
      if (entry.assisted) notes.push("assisted");
      const result = `${entry.won ? "✓ won" : "not won"}${notes.length
        ? ` (${notes.join(", ")})` : ""}`;
      const row = element("tr", {},
        element("td", {}, String(entry.rank)),
        element("td", { class: "player" }, entry.player),
        element("td", {}, result),
        element("td", {}, String(entry.actions ?? entry.moves)),
        element("td", {}, entry.seconds === null || entry.seconds === undefined ? "–"
          : clock(entry.seconds)));
      if (playerKey(entry.player) === me) row.className = "me";
      return row;
    });
    const table = element("table", { class: "leaderboard" },
      element("caption", { class: "muted small" }, `${board.total} player${
        board.total === 1 ? "" : "s"}${board.more ? `, the first ${board.entries.length} shown`
        : ""}: won games first (fewer actions, then less time), then `
        + "the most cards in sequence; games played with hints after the others."),
      element("thead", {}, head), element("tbody", {}, ...rows));
    holder.replaceChildren(table);
  }

  drawSolution() {
    const route = "GET /v1/puzzles/{date}/{slug}/solution";
    const panel = $("solution-panel");
    const holder = $("solution");
    const served = this.caps.unknown || this.caps.has(route); // unknown: it may well be
    const opens = this.puzzle.solution_opens_at;
    if (this.live || serverNow() < Date.parse(opens)) {
      if (!served) return;
      panel.hidden = false;
      holder.replaceChildren(element("p", { class: "muted" },
        `The solution opens ${opens
          ? `at ${opens.slice(11, 16)} UTC on ${opens.slice(0, 10)}, when games started on `
            + `${this.puzzle.date} can no longer be submitted`
          : `when the day is over (${this.puzzle.ends_at || "midnight UTC"})`}.`));
      return;
    }
    panel.hidden = false;
    if (!served) {
      holder.replaceChildren(element("p", { class: "muted" },
        "Solutions are not available on this server yet."));
      return;
    }
    const url = `/v1/puzzles/${enc(this.puzzle.date)}/${enc(this.puzzle.variant)}/solution`;
    const button = element("button", { type: "button", "data-action": "solution" },
      "Show the solution");
    button.addEventListener("click", async () => {
      try {
        const answer = await getJSON(url);
        const line = answer.moves || answer.line || answer.solution
          || Object.values(answer).find((value) => Array.isArray(value)) || [];
        const heading = element("p", { tabindex: "-1" },
          `A winning line of ${counted(line.length, "action")}:`);
        holder.replaceChildren(
          heading,
          element("ol", { class: "solution-line" }, ...line.map((move) =>
            element("li", {}, element("code", {}, move)))),
          element("p", { class: "small" }, element("a", { href: url }, "The solution as JSON")));
        heading.focus(); // the button it replaced had the focus: keep it in the panel
      } catch (error) {
        const said = element("p", { class: "muted", tabindex: "-1" }, problemText(error));
        holder.replaceChildren(said);
        said.focus();
      }
    });
    holder.replaceChildren(button, " ", element("a", { href: url, class: "small" },
      "(JSON)"));
  }
}

function route() {
  const parts = location.pathname.split("/").filter(Boolean).map(decodeURIComponent);
  // /play/{slug} or /play/{slug}/{date}
  return { slug: parts[1] || "montana", date: parts[2] || null };
}

const { slug, date } = route();
const page = new PlayPage(slug, date);
window.gapgrid = page; // for the curious, and for tests that want to look inside
page.start();
