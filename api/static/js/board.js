// The board: one element per slot, laid out as the variant's rows x rstep.
//
// Follows the ARIA grid pattern: the board is a grid of rows of gridcells,
// one cell is in the tab order at a time (a "roving" tabindex), the arrow
// keys move that focus and Enter acts on the focused cell. Slot elements are
// made once per layout and only their contents change, so `data-slot="N"`
// always finds the same element, and focus stays put while cards move.

import { cardInfo, isFinished, runLengths } from "./cards.js";

export class BoardView {
  /**
   * @param {HTMLElement} element  the board container
   * @param {object} variant       the variant document (rows, rstep, rbase, ranks ...)
   * @param {(slot: number) => void} activate  called for a click, a tap or Enter on a slot
   */
  constructor(element, variant, activate) {
    this.element = element;
    this.variant = variant;
    this.activate = activate;
    this.focused = 0;
    this.slots = [];
    this.rowElements = [];
    this.build();
  }

  build() {
    const { rows, rstep } = this.variant;
    const board = this.element;
    board.replaceChildren();
    board.setAttribute("role", "grid");
    board.setAttribute("aria-label", `Board: ${rows} rows of ${rstep} slots`);
    board.style.setProperty("--cols", String(rstep));
    board.style.setProperty("--rows", String(rows));
    for (let row = 0; row < rows; row += 1) {
      const rowElement = document.createElement("div");
      rowElement.className = "row";
      rowElement.setAttribute("role", "row");
      rowElement.dataset.row = String(row);
      for (let column = 0; column < rstep; column += 1) {
        const slot = row * rstep + column;
        const cell = document.createElement("div");
        cell.className = "slot";
        cell.setAttribute("role", "gridcell");
        cell.dataset.slot = String(slot);
        cell.tabIndex = slot === this.focused ? 0 : -1;
        rowElement.append(cell);
        this.slots.push(cell);
      }
      this.rowElements.push(rowElement);
      board.append(rowElement);
    }
    board.addEventListener("click", (event) => {
      const cell = event.target.closest("[data-slot]");
      if (!cell || !board.contains(cell)) return;
      this.focus(Number(cell.dataset.slot), false);
      this.activate(Number(cell.dataset.slot));
    });
    board.addEventListener("keydown", (event) => this.onKey(event));
  }

  /** Move the roving focus to `slot` (and into the page's focus when `move` is set). */
  focus(slot, move = true) {
    if (slot < 0 || slot >= this.slots.length) return;
    this.slots[this.focused].tabIndex = -1;
    this.focused = slot;
    this.slots[slot].tabIndex = 0;
    if (move) this.slots[slot].focus();
  }

  onKey(event) {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    const { rows, rstep } = this.variant;
    const row = Math.floor(this.focused / rstep);
    const column = this.focused % rstep;
    const steps = {
      ArrowLeft: [0, -1], ArrowRight: [0, 1], ArrowUp: [-1, 0], ArrowDown: [1, 0],
    };
    if (event.key in steps) {
      const [down, right] = steps[event.key];
      const nextRow = Math.min(rows - 1, Math.max(0, row + down));
      const nextColumn = Math.min(rstep - 1, Math.max(0, column + right));
      this.focus(nextRow * rstep + nextColumn);
      event.preventDefault();
    } else if (event.key === "Home" || event.key === "End") {
      this.focus(row * rstep + (event.key === "Home" ? 0 : rstep - 1));
      event.preventDefault();
    } else if (event.key === "Enter" || event.key === " ") {
      this.activate(this.focused);
      event.preventDefault();
    }
  }

  /**
   * Draw `rows` (card codes, null for gaps) with the marks of the moment:
   * `selected` (a slot), `targets` (slots the selection may go to or come
   * from), `hint` ([source, target]) and `last` (the slots of the last move).
   */
  render(rows, marks = {}) {
    const { rstep } = this.variant;
    const runs = runLengths(rows, this.variant);
    const targets = marks.targets || new Set();
    const hint = new Set(marks.hint || []);
    const last = new Set(marks.last || []);
    rows.forEach((row, rowIndex) => {
      const finished = isFinished(runs[rowIndex], this.variant);
      const rowElement = this.rowElements[rowIndex];
      rowElement.classList.toggle("finished", finished);
      rowElement.setAttribute("aria-label",
        `Row ${rowIndex + 1}, slots ${rowIndex * rstep} to ${rowIndex * rstep + rstep - 1}`
        + (finished ? ", finished" : ""));
      row.forEach((code, column) => {
        const slot = rowIndex * rstep + column;
        const cell = this.slots[slot];
        const inRun = column < runs[rowIndex];
        const notes = [];
        if (inRun) notes.push("in sequence");
        if (marks.selected === slot) notes.push("selected");
        if (targets.has(slot)) notes.push(code ? "fits the selected gap" : "the card fits here");
        if (hint.has(slot)) notes.push("hint");
        this.drawSlot(cell, code, slot, notes);
        cell.classList.toggle("in-run", inRun);
        cell.classList.toggle("selected", marks.selected === slot);
        cell.classList.toggle("target", targets.has(slot));
        cell.classList.toggle("hinted", hint.has(slot));
        cell.classList.toggle("last", last.has(slot));
        cell.setAttribute("aria-selected", String(marks.selected === slot));
      });
    });
  }

  drawSlot(cell, code, slot, notes) {
    const card = code ? cardInfo(code) : null;
    const suffix = notes.length ? `, ${notes.join(", ")}` : "";
    if (cell.dataset.drawn !== (code || "")) {
      cell.replaceChildren();
      if (card) {
        const rank = document.createElement("span");
        rank.className = "rank";
        rank.textContent = card.short;
        const suit = document.createElement("span");
        suit.className = "suit";
        suit.textContent = card.symbol;
        cell.append(rank, suit);
      } else {
        const number = document.createElement("span");
        number.className = "gap-number";
        number.textContent = String(slot);
        cell.append(number);
      }
      cell.dataset.drawn = code || "";
    }
    if (card) {
      cell.dataset.card = code;
      cell.classList.remove("gap");
      cell.classList.add("card", card.red ? "red" : "black");
      cell.classList.remove(card.red ? "black" : "red");
      cell.setAttribute("aria-label", `${card.name}, slot ${slot}${suffix}`);
    } else {
      delete cell.dataset.card;
      cell.classList.remove("card", "red", "black");
      cell.classList.add("gap");
      cell.setAttribute("aria-label", `gap, slot ${slot}${suffix}`);
    }
  }

  /** The card code in `slot` of `rows`, or null for a gap. */
  static codeAt(rows, rstep, slot) {
    return rows[Math.floor(slot / rstep)]?.[slot % rstep] ?? null;
  }
}
