// oncenote's service worker. The server fills in BUILD, PRECACHE and the names below for
// each build.
//
// - Page loads: network first, so an online visit always gets the current page; every
//   page answered is kept (the last KEEP_PAGES of them), so notes seen before can be opened
//   and read offline. Pages hold a person's notes: each page says whose it is
//   (X-Oncenote-User), pages are kept in that person's own cache, and offline only the
//   pages of the person last signed in on this browser are served. Pages marked
//   `X-Oncenote-Keep: never` (the account pages, which carry one-time links) are never
//   kept. The kept page is served instead when there is
//   no network, when the network answers with a server error (a reverse proxy's
//   502/503/504 while the app restarts), and when the network has not answered within
//   NAVIGATION_TIMEOUT_MS. A page never kept is made from the offline copy instead: the
//   worker answers with a bare shell (this build's CSS, JS and wasm, and
//   `<body data-user=<owner> data-offline-shell>`), in which the app renders the page in
//   the browser from the notes the person's offline copy (IndexedDB) holds. With nobody
//   signed in last, a short offline page.
// - A person's caches go when they leave (issue #60: a shared computer must not show the
//   last person's notes to the next): a page answer that names someone else, or nobody
//   (the sign-in page a sign-out lands on, or any page once the session has ended), deletes
//   every kept page and image that is not the named person's before that page is shown.
//   The page deletes them too, at sign-out and when it learns its session ended
//   (`browser::service_worker::forget`), so offline nothing of the person is left either.
// - Images in notes (`/files/…`): network first, so the server's owner check runs each
//   time (the browser's HTTP cache must ask again too: `no-cache`); the last KEEP_FILES
//   answered are kept in the person's own cache and shown offline to that person only.
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
const PAGES_PREFIX = "__PAGES_PREFIX__";
const KEEP_PAGES = 100;
// Images seen in notes, for showing offline, per person: fewer than pages, as one image
// can weigh as much as a thousand pages.
const FILES_PREFIX = "__FILES_PREFIX__";
const KEEP_FILES = 50;
// Who was signed in at the last page answer (a small entry of its own cache; the page
// writes NOBODY there too when its person leaves). The entry also carries when that
// answer's request was sent (ASKED_HEADER), to put page answers back in order.
const META = "__META_CACHE__";
const OWNER_ENTRY = "__OWNER_ENTRY__";
const NOBODY = "__NOBODY__";
const ASKED_HEADER = "__ASKED_HEADER__";
// Whose a page (or an image) is, and a page's mark that it is never kept.
const OWNER_HEADER = "__OWNER_HEADER__";
const KEEP_HEADER = "__KEEP_HEADER__";
const KEEP_NEVER = "__KEEP_NEVER__";
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
            .filter((n) => n.startsWith("oncenote-") && n !== CACHE && n !== META && personOf(n) === null)
            .map((n) => caches.delete(n)),
        ),
      )
      // The person signed in last keeps theirs; anyone else's caches (left by a worker
      // from before people's caches were deleted when they left) go.
      .then(() => lastOwner())
      .then((owner) => forgetAllBut(owner))
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
    event.respondWith(pageNetworkFirst(event, request));
  } else if (PRECACHE.includes(url.pathname) || url.pathname.startsWith("/pkg/")) {
    event.respondWith(assetCacheFirst(request));
  } else if (url.pathname.startsWith("/files/") && request.destination === "image" && !request.headers.has("range")) {
    // An image in a note. A request for a part of a file (a video's) is the browser's:
    // a kept whole answer cannot serve it.
    event.respondWith(imageNetworkFirst(event, request));
  }
});

async function pageNetworkFirst(event, request) {
  const asked = Date.now();
  // Kept (and its person followed) before the page is shown, so the sign-in page a
  // sign-out lands on is shown only once the person's caches are gone. A Cache Storage
  // that fails never turns the network's answer into a failure.
  const network = fetch(request).then(async (response) => {
    await keep(request, response, asked).catch((error) => console.warn("not followed", request.url, error));
    return response;
  });
  // An answer that comes after the kept page was served is still kept and followed.
  event.waitUntil(network.catch(() => {}));
  // Whichever comes first: the network's answer, or the timeout.
  const first = await Promise.race([
    network.then((response) => ({ response }), (error) => ({ error })),
    new Promise((resolve) => setTimeout(() => resolve({ timedOut: true }), NAVIGATION_TIMEOUT_MS)),
  ]);
  if (first.response && first.response.status < 500) return first.response;
  const owner = await lastOwner();
  // `caches.match` with a cache's name, never `caches.open`: opening makes the cache.
  const fallback = owner === NOBODY ? undefined : await caches.match(request, { cacheName: PAGES_PREFIX + owner });
  if (fallback) return fallback;
  if (owner !== NOBODY) return offlineShell(owner);
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
      const asked = Date.now();
      const response = await fetch("/", { cache: "reload", signal: controller.signal });
      await keep(new Request("/", { cache: "reload" }), response, asked);
    } finally {
      clearTimeout(timer);
    }
  } catch {
    // offline, refused or too slow: the home page is kept at the next visit instead
  }
}

