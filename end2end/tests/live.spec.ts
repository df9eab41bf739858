import { randomUUID } from "node:crypto";
import { test, expect, createNote, noteOnServer, notesTitled, offlineCopyCaughtUp, NotesPage, type Note } from "./fixtures";
import type { APIRequestContext, Browser, BrowserContext, Page, PlaywrightWorkerArgs } from "@playwright/test";
import { E2E_USER } from "./global-setup";

// Issue 17: a page follows the writes of the person's other devices without a reload,
// within 3 s (PROTOCOL.md, "Changes and live updates"). Device A is the test's own page
// (and its context's API, as another device's app would write); device B is a second
// browser context signed in as the same person; a third context is someone else.

/** How soon another device's write must show. */
const LIVE = { timeout: 3_000 };

/** A second device: a browser context of its own, signed in as the test account. */
async function device(browser: Browser, path: string, { ownSession = false } = {}): Promise<{ context: BrowserContext; page: Page; notes: NotesPage }> {
  const context = await browser.newContext();
  if (ownSession) {
    await context.clearCookies();
    expect((await context.request.post("/api/session", { data: E2E_USER })).status()).toBe(204);
  }
  const page = await context.newPage();
  const notes = new NotesPage(page);
  await page.goto(path);
  await notes.hydrated();
  // Set once: a reload would drop it, so its presence at the end proves there was none.
  await page.evaluate(() => ((window as unknown as { notReloaded: boolean }).notReloaded = true));
  return { context, page, notes };
}

async function wasNotReloaded(page: Page) {
  expect(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded)).toBe(true);
}

/** Someone else: a second account (invited by the test account), signed in in a context of its own. */
async function someoneElse(browser: Browser, request: APIRequestContext, playwright: PlaywrightWorkerArgs["playwright"], baseURL: string): Promise<BrowserContext> {
  const invitation = await request.post("/api/invitations");
  expect(invitation.status()).toBe(201);
  const { token } = (await invitation.json()) as { token: string };
  const cy = { username: `cy-${Date.now()}`, password: "cy's long password here" };
  const api = await playwright.request.newContext({ baseURL });
  expect((await api.post(`/api/invitations/${token}/accept`, { data: cy })).status()).toBe(201);
  await api.dispose();
  const context = await browser.newContext();
  await context.clearCookies();
  expect((await context.request.post("/api/session", { data: cy })).status()).toBe(204);
  return context;
}

async function edit(request: APIRequestContext, note: Note, change: { title?: string; body?: string }): Promise<Note> {
  const response = await request.patch(`/api/notes/${note.id}`, {
    headers: { "idempotency-key": randomUUID() },
    data: { title: change.title ?? note.title, body: change.body ?? note.body, base_version: note.version, written_at: new Date().toISOString() },
  });
  expect(response.status()).toBe(200);
  return (await noteOnServer(request, note.id))!;
}

async function pin(request: APIRequestContext, note: Note) {
  const response = await request.patch(`/api/notes/${note.id}`, {
    headers: { "idempotency-key": randomUUID() },
    data: { pinned: true, written_at: new Date().toISOString() },
  });
  expect(response.status()).toBe(200);
}

async function trash(request: APIRequestContext, note: Note) {
  const response = await request.delete(`/api/notes/${note.id}`, { headers: { "idempotency-key": randomUUID() } });
  expect(response.status()).toBe(200);
}

async function restore(request: APIRequestContext, note: Note) {
  const response = await request.post(`/api/notes/${note.id}/restore`, { headers: { "idempotency-key": randomUUID() } });
  expect(response.status()).toBe(200);
}

