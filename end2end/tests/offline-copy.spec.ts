import { randomUUID } from "node:crypto";
import { test, expect, createNote, noteOnServer, NotesPage, secondPerson } from "./fixtures";
import type { BrowserContext, Page } from "@playwright/test";
import { E2E_USER } from "./global-setup";
import { OwnServer } from "./server";

// The offline copy (issue 17): after one online visit every note of the person is kept in
// the browser (IndexedDB), so offline every note opens — even one never opened — the
// search finds what it finds online (accents, CJK), and an offline edit of such a note is
// saved once when the network is back. Another person on the same browser sees none of it.
//
// Offline here is the browser offline *and* the server gone (a server of the test's own):
// the service worker's own fetches are not cut by `setOffline` alone, and it must find no
// network to answer from the copy (as in offline.spec.ts).

/** The ids the person's offline copy holds (IndexedDB `oncenote-copy-<user id>`). */
async function keptIds(page: Page): Promise<string[]> {
  return page.evaluate(async () => {
    const name = `oncenote-copy-${document.body.dataset.user}`;
    if (!(await indexedDB.databases()).some((d) => d.name === name)) return [];
    const db = await new Promise<IDBDatabase>((resolve, reject) => {
      const open = indexedDB.open(name);
      open.onsuccess = () => resolve(open.result);
      open.onerror = () => reject(open.error);
    });
    try {
      if (!db.objectStoreNames.contains("notes")) return [];
      const keys = await new Promise<IDBValidKey[]>((resolve, reject) => {
        const request = db.transaction("notes").objectStore("notes").getAllKeys();
        request.onsuccess = () => resolve(request.result);
        request.onerror = () => reject(request.error);
      });
      return keys.map(String);
    } finally {
      db.close();
    }
  });
}

async function copyNames(page: Page): Promise<string[]> {
  return page.evaluate(async () =>
    (await indexedDB.databases()).map((d) => d.name ?? "").filter((n) => n.startsWith("oncenote-copy-")),
  );
}

/** Cuts the browser and the server off: only the service worker and the copy are left. */
async function goOffline(context: BrowserContext, server: OwnServer) {
  await context.setOffline(true);
  await server.stop();
}

async function goOnline(context: BrowserContext, server: OwnServer) {
  await server.start();
  await context.setOffline(false);
}

