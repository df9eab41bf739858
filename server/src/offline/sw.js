// oncenote's service worker. The server fills in BUILD and PRECACHE for each build.
//
// - Page loads: network first, so an online visit always gets the current page; every
//   page answered is kept (the last KEEP_PAGES of them), so notes seen before can be opened
//   and read offline. Pages hold a person's notes: each page says whose it is
//   (X-Oncenote-User), pages are kept in that person's own cache, and offline only the
//   pages of the person last signed in on this browser are served — after a sign-out,
//   none. Pages marked `Cache-Control: no-store` (the account pages, which carry one-time
//   links) are never kept. The kept page is served instead when there is
//   no network, when the network answers with a server error (a reverse proxy's
//   502/503/504 while the app restarts), and when the network has not answered within
//   NAVIGATION_TIMEOUT_MS. A page never kept is made from the offline copy instead: the
//   worker answers with a bare shell (this build's CSS, JS and wasm, and
//   `<body data-user=<owner> data-offline-shell>`), in which the app renders the page in
//   the browser from the notes the person's offline copy (IndexedDB) holds. With nobody
//   signed in last, a short offline page.
// - The wasm, JS and CSS: from the cache (their names carry content hashes, so a cached
//   file can never belong to another build), else the network, then kept.
// - Nothing else is touched: API requests, and every write, go straight to the network
//   (past this worker entirely where the browser has static routes: STRAIGHT_TO_THE_NETWORK).
//   The page keeps unsaved notes in localStorage and sends them itself.
// - A new build has a new BUILD, so the browser installs this worker anew: it precaches
//   the new shell, takes over, and deletes every older cache.
"use strict";

const BUILD = "__BUILD_ID__";
const PRECACHE = ["__PRECACHE__"];
// The server's page policy with `__NONCE__` where each page's own nonce goes: the shell
// this worker writes is held to the same Content-Security-Policy as a page the server
// renders (its one inline script carries a fresh nonce; nothing else inline runs).
const PAGE_POLICY = "__PAGE_POLICY__";
// The "you are offline" page runs no script at all; its style is inline.
const OFFLINE_PAGE_POLICY =
  "default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

function nonce() {
  const bytes = crypto.getRandomValues(new Uint8Array(18));
  return btoa(String.fromCharCode(...bytes));
}

function html(body, policy) {
  return new Response(body, {
    status: 200,
    headers: {
      "content-type": "text/html; charset=utf-8",
      "content-security-policy": policy,
      "x-content-type-options": "nosniff",
      "referrer-policy": "same-origin",
    },
  });
}
const CACHE = `oncenote-${BUILD}`;
// Pages seen, for reading offline, per person: not tied to a build (a page keeps its own
// asset names).
const PAGES_PREFIX = "oncenote-pages-";
const KEEP_PAGES = 100;
// Who was signed in at the last page load (a small entry of its own cache).
const META = "oncenote-meta";
const NAVIGATION_TIMEOUT_MS = 3000;

// What the fetch handler below leaves to the browser anyway, said to the browser before
// any request (the static routing API, Chromium 123 and later): a page's API requests
// (its saves, searches, reads of the change feed and its live stream) go to the network
// without waking this worker or waiting for its thread, which on a busy device costs
// each request a hop through the worker. Elsewhere `addRoutes` is missing and the
// handler's early return does the same, one hop later. A browser that refuses the rule
// still installs the worker (and says so in the worker's console). Unlike the handler, the
// route does not wait for a new worker's activation: after an update the API's requests
// are not held (nothing in the activation's order rests on them; sign-in and sign-out are
// form posts, outside /api/).
const STRAIGHT_TO_THE_NETWORK = [{ condition: { urlPattern: { pathname: "/api/*" } }, source: "network" }];

self.addEventListener("install", (event) => {
  const routes =
    typeof event.addRoutes === "function"
      ? event.addRoutes(STRAIGHT_TO_THE_NETWORK).catch((error) => console.warn("static routes refused", error))
      : Promise.resolve();
  event.waitUntil(
    routes
      .then(() => caches.open(CACHE))
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
          names
            .filter((n) => n.startsWith("oncenote-") && n !== CACHE && n !== META && !n.startsWith(PAGES_PREFIX))
            .map((n) => caches.delete(n)),
        ),
      )
      .then(() => keepHomePage())
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
    event.respondWith(pageNetworkFirst(request));
  } else if (PRECACHE.includes(url.pathname) || url.pathname.startsWith("/pkg/")) {
    event.respondWith(assetCacheFirst(request));
  }
});

