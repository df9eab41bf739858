// oncenote's service worker. The server fills in BUILD and PRECACHE for each build.
//
// - Page loads: network first, so an online visit always gets the current page; the
//   answer is kept. The kept page is served instead when there is no network, when the
//   network answers with a server error (a reverse proxy's 502/503/504 while the app
//   restarts), and when the network has not answered within NAVIGATION_TIMEOUT_MS.
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
        Promise.all(names.filter((n) => n.startsWith("oncenote-") && n !== CACHE).map((n) => caches.delete(n))),
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
  const cache = await caches.open(CACHE);
  const kept = () => cache.match("/");
  const network = fetch(request).then(async (response) => {
    if (response.ok && url.pathname === "/") {
      await cache.put("/", response.clone());
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
  // Nothing kept: the network's own answer (or error) is all there is.
  if (first.response) return first.response;
  return network;
}

async function assetCacheFirst(request) {
  const cache = await caches.open(CACHE);
  const kept = await cache.match(request, { ignoreSearch: true });
  if (kept) return kept;
  const response = await fetch(request);
  if (response.ok) await cache.put(request, response.clone());
  return response;
}