// Keeps a page answered by the network in its owner's cache, once the owner is followed.
// Only a page (HTML) says whose it is here: a file opened on its own names its owner too,
// and is neither a page to keep nor one to wait for.
async function keep(request, response, asked) {
  const owner = response.headers.get(OWNER_HEADER);
  const isPage = (response.headers.get("content-type") ?? "").startsWith("text/html");
  if (owner === null || !isPage) return;
  const pages = await inTurn(() => follow(owner, asked));
  const keepable = response.ok && !response.redirected && response.headers.get(KEEP_HEADER) !== KEEP_NEVER;
  if (pages && keepable) await putAndTrim(pages, request, response.clone(), KEEP_PAGES);
}

// Page answers, and what they say about who is signed in, are taken one at a time, in
// the order they come (`inTurn`), and a late one is put back in the order its request
// was sent: an answer for A that was on its way while A signed out, arriving after the
// sign-in page's answer for nobody, must not bring A's pages back. So an answer older
// than the newest one followed (`asked`: when its request was sent) and naming someone
// else is not followed and not kept. Else its person is remembered, every other
// person's caches are deleted (all of them for nobody), and the person's page cache is
// returned to keep the page in (none for nobody).
async function follow(owner, asked) {
  const last = await remembered();
  if (asked < last.asked && owner !== last.owner) return null;
  if (asked >= last.asked) await remember(owner, asked);
  await forgetAllBut(owner);
  return owner === NOBODY ? null : caches.open(PAGES_PREFIX + owner);
}

let turns = Promise.resolve();

function inTurn(step) {
  const turn = turns.then(step);
  turns = turn.catch(() => {});
  return turn;
}

// Deletes every person's kept pages and images but `owner`'s (everyone's for NOBODY).
async function forgetAllBut(owner) {
  const names = await caches.keys();
  await Promise.all(
    names.filter((n) => personOf(n) !== null && personOf(n) !== owner).map((n) => caches.delete(n)),
  );
}

// Whose kept pages or images a cache holds; null for a cache that is no person's.
function personOf(name) {
  for (const prefix of [PAGES_PREFIX, FILES_PREFIX]) {
    if (name.startsWith(prefix)) return name.slice(prefix.length);
  }
  return null;
}

async function remember(owner, asked) {
  const entry = new Response(owner, { headers: { [ASKED_HEADER]: String(asked) } });
  await (await caches.open(META)).put(OWNER_ENTRY, entry);
}

// The person of the last page answer followed, and when its request was sent (0 when the
// page wrote the entry, or an older worker did).
async function remembered() {
  const kept = await caches.match(OWNER_ENTRY, { cacheName: META });
  if (!kept) return { owner: NOBODY, asked: 0 };
  return { owner: await kept.text(), asked: Number(kept.headers.get(ASKED_HEADER) ?? 0) || 0 };
}

async function lastOwner() {
  return (await remembered()).owner;
}

// Best effort: a page or an image not kept is made from the offline copy, or not shown,
// offline; it never turns an answer the network gave into a failure.
async function putAndTrim(cache, request, response, most) {
  try {
    await cache.put(request, response);
    // The newest `most` entries stay (one kept again moves to the end).
    const keys = await cache.keys();
    await Promise.all(keys.slice(0, Math.max(0, keys.length - most)).map((key) => cache.delete(key)));
  } catch (error) {
    console.warn("not kept for offline", request.url, error);
  }
}

// An image in a note: the network's answer (the owner check runs every time), kept for
// its owner if they are the person signed in last; that kept answer when the network
// fails, to the person signed in last only.
async function imageNetworkFirst(event, request) {
  let response;
  try {
    response = await fetch(request);
  } catch {
    return (await keptImage(request)) ?? Response.error();
  }
  if (response.status >= 500) return (await keptImage(request)) ?? response;
  if (response.status === 200) event.waitUntil(keepImage(request, response.clone()));
  return response;
}

async function keepImage(request, response) {
  const owner = response.headers.get(OWNER_HEADER);
  // The cache is opened in turn with page answers, so one deleted for its person's leaving
  // is never made again by an image that was on its way; its bytes go in after, out of
  // turn (an image can take long to arrive, and a page must not wait for it).
  const files = await inTurn(async () =>
    owner !== null && owner !== NOBODY && owner === (await lastOwner()) ? caches.open(FILES_PREFIX + owner) : null,
  );
  if (files) await putAndTrim(files, request, response, KEEP_FILES);
}

async function keptImage(request) {
  const owner = await lastOwner();
  return owner === NOBODY ? undefined : caches.match(request, { cacheName: FILES_PREFIX + owner });
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
