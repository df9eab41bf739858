import { randomUUID } from "node:crypto";
import {
  test,
  expect,
  allNotes,
  createNote,
  editNote,
  noteOnServer,
  notesTitled,
  revisionsOf,
  NotesPage,
  SaveRequests,
  type Note,
} from "./fixtures";
import type { Page } from "@playwright/test";
import { OwnServer } from "./server";

/** The note page: the note, its actions, its edit form. */
class NoteView {
  constructor(readonly page: Page) {}

  async goto(id: string, base = "") {
    await this.page.goto(`${base}/notes/${id}`);
    await new NotesPage(this.page).hydrated();
  }
  get heading() {
    return this.page.locator("#note-title");
  }
  get body() {
    return this.page.getByTestId("note-body");
  }
  get pending() {
    return this.page.getByTestId("pending-for-note").locator("li");
  }
  get notices() {
    return this.page.getByTestId("notices");
  }
  async edit(body: string, title?: string) {
    await this.openEditor();
    await this.type(body, title);
  }
  async openEditor() {
    await this.page.getByRole("button", { name: "Edit" }).click();
  }
  /** Types into the open editor. */
  async type(body: string, title?: string) {
    if (title !== undefined) await this.page.locator("#edit-title").fill(title);
    await this.page.locator("#edit-body").fill(body);
  }
  get save() {
    return this.page.locator("form.edit").getByRole("button", { name: "Save" });
  }
}

test("a note opens in full, with its line breaks, and reads without JavaScript too", async ({ browser, page, request, unique }) => {
  const note = await createNote(request, unique("Full note"), "first line\n\nthird line, after a blank one");
  const view = new NoteView(page);
  await view.goto(note.id);
  await expect(view.heading).toHaveText(note.title);
  expect(await view.body.innerText()).toBe("first line\n\nthird line, after a blank one");
  await expect(page.locator("time").first()).toHaveAttribute("datetime", note.written_at);

  const noScript = await browser.newContext({ javaScriptEnabled: false });
  const plain = await noScript.newPage();
  await plain.goto(`/notes/${note.id}`);
  await expect(plain.locator("#note-title")).toHaveText(note.title);
  await noScript.close();
});

test("a note's time reads in the reader's own zone and words once the page is live, in UTC before", async ({ browser, baseURL, unique }) => {
  // A reader in Tokyo whose browser speaks British English.
  const context = await browser.newContext({ baseURL, timezoneId: "Asia/Tokyo", locale: "en-GB" });
  try {
    const written_at = "2026-11-30T05:07:00.000Z";
    const created = await context.request.post("/api/notes", {
      headers: { "idempotency-key": randomUUID() },
      data: { title: unique("Timed note"), body: "written at five past five, UTC", written_at },
    });
    expect(created.status()).toBe(201);
    const note = (await created.json()) as { id: string };
    const page = await context.newPage();
    const response = await page.goto(`/notes/${note.id}`);
    expect(await response?.text()).toContain("2026-11-30 05:07 UTC");
    await new NotesPage(page).hydrated();
    const time = page.locator(`time[datetime="${written_at}"]`).first();
    await expect(time).toHaveText("30 Nov 2026, 14:07");
    // The home page's list too: each of its times worded the same way.
    await page.goto("/");
    await new NotesPage(page).hydrated();
    await expect(page.locator(`time[datetime="${written_at}"]`).first()).toHaveText("30 Nov 2026, 14:07");
  } finally {
    await context.close();
  }
});

test("editing a note and double-clicking Save stores one revision", async ({ page, request, unique }) => {
  const note = await createNote(request, unique("Edit twice-clicked"), "before");
  const writes = new SaveRequests(page, true);
  await page.route("**/api/notes/*", async (route) => {
    if (route.request().method() === "PATCH") await new Promise((r) => setTimeout(r, 500));
    await route.continue();
  });
  const view = new NoteView(page);
  await view.goto(note.id);
  await view.edit("after");
  await view.save.dblclick();

  await expect(view.body).toHaveText("after");
  await expect(view.pending).toHaveCount(0);
  const revisions = await revisionsOf(request, note.id);
  expect(revisions.map((r) => r.kind)).toEqual(["create", "edit"]);
  expect(new Set(writes.keys()).size).toBe(1);
});

