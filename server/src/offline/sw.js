// oncenote's service worker. The server fills in BUILD and PRECACHE for each build.
//
// - Page loads: network first, so an online visit always gets the current page; the
//   answer is kept, and with no network the kept page is served.
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
  try {
    const response = await fetch(request);
    if (response.ok && url.pathname === "/") {
      await cache.put("/", response.clone());
    }
    return response;
  } catch (offline) {
    const kept = await cache.match("/");
    if (kept) return kept;
    throw offline;
  }
}

async function assetCacheFirst(request) {
  const cache = await caches.open(CACHE);
  const kept = await cache.match(request, { ignoreSearch: true });
  if (kept) return kept;
  const response = await fetch(request);
  if (response.ok) await cache.put(request, response.clone());
  return response;
}