test("after one online visit, a note never opened opens, is found and is edited offline, and the edit is saved once", async ({
  page,
  context,
  notes,
  unique,
}) => {
  const server = new OwnServer(3291);
  await server.start();
  await server.signIn(context);
  try {
    const api = context.request;
    const accented = await createNote(api, unique("Crème brûlée"), "the café on the corner #dessert\n\nwith a **bold** claim", server.url);
    const cjk = await createNote(api, unique("旅行"), "東京都庁に行きました", server.url);

    await notes.goto(server.url);
    await notes.offlineReady();
    await expect.poll(() => keptIds(page), { timeout: 30_000 }).toEqual(expect.arrayContaining([accented.id, cjk.id]));

    await goOffline(context, server);
    // Never opened: the service worker has no page of it, so the app renders it from the copy.
    const shell = await page.goto(`${server.url}/notes/${accented.id}`);
    await notes.hydrated();
    await expect(page.locator("body")).toHaveAttribute("data-offline-shell", "");
    // The shell the worker writes is held to the server's page policy: its one inline script
    // runs by its nonce, and nothing else inline would.
    const policy = shell?.headers()["content-security-policy"] ?? "";
    expect(policy).toMatch(/script-src 'self' 'nonce-[A-Za-z0-9+/=]{24}' 'wasm-unsafe-eval'/);
    expect(policy).not.toContain("unsafe-inline");
    expect(shell?.headers()["x-content-type-options"]).toBe("nosniff");
    await expect(page.locator("#note-title")).toHaveText(accented.title);
    await expect(page.getByTestId("note-body").locator("strong")).toHaveText("bold");
    await expect(page.getByRole("link", { name: E2E_USER.username, exact: true })).toBeVisible();

    // Search over the kept notes: accents folded both ways, CJK inside a sentence.
    const results = page.getByTestId("search-results");
    await page.goto(`${server.url}/search?q=${encodeURIComponent("creme CAFE")}`);
    await notes.hydrated();
    const hit = results.locator("li", { hasText: accented.title });
    await expect(hit).toHaveCount(1);
    await expect(hit.locator("mark").first()).toHaveText("café");
    await page.goto(`${server.url}/search?q=${encodeURIComponent("都庁")}`);
    await notes.hydrated();
    await expect(results.locator("li", { hasText: cjk.title })).toHaveCount(1);
    await expect(results.locator("li", { hasText: accented.title })).toHaveCount(0);

    // The tags, a tag's page and the list work too.
    await page.goto(`${server.url}/tags`);
    await notes.hydrated();
    await expect(page.getByRole("link", { name: "dessert" }).first()).toBeVisible();
    await page.goto(`${server.url}/tags/dessert`);
    await notes.hydrated();
    await expect(notes.savedTitled(accented.title)).toHaveCount(1);
    await expect(notes.savedTitled(cjk.title)).toHaveCount(0);
    await page.goto(`${server.url}/trash`);
    await notes.hydrated();
    await expect(page.getByText(accented.title)).toHaveCount(0);

    // Edit the never-opened note offline: queued, then saved once when the network is back.
    await page.goto(`${server.url}/notes/${accented.id}`);
    await notes.hydrated();
    await page.getByRole("button", { name: "Edit" }).click();
    await page.locator("#edit-body").fill("edited offline, never opened online");
    await page.locator("form.edit").getByRole("button", { name: "Save" }).click();
    await expect(page.getByTestId("pending-for-note").locator("li")).toHaveCount(1);

    await goOnline(context, server);
    await expect
      .poll(async () => (await noteOnServer(api, accented.id, server.url))?.version, { timeout: 30_000 })
      .toBe(2);
    const saved = await noteOnServer(api, accented.id, server.url);
    expect(saved?.body).toBe("edited offline, never opened online");
    const revisions = (await (await api.get(`${server.url}/api/notes/${accented.id}/revisions`)).json()).revisions as Array<{ kind: string }>;
    expect(revisions.map((r) => r.kind)).toEqual(["create", "edit"]);
    // Sent once: a while later the note is still at version 2.
    await page.waitForTimeout(2_000);
    expect((await noteOnServer(api, accented.id, server.url))?.version).toBe(2);
  } finally {
    await server.stop();
  }
});