test("an edit whose answer is lost after the commit is stored once", async ({ page, request, unique }) => {
  const note = await createNote(request, unique("Edit lost answer"), "before");
  const writes = new SaveRequests(page, true);
  let lost = false;
  await page.route("**/api/notes/*", async (route) => {
    if (route.request().method() !== "PATCH" || lost) return route.continue();
    lost = true;
    await route.fetch(); // the server commits the edit...
    await route.abort("failed"); // ...and the answer never arrives
  });
  const view = new NoteView(page);
  await view.goto(note.id);
  await view.edit("after the lost answer");
  await view.save.click();

  await expect(view.body).toHaveText("after the lost answer");
  // The page may learn the edit from the change feed before the retry gets its replay.
  await expect.poll(() => writes.sent.length, { timeout: 20_000 }).toBeGreaterThanOrEqual(2);
  await expect(view.pending).toHaveCount(0);
  expect(new Set(writes.keys()).size).toBe(1);
  expect((await revisionsOf(request, note.id)).length).toBe(2);
});

test("edits and a delete made offline survive a reload and are sent once each, in order", async ({
  page,
  context,
  request,
  unique,
}) => {
  const server = new OwnServer(3251);
  await server.start();
  await server.signIn(context);
  const api = context.request;
  try {
    const note = await createNote(api, unique("Offline edit"), "one", server.url);
    const other = await createNote(api, unique("Offline trash"), "two", server.url);
    const writes = new SaveRequests(page, true);
    const view = new NoteView(page);
    await view.goto(note.id, server.url);
    await new NotesPage(page).offlineReady();
    // Pages opened once the service worker is in charge are kept for offline reading.
    await view.goto(other.id, server.url);
    await view.goto(note.id, server.url);

    await context.setOffline(true);
    await view.edit("edited offline");
    await view.save.click();
    await expect(view.pending.first()).toContainText("offline");
    await view.goto(other.id, server.url); // from the kept page
    await page.getByRole("button", { name: "Move to trash" }).click();
    await expect(view.pending.first()).toContainText("not yet saved");
    expect(writes.sent).toHaveLength(0);

    await server.stop();
    await page.reload();
    await new NotesPage(page).hydrated();
    await expect(page.getByTestId("status-line")).toContainText("2 not yet saved");

    await server.start();
    await context.setOffline(false);
    await expect(page.getByTestId("status-line")).toContainText("every note is saved", { timeout: 30_000 });
    expect(writes.sent.map((w) => w.method)).toEqual(["PATCH", "DELETE"]);
    expect((await noteOnServer(api, note.id, server.url))?.body).toBe("edited offline");
    expect((await noteOnServer(api, other.id, server.url))?.trashed_at).not.toBeNull();
  } finally {
    await server.stop();
  }
});

test("two tabs editing different lines of a note are merged, and the page says so", async ({ context, request, unique }) => {
  const note = await createNote(request, unique("Merge"), "one\ntwo\nthree\nfour\nfive");
  const [a, b] = [new NoteView(await context.newPage()), new NoteView(await context.newPage())];
  await a.goto(note.id);
  await b.goto(note.id);
  // B starts editing before A saves (once A's edit has reached it, B would edit from it).
  await b.openEditor();

  await a.edit("ONE\ntwo\nthree\nfour\nfive");
  await a.save.click();
  await expect(a.body).toHaveText("ONE\ntwo\nthree\nfour\nfive");

  await b.type("one\ntwo\nthree\nfour\nFIVE");
  await b.save.click();
  await expect(b.notices).toContainText("merged with changes made elsewhere");
  await expect(b.body).toHaveText("ONE\ntwo\nthree\nfour\nFIVE");
  expect((await noteOnServer(request, note.id))?.body).toBe("ONE\ntwo\nthree\nfour\nFIVE");
});

test("two tabs editing the same line keep both texts: the second becomes a conflict copy the page links to", async ({
  context,
  request,
  unique,
}) => {
  const title = unique("Conflict");
  const note = await createNote(request, title, "one\ntwo\nthree");
  const [a, b] = [new NoteView(await context.newPage()), new NoteView(await context.newPage())];
  await a.goto(note.id);
  await b.goto(note.id);
  // B starts editing before A saves (once A's edit has reached it, B would edit from it).
  await b.openEditor();
  await a.edit("one\ntwo from A\nthree");
  await a.save.click();
  await expect(a.body).toHaveText("one\ntwo from A\nthree");

  await b.type("one\ntwo from B\nthree");
  await b.save.click();
  await expect(b.notices).toContainText("saved as a separate note");
  await b.notices.getByRole("link", { name: "Open the copy" }).click();
  await expect(b.body).toHaveText("one\ntwo from B\nthree");
  await expect(b.heading).toContainText("(conflict copy)");
  expect((await noteOnServer(request, note.id))?.body).toBe("one\ntwo from A\nthree");
});

