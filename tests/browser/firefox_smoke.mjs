// The built lesson in Firefox: a smoke suite, driven by puppeteer-core over WebDriver BiDi.
//
//   MHA_FIREFOX=/usr/bin/firefox-esr node tests/browser/firefox_smoke.mjs BASE_URL [CHECK ...]
//
// BASE_URL is the served site (http://127.0.0.1:PORT/lesson/, see tests/conftest.py's site_url).
// MHA_FIREFOX is the Firefox to launch: tests/browser/test_page_firefox.py passes the one
// scripts/browsers.py chose (Debian's firefox-esr here, else puppeteer-core's pinned download).
// MHA_OTHER_ORIGIN: a loopback server on another port, for the "network" check.
// MHA_SMOKE_EXPECTED: JSON of what the page must show, from tests/conftest.py's hand-worked numbers (the
// worked example, the exercise, the wait for readiness): test_page_firefox.py passes it, so no number is
// written twice.
// One headless Firefox with a fresh profile in a temp dir. The checks in SHARED run in turn on one
// loaded page (a Firefox load to ready costs seconds of CPU); the others load a page in a browser
// context of their own (no shared cache, storage or cookies). Prints ONE JSON line on stdout:
//   {"browser": "firefox/153...", "checks": {NAME: {ok, detail, console_errors, outside_requests,
//    requests, seconds}}}
// A check's `ok` is about the behaviour only; console errors and requests are reported raw and
// judged by tests/browser/test_page_firefox.py (which knows which errors a check may cause).
// Exit status 0 when every check ran (passed or not), 2 on bad arguments or no MHA_FIREFOX or
// MHA_SMOKE_EXPECTED, 1 if
// Firefox failed.
// No sleeps: every wait is on a condition, with a timeout long enough for a loaded CI box.

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import puppeteer from "puppeteer-core";

const FIREFOX = process.env.MHA_FIREFOX; // chosen by scripts/browsers.py; this script never guesses
const WASM = "pyodide.asm.wasm";

// What the page must show, from tests/conftest.py (the DOM contract: aria-labels, ids, body data-python):
// {ready_timeout_ms, tokens: the worked example's two tokens as the grid shows them, head_0 and head_1: their
//  tables to the 2 decimals a page first prints, flat: head 1 after section 4's edit, two_heads_prints: what
//  the "two heads" cell's Run prints}.
const EXPECTED = JSON.parse(process.env.MHA_SMOKE_EXPECTED ?? "null");
const READY_TIMEOUT_MS = EXPECTED?.ready_timeout_ms;

class CheckFailed extends Error {}

function expect(condition, message) {
  if (!condition) throw new CheckFailed(message);
}

const slot = (token, s) => `main input[aria-label="token ${token} slot ${s}"]`;
const table = (label) => `table[aria-label="${label}"]`;

async function waitForPython(page, state) {
  try {
    await page.waitForSelector(`body[data-python="${state}"]`, { timeout: READY_TIMEOUT_MS });
  } catch (error) {
    const now = await page.$eval("body", (body) => body.dataset.python).catch(() => "(no body)");
    throw new CheckFailed(`body data-python never became "${state}" within ${READY_TIMEOUT_MS} ms ` +
                          `(it is "${now}"): ${error.message}`);
  }
}

/** The rows of a table's body, each cell's text trimmed. */
function tableRows(page, label) {
  return page.$$eval(`${table(label)} tbody tr`,
    (rows) => rows.map((row) => [...row.querySelectorAll("td")].map((td) => td.textContent.trim())));
}

/** Wait until the table's body rows are exactly `rows`; on timeout, say what it showed. */
function waitForTable(page, label, rows) {
  return until(page, ([selector, want]) => JSON.stringify([...document.querySelectorAll(`${selector} tbody tr`)]
    .map((row) => [...row.querySelectorAll("td")].map((td) => td.textContent.trim()))) === JSON.stringify(want),
  [table(label), rows],
  async () => `"${label}" should show ${JSON.stringify(rows)} but shows ${JSON.stringify(await tableRows(page, label))}`);
}

/** Wait until fn(arg) is true in the page; on timeout fail with why(), awaited, and the timeout's message. */
async function until(page, fn, arg, why) {
  try {
    await page.waitForFunction(fn, { timeout: READY_TIMEOUT_MS }, arg);
  } catch (error) {
    throw new CheckFailed(`${await why()}: ${error.message}`);
  }
}

/** The text of the first element matching selector, or `missing` when there is none. */
const textOf = (page, selector, missing = "") => page.$eval(selector, (node) => node.textContent).catch(() => missing);