test("another device's create, edit, pin and trash reach the home list within 3 s without a reload, and nobody else's", async ({
  browser,
  page,
  notes,
  request,
  playwright,
  baseURL,
  unique,
}) => {
  const older = await createNote(request, unique("Older, pinned elsewhere"));
  const b = await device(browser, "/");
  const cy = await someoneElse(browser, request, playwright, baseURL!);
  const cyPage = await cy.newPage();
  const cyFeed: string[] = [];
  cyPage.on("response", async (response) => {
    if (new URL(response.url()).pathname.startsWith("/api/changes")) cyFeed.push(await response.text().catch(() => ""));
  });
  await cyPage.goto("/");
  await new NotesPage(cyPage).hydrated();

  // A makes a note in its own page.
  await notes.goto();
  const title = unique("Made on A");
  await notes.save(title, "first words");
  await expect(notes.savedTitled(title)).toHaveCount(1);
  await expect(b.notes.savedTitled(title)).toHaveCount(1, LIVE);

  // An edit (a new title) replaces it.
  const [made] = await notesTitled(request, title);
  const renamed = unique("Renamed on A");
  await edit(page.context().request, made, { title: renamed, body: "second words" });
  await expect(b.notes.savedTitled(renamed)).toHaveCount(1, LIVE);
  await expect(b.notes.savedTitled(renamed)).toContainText("second words");
  await expect(b.notes.savedTitled(title)).toHaveCount(0);

  // A pin puts an older note first.
  await pin(page.context().request, older);
  await expect(b.notes.saved.first()).toContainText(older.title, LIVE);
  await expect(b.notes.savedTitled(older.title).locator(".pin-mark")).toBeVisible();

  // A move to the trash takes it out.
  const current = (await notesTitled(request, renamed))[0];
  await trash(page.context().request, current);
  await expect(b.notes.savedTitled(renamed)).toHaveCount(0, LIVE);
  await wasNotReloaded(b.page);

  // Someone else saw none of it: not on their page, not in what their page read.
  await cyPage.waitForTimeout(500);
  await expect(cyPage.getByText(renamed)).toHaveCount(0);
  await expect(cyPage.getByText(title)).toHaveCount(0);
  await expect(cyPage.getByText(older.title)).toHaveCount(0);
  for (const body of cyFeed) {
    expect(body).not.toContain(current.id);
    expect(body).not.toContain(older.id);
  }
  await b.context.close();
  await cy.close();
});

test("the trash page shows a note moved there on another device, and loses it when it is restored there", async ({ browser, page, request, unique }) => {
  const note = await createNote(request, unique("Trashed on A"));
  const b = await device(browser, "/trash");
  await trash(page.context().request, note);
  const item = b.page.getByTestId("trash-notes").locator("li", { hasText: note.title });
  await expect(item).toHaveCount(1, LIVE);

  await restore(page.context().request, note);
  await expect(item).toHaveCount(0, LIVE);
  await wasNotReloaded(b.page);
  await b.context.close();
});

test("the tags page counts a tag written on another device", async ({ browser, page, unique }) => {
  const tag = `live${Date.now()}`;
  const b = await device(browser, "/tags");
  await createNote(page.context().request, unique("Tagged on A"), `about #${tag}`);
  await expect(b.page.getByTestId("tags").locator("li", { hasText: `#${tag}` })).toContainText("1 note", LIVE);
  await createNote(page.context().request, unique("Tagged on A again"), `more #${tag}`);
  await expect(b.page.getByTestId("tags").locator("li", { hasText: `#${tag}` })).toContainText("2 notes", LIVE);
  await wasNotReloaded(b.page);
  await b.context.close();
});

test("an open note shows another device's edit at once while its editor is closed", async ({ browser, page, request, unique }) => {
  const note = await createNote(request, unique("Open on B"), "as it was");
  const b = await device(browser, `/notes/${note.id}`);
  await expect(b.page.getByTestId("note-body")).toHaveText("as it was");

  const renamed = unique("Retitled on A");
  await edit(page.context().request, note, { title: renamed, body: "as A left it" });
  await expect(b.page.getByTestId("note-body")).toHaveText("as A left it", LIVE);
  await expect(b.page.locator("#note-title")).toContainText(renamed);
  await expect(b.page.getByTestId("changed-elsewhere")).toHaveCount(0);
  await wasNotReloaded(b.page);
  await b.context.close();
});