test("a note moved to the trash comes back with Undo", async ({ page, request, unique }) => {
  const note = await createNote(request, unique("Undo delete"));
  const view = new NoteView(page);
  await view.goto(note.id);
  await page.getByRole("button", { name: "Move to trash" }).click();
  await view.notices.getByRole("button", { name: "Undo" }).click();
  await expect(page.getByTestId("status-line")).toContainText("every note is saved");
  await expect.poll(async () => (await noteOnServer(request, note.id))?.trashed_at ?? null).toBeNull();
  await expect(page.locator(".trash-banner")).toHaveCount(0);
});

test("the trash restores a note and deletes another for good", async ({ page, request, unique }) => {
  const kept = await createNote(request, unique("Restore me"));
  const gone = await createNote(request, unique("Delete me for good"));
  for (const note of [kept, gone]) {
    const response = await request.delete(`/api/notes/${note.id}`, { headers: { "idempotency-key": randomUUID() } });
    expect(response.status()).toBe(200);
  }
  await page.goto("/trash");
  await new NotesPage(page).hydrated();
  const trash = page.getByTestId("trash-notes");
  await trash.locator("li", { hasText: kept.title }).getByRole("button", { name: "Restore" }).click();
  const doomed = trash.locator("li", { hasText: gone.title });
  await doomed.getByRole("button", { name: "Delete for good" }).click();
  await doomed.getByRole("button", { name: "Yes, delete it" }).click();

  await expect(trash.locator("li", { hasText: kept.title })).toHaveCount(0);
  await expect(trash.locator("li", { hasText: gone.title })).toHaveCount(0);
  expect((await noteOnServer(request, kept.id))?.trashed_at).toBeNull();
  expect(await noteOnServer(request, gone.id)).toBeNull();
  await page.goto("/");
  await expect(page.getByTestId("saved-notes").locator("li", { hasText: kept.title })).toHaveCount(1);
});

test("the search box finds a note, marks the words, and opens it", async ({ page, request, unique }) => {
  const word = unique("zanzibar").replace(/\W/g, "");
  const note = await createNote(request, "Travel plans", `Book the ferry to ${word} early.`);
  await new NotesPage(page).goto();
  await page.getByRole("searchbox", { name: "Search notes" }).fill(word);
  await page.getByRole("searchbox", { name: "Search notes" }).press("Enter");
  await page.waitForURL(/\/search\?q=/);
  const results = page.getByTestId("search-results").locator("li");
  await expect(results).toHaveCount(1);
  await expect(results.locator("mark")).toHaveText(word);
  await results.getByRole("link", { name: "Travel plans" }).click();
  await page.waitForURL(`**/notes/${note.id}`);
  await expect(page.locator("#note-title")).toHaveText("Travel plans");
});

test("the list pages back past the first 50 notes", async ({ page, request, unique }) => {
  const prefix = unique("Paged");
  const created: Note[] = [];
  for (let i = 0; i < 55; i++) created.push(await createNote(request, `${prefix} ${String(i).padStart(2, "0")}`));
  const notes = new NotesPage(page);
  await notes.goto();
  await expect(notes.saved).toHaveCount(50);
  await expect(notes.savedTitled(`${prefix} 54`)).toHaveCount(1);
  await expect(notes.savedTitled(`${prefix} 00`)).toHaveCount(0);
  await page.getByRole("link", { name: "Older notes" }).click();
  await notes.hydrated();
  await expect(notes.savedTitled(`${prefix} 00`)).toHaveCount(1);
  await expect(notes.savedTitled(`${prefix} 54`)).toHaveCount(0);
});

