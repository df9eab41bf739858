// oncenote's service worker. The server fills in BUILD and PRECACHE for each build.
//
// - Page loads: network first, so an online visit always gets the current page; every
//   page answered is kept (the last KEEP_PAGES of them, in their own cache), so notes seen
//   before can be opened and read offline. The kept page is served instead when there is
//   no network, when the network answers with a server error (a reverse proxy's
//   502/503/504 while the app restarts), and when the network has not answered within
//   NAVIGATION_TIMEOUT_MS. A page never kept gets a short offline page instead.
// - The wasm, JS and CSS: from the cache (their names carry content hashes, so a cached
//   file can never belong to another build), else the network, then kept.
// - Nothing else is touched: API requests, and every write, go straight to the network.
//   The page keeps unsaved notes in localStorage and sends them itself.
// - A new build has a new BUILD, so the browser installs this worker anew: it precaches
//   the new shell, takes over, and deletes every older cache.
"use strict";

const BUILD = "__BUILD_ID__";
const PRECACHE = ["__PRECACHE__"];
const CACHE = `oncenote-${BUILD}`;
// Pages seen, for reading offline: not tied to a build (a page keeps its own asset names).
const PAGES = "oncenote-pages";
const KEEP_PAGES = 100;
const NAVIGATION_TIMEOUT_MS = 3000;

self.addEventListener("install", (event) => {
  event.waitUntil(
    caches
      .open(CACHE)
      .then((cache) => cache.addAll(PRECACHE.map((url) => new Request(url, { cache: "reload" }))))
      .then(() => self.skipWaiting()),
  );
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches
      .keys()
      .then((names) =>
        Promise.all(
          names.filter((n) => n.startsWith("oncenote-") && n !== CACHE && n !== PAGES).map((n) => caches.delete(n)),
        ),
      )
      .then(() => self.clients.claim()),
  );
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  if (request.method !== "GET" || url.origin !== self.location.origin || url.pathname.startsWith("/api/")) {
    return; // not ours: the browser handles it as if there were no worker
  }
  if (request.mode === "navigate") {
    event.respondWith(pageNetworkFirst(request, url));
  } else if (PRECACHE.includes(url.pathname) || url.pathname.startsWith("/pkg/")) {
    event.respondWith(assetCacheFirst(request));
  }
});

async function pageNetworkFirst(request, url) {
  const [shell, pages] = await Promise.all([caches.open(CACHE), caches.open(PAGES)]);
  const kept = async () => (await pages.match(request)) ?? (url.pathname === "/" ? await shell.match("/") : undefined);
  const network = fetch(request).then(async (response) => {
    if (response.ok) {
      await pages.put(request, response.clone());
      if (url.pathname === "/" && url.search === "") await shell.put("/", response.clone());
      await trim(pages);
    }
    return response;
  });
  // Whichever comes first: the network's answer, or the timeout.
  const first = await Promise.race([
    network.then((response) => ({ response }), (error) => ({ error })),
    new Promise((resolve) => setTimeout(() => resolve({ timedOut: true }), NAVIGATION_TIMEOUT_MS)),
  ]);
  if (first.response && first.response.status < 500) return first.response;
  const fallback = await kept();
  if (fallback) return fallback;
  if (first.response) return first.response;
  return offlinePage();
}

// Keeps the newest KEEP_PAGES pages (a page kept again moves to the end).
async function trim(pages) {
  const keys = await pages.keys();
  await Promise.all(keys.slice(0, Math.max(0, keys.length - KEEP_PAGES)).map((key) => pages.delete(key)));
}

function offlinePage() {
  const html = `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>Offline — oncenote</title></head>
<body style="font: 16px/1.5 system-ui, sans-serif; max-width: 40rem; margin: 2rem auto; padding: 0 1rem">
<h1>You are offline</h1><p>This page was not opened before, so it is not kept on this device.
Notes you saved are safe; unsaved ones are sent when the network is back.</p>
<p><a href="/">Go to your notes</a></p></body></html>`;
  return new Response(html, { status: 200, headers: { "content-type": "text/html; charset=utf-8" } });
}

async function assetCacheFirst(request) {
  const cache = await caches.open(CACHE);
  const kept = await cache.match(request, { ignoreSearch: true });
  if (kept) return kept;
  const response = await fetch(request);
  if (response.ok) await cache.put(request, response.clone());
  return response;
}