test("an open note being edited keeps what is typed, says it changed elsewhere, and Save stores a merge of both", async ({ browser, page, request, unique }) => {
  const title = unique("Edited on both");
  const note = await createNote(request, title, "line one\nline two\nline three");
  const b = await device(browser, `/notes/${note.id}`);
  await b.page.getByRole("button", { name: "Edit" }).click();
  const typed = "line one\nline two\nline three, as B wrote it";
  await b.page.locator("#edit-body").fill(typed);

  await edit(page.context().request, note, { body: "line one, as A wrote it\nline two\nline three" });
  await expect(b.page.getByTestId("changed-elsewhere")).toContainText("This note changed on another device", LIVE);
  await expect(b.page.locator("#edit-body")).toHaveValue(typed);

  await b.page.locator("form.edit").getByRole("button", { name: "Save" }).click();
  await expect
    .poll(async () => (await noteOnServer(request, note.id))?.body, { timeout: 10_000 })
    .toBe("line one, as A wrote it\nline two\nline three, as B wrote it");
  expect(await notesTitled(request, title), "one note: a merge, not a copy").toHaveLength(1);
  await expect(b.page.getByTestId("note-body")).toContainText("as B wrote it");
  await wasNotReloaded(b.page);
  await b.context.close();
});

test("a note deleted for good on another device says so on its open page", async ({ browser, page, request, unique }) => {
  const note = await createNote(request, unique("Purged on A"));
  const b = await device(browser, `/notes/${note.id}`);
  await trash(page.context().request, note);
  const purged = await page.context().request.delete(`/api/notes/${note.id}?permanent=true`, { headers: { "idempotency-key": randomUUID() } });
  expect(purged.status()).toBe(204);
  await expect(b.page.getByTestId("note-gone")).toContainText("deleted for good on another device", LIVE);
  await b.context.close();
});

test("a page whose session ends elsewhere stops following and says so", async ({ browser }) => {
  const b = await device(browser, "/", { ownSession: true });
  // The session ends from another device (the same cookie, through the API).
  expect((await b.context.request.delete("/api/session")).status()).toBe(204);
  await expect(b.page.getByTestId("session-ended")).toContainText("You were signed out", LIVE);
  await wasNotReloaded(b.page);
  await b.context.close();
});

test("a device that was offline catches up when it is back online", async ({ browser, page, unique }) => {
  const b = await device(browser, "/");
  await b.context.setOffline(true);
  const note = await createNote(page.context().request, unique("Made while B was offline"));
  await b.page.waitForTimeout(500);
  await expect(b.notes.savedTitled(note.title)).toHaveCount(0);
  await b.context.setOffline(false);
  await expect(b.notes.savedTitled(note.title)).toHaveCount(1, LIVE);
  await wasNotReloaded(b.page);
  await b.context.close();
});

test("a stream that breaks is opened again from where the page stands, and nothing is missed", async ({ browser, page, unique }) => {
  const context = await browser.newContext();
  const opened: string[] = [];
  let broken = 0;
  await context.route("**/api/events**", async (route) => {
    opened.push(route.request().url());
    // The first two streams break before they open.
    if (broken < 2) {
      broken += 1;
      return route.abort("connectionreset");
    }
    return route.continue();
  });
  const b = await context.newPage();
  const notes = new NotesPage(b);
  await b.goto("/");
  await notes.hydrated();
  const note = await createNote(page.context().request, unique("Made while B's stream broke"));
  // Read from the feed before the stream is opened again.
  await expect(notes.savedTitled(note.title)).toHaveCount(1, { timeout: 10_000 });
  await expect.poll(() => opened.length, { timeout: 10_000 }).toBeGreaterThanOrEqual(3);
  const since = opened.map((url) => Number(new URL(url).searchParams.get("since")));
  expect(since[2], "opened again from the page's cursor, past what it read").toBeGreaterThan(since[0]);
  // The stream opened again carries the next write.
  const next = await createNote(page.context().request, unique("Made once B's stream was back"));
  await expect(notes.savedTitled(next.title)).toHaveCount(1, LIVE);
  await context.close();
});

