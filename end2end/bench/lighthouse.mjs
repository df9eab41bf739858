// Lighthouse as the benchmark runs it (`page.mjs`, `home.mjs`): one run of a preset on a
// page of a running server, signed in by a session token, and the figures kept from its
// report.
import lighthouse from "lighthouse";
import desktopConfig from "lighthouse/core/config/desktop-config.js";
import * as chromeLauncher from "chrome-launcher";

// When a page's load times out (the home page of a person with 100,000 notes is not quiet
// within Lighthouse's 45 s: a new browser's offline copy fills in the background, a slice
// at a time), Lighthouse 12 leaves its check for a quiet CPU running; its bfcache check
// then navigates the page, and that stray check rejects ("Inspected target navigated or
// closed") with nobody to handle it, which would end this script; once the run's browser
// is closed, the same stray check rejects with "Session closed" (it ended the browser part
// of two runs, 2026-12-07 01:26 and 04:25). Those rejections, and only those, are counted
// and the run goes on (its report says the load timed out, in its warnings); any other
// unhandled rejection ends the script, as before.
const STRAY = ["Inspected target navigated or closed", "Session closed. Most likely the page has been closed."];
export const strayRejections = [];
process.on("unhandledRejection", (error) => {
  const message = String(error?.message ?? error);
  if (!STRAY.some((stray) => message.includes(stray))) {
    console.error(error);
    process.exit(1);
  }
  strayRejections.push(message);
});

// Lighthouse's mobile preset as it runs by default simulates the phone: it loads the page
// at full speed and computes the metrics as if the CPU were 4× slower (each observed task
// ×4) and the network slower. "mobile-as-run" applies the same slowdowns for real
// (`throttlingMethod: devtools`: Chromium's CPU throttling and network emulation), so its
// TBT counts the tasks as they ran on the slowed CPU.
const AS_RUN = { extends: "lighthouse:default", settings: { throttlingMethod: "devtools" } };

async function lighthouseRun(base, token, preset, path) {
  const chrome = await chromeLauncher.launch({
    chromePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    chromeFlags: ["--headless=new", "--no-sandbox", "--disable-gpu"],
  });
  try {
    const result = await lighthouse(
      `${base}${path}`,
      {
        port: chrome.port,
        output: "json",
        logLevel: "error",
        onlyCategories: ["performance", "accessibility", "best-practices"],
        extraHeaders: { Cookie: `oncenote_session=${token}` },
      },
      preset === "desktop" ? desktopConfig : preset === "mobile-as-run" ? AS_RUN : undefined,
    );
    const { categories, audits, runtimeError, environment } = result.lhr;
    // A category Lighthouse could not score is null (reported as not measured), not 0.
    const score = (name) => (categories[name]?.score == null ? null : Math.round(categories[name].score * 100));
    const failed = Object.values(audits)
      .filter((a) => a.score !== null && a.score < 1 && a.scoreDisplayMode === "binary")
      .map((a) => a.id);
    return {
      page: path,
      preset,
      performance: score("performance"),
      accessibility: score("accessibility"),
      best_practices: score("best-practices"),
      lcp_ms: audits["largest-contentful-paint"]?.numericValue,
      tbt_ms: audits["total-blocking-time"]?.numericValue,
      cls: audits["cumulative-layout-shift"]?.numericValue,
      total_bytes: audits["total-byte-weight"]?.numericValue,
      failed_audits: failed,
      runtime_error: runtimeError?.code ?? null,
      warnings: result.lhr.runWarnings ?? [],
      // Lighthouse's own measure of this host's CPU speed at the time of the run: scores
      // from runs on hosts of different speed are not comparable.
      benchmark_index: environment?.benchmarkIndex ?? null,
      // The main thread's tasks as the trace observed them (the "main-thread-tasks"
      // audit: top-level tasks over 5 ms, not simulated), each with its start after the
      // navigation started (Lighthouse's time origin): those early are the page's load and
      // hydration, those later the background work after it (the offline copy's first
      // fill). TBT counts a task as the simulation slows it down by the preset's CPU
      // slowdown (`cpu_slowdown`: 4 on mobile, 1 on desktop; the default `simulate`
      // method), so those long once multiplied are kept. Null when Lighthouse left it out.
      // With devtools throttling the tasks ran slowed already (`slowed_for_real`): counted
      // as observed (×1), and the run is a diagnostic beside the target's simulated one.
      cpu_slowdown: slowdown(result.lhr.configSettings),
      slowed_for_real: slowedForReal(result.lhr.configSettings),
      long_tasks:
        audits["main-thread-tasks"]?.details?.items
          ?.filter((task) => task.duration * (slowdown(result.lhr.configSettings) ?? 1) >= 50)
          .map((task) => ({ start_ms: task.startTime, duration_ms: task.duration })) ?? null,
    };
  } finally {
    await chrome.kill();
  }
}

// Whether Chromium slowed the CPU and the network for real while the trace was taken
// (Lighthouse's `devtools` throttling) rather than Lighthouse simulating the slowdowns.
function slowedForReal(settings) {
  return settings?.throttlingMethod === "devtools";
}

// How much TBT's count slows an observed task down: the simulated CPU slowdown, or 1 when
// the CPU was slowed for real while the trace was taken.
function slowdown(settings) {
  if (slowedForReal(settings)) return 1;
  return settings?.throttling?.cpuSlowdownMultiplier ?? null;
}

// One run of `preset` ("mobile", "mobile-as-run" or "desktop") on `path`.
export async function runLighthouse(base, token, preset, path) {
  // Lighthouse sometimes fails to record a trace in headless Chromium (NO_NAVSTART), or
  // throws (a protocol error): such a run has no scores, and is tried again (three times
  // at most). A run that still fails is reported with its reason, and the figures
  // measured before it are kept.
  let run;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      run = await lighthouseRun(base, token, preset, path);
    } catch (error) {
      run = { page: path, preset, runtime_error: "THROWN", error: String(error?.message ?? error) };
    }
    if (!run.runtime_error) break;
  }
  return run;
}