test("the history lists every write, newest first, and an earlier version can be restored from its page as a new edit", async ({ page, request, unique }) => {
  let note = await createNote(request, unique("History"), "version one");
  await editNote(request, note, "version two");
  note = (await noteOnServer(request, note.id))!;
  await editNote(request, note, "version three");
  await page.goto(`/notes/${note.id}/history`);
  await new NotesPage(page).hydrated();
  const versions = page.locator("li.revision");
  await expect(versions).toHaveCount(3);
  await expect(versions.first()).toHaveAttribute("data-version", "3");
  // The list holds no bodies: a version's text is on its own page, with the restore.
  await page.locator('li.revision[data-version="1"]').getByRole("link", { name: "Version 1" }).click();
  await expect(page).toHaveURL(new RegExp(`/notes/${note.id}/history/1$`));
  await new NotesPage(page).hydrated();
  await expect(page.getByTestId("version-body")).toHaveText("version one");
  await page.getByRole("button", { name: "Restore this version" }).click();
  await expect.poll(async () => (await noteOnServer(request, note.id))?.body).toBe("version one");
  const revisions = await revisionsOf(request, note.id);
  expect(revisions.map((r) => r.kind)).toEqual(["create", "edit", "edit", "edit"]);
});

test("a note seen before opens offline from the kept page", async ({ page, context, unique }) => {
  const server = new OwnServer(3252);
  await server.start();
  await server.signIn(context);
  try {
    const note = await createNote(context.request, unique("Read offline"), "kept for the train", server.url);
    const view = new NoteView(page);
    await view.goto(note.id, server.url);
    await new NotesPage(page).offlineReady();
    await view.goto(note.id, server.url); // now kept by the service worker
    await server.stop();
    const reloaded = await page.reload();
    expect(reloaded?.fromServiceWorker()).toBe(true);
    await expect(view.body).toHaveText("kept for the train");
    // A page never kept is rendered from the offline copy, which has no such note.
    await page.goto(`${server.url}/notes/never-opened`);
    await expect(page.getByRole("heading", { name: "There is no such note" })).toBeVisible();
  } finally {
    await server.stop();
  }
});

test("a refused edit is kept with its text, and Edit opens it on its note's page to change it", async ({ page, request, unique }) => {
  const note = await createNote(request, unique("Refused edit"), "before");
  let refusing = true;
  await page.route("**/api/notes/*", async (route) => {
    if (route.request().method() !== "PATCH" || !refusing) return route.continue();
    await route.fulfill({
      status: 422,
      headers: { "content-type": "application/problem+json" },
      body: JSON.stringify({ type: "/problems/validation-failed", title: "Refused", status: 422, detail: "refused by a test" }),
    });
  });
  const view = new NoteView(page);
  await view.goto(note.id);
  await view.edit("my careful edit");
  await view.save.click();
  await expect(view.pending.first()).toContainText("failed: refused by a test");

  await new NotesPage(page).goto();
  const item = page.getByTestId("unsaved-notes").locator("li", { hasText: "Edit of" });
  await item.getByRole("link", { name: "Edit" }).click();
  await new NotesPage(page).hydrated();
  await expect(page.locator("#edit-body")).toHaveValue("my careful edit");
  refusing = false;
  await page.locator("#edit-body").fill("my careful edit, fixed");
  await view.save.click();
  await expect(view.body).toHaveText("my careful edit, fixed");
  await expect(page.getByTestId("status-line")).toContainText("every note is saved");
  expect((await noteOnServer(request, note.id))?.body).toBe("my careful edit, fixed");
});

/**
 * Shifts the page's clock (`Date` and `Date.now`) by what the tab's sessionStorage says,
 * so a test can set a device's clock ahead and step it back between presses, across
 * reloads, while timers keep running in real time.
 */
async function installShiftableClock(page: Page) {
  await page.addInitScript(() => {
    const RealDate = Date;
    const offset = () => Number(sessionStorage.getItem("e2e.clock-offset-ms") ?? "0");
    class ShiftedDate extends RealDate {
      constructor(...args: unknown[]) {
        if (args.length === 0) super(RealDate.now() + offset());
        // @ts-expect-error: the other constructors, as they are
        else super(...args);
      }
      static now() {
        return RealDate.now() + offset();
      }
    }
    (globalThis as { Date: DateConstructor }).Date = ShiftedDate as DateConstructor;
  });
}

async function setClockOffset(page: Page, ms: number) {
  await page.evaluate((ms) => sessionStorage.setItem("e2e.clock-offset-ms", String(ms)), ms);
}