/** Answers the next read of the feed with 410 `changes-expired`, as for a page too old for what the feed keeps
 * (once the offline copy has caught up, so the read is the live page's). */
async function expireNextRead({ context, page }: { context: BrowserContext; page: Page }) {
  await offlineCopyCaughtUp(page);
  let expired = false;
  await context.route("**/api/changes**", async (route) => {
    if (expired) return route.continue();
    expired = true;
    await route.fulfill({
      status: 410,
      headers: { "content-type": "application/problem+json" },
      body: JSON.stringify({ type: "/problems/changes-expired", title: "Gone", status: 410, detail: "start over" }),
    });
  });
}

test("a page the feed no longer covers is read again whole by a reload", async ({ browser, page, unique }) => {
  const b = await device(browser, "/");
  await expireNextRead(b);
  const reloaded = b.page.waitForEvent("load");
  const note = await createNote(page.context().request, unique("Made past B's feed"));
  await reloaded;
  await b.notes.hydrated();
  await expect(b.notes.savedTitled(note.title)).toHaveCount(1);
  // The reloaded page follows again.
  const next = await createNote(page.context().request, unique("Made after B's reload"));
  await expect(b.notes.savedTitled(next.title)).toHaveCount(1, LIVE);
  await b.context.close();
});

test("a page the feed no longer covers is not reloaded under someone typing: it offers the reload", async ({ browser, page, unique }) => {
  const b = await device(browser, "/");
  await b.notes.write(unique("Typed on B"), "half a thought");
  await expireNextRead(b);
  await createNote(page.context().request, unique("Made past B's feed"));
  await expect(b.page.getByTestId("notices")).toContainText("missed changes made on your other devices", LIVE);
  await expect(b.page.getByTestId("notices").getByRole("link", { name: "Reload to see them" })).toBeVisible();
  await expect(b.notes.body).toHaveValue("half a thought");
  await wasNotReloaded(b.page);
  await b.context.close();
});

/** Makes the browser say the page is hidden (or shown again), as switching tabs does. */
async function setHidden(page: Page, hidden: boolean) {
  await page.evaluate((hidden) => {
    Object.defineProperty(document, "visibilityState", { configurable: true, get: () => (hidden ? "hidden" : "visible") });
    Object.defineProperty(document, "hidden", { configurable: true, get: () => hidden });
    document.dispatchEvent(new Event("visibilitychange"));
  }, hidden);
}

test("a tab hidden for a while gives its stream back, and catches up as soon as it is shown", async ({ browser, page, unique }) => {
  const b = await device(browser, "/");
  const streams: string[] = [];
  b.page.on("request", (r) => {
    if (new URL(r.url()).pathname === "/api/events") streams.push(r.url());
  });
  await setHidden(b.page, true);
  await b.page.waitForTimeout(11_000);
  const note = await createNote(page.context().request, unique("Made while B was hidden"));
  await b.page.waitForTimeout(1_000);
  await expect(b.notes.savedTitled(note.title)).toHaveCount(0);
  expect(streams, "no stream opened while hidden").toHaveLength(0);
  await setHidden(b.page, false);
  await expect(b.notes.savedTitled(note.title)).toHaveCount(1, LIVE);
  await expect.poll(() => streams.length).toBe(1);
  const next = await createNote(page.context().request, unique("Made once B was shown"));
  await expect(b.notes.savedTitled(next.title)).toHaveCount(1, LIVE);
  await wasNotReloaded(b.page);
  await b.context.close();
});