/** The element matching selector once it is there (options: puppeteer's, e.g. { visible: true }). */
const seen = (page, selector, options = {}) => page.waitForSelector(selector, { timeout: READY_TIMEOUT_MS, ...options });

/** Go to url and wait for <body data-python=state>. */
async function open(page, url, state = "ready") {
  await page.goto(url, { timeout: READY_TIMEOUT_MS });
  await waitForPython(page, state);
}

/** The one element matching selector (a second match would mean the contract is ambiguous). */
async function only(page, selector) {
  const found = await page.$$(selector);
  expect(found.length === 1, `expected exactly one ${selector}, found ${found.length}`);
  return found[0];
}

async function gridToken(page, token) {
  const values = [];
  for (let s = 0; s < 4; s++) {
    values.push(Number(await (await only(page, slot(token, s))).evaluate((input) => input.value)));
  }
  return values;
}

// --- the checks: each gets a page already listened to ----------------------------------------------

// These share one page, loaded and ready, in this order: each leaves it as the next expects (the cell
// runs before the keyboard check types in its editor, and the grid is edited last, since a cell reads
// the figure's tokens). The others load their own page, in a fresh context.
const SHARED = ["ready", "cell", "keyboard", "retype", "network", "text", "edit"];


const CHECKS = {
  /** The page loads and Python starts: <body data-python="ready">, no failure alert. */
  async ready(page) {
    expect(await page.$eval("#py-failed", (alert) => alert.hidden), "#py-failed is showing");
    await waitForTable(page, "head 0 weights", EXPECTED.head_0);
    await waitForTable(page, "head 1 weights", EXPECTED.head_1);
    return "ready; head 0 and head 1 show the worked example";
  },

  /** The exercise (tests/conftest.py): token 1's time slots set to token 0's, typed like a reader: head 1 goes flat. */
  async edit(page) {
    for (const token of [0, 1]) {
      const shown = await gridToken(page, token);
      expect(JSON.stringify(shown) === JSON.stringify(EXPECTED.tokens[token]),
             `token ${token} reads ${JSON.stringify(shown)}, expected ${JSON.stringify(EXPECTED.tokens[token])}`);
    }
    await waitForTable(page, "head 1 weights", EXPECTED.head_1);
    const token0 = await gridToken(page, 0);
    for (const s of [2, 3]) {
      const input = await only(page, slot(1, s));
      await input.click();
      await input.evaluate((field) => field.select()); // what a reader's select-all does
      await page.keyboard.type(String(token0[s])); // key events, one input event per character
    }
    const edited = await gridToken(page, 1);
    expect(JSON.stringify(edited) === JSON.stringify([0.9, 0.1, token0[2], token0[3]]),
           `token 1 reads ${JSON.stringify(edited)} after typing`);
    await waitForTable(page, "head 1 weights", EXPECTED.flat);
    await waitForTable(page, "head 0 weights", EXPECTED.head_0); // head 0 reads slots 0-1: unchanged
    const error = await page.$eval("#grid-error", (node) => node.textContent.trim()).catch(() => "");
    expect(error === "", `the grid reports an error: ${error}`);
    return `typed token 1 slots 2-3 = ${token0[2]}, ${token0[3]}; head 1 shows 0.50 in every cell, head 0 unchanged`;
  },

  /** The "two heads" cell: Run (once Python is ready) prints section 3's rows. */
  async cell(page) {
    const button = 'button[aria-label="Run cell: two heads"]';
    await only(page, button);
    await page.waitForSelector(`${button}:not([disabled])`, { timeout: READY_TIMEOUT_MS });
    await page.click(button);
    const last = EXPECTED.two_heads_prints.at(-1);
    await until(page, (want) => document.getElementById("cell-two-heads-output")?.textContent.includes(want), last,
      async () => {
        const traceback = await textOf(page, "#cell-two-heads-error");
        return `#cell-two-heads-output never showed ${last}; it shows ` +
               JSON.stringify(await textOf(page, "#cell-two-heads-output", "(none)")) +
               (traceback ? `; error: ${traceback}` : "");
      });
    const printed = (await textOf(page, "#cell-two-heads-output"))
      .split("\n").map((line) => line.trim()).filter(Boolean);
    expect(JSON.stringify(printed) === JSON.stringify(EXPECTED.two_heads_prints),
           `the cell printed ${JSON.stringify(printed)}, expected ${JSON.stringify(EXPECTED.two_heads_prints)}`);
    return `Run printed ${printed.length} lines, ending ${last}`;
  },

  /** Tab reaches the first cell's editor and moves on, its code unchanged; once typed in, Tab indents. */
  async keyboard(page) {
    const area = "#cell-two-heads-code";
    const original = await page.$eval(area, (node) => node.defaultValue);
    await page.$eval("#cell-two-heads", (node) => node.scrollIntoView()); // the editor's script loads as a cell nears
    await page.waitForSelector(`${area}[data-editor]`, { timeout: READY_TIMEOUT_MS });
    await page.$eval(area, (node) => node.dispatchEvent(new Event("cell-editor"))); // its editor, now
    await seen(page, "#cell-two-heads .cm-content");
    await page.$eval("#cell-two-heads .cm-content", (node) => node.focus());
    await page.keyboard.press("Tab");
    const after = await page.evaluate(() => document.activeElement?.getAttribute("aria-label"));
    expect(after === "Run cell: two heads", `Tab from the untouched editor went to ${JSON.stringify(after)}`);
    expect(await page.$eval(area, (node) => node.value) === original, "Tab changed the cell's code");
    await page.$eval("#cell-two-heads .cm-content", (node) => node.focus());
    await page.keyboard.press("x"); // the reader types: Tab indents from now on
    await page.keyboard.press("Backspace");
    await page.keyboard.press("Tab");
    const code = await page.$eval(area, (node) => node.value);
    expect(code !== original && code.replace(/ {4}/, "") === original, `after typing, Tab left ${JSON.stringify(code.slice(0, 40))}`);
    return "Tab moved from the untouched editor to Run, the code unchanged; after typing, Tab indented";
  },

  /** Issue 45: Ctrl+A in the first cell's editor, then typing, replaces its code, and the CSP refuses nothing (in
   *  Chromium the browser's own merge of the lines once set a style attribute there, which style-src 'self' refuses). */
  async retype(page) {
    const area = "#cell-two-heads-code";
    await page.evaluate(() => {
      window.cspViolations = [];
      document.addEventListener("securitypolicyviolation",
        (e) => window.cspViolations.push(`${e.violatedDirective}: ${e.sample || e.blockedURI}`));
    });
    await page.$eval(area, (node) => {  // the code as shipped (a comment first), put back as Reset does
      node.value = node.defaultValue;
      node.dispatchEvent(new Event("input"));
    });
    await page.$eval("#cell-two-heads .cm-content", (node) => node.focus());
    await page.keyboard.down("Control");
    await page.keyboard.press("a");
    await page.keyboard.up("Control");
    await page.keyboard.type("x = 1");
    await until(page, (selector) => document.querySelector(selector).value === "x = 1", area,
                async () => `after Ctrl+A, typing left ${JSON.stringify(await page.$eval(area, (node) => node.value))}`);
    const refused = await page.evaluate(() => window.cspViolations);
    expect(refused.length === 0, `the CSP refused: ${refused.join("; ")}`);
    return "Ctrl+A, then typing, replaced the code; no CSP violation";
  },

  /** Issue 30's link: h=3 does not divide width 4, so it is refused by name; its other keys are kept. */
  async link(page, base) {
    await open(page, `${base}#t=1,0,0,1;0.9,0.1,0,1&h=3&p=rand&d=50`);
    await until(page, () => document.getElementById("link-notice")?.textContent.includes("h=3"), null,
                async () => `#link-notice never named h=3; it says ${JSON.stringify(await textOf(page, "#link-notice"))}`);
    const top = await textOf(page, "#link-notice");
    expect(top.includes("width 4 is not divisible by 3 heads"), `#link-notice says ${JSON.stringify(top)}`);
    const kept = await page.evaluate(() => ["projections", "distractors", "heads"]
      .map((id) => document.getElementById(id).value));
    expect(JSON.stringify(kept) === JSON.stringify(["random", "50", "2"]), `projections, distractors, heads: ${kept}`);
    return `kept ${kept.join(", ")}; the top says: ${top}`;
  },

  /** A cell's fetch to another origin (MHA_OTHER_ORIGIN) is refused inside the cells' worker, which says so. */
  async network(page) {
    const other = process.env.MHA_OTHER_ORIGIN;
    expect(/^http:\/\/127\.0\.0\.1:\d+$/.test(other ?? ""), `MHA_OTHER_ORIGIN is ${JSON.stringify(other)}`);
    await page.$eval("[data-cell]", (cell) => cell.scrollIntoView());  // the cells' Python starts as a cell nears
    await seen(page, 'body[data-cells="ready"]');
    const code = `import js\ntry:\n    await js.fetch("${other}/fetch")\n    print("sent")\n` +
                 "except Exception as e:\n    print('refused:', e)\n";
    await page.$eval("#cell-one-head-code", (area, text) => {
      area.value = text;
      area.dispatchEvent(new Event("input"));
    }, code);
    await page.click('button[aria-label="Run cell: one head"]');
    const note = "#cell-one-head-refused";
    await until(page, (selector) => document.querySelector(selector)?.textContent.includes("nothing sent"), note,
                async () => `${note} never said the fetch was refused; the cell printed ` +
                            JSON.stringify(await textOf(page, "#cell-one-head-output", "(none)")));
    const printed = (await textOf(page, "#cell-one-head-output")).trim();
    expect(printed.startsWith("refused:"), `the cell printed ${JSON.stringify(printed)}`);
    const said = (await textOf(page, note)).trim();
    expect(said.includes(`${other}/fetch`), `the note does not name the refused URL: ${said}`);
    return `printed ${JSON.stringify(printed)}; the cell says: ${said}`;
  },

  /** Section 9: a character typed at the end of the field adds a guess; a switch draws its head off and redraws;
   *  seed 1 reads it with its own model. Its detail is JSON of the guesses shown ({typed, off, seed}):
   *  test_page_firefox.py compares them with the CLI's. */
  async text(page) {
    await page.$eval("#text", (section) => section.scrollIntoView());
    const settled = () => seen(page, 'body[data-text="ready"]');
    await settled();
    const guesses = () => page.$$eval("#fig-text-reads td.guess", (cells) => cells.map((td) => td.textContent));
    const before = await guesses();
    await page.click("#text-field");
    await page.$eval("#text-field", (field) => field.setSelectionRange(field.value.length, field.value.length));
    await page.keyboard.type("a");
    await settled();
    await until(page, (count) => document.querySelectorAll("#fig-text-reads td.guess").length === count,
                before.length + 1, async () => `the typed "a" drew no guess of its own (${(await guesses()).length} shown)`);
    const typed = await guesses();
    await page.click("#text-off-0-1");
    await seen(page, "#fig-text-maps figure.off");
    await settled();
    const caption = await textOf(page, "#fig-text-maps figure.off figcaption");
    expect(caption.startsWith("layer 0 head 1 (off, adds nothing)"), `the off head's caption: ${caption}`);
    const off = await guesses();
    await page.click("#text-seed-1");  // another seed's model: its card first, then the text read again, 0.1 kept off
    await until(page, () => document.querySelector("#fig-text-card caption")?.textContent.startsWith("Seed 1: "), null,
                async () => `picking seed 1 left the card at ${JSON.stringify(await textOf(page, "#fig-text-card caption"))}`);
    await settled();
    const seed = await guesses();
    return JSON.stringify({ typed, off, seed });
  },

  /** pyodide.asm.wasm aborted by request interception: <body data-python="failed"> and the alert. */
  async failed(page, base) {
    const blocked = [];
    await page.setRequestInterception(true);
    page.on("request", (request) => {
      if (request.isInterceptResolutionHandled()) return;
      if (new URL(request.url()).pathname.endsWith(`/${WASM}`)) {
        blocked.push(request.url());
        request.abort("failed");
      } else {
        request.continue();
      }
    });
    await open(page, base, "failed");
    expect(blocked.length > 0, `${WASM} was never requested, so nothing was blocked`);
    const alert = await seen(page, "#py-failed", { visible: true });
    const text = (await alert.evaluate((node) => node.textContent)).trim();
    expect(text.includes("The live figures could not start"), `#py-failed says ${JSON.stringify(text)}`);
    expect(await alert.evaluate((node) => node.getAttribute("role")) === "alert", "#py-failed has no role=alert");
    await waitForTable(page, "head 1 weights", EXPECTED.head_1); // the pre-rendered numbers stay readable
    return `blocked ${blocked.length} request(s) for ${WASM}; #py-failed visible: ${text}`;
  },
};