test("queued presses are sent in the order they were made, even when the clock was stepped back between them", async ({
  page,
  context,
}) => {
  const server = new OwnServer(3281);
  await server.start();
  await server.signIn(context);
  const api = context.request;
  const threeDays = 3 * 24 * 3600 * 1000;
  try {
    const stamp = `${Date.now()}`;
    const note = await createNote(api, `Clock edit ${stamp}`, "a\nb\nc", server.url);
    const other = await createNote(api, `Clock trash ${stamp}`, "one\ntwo", server.url);
    await installShiftableClock(page);
    const view = new NoteView(page);
    await view.goto(note.id, server.url);
    await new NotesPage(page).offlineReady();
    await view.goto(other.id, server.url);
    await view.goto(note.id, server.url);

    // Offline, with the device's clock three days ahead: edit line 2 of X, edit Y.
    await context.setOffline(true);
    await setClockOffset(page, threeDays);
    await view.edit("a\nFIRST\nc");
    await view.save.click();
    await expect(view.pending.first()).toBeVisible();
    await view.goto(other.id, server.url);
    await view.edit("one\nTWO");
    await view.save.click();
    await expect(view.pending.first()).toBeVisible();

    // The clock is set right again; the page is loaded anew; Y moved to the trash, X edited again.
    await setClockOffset(page, 0);
    await view.goto(other.id, server.url);
    await expect(page.getByTestId("status-line")).toContainText("2 not yet saved");
    // The page reopens the edit form with the edit not yet sent; close it to reach the actions.
    const cancel = page.locator("form.edit").getByRole("button", { name: "Cancel" });
    if (await cancel.isVisible()) await cancel.click();
    await page.getByRole("button", { name: "Move to trash" }).click();
    await view.goto(note.id, server.url);
    // The page reopens the edit form with the edit not yet sent (or the person opens it).
    if (!(await page.locator("#edit-body").isVisible())) await page.getByRole("button", { name: "Edit" }).click();
    await page.locator("#edit-body").fill("a\nSECOND\nc");
    await view.save.click();
    await expect(page.getByTestId("status-line")).toContainText("4 not yet saved");

    await context.setOffline(false);
    await expect(page.getByTestId("status-line")).toContainText("every note is saved", { timeout: 30_000 });

    const x = await noteOnServer(api, note.id, server.url);
    expect(x?.version).toBe(3);
    expect(x?.body).toBe("a\nSECOND\nc");
    const copies = (await allNotes(api, server.url)).filter((n) => n.conflict_of === note.id);
    expect(copies, "no conflict copy of the person's own two edits").toHaveLength(0);
    const history = (id: string) => revisionsOf(api, id, server.url);
    expect((await history(note.id)).map((r) => r.body)).toEqual(["a\nb\nc", "a\nFIRST\nc", "a\nSECOND\nc"]);
    const y = await noteOnServer(api, other.id, server.url);
    expect(y?.trashed_at).not.toBeNull();
    expect(y?.body).toBe("one\nTWO");
    expect((await history(other.id)).map((r) => r.kind)).toEqual(["create", "edit", "trash"]);
  } finally {
    await server.stop();
  }
});

test("a create sent a week late, after its note was deleted for good elsewhere, ends as deleted on another device", async ({
  page,
  context,
}) => {
  const server = new OwnServer(3282);
  // Keys' answers expire after a second, as a week would.
  await server.start({ ONCENOTE_IDEMPOTENCY_TTL_SECS: "1", ONCENOTE_SWEEP_INTERVAL_SECS: "1" });
  await server.signIn(context);
  const api = context.request;
  try {
    const notes = new NotesPage(page);
    await notes.goto(server.url);
    const title = `Late create ${Date.now()}`;
    // The create reaches the server and is stored; its answer is lost, and the laptop
    // goes offline before it could retry.
    let stored = false;
    await page.route("**/api/notes", async (route) => {
      if (route.request().method() !== "POST" || stored) return route.continue();
      stored = true;
      await route.fetch();
      await context.setOffline(true);
      await route.abort();
    });
    await notes.save(title);
    await expect(notes.unsavedTitled(title)).toBeVisible();
    await expect(notes.statusLine).toContainText("Offline");

    // On another device the note is deleted for good; a while later the key has expired.
    const [note] = await notesTitled(api, title, server.url);
    expect(note, "the lost answer's note is on the server").toBeDefined();
    expect((await api.delete(`${server.url}/api/notes/${note.id}?permanent=true`, {
      headers: { "idempotency-key": randomUUID() },
    })).status()).toBe(204);
    await new Promise((r) => setTimeout(r, 3_000));

    await context.setOffline(false);
    await expect(page.getByTestId("notices")).toContainText("deleted on another device", { timeout: 30_000 });
    await expect(notes.unsaved).toHaveCount(0);
    expect(await notesTitled(api, title, server.url), "the note was not made again").toHaveLength(0);
  } finally {
    await server.stop();
  }
});
