// Talking to the gapgrid API: the page's only source of truth.
//
// Every request goes to this origin (the Content-Security-Policy forbids any
// other). Endpoints that a server may not have yet (hints, solutions, the
// legal-move list) are looked up in the OpenAPI document first, so the page
// never asks for a route that would answer 404: a browser logs every failed
// request as a console error, and a player should not see those.

/** An error answer of the API, with its RFC 9457 problem document when there is one. */
export class ApiError extends Error {
  constructor(status, problem) {
    super(problem?.detail || problem?.title || `the server answered ${status}`);
    this.status = status;
    this.problem = problem;
  }
}

let clockOffset = 0;

/** How long the page waits for an answer: a server that never answers (stuck, or a
 * proxy holding the connection) left the page waiting for good, its controls queued. */
export const ANSWER_SECONDS = 30;

/**
 * Now by the server's clock, in milliseconds since 1970: this device's clock moved by
 * the difference the Date of the server's last answer to a POST showed (this device's
 * own until one came). What the server decides by its clock (a late game's last hour,
 * when a solution opens) is judged by this: a device an hour off took a late game for
 * closed, and an open solution for closed.
 */
export function serverNow() {
  return Date.now() + clockOffset;
}

/** An AbortSignal that aborts after `seconds`, where browsers lack AbortSignal.timeout
 * (Safari before 16): without it, every request failed. */
function timeoutSignal(seconds) {
  if (typeof AbortSignal.timeout === "function") return AbortSignal.timeout(seconds * 1000);
  const controller = new AbortController();
  setTimeout(() => controller.abort(new DOMException("timed out", "TimeoutError")),
    seconds * 1000);
  return controller.signal;
}

/** Send a request; `seconds`: how long to wait for its answer (null: for as long as it
 * takes, for a request whose answer must not be lost). */
async function send(method, path, body, headers = {}, seconds = ANSWER_SECONDS) {
  const init = { method, headers: { Accept: "application/json", ...headers } };
  if (body !== undefined) {
    init.headers["Content-Type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  let response;
  let text;
  try {
    if (seconds !== null) init.signal = timeoutSignal(seconds);
    response = await fetch(path, init);
    text = await response.text();
  } catch (error) {
    if (error.name === "TimeoutError") {
      throw new ApiError(0, { detail: `the server did not answer within ${seconds} s; `
        + "try again in a moment" });
    }
    throw new ApiError(0, { detail: `the server cannot be reached (${error.message})` });
  }
  if (method !== "GET") { // never a cached answer: its Date is the server's now
    const date = Date.parse(response.headers.get("Date") || "");
    // the header counts whole seconds: half a second is the smaller error on average
    if (Number.isFinite(date)) clockOffset = date + 500 - Date.now();
  }
  let data = null;
  if (text) {
    try {
      data = JSON.parse(text);
    } catch {
      // not the API's own answer (a proxy's HTML error page): its status, not its markup
      data = { detail: `the server answered ${response.status} ${response.statusText}`.trim() };
    }
  }
  if (!response.ok) throw new ApiError(response.status, data);
  return data;
}

/** GET a JSON document, waiting `seconds` at most for it. */
export const getJSON = (path, seconds = ANSWER_SECONDS) => send("GET", path, undefined, {},
  seconds);

/** POST a JSON body (with more request headers, if given) and read the JSON answer, waiting
 * `seconds` at most (null: however long it takes). */
export const postJSON = (path, body, headers, seconds = ANSWER_SECONDS) => send("POST", path,
  body, headers, seconds);

/** How long the page waits for the list of what the server offers, read again before an
 * action while a first read failed: not the 30 s of an answer the action needs. */
const CAPABILITIES_SECONDS = 5;

/** Path segments as the API wants them. */
export const enc = encodeURIComponent;

let capabilitiesPromise = null;

/**
 * What this server offers, read from its OpenAPI document once it has been read: a Set
 * of "METHOD /v1/path/{param}" strings. While it cannot be read (a 429, a 503, no
 * network), an empty Set marked `unknown`, and the next call asks again: one failed
 * read once turned hints off for the whole visit.
 */
export function capabilities() {
  if (!capabilitiesPromise) {
    capabilitiesPromise = getJSON("/v1/openapi.json", CAPABILITIES_SECONDS).then(
      (doc) => {
        const found = new Set();
        for (const [path, item] of Object.entries(doc.paths || {})) {
          for (const method of Object.keys(item)) found.add(`${method.toUpperCase()} ${path}`);
        }
        return found;
      },
      () => {
        capabilitiesPromise = null; // asked again next time
        const unknown = new Set(); // meanwhile, only what every version has
        unknown.unknown = true;
        return unknown;
      },
    );
  }
  return capabilitiesPromise;
}

/** Today's date in UTC, the API's day, as YYYY-MM-DD. */
export function todayUTC() {
  return new Date().toISOString().slice(0, 10);
}