async function pageNetworkFirst(request) {
  const network = fetch(request).then(async (response) => {
    await keep(request, response);
    return response;
  });
  // Whichever comes first: the network's answer, or the timeout.
  const first = await Promise.race([
    network.then((response) => ({ response }), (error) => ({ error })),
    new Promise((resolve) => setTimeout(() => resolve({ timedOut: true }), NAVIGATION_TIMEOUT_MS)),
  ]);
  if (first.response && first.response.status < 500) return first.response;
  const owner = await lastOwner();
  const fallback = owner === "-" ? undefined : await (await caches.open(PAGES_PREFIX + owner)).match(request);
  if (fallback) return fallback;
  if (owner !== "-") return offlineShell(owner);
  if (first.response) return first.response;
  return offlinePage();
}

// The page that installed this worker was loaded before the worker ran, so it was never
// kept: keep the home page now, as the person signed in sees it (this fetch carries their
// session cookie). Best effort: an activation never fails over it.
//
// It runs while the worker activates, not during the install: the browser holds every
// navigation (each hop of a redirect included) while its worker activates, so a sign-in
// sent while the worker installed cannot slip past. Either its redirect to "/" left before
// the activation, and its cookie was set before this fetch; or it waited, and this worker
// kept it. Fetched during the install, before the sign-in's cookie, with the redirect to
// "/" leaving before the worker was active, the home page was kept by neither. The same
// hold keeps the order of what is remembered: no navigation's answer (a sign-out's) is
// kept before this one, older, is. The fetch gives up after NAVIGATION_TIMEOUT_MS, so
// what the hold delays (navigations, and after an update the open pages' requests other
// than the API's, which the static route sends on without the worker) waits that long at
// most.
async function keepHomePage() {
  try {
    // `AbortSignal.timeout` is missing before Safari 16: a controller and a timer there.
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), NAVIGATION_TIMEOUT_MS);
    try {
      const response = await fetch("/", { cache: "reload", signal: controller.signal });
      await keep(new Request("/", { cache: "reload" }), response);
    } finally {
      clearTimeout(timer);
    }
  } catch {
    // offline, refused or too slow: the home page is kept at the next visit instead
  }
}

// Keeps a page answered by the network in its owner's cache.
async function keep(request, response) {
  const owner = response.headers.get("x-oncenote-user");
  if (owner === null) return;
  await rememberOwner(owner);
  const noStore = (response.headers.get("cache-control") ?? "").includes("no-store");
  if (response.ok && !response.redirected && !noStore && owner !== "-") {
    const pages = await caches.open(PAGES_PREFIX + owner);
    await pages.put(request, response.clone());
    await trim(pages);
  }
}

async function rememberOwner(owner) {
  await (await caches.open(META)).put("/owner", new Response(owner));
}

async function lastOwner() {
  const kept = await (await caches.open(META)).match("/owner");
  return kept ? kept.text() : "-";
}

// Keeps the newest KEEP_PAGES pages (a page kept again moves to the end).
async function trim(pages) {
  const keys = await pages.keys();
  await Promise.all(keys.slice(0, Math.max(0, keys.length - KEEP_PAGES)).map((key) => pages.delete(key)));
}

// The app's shell for a page never kept: the app sees `data-offline-shell` and renders the
// page from `owner`'s offline copy instead of hydrating server HTML. The owner is the
// person last signed in on this browser, so no one else's copy is ever opened.
function offlineShell(owner) {
  const once = nonce();
  const asset = (ext) => PRECACHE.find((path) => path.startsWith("/pkg/") && path.endsWith(ext));
  const attr = (text) => String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
  const start = `import(${JSON.stringify(asset(".js"))}).then((app) =>
  app.default({ module_or_path: ${JSON.stringify(asset(".wasm"))} }).then(() => app.hydrate()));`;
  const page = `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>oncenote</title>
<link rel="icon" href="/favicon.svg" type="image/svg+xml"><link rel="manifest" href="/manifest.webmanifest">
<link rel="stylesheet" href="${attr(asset(".css"))}"><script type="module" nonce="${once}">${start}</script></head>
<body data-user="${attr(owner)}" data-offline-shell><p>Opening your notes offline…</p></body></html>`;
  return html(page, PAGE_POLICY.replace("__NONCE__", once));
}

function offlinePage() {
  const page = `<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>Offline — oncenote</title></head>
<body style="font: 16px/1.5 system-ui, sans-serif; max-width: 40rem; margin: 2rem auto; padding: 0 1rem">
<h1>You are offline</h1><p>This page was not opened before (while signed in), so it is not kept on this device.
Notes you saved are safe; unsaved ones are sent when the network is back.</p>
<p><a href="/">Go to your notes</a></p></body></html>`;
  return html(page, OFFLINE_PAGE_POLICY);
}

async function assetCacheFirst(request) {
  const cache = await caches.open(CACHE);
  const kept = await cache.match(request, { ignoreSearch: true });
  if (kept) return kept;
  const response = await fetch(request);
  if (response.ok) await cache.put(request, response.clone());
  return response;
}
