// The offline copy's first fill, as a new browser meets it: the signed-in home page opened
// in a new profile on disk (no copy yet) over the person's notes, the main thread slowed as a
// phone's (Chromium's own CPU throttling, the same ×4 as Lighthouse's mobile preset, but
// real, not simulated), then watched for a while:
//   node bench/fill.mjs <base url> <session token> [seconds] [cpu slowdown…]
// Prints one JSON object: for each slowdown, the notes the copy held about each second
// (and the seconds really watched), and the main thread's long tasks (50 ms or more as
// they ran, the Long Tasks API, which does not say what code ran) before hydration (the
// moment the page marked itself hydrated, seen in the page) and in the time watched after
// it, with the time they blocked (each task's time over 50 ms, as TBT counts it). With ONCENOTE_BENCH_PROFILE set, also the JavaScript and wasm functions that
// took the most of the main thread's time after hydration (a CPU profile, self time), on
// stderr.
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium } from "@playwright/test";

const [base, token, secondsArg, ...slowdownArgs] = process.argv.slice(2);
const seconds = Number(secondsArg ?? 30);
const slowdowns = slowdownArgs.length ? slowdownArgs.map(Number) : [4, 1];
const chromiumPath = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const profiling = Boolean(process.env.ONCENOTE_BENCH_PROFILE);

// Notes in this origin's offline copy (0 before it exists), read in the page.
const copied = () =>
  (async () => {
    const names = (await indexedDB.databases()).map((d) => d.name).filter((n) => n?.startsWith("oncenote-copy-"));
    if (!names.length) return 0;
    const db = await new Promise((resolve, reject) => {
      const open = indexedDB.open(names[0]);
      // Deleted meanwhile (a sign-out, a 410): never create it empty in the app's place.
      open.onupgradeneeded = () => open.transaction.abort();
      open.onsuccess = () => resolve(open.result);
      open.onerror = () => reject(open.error);
    });
    try {
      if (!db.objectStoreNames.contains("notes")) return 0;
      return await new Promise((resolve, reject) => {
        const count = db.transaction("notes").objectStore("notes").count();
        count.onsuccess = () => resolve(count.result);
        count.onerror = () => reject(count.error);
      });
    } finally {
      db.close();
    }
  })();

function blocking(tasks) {
  return {
    n: tasks.length,
    blocking_ms: Math.round(tasks.reduce((sum, t) => sum + Math.max(0, t.duration - 50), 0)),
    longest_ms: Math.round(Math.max(0, ...tasks.map((t) => t.duration))),
  };
}

// Self time by function over a CPU profile's samples, the heaviest first.
function heaviest(profile, top = 25) {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const self = new Map();
  profile.samples.forEach((id, i) => {
    const frame = byId.get(id).callFrame;
    const name = `${frame.functionName || "(anonymous)"} ${frame.url.split("/").pop()}`;
    self.set(name, (self.get(name) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
  });
  return [...self.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([name, ms]) => `${ms.toFixed(0).padStart(7)} ms  ${name}`);
}

async function fill(slowdown) {
  // A profile on disk, as a browser keeps one (an incognito context keeps IndexedDB in
  // memory).
  const profile = await mkdtemp(join(tmpdir(), "oncenote-fill-"));
  const context = await chromium.launchPersistentContext(profile, { executablePath: chromiumPath, args: ["--no-sandbox"] });
  await context.addCookies([{ name: "oncenote_session", value: token, url: base }]);
  await context.addInitScript(() => {
    window.__longTasks = [];
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) window.__longTasks.push({ start: entry.startTime, duration: entry.duration });
    }).observe({ type: "longtask", buffered: true });
    // The moment the page marks itself hydrated, in the page's own time.
    new MutationObserver((_, observer) => {
      if (document.body?.dataset.hydrated !== "true") return;
      window.__hydrated = performance.now();
      observer.disconnect();
    }).observe(document, { attributes: true, subtree: true, attributeFilter: ["data-hydrated"] });
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const cdp = await context.newCDPSession(page);
  await cdp.send("Emulation.setCPUThrottlingRate", { rate: slowdown });
  try {
    await page.goto(`${base}/`);
    await page.locator('body[data-hydrated="true"]').waitFor({ timeout: 60_000 });
    const hydrated = await page.evaluate(() => window.__hydrated ?? performance.now());
    const watchFrom = Date.now();
    if (profiling) {
      await cdp.send("Profiler.enable");
      await cdp.send("Profiler.setSamplingInterval", { interval: 200 });
      await cdp.send("Profiler.start");
    }
    const notes = [];
    while (Date.now() - watchFrom < seconds * 1000) {
      await page.waitForTimeout(Math.min(1000, Math.max(0, seconds * 1000 - (Date.now() - watchFrom))));
      notes.push(await page.evaluate(copied));
    }
    const watched = (Date.now() - watchFrom) / 1000;
    if (profiling) {
      const { profile } = await cdp.send("Profiler.stop");
      console.error(`× ${slowdown}, after hydration, self time:\n${heaviest(profile).join("\n")}`);
    }
    const tasks = await page.evaluate(() => window.__longTasks);
    return {
      cpu_slowdown: slowdown,
      seconds: Math.round(watched * 10) / 10,
      hydrated_ms: Math.round(hydrated),
      notes_each_second: notes,
      notes_per_second: Math.round(notes[notes.length - 1] / watched),
      long_tasks_to_hydration: blocking(tasks.filter((t) => t.start < hydrated)),
      long_tasks_after: blocking(tasks.filter((t) => t.start >= hydrated)),
    };
  } finally {
    await context.close();
    await rm(profile, { recursive: true, force: true });
  }
}

const runs = [];
for (const slowdown of slowdowns) runs.push(await fill(slowdown));
console.log(JSON.stringify({ fill: runs }));
