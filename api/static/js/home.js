// The home page: today's puzzle of every variant and preset, with par and
// difficulty where the API has them and the player's own progress from this
// browser's storage.

import { enc, getJSON, todayUTC } from "./api.js";
import { cardMoves, saved } from "./game.js";

const list = document.getElementById("puzzles");

function element(tag, attributes = {}, ...children) {
  const made = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (key === "class") made.className = value;
    else made.setAttribute(key, value);
  }
  made.append(...children);
  return made;
}

function redealText(redeals) {
  if (redeals === 0) return "no redeal";
  if (redeals === "unlimited") return "unlimited redeals";
  return `${redeals} redeal${redeals === 1 ? "" : "s"}`;
}

function entry(variant) {
  const facts = element("p", { class: "facts" },
    `${variant.rows} × ${variant.rstep}`, " · ", redealText(variant.redeals),
    variant.decks > 1 ? ` · ${variant.decks} decks` : "");
  const badges = element("p", { class: "badges" });
  const progress = element("p", { class: "progress small" });
  const link = element("a", { href: `/play/${enc(variant.slug)}`, class: "play" },
    element("span", { class: "name" }, variant.name));
  const item = element("li", { class: "puzzle", "data-variant": variant.slug }, link, facts,
    element("p", { class: "blurb small muted" }, variant.summary || ""), badges, progress);
  return { item, badges, progress };
}

function badge(text, kind) {
  return element("span", { class: `badge ${kind}` }, text);
}

async function fill(variant, parts) {
  let puzzle;
  try {
    puzzle = await getJSON(`/v1/daily/${enc(variant.slug)}`);
  } catch {
    parts.badges.append(badge("no puzzle today", "muted"));
    return;
  }
  // today as the server counts it (this device's clock said it until a puzzle came)
  document.getElementById("today").textContent = `, today is ${puzzle.date} (UTC)`;
  if (puzzle.certified) parts.badges.append(badge("certified", "good"));
  if (Number.isInteger(puzzle.par)) parts.badges.append(badge(`par ${puzzle.par}`, "plain"));
  if (puzzle.difficulty?.label) {
    parts.badges.append(badge(puzzle.difficulty.label, `level ${puzzle.difficulty.label}`));
  }
  const game = saved.load(puzzle.id);
  if (game && game.moves.length) {
    parts.progress.textContent = game.submittedAs ? `Submitted as ${game.submittedAs}`
      : `Your game: ${cardMoves(game.moves)} move${cardMoves(game.moves) === 1 ? "" : "s"} `
        + "so far";
  }
}

async function main() {
  document.getElementById("today").textContent = `, today is ${todayUTC()} (UTC)`;
  let variants;
  try {
    variants = await getJSON("/v1/variants");
  } catch (error) {
    list.replaceChildren(element("li", { class: "error" }, error.message));
    return;
  }
  const parts = variants.map(entry);
  list.replaceChildren(...parts.map((part) => part.item));
  // A few at a time: the first request of the day may create (and certify) a puzzle.
  let next = 0;
  const worker = async () => {
    while (next < variants.length) {
      const index = next;
      next += 1;
      await fill(variants[index], parts[index]);
    }
  };
  await Promise.all([worker(), worker(), worker()]);
  list.removeAttribute("aria-busy");
  list.dataset.loaded = "true";
}

main();
