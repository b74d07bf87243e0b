// Cards as the API writes them ("7D", "TD", null for a gap), and the words
// and symbols a person reads. Rules are never decided here: the server does
// that. Only the "in sequence" marks are worked out in the page, from the
// variant's own geometry (rbase, ranks, rstep), because they are display.

const RANK_LETTERS = "A23456789TJQK";
const RANK_SHORT = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
const RANK_NAMES = ["ace", "2", "3", "4", "5", "6", "7", "8", "9", "10", "jack", "queen",
  "king"];
const SUITS = {
  C: { name: "clubs", symbol: "♣", red: false },
  S: { name: "spades", symbol: "♠", red: false },
  H: { name: "hearts", symbol: "♥", red: true },
  D: { name: "diamonds", symbol: "♦", red: true },
};

/** Read a card code: rank (Ace = 0), suit letter, words and symbols. */
export function cardInfo(code) {
  const rank = RANK_LETTERS.indexOf(code[0]);
  const suit = SUITS[code[1]];
  if (rank < 0 || !suit) return null;
  const name = `${RANK_NAMES[rank]} of ${suit.name}`;
  return {
    code,
    rank,
    suit: code[1],
    red: suit.red,
    short: RANK_SHORT[rank],
    symbol: suit.symbol,
    text: `${RANK_SHORT[rank]}${suit.symbol}`,
    name: name[0].toUpperCase() + name.slice(1),
  };
}

/** "7♦", or the code itself when it is not a card the page knows. */
export function cardText(code) {
  return cardInfo(code)?.text ?? code;
}

/** The engine's words with its card codes written as the page writes cards: "5D does not
 * fit after 6C" is "5♦ does not fit after 6♣" (a reason mixed the two beside the board). */
export function readable(reason) {
  return String(reason ?? "").replace(/\b[A2-9TJQK][CDHS]\b/g, (code) => cardText(code));
}

/** The ranks of a finished row from column 0 on, as the core defines them. */
export function sequenceRanks(variant) {
  const ranks = variant.ranks?.length ? variant.ranks : [...Array(13).keys()];
  return ranks.filter((rank) => rank >= variant.rbase).slice(0, variant.rstep - 1);
}

/** How many cards from column 0 of each row already stand in their finished places. */
export function runLengths(rows, variant) {
  const sequence = sequenceRanks(variant);
  return rows.map((row) => {
    const head = row[0] && cardInfo(row[0]);
    if (!head || head.rank !== sequence[0]) return 0;
    let length = 1;
    while (length < sequence.length) {
      const card = row[length] && cardInfo(row[length]);
      if (!card || card.suit !== head.suit || card.rank !== sequence[length]) break;
      length += 1;
    }
    return length;
  });
}

/** Whether a run of this length finishes its row. */
export function isFinished(length, variant) {
  return length === sequenceRanks(variant).length;
}

/** Say a move in words: "7♦ from slot 12 to slot 3". */
export function describeMove(move, rows, rstep) {
  if (move === "redeal") return "redeal";
  const [source, target] = move.split("-").map(Number);
  const code = rows[Math.floor(source / rstep)]?.[source % rstep];
  return `${code ? cardText(code) : "the card"} from slot ${source} to slot ${target}`;
}
