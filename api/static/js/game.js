// A game in progress: the list of actions sent so far, kept in the browser's
// storage, and the position the server says they lead to.
//
// The page never decides a rule. Every position comes from the API: from
// POST /v1/moves (legal moves, stuck, redeal allowed) where the server has
// it, otherwise from POST /v1/verify (the board and redeals only). The actions
// are sent whole each time, undos included, exactly as a submission will
// send them, so what the page shows is what the server will score.

import { ApiError, postJSON } from "./api.js";

const STORE_PREFIX = "gapgrid:game:";
const STORE_VERSION = 1;

/** Saved games, one per puzzle id, in localStorage (which may be unavailable). */
export const saved = {
  load(puzzleId) {
    try {
      const data = JSON.parse(localStorage.getItem(STORE_PREFIX + puzzleId) || "null");
      return data && data.version === STORE_VERSION && Array.isArray(data.moves) ? data : null;
    } catch {
      return null;
    }
  },
  save(puzzleId, data) {
    try {
      localStorage.setItem(STORE_PREFIX + puzzleId, JSON.stringify({ ...data,
        version: STORE_VERSION }));
    } catch {
      // Private mode or a full storage: the game still plays, it just won't survive a reload.
    }
  },
  /** Whether a `storage` event (another tab's write) is about the saved game of
   * `puzzleId` (a storage cleared as a whole, `key` null, is not: nothing took its place). */
  concerns(event, puzzleId) {
    return event.key === STORE_PREFIX + puzzleId;
  },
  forget(puzzleId) {
    try {
      localStorage.removeItem(STORE_PREFIX + puzzleId);
    } catch {
      // nothing kept, nothing to forget
    }
  },
  get(key) {
    try {
      return localStorage.getItem(`gapgrid:${key}`);
    } catch {
      return null;
    }
  },
  set(key, value) {
    try {
      localStorage.setItem(`gapgrid:${key}`, value);
    } catch {
      // not kept: only a convenience
    }
  },
};

/** The effective actions of `moves`: undos taken back, as the engine does. */
export function effectiveActions(moves) {
  const stack = [];
  for (const move of moves) {
    if (move === "undo") stack.pop();
    else stack.push(move);
  }
  return stack;
}

/** Card moves made, undone ones included: the number the rankings count. */
export function cardMoves(moves) {
  return moves.filter((move) => move !== "undo" && move !== "redeal").length;
}

/** What par and the ranking count: every card move (taken back or not) and the redeals
 * still in effect (an undo takes back the action before it, a redeal included). */
export function actionsCounted(moves) {
  return cardMoves(moves) + effectiveActions(moves).filter((move) => move === "redeal").length;
}

export class Game {
  /** A game of `puzzle` (the API's puzzle document) under `variant` (its variant document). */
  constructor(puzzle, variant) {
    this.puzzle = puzzle;
    this.variant = variant;
    this.moves = [];
    this.position = null;
    this.hasMoves = false;
  }

  /** Whether the server lists legal moves, by the page's capabilities `caps` (read once
   * by the page, so that one failed read is not asked twice). */
  init(caps) {
    this.hasMoves = caps.has("POST /v1/moves");
  }

  request(moves) {
    return { variant: this.puzzle.variant, options: this.puzzle.options || {},
      deal: this.puzzle.deal, moves };
  }

  /**
   * The position after `moves`, normalised: rows, ok, error, won, redeals_left,
   * redeal_allowed, stuck (null when unknown) and legal (a list of {source,
   * target} or null when unknown).
   */
  async positionAfter(moves) {
    if (this.hasMoves) {
      const answer = await postJSON("/v1/moves", this.request(moves));
      const legal = (answer.legal_moves || []).map((entry) => {
        const text = typeof entry === "string" ? entry : entry.move;
        if (!text || !text.includes("-")) return null;
        const [source, target] = text.split("-").map(Number);
        return { source, target };
      }).filter(Boolean);
      return { ...answer, legal, stuck: answer.stuck ?? legal.length === 0 };
    }
    const answer = await postJSON("/v1/verify", { ...this.request(moves), scoring: [] });
    return { ...answer, legal: null, stuck: null, redeal_allowed: null };
  }

  /** The engine's reason for refusing `action` after the current moves, or null if legal. */
  async refusal(action) {
    const answer = await postJSON("/v1/verify", { ...this.request([...this.moves, action]),
      scoring: [] });
    if (answer.ok) return null;
    return answer.error;
  }

  /** Slots the card in `source` may go to, from the legal moves or by asking per gap. */
  async targetsOf(source, gaps) {
    if (this.position.legal) {
      return this.position.legal.filter((move) => move.source === source)
        .map((move) => move.target);
    }
    // Without /v1/moves: ask the verifier once per gap, all at once.
    const answers = await Promise.all(gaps.map((gap) => this.refusal(`${source}-${gap}`)));
    return gaps.filter((gap, index) => answers[index] === null);
  }

  /** Slots whose card may go into `gap`, when the server lists legal moves (else null). */
  sourcesOf(gap) {
    if (!this.position.legal) return null;
    return this.position.legal.filter((move) => move.target === gap).map((move) => move.source);
  }

  /**
   * Replay `moves` from the deal; keep the longest legal prefix. Returns the refusal, if
   * any: `unreadable` when the server would not read the actions at all (a damaged or
   * edited save: not actions, or more than a game may have), and the game starts from
   * the deal (it stayed empty, and the page stuck, for good).
   */
  async load(moves) {
    let position;
    try {
      position = await this.positionAfter(moves);
    } catch (error) {
      if (!(error instanceof ApiError) || error.status !== 422) throw error;
      this.moves = [];
      this.position = await this.positionAfter([]);
      return { unreadable: true, reason: error.message };
    }
    if (position.ok) {
      this.moves = [...moves];
      this.position = position;
      return null;
    }
    const kept = moves.slice(0, position.error.index);
    this.moves = kept;
    this.position = await this.positionAfter(kept);
    return position.error;
  }

  /** Try `action`; on success the position moves on, otherwise the refusal comes back. */
  async play(action) {
    const moves = [...this.moves, action];
    const position = await this.positionAfter(moves);
    if (!position.ok) return position.error;
    this.moves = moves;
    this.position = position;
    return null;
  }

  get canUndo() {
    return effectiveActions(this.moves).length > 0;
  }

  /** Whether the game cannot go on: won, or no move and no redeal left. */
  get over() {
    const position = this.position;
    if (!position) return false;
    if (position.won) return true;
    if (position.stuck !== true) return false;
    if (position.redeal_allowed !== null && position.redeal_allowed !== undefined) {
      return !position.redeal_allowed;
    }
    return position.redeals_left === 0;
  }
}