test("another person signing in on the same browser sees none of the first person's copy", async ({
  page,
  context,
  notes,
  playwright,
  unique,
}) => {
  const server = new OwnServer(3292);
  await server.start();
  await server.signIn(context);
  try {
    const api = context.request;
    const secret = await createNote(api, unique("Ada's secret"), "zanzibar plans", server.url);
    const bea = await secondPerson(api, playwright, server);

    await notes.goto(server.url);
    await notes.offlineReady();
    await expect.poll(() => keptIds(page), { timeout: 30_000 }).toContain(secret.id);
    const adaCopy = `oncenote-copy-${await page.evaluate(() => document.body.dataset.user)}`;

    // Sign-out with nothing unsaved deletes the copy.
    await page.getByRole("button", { name: "Sign out" }).click();
    await page.waitForURL((url) => url.pathname === "/sign-in");
    await expect.poll(() => copyNames(page)).not.toContain(adaCopy);

    await page.getByLabel("Username").fill(bea.username);
    await page.getByLabel("Password").fill(bea.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL((url) => !url.pathname.startsWith("/sign-in"));
    await notes.hydrated();
    const beaId = await page.evaluate(() => document.body.dataset.user ?? "");
    await expect.poll(() => copyNames(page), { timeout: 30_000 }).toEqual([`oncenote-copy-${beaId}`]);
    expect(await keptIds(page)).not.toContain(secret.id);

    await goOffline(context, server);
    await page.goto(`${server.url}/notes/${secret.id}`);
    await notes.hydrated();
    await expect(page.locator("body")).toHaveAttribute("data-user", beaId);
    await expect(page.getByText(secret.title)).toHaveCount(0);
    await page.goto(`${server.url}/search?q=zanzibar`);
    await notes.hydrated();
    await expect(page.getByText("No notes match")).toBeVisible();
    await expect(page.getByText(secret.title)).toHaveCount(0);
    await context.setOffline(false);
  } finally {
    await server.stop();
  }
});

test("a note written on another device while the page is open enters the copy at once, without waiting for the next sync", async ({
  page,
  context,
  notes,
  unique,
}) => {
  // A note of its own, so the first sync has something to keep whatever ran before.
  await createNote(context.request, unique("Kept before"));
  await notes.goto();
  await expect.poll(() => keptIds(page), { timeout: 30_000 }).not.toHaveLength(0);
  // The periodic sync is a minute away: the live page's read of the feed brings it.
  const elsewhere = await createNote(context.request, unique("Written elsewhere"), "from the phone");
  await expect.poll(() => keptIds(page), { timeout: 10_000 }).toContain(elsewhere.id);
});

test("a browser that cannot keep the copy says so and still saves every note", async ({ browser, baseURL, unique }) => {
  // Signed out at first (not the shared session: signing in over it would end it).
  const context = await browser.newContext({ baseURL, storageState: { cookies: [], origins: [] } });
  await context.addInitScript(() => {
    // As in a private window that keeps no IndexedDB.
    Object.defineProperty(window, "indexedDB", { value: undefined });
  });
  expect((await context.request.post("/api/session", { data: E2E_USER })).status()).toBe(204);
  const page = await context.newPage();
  const notes = new NotesPage(page);
  await notes.goto();
  await expect(page.getByTestId("no-offline-copy")).toContainText("cannot keep your notes offline");
  const title = unique("Saved without a copy");
  await notes.save(title);
  await expect(notes.savedTitled(title)).toHaveCount(1);
  await context.close();
});

test("while a search from the box waits for its answer, the offline copy neither reads nor keeps a page of the feed, and it finishes after", async ({
  page,
  context,
  notes,
}) => {
  const server = new OwnServer(3293);
  await server.start();
  await server.signIn(context);
  try {
    // A first copy of many pages of the feed (the copy reads 50 changes a page).
    const made: string[] = [];
    for (let batch = 0; batch < 15; batch++) {
      const some = await Promise.all(
        Array.from({ length: 20 }, (_, n) => createNote(context.request, `Pelican ${batch}-${n}`, "a pelican on the pier", server.url)),
      );
      made.push(...some.map((note) => note.id));
    }
    const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    // The copy's first read is held until the search has been sent, and answered while the
    // search still waits; each later read is answered 150 ms late. The search's answer is
    // held 1.5 s: long enough for several reads, were any sent.
    let searchSeen: () => void = () => {};
    const searchSent = new Promise<void>((resolve) => (searchSeen = resolve));
    const copyReads: number[] = [];
    await page.route("**/api/changes**", async (route) => {
      const fromTheCopy = new URL(route.request().url()).searchParams.get("limit") === "50";
      if (fromTheCopy) copyReads.push(Date.now());
      if (fromTheCopy && copyReads.length === 1) {
        await searchSent;
        await sleep(200);
      } else {
        await sleep(150);
      }
      await route.continue();
    });
    let sentAt = 0;
    let answeredAt = 0;
    let keptBeforeTheAnswer = -1;
    await page.route("**/api/search**", async (route) => {
      sentAt = Date.now();
      searchSeen();
      const response = await route.fetch();
      await sleep(1_500);
      // The first read's page has been in the browser for over a second by now.
      keptBeforeTheAnswer = (await keptIds(page)).length;
      answeredAt = Date.now();
      await route.fulfill({ response });
    });

    await notes.goto(server.url);
    await expect.poll(() => copyReads.length, { timeout: 30_000 }).toBe(1);
    const box = page.getByRole("searchbox", { name: "Search notes" });
    await box.fill("pelican");
    await box.press("Enter");
    await expect(page.getByTestId("search-results").locator("li").first()).toBeVisible({ timeout: 10_000 });
    expect(answeredAt).toBeGreaterThan(0);

    expect(copyReads.filter((at) => at >= sentAt && at < answeredAt), "the copy's reads sent while the search waited").toEqual([]);
    expect(keptBeforeTheAnswer, "notes the copy kept while the search waited").toBe(0);
    // The copy goes on after the answer, and finishes.
    await expect.poll(async () => (await keptIds(page)).length, { timeout: 30_000 }).toBe(made.length);
    expect(new Set(await keptIds(page))).toEqual(new Set(made));
  } finally {
    await server.stop();
  }
});

test("a note deleted for good while a page of the feed that still has it waits to be kept stays out of the copy", async ({
  page,
  context,
}) => {
  const server = new OwnServer(3294);
  await server.start();
  await server.signIn(context);
  try {
    const purged = await createNote(context.request, "Purged while the copy was reading", "gone for good", server.url);
    const stays = await createNote(context.request, "Stays in the copy", "still here", server.url);
    // The copy's first read of the feed is answered by the server at once (both notes in
    // it) and held in the browser until the live page has applied the purge.
    let readIsIn: () => void = () => {};
    const firstReadAnswered = new Promise<void>((resolve) => (readIsIn = resolve));
    let letItThrough: () => void = () => {};
    const released = new Promise<void>((resolve) => (letItThrough = resolve));
    let copyReads = 0;
    await page.route("**/api/changes**", async (route) => {
      const fromTheCopy = new URL(route.request().url()).searchParams.get("limit") === "50";
      if (!fromTheCopy || ++copyReads > 1) return route.continue();
      const response = await route.fetch();
      readIsIn();
      await released;
      await route.fulfill({ response });
    });

    await page.goto(`${server.url}/`);
    await firstReadAnswered;
    // Moved to the trash, then deleted for good on another device: the live page reads
    // both from the feed and keeps each in the copy at once.
    const key = () => ({ "idempotency-key": randomUUID() });
    expect((await context.request.delete(`${server.url}/api/notes/${purged.id}`, { headers: key() })).status()).toBe(200);
    await expect.poll(() => keptIds(page), { timeout: 15_000 }).toContain(purged.id);
    expect((await context.request.delete(`${server.url}/api/notes/${purged.id}?permanent=true`, { headers: key() })).status()).toBe(204);
    await expect.poll(() => keptIds(page), { timeout: 15_000 }).not.toContain(purged.id);
    letItThrough();

    // The held page is kept (the other note arrives with it), without the purged note.
    await expect.poll(() => keptIds(page), { timeout: 15_000 }).toContain(stays.id);
    expect(await keptIds(page), "the purged note, brought back by the page read before its purge").not.toContain(purged.id);
  } finally {
    await server.stop();
  }
});

// The refused write in the middle of the first page (its slices are awaited one by one)
// and in its last slice (not awaited: only the transaction's end tells).
for (const [refused, port] of [
  [15, 3303],
  [45, 3304],
] as const) {
  test(`a page of the feed the copy could not keep is read again at the next sync, and the copy ends with every note (write ${refused} refused)`, async ({
    page,
    context,
  }) => {
    const server = new OwnServer(port);
    await server.start();
    await server.signIn(context);
    try {
      const ids: string[] = [];
      for (let n = 0; n < 60; n++) ids.push((await createNote(context.request, `Kept after a refusal ${n}`, "body", server.url)).id);
      // IndexedDB itself refuses one write of the first page of the feed (a request that
      // fails, as a browser out of room fails one: here a second `add` of the same key), so
      // that page's transaction aborts. Its notes must be read again, never skipped.
      await page.addInitScript((refused) => {
        const put = IDBObjectStore.prototype.put;
        let seen = 0;
        IDBObjectStore.prototype.put = function (this: IDBObjectStore, value: unknown, key?: IDBValidKey) {
          if (this.name === "notes" && ++seen === refused) {
            (window as unknown as { refused: boolean }).refused = true;
            this.add(value, key);
            return this.add(value, key);
          }
          return put.call(this, value, key);
        };
      }, refused);
      const notes = new NotesPage(page);
      await notes.goto(server.url);
      await page.waitForFunction(() => (window as unknown as { refused?: boolean }).refused === true);
      // The sync that met the refusal has ended (its Web Lock is free); the next one (the
      // network coming back starts one) reads from where the copy is.
      await expect
        .poll(() =>
          page.evaluate(async () =>
            ((await navigator.locks.query()).held ?? []).some((lock) => lock.name?.startsWith("oncenote-intent-copy-")),
          ),
        )
        .toBe(false);
      await context.setOffline(true);
      await context.setOffline(false);
      await expect.poll(async () => (await keptIds(page)).sort(), { timeout: 30_000 }).toEqual([...ids].sort());
    } finally {
      await server.stop();
    }
  });
}
