// The page as a person feels it, measured in Debian's headless Chromium against a running
// release server (the benchmark starts it and signs a person in):
//   node bench/page.mjs <base url> <session token> <saves> <search words…>
// Prints one JSON object: click → "Saved" latencies (measured inside the page, from the
// click to the note showing in the saved list); searches from the search box of an open
// page (the home page, hydrated, the word typed: from Enter to the first result on screen,
// timed in the page; and the word filled in at once right after hydration); the search
// page loaded by its address beside the home page's load (the same navigation, as a
// baseline); and Lighthouse (mobile and desktop presets, and on the home page mobile with
// its slowdowns applied for real: "mobile-as-run") for the home page and for the
// note page named by ONCENOTE_BENCH_NOTE (a long Markdown note), when it is set.
import { chromium } from "@playwright/test";
import { runLighthouse, strayRejections } from "./lighthouse.mjs";

const [base, token, savesArg, ...words] = process.argv.slice(2);
const saves = Number(savesArg ?? 40);
const chromiumPath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const cookie = { name: "oncenote_session", value: token, url: base };

function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}
const summary = (values) => ({
  n: values.length,
  p50_ms: percentile(values, 50),
  p95_ms: percentile(values, 95),
  max_ms: Math.max(...values),
});

async function browserTimings() {
  const browser = await chromium.launch({ executablePath: chromiumPath, args: ["--no-sandbox"] });
  try {
    const context = await browser.newContext();
    await context.addCookies([cookie]);
    const page = await context.newPage();
    await page.goto(`${base}/`);
    await page.locator('body[data-hydrated="true"]').waitFor({ timeout: 30_000 });
    const clickToSaved = [];
    for (let n = 0; n < saves + 3; n++) {
      const title = `page bench ${Date.now()}-${n}`;
      await page.getByLabel("Title").fill(title);
      await page.getByLabel("Body").fill("measured from the click to the note in the saved list");
      const ms = await page.evaluate(
        (title) =>
          new Promise((resolve, reject) => {
            const list = document.querySelector('[data-testid="saved-notes"]');
            if (!list) return reject(new Error("the page has no saved-notes list"));
            const shown = () => [...list.querySelectorAll("li")].some((li) => li.textContent.includes(title));
            const started = performance.now();
            const observer = new MutationObserver(() => {
              if (shown()) {
                observer.disconnect();
                resolve(performance.now() - started);
              }
            });
            observer.observe(document.body, { childList: true, subtree: true, characterData: true });
            setTimeout(() => reject(new Error(`"${title}" was not shown as saved within 10 s`)), 10_000);
            [...document.querySelectorAll("button")].find((b) => b.textContent.trim() === "Save").click();
          }),
        title,
      );
      if (n >= 3) clickToSaved.push(ms); // the first presses warm the page up
    }
    // The baseline for the search page: the same navigation to the home page (its 50
    // newest notes), timed the same way.
    const home = [];
    for (let n = 0; n < 20; n++) {
      const started = performance.now();
      await page.goto(`${base}/`, { waitUntil: "commit" });
      await page.getByTestId("saved-notes").locator("li").first().waitFor({ timeout: 10_000 });
      home.push(performance.now() - started);
    }
    const search = [];
    for (let n = 0; n < Math.max(words.length, 1) * 5; n++) {
      const word = words[n % words.length] ?? "note";
      const started = performance.now();
      await page.goto(`${base}/search?q=${encodeURIComponent(word)}`, { waitUntil: "commit" });
      await page.getByTestId("search-results").locator("li").first().waitFor({ timeout: 10_000 });
      search.push(performance.now() - started);
    }
    // From the search box of an open page, as a person searches: the home page loaded and
    // hydrated, the word typed into the masthead's box a key every 100 ms (Enter comes
    // 0.6-0.9 s after hydration; the offline copy is still being filled), then Enter —
    // timed inside the page, from the Enter key's press to the frame with the first result
    // painted.
    const searchBox = [];
    // The same search with the word filled in at once the moment the page has hydrated,
    // timed from here (Playwright's round trips included): what the page's own start-up
    // (its wasm compiled, its streams opened, the offline copy's first pages) costs a
    // search made before it is done.
    const searchBoxAtOnce = [];
    const searchBoxRequest = [];
    const searchBoxFirstByte = [];
    const searchBoxBeforeRequest = [];
    const searchBoxAfterAnswer = [];
    const searchBoxAnswerToDocument = [];
    const searchBoxFeedReadsAlongside = [];
    // Of the wait for the first byte, the server's own time (its `Server-Timing`): the
    // whole request, and the search route's part of it.
    const searchBoxServerTotal = [];
    const searchBoxServerSearch = [];
    for (let n = 0; n < Math.max(words.length, 1) * 5; n++) {
      const word = words[n % words.length] ?? "note";
      await page.goto(`${base}/`);
      await page.locator('body[data-hydrated="true"]').waitFor({ timeout: 30_000 });
      const box = page.locator("#search-q");
      await box.pressSequentially(word, { delay: 100 });
      await page.evaluate(() => {
        window.__searchShown = new Promise((resolve, reject) => {
          const input = document.querySelector("#search-q");
          input.addEventListener("keydown", (event) => {
            if (event.key !== "Enter") return;
            const pressed = event.timeStamp;
            const shown = () => document.querySelector('[data-testid="search-results"] li');
            const observer = new MutationObserver(() => {
              if (!shown()) return;
              observer.disconnect();
              // Once the frame with the results has been painted (after the next
              // animation frame), not as soon as they are in the DOM.
              const inDocument = performance.now();
              requestAnimationFrame(() => setTimeout(() => resolve({ pressed, inDocument, painted: performance.now() }), 0));
            });
            observer.observe(document.body, { childList: true, subtree: true });
          }, { once: true, capture: true });
          setTimeout(() => reject(new Error("no search result on screen within 10 s")), 10_000);
        });
      });
      await box.press("Enter");
      const shown = await page.evaluate(() => window.__searchShown);
      if (typeof shown?.painted !== "number") throw new Error("the search from the box loaded a new page");
      searchBox.push(shown.painted - shown.pressed);
      // Of which the `/api/search` request (from its start to its answer's last byte, by the
      // page's resource timing; the page was loaded just before, so its one entry is this
      // search's), and within it the wait for the answer's first byte (the server's work
      // and the network's, from the request sent); the page's own work before the request
      // (Enter → the request started) and after it (the answer's last byte → the results
      // painted, and of that, to the first result in the document); and how many reads of
      // the change feed (`/api/changes`: the offline copy's and the live page's) overlapped
      // the request in time (only reads finished by then have a timing entry); and the
      // server's own time on it, as its `Server-Timing` header says.
      const request = await page.evaluate(() => {
        const resources = performance.getEntriesByType("resource");
        const entry = resources.filter((e) => e.name.includes("/api/search")).pop();
        if (!entry) return null;
        const alongside = resources.filter(
          (e) => e.name.includes("/api/changes") && e.startTime < entry.responseEnd && e.responseEnd > entry.startTime,
        ).length;
        return {
          started: entry.startTime,
          answered: entry.responseEnd,
          took: entry.responseEnd - entry.startTime,
          firstByte: entry.responseStart - entry.requestStart,
          alongside,
          server: Object.fromEntries((entry.serverTiming ?? []).map((t) => [t.name, t.duration])),
        };
      });
      if (!request) throw new Error("the page has no resource timing for its /api/search request");
      searchBoxRequest.push(request.took);
      searchBoxFirstByte.push(request.firstByte);
      searchBoxBeforeRequest.push(request.started - shown.pressed);
      searchBoxAfterAnswer.push(shown.painted - request.answered);
      searchBoxAnswerToDocument.push(shown.inDocument - request.answered);
      searchBoxFeedReadsAlongside.push(request.alongside);
      if (typeof request.server.total !== "number" || typeof request.server.search !== "number") {
        throw new Error(`the /api/search answer has no Server-Timing the page can read: ${JSON.stringify(request.server)}`);
      }
      searchBoxServerTotal.push(request.server.total);
      searchBoxServerSearch.push(request.server.search);

      await page.goto(`${base}/`);
      await page.locator('body[data-hydrated="true"]').waitFor({ timeout: 30_000 });
      const again = page.locator("#search-q");
      await again.fill(word);
      const started = performance.now();
      await again.press("Enter");
      await page.getByTestId("search-results").locator("li").first().waitFor({ timeout: 10_000 });
      searchBoxAtOnce.push(performance.now() - started);
    }
    return {
      click_to_saved: summary(clickToSaved),
      home_page: summary(home),
      search_page: summary(search),
      search_box: summary(searchBox),
      search_box_request: summary(searchBoxRequest),
      search_box_request_to_first_byte: summary(searchBoxFirstByte),
      search_box_at_once: summary(searchBoxAtOnce),
      search_box_before_request: summary(searchBoxBeforeRequest),
      search_box_after_answer: summary(searchBoxAfterAnswer),
      search_box_answer_to_document: summary(searchBoxAnswerToDocument),
      search_box_server_total: summary(searchBoxServerTotal),
      search_box_server_search: summary(searchBoxServerSearch),
      search_box_feed_reads_alongside: {
        searches: searchBoxFeedReadsAlongside.length,
        with_one_or_more: searchBoxFeedReadsAlongside.filter((n) => n > 0).length,
        most: Math.max(...searchBoxFeedReadsAlongside),
      },
    };
  } finally {
    await browser.close();
  }
}

const timings = await browserTimings();
const lighthouseFigures = [];
const pages = ["/", ...(process.env.ONCENOTE_BENCH_NOTE ? [process.env.ONCENOTE_BENCH_NOTE] : [])];
for (const path of pages) {
  // The slowdowns applied for real on the home page only: one such run to set beside the
  // simulated ones is enough.
  for (const preset of path === "/" ? ["mobile", "mobile-as-run", "desktop"] : ["mobile", "desktop"]) {
    lighthouseFigures.push(await runLighthouse(base, token, preset, path));
  }
}
console.log(JSON.stringify({ ...timings, lighthouse: lighthouseFigures, stray_rejections: strayRejections }));