// --- running -------------------------------------------------------------------------------------

function newResult() {
  return { ok: false, detail: "", console_errors: [], outside_requests: [], requests: 0, seconds: 0 };
}

/** A page in a fresh context whose console errors, page errors and requests go to results.current. */
async function listenedPage(browser, base, results) {
  const origin = new URL(base).origin;
  const context = await browser.createBrowserContext();
  const page = await context.newPage();
  page.on("console", (message) => {
    const text = message.text();
    if (message.type() === "error" || text.includes("Traceback")) {
      results.current.console_errors.push(`console ${message.type()}: ${text}`);
    }
  });
  page.on("pageerror", (error) => results.current.console_errors.push(`page error: ${error?.message ?? error}`));
  page.on("request", (request) => {
    results.current.requests += 1;
    const url = new URL(request.url());
    // data: and blob: URLs are made inside the page; anything else must go to the site's origin.
    if (!["data:", "blob:"].includes(url.protocol) && url.origin !== origin) {
      results.current.outside_requests.push(request.url());
    }
  });
  return { context, page };
}

/** Run one check on page into result (ok, detail, seconds); before(), if given, runs first, in its time. */
async function runInto(result, check, page, base, before) {
  const started = performance.now();
  try {
    if (before) await before();
    result.detail = await check(page, base);
    result.ok = true;
  } catch (error) {
    result.detail = error instanceof CheckFailed ? error.message : `${error?.stack ?? error}`;
  } finally {
    result.seconds = Math.round(performance.now() - started) / 1000;
  }
}

/** {name: result} for names: the SHARED ones in turn on one page (its load counts as the first one's),
 *  each other in a context of its own. */
async function runChecks(browser, names, base) {
  const checks = {};
  const shared = SHARED.filter((name) => names.includes(name));
  if (shared.length) {
    const results = { current: newResult() };
    const { context, page } = await listenedPage(browser, base, results);
    try {
      let loaded = false;
      const load = async () => { await open(page, base); loaded = true; };
      for (const [index, name] of shared.entries()) {
        if (index) results.current = newResult();
        checks[name] = results.current;
        await runInto(results.current, CHECKS[name], page, base, index ? null : load);
        if (!loaded) {  // the page never got ready: the other shared checks say so instead of running
          for (const rest of shared.slice(1)) checks[rest] = { ...newResult(), detail: `not run: ${results.current.detail}` };
          break;
        }
      }
    } finally {
      await context.close().catch(() => {});
    }
  }
  for (const name of names.filter((name) => !SHARED.includes(name))) {
    const results = { current: newResult() };
    const { context, page } = await listenedPage(browser, base, results);
    try {
      await runInto(results.current, CHECKS[name], page, base);
    } finally {
      await context.close().catch(() => {});
    }
    checks[name] = results.current;
  }
  return checks;
}

async function main(argv) {
  const [base, ...wanted] = argv;
  const names = wanted.length ? wanted : Object.keys(CHECKS);
  const unknown = names.filter((name) => !(name in CHECKS));
  if (!FIREFOX || !EXPECTED || !base || !/^http:\/\/127\.0\.0\.1:\d+\//.test(base) || unknown.length) {
    console.error(`usage: MHA_FIREFOX=PATH node firefox_smoke.mjs http://127.0.0.1:PORT/PATH/ ` +
                  `[${Object.keys(CHECKS).join(" ")}]` +
                  (unknown.length ? ` (unknown check: ${unknown.join(", ")})` : "") +
                  (FIREFOX ? "" : " (MHA_FIREFOX is not set)") + (EXPECTED ? "" : " (MHA_SMOKE_EXPECTED is not set)"));
    return 2;
  }
  const profile = mkdtempSync(join(tmpdir(), "mha-firefox-profile-"));
  let browser;
  try {
    browser = await puppeteer.launch({
      browser: "firefox",
      executablePath: FIREFOX,
      headless: true,
      userDataDir: profile,
      protocolTimeout: 2 * READY_TIMEOUT_MS,
      extraPrefsFirefox: {
        // Belt and braces for "nothing leaves the machine": every non-loopback connection goes to a
        // dead proxy (discard port 9), so an outside request fails instead of reaching the network.
        // The request listener above still records it, which is what fails the test.
        "network.proxy.type": 1,
        "network.proxy.http": "127.0.0.1",
        "network.proxy.http_port": 9,
        "network.proxy.ssl": "127.0.0.1",
        "network.proxy.ssl_port": 9,
        "network.proxy.share_proxy_settings": true,
        "network.proxy.no_proxies_on": "127.0.0.1",
      },
    });
    const checks = await runChecks(browser, names, base);
    process.stdout.write(JSON.stringify({ browser: await browser.version(), checks }) + "\n");
    return 0;
  } finally {
    await browser?.close().catch(() => {});
    rmSync(profile, { recursive: true, force: true });
  }
}

main(process.argv.slice(2)).then(
  (status) => { process.exitCode = status; },
  (error) => { console.error(`firefox_smoke: ${error?.stack ?? error}`); process.exitCode = 1; },
);
