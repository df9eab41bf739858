import AxeBuilder from "@axe-core/playwright";
import type { Page } from "@playwright/test";
import { test, expect, createNote, noteOnServer, revisionsOf, NotesPage, SaveRequests } from "./fixtures";

// Markdown on the note page, ticks of task items (each an edit of its line, saved exactly
// once), pins and the pages of tags.

/** A body with a table, a task list and tags (line 7 is milk, line 8 eggs). */
const BODY = ["Shopping for #Weekend and #work/meetings", "", "| Item | Qty |", "| --- | --- |", "| milk | 2 |", "", "- [ ] milk", "- [ ] eggs"].join("\n");
const MILK_TICKED = BODY.replace("- [ ] milk", "- [x] milk");

/** A tag name no other test (or earlier run on this database) uses. */
function uniqueTag(label: string) {
  return `${label}${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;
}

/** The note page, with its rendered body. */
class NoteView {
  constructor(readonly page: Page) {}

  async goto(id: string) {
    await this.page.goto(`/notes/${id}`);
    await new NotesPage(this.page).hydrated();
  }
  get body() {
    return this.page.getByTestId("note-body");
  }
  box(n: number) {
    return this.body.locator("input[type=checkbox]").nth(n);
  }
  get pending() {
    return this.page.getByTestId("pending-for-note").locator("li");
  }
}

/** The PATCHes of one note the page sent (ticks and pins), with their keys. */
function patchesOf(writes: SaveRequests, id: string) {
  return writes.sent.filter((w) => w.method === "PATCH" && w.path === `/api/notes/${id}`);
}

/** Holds every answer to a PATCH of the note for a moment, so ticks made quickly are
 * made while the earlier ones are still unsent. */
async function slowTicks(page: Page, id: string) {
  await page.route(`**/api/notes/${id}`, async (route) => {
    if (route.request().method() === "PATCH") await new Promise((r) => setTimeout(r, 400));
    await route.continue();
  });
}

async function violations(page: Page) {
  const results = await new AxeBuilder({ page }).analyze();
  return results.violations.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(" ")).join(", ")})`);
}

test("a note's Markdown renders its table, its task boxes (live once the page is) and its #tags as links", async ({ browser, page, request, unique }) => {
  const note = await createNote(request, unique("Rendered"), BODY);
  const view = new NoteView(page);
  await view.goto(note.id);
  await expect(view.body.locator("table td").first()).toHaveText("milk");
  await expect(view.body.locator("li.task")).toHaveCount(2);
  await expect(view.box(0)).toBeEnabled();
  await expect(view.box(0)).not.toBeChecked();
  await expect(view.box(0)).toHaveAttribute("data-line", "7");
  await expect(view.body.locator("a.tag", { hasText: "#Weekend" })).toHaveAttribute("href", /^\/tags\/weekend$/i);
  // The note's own tags, as chips.
  await expect(page.locator(".note-page .tags a.tag", { hasText: "#work/meetings" })).toHaveAttribute("href", "/tags/work/meetings");

  // Without JavaScript nothing could send a tick: the boxes stay disabled.
  const noScript = await browser.newContext({ javaScriptEnabled: false, storageState: await page.context().storageState() });
  const plain = await noScript.newPage();
  await plain.goto(`/notes/${note.id}`);
  await expect(plain.getByTestId("note-body").locator("table")).toBeVisible();
  await expect(plain.getByTestId("note-body").locator("input[type=checkbox]").first()).toBeDisabled();
  await noScript.close();
});

test("a double click on a task is two edits, two revisions, and the box ends as it started", async ({ page, request, unique }) => {
  const note = await createNote(request, unique("Double tick"), BODY);
  const writes = new SaveRequests(page, true);
  await slowTicks(page, note.id);
  const view = new NoteView(page);
  await view.goto(note.id);
  await view.box(0).dblclick();

  await expect.poll(async () => (await revisionsOf(request, note.id)).length, { timeout: 20_000 }).toBe(3);
  await expect(view.pending).toHaveCount(0);
  const revisions = await revisionsOf(request, note.id);
  expect(revisions.map((r) => r.kind)).toEqual(["create", "edit", "edit"]);
  expect(revisions.map((r) => r.body)).toEqual([BODY, MILK_TICKED, BODY]);
  await expect(view.box(0)).not.toBeChecked();
  const patches = patchesOf(writes, note.id);
  expect(new Set(patches.map((p) => p.key)).size).toBe(2); // one key per change
  expect((await noteOnServer(request, note.id))?.body).toBe(BODY);
});

test("a double click while the note changed elsewhere still ends as it started (the second click is carried onto the merge)", async ({ page, request, unique }) => {
  const note = await createNote(request, unique("Double tick, pinned elsewhere"), BODY);
  await slowTicks(page, note.id);
  // This page has not heard of the other device's write: its live stream and feed reads
  // fail (as on a flaky network). Otherwise the stream brings the pin within milliseconds,
  // the first tick starts from version 2, and there is nothing to merge.
  await page.route("**/api/events**", (route) => route.abort());
  await page.route("**/api/changes**", (route) => route.abort());
  const view = new NoteView(page);
  await view.goto(note.id);
  // Another device pins the note: the page still shows version 1, so the first tick is
  // merged with the pin on the server.
  const pinned = await request.patch(`/api/notes/${note.id}`, {
    headers: { "Idempotency-Key": `pin-${note.id}` },
    data: { pinned: true, written_at: new Date().toISOString() },
  });
  expect(pinned.status()).toBe(200);
  await view.box(0).dblclick();

  await expect.poll(async () => (await revisionsOf(request, note.id)).length, { timeout: 20_000 }).toBe(4);
  await expect(view.pending).toHaveCount(0);
  const revisions = await revisionsOf(request, note.id);
  expect(revisions.map((r) => r.kind)).toEqual(["create", "pin", "merge", "edit"]);
  expect(revisions.map((r) => r.body)).toEqual([BODY, BODY, MILK_TICKED, BODY]);
  const now = await noteOnServer(request, note.id);
  expect(now?.body).toBe(BODY);
  expect(now?.pinned).toBe(true);
});

test("two quick ticks of different items keep both, with no conflict copy", async ({ page, request, unique }) => {
  const note = await createNote(request, unique("Two ticks"), BODY);
  await slowTicks(page, note.id);
  const view = new NoteView(page);
  await view.goto(note.id);
  await view.box(0).click();
  await view.box(1).click();
  await expect(view.pending).toHaveCount(2); // the second made while the first waits
  const both = MILK_TICKED.replace("- [ ] eggs", "- [x] eggs");
  await expect.poll(async () => (await noteOnServer(request, note.id))?.body, { timeout: 20_000 }).toBe(both);
  await expect(view.pending).toHaveCount(0);
  expect((await revisionsOf(request, note.id)).map((r) => r.kind)).toEqual(["create", "edit", "edit"]);
  await expect(view.box(0)).toBeChecked();
  await expect(view.box(1)).toBeChecked();
  await expect(page.getByTestId("notices")).not.toContainText("conflict");
});

test("a tick whose answer is lost after the commit is saved once", async ({ page, request, unique }) => {
  const note = await createNote(request, unique("Lost tick"), BODY);
  const writes = new SaveRequests(page, true);
  let lost = false;
  await page.route(`**/api/notes/${note.id}`, async (route) => {
    if (route.request().method() !== "PATCH" || lost) return route.continue();
    lost = true;
    await route.fetch(); // the server commits the tick...
    await route.abort("failed"); // ...and its answer never arrives
  });
  const view = new NoteView(page);
  await view.goto(note.id);
  await view.box(0).click();

  await expect.poll(() => patchesOf(writes, note.id).length, { timeout: 20_000 }).toBeGreaterThanOrEqual(2);
  await expect(view.pending).toHaveCount(0, { timeout: 20_000 });
  expect(new Set(patchesOf(writes, note.id).map((p) => p.key)).size).toBe(1);
  const revisions = await revisionsOf(request, note.id);
  expect(revisions.map((r) => r.kind)).toEqual(["create", "edit"]);
  expect(revisions[1].body).toBe(MILK_TICKED);
  await expect(view.box(0)).toBeChecked();
});

test("a tick made offline stays ticked through an offline reload and is saved once when back online", async ({ page, context, request, unique }) => {
  const note = await createNote(request, unique("Offline tick"), BODY);
  const writes = new SaveRequests(page, true);
  const view = new NoteView(page);
  const notes = new NotesPage(page);
  await view.goto(note.id);
  await notes.offlineReady();
  await view.goto(note.id); // kept for offline reading now that the service worker is in charge

  await context.setOffline(true);
  await view.box(0).click();
  await expect(view.pending.first()).toContainText("Edit of");
  await expect(view.box(0)).toBeChecked();
  await page.reload();
  await notes.hydrated();
  await expect(view.box(0)).toBeChecked(); // as the person left it, while it waits
  await expect(view.pending).toHaveCount(1);
  expect(patchesOf(writes, note.id)).toHaveLength(0); // no attempt is spent offline

  await context.setOffline(false);
  await expect(view.pending).toHaveCount(0, { timeout: 30_000 });
  expect(new Set(patchesOf(writes, note.id).map((p) => p.key)).size).toBe(1);
  const revisions = await revisionsOf(request, note.id);
  expect(revisions.map((r) => r.kind)).toEqual(["create", "edit"]);
  expect(revisions[1].body).toBe(MILK_TICKED);
  await expect(view.box(0)).toBeChecked();
});

test("a tag link in a note leads to the tag's page, which lists the note; nested tags too", async ({ page, request, unique }) => {
  const tag = uniqueTag("trip");
  const note = await createNote(request, unique("Tagged"), `Packing for #${tag} and #${tag}/Gear`);
  const view = new NoteView(page);
  await view.goto(note.id);
  await view.body.locator("a.tag", { hasText: `#${tag}/Gear` }).click();
  await new NotesPage(page).hydrated();
  await expect(page).toHaveURL(new RegExp(`/tags/${tag}/gear$`, "i"));
  await expect(page.getByRole("heading", { level: 2 })).toHaveText(`#${tag}/gear`);
  await expect(page.getByTestId("saved-notes").locator("li", { hasText: note.title })).toBeVisible();

  await page.getByRole("link", { name: "All tags" }).click();
  await new NotesPage(page).hydrated();
  await page.getByTestId("tags").getByRole("link", { name: `#${tag}`, exact: true }).click();
  await new NotesPage(page).hydrated();
  await expect(page.getByRole("heading", { level: 2 })).toHaveText(`#${tag}`);
  await expect(page.getByTestId("saved-notes").locator("li", { hasText: note.title })).toBeVisible();
});

test("pinning from the list puts the note first, and it stays first after a reload", async ({ page, request, unique }) => {
  const older = await createNote(request, unique("Pin me"));
  await createNote(request, unique("Newer than the pinned one"));
  const notes = new NotesPage(page);
  await notes.goto();
  const card = notes.savedTitled(older.title);
  await expect(notes.saved.first()).not.toContainText(older.title);
  await card.getByRole("button", { name: "Pin" }).click();
  await expect(notes.saved.first()).toContainText(older.title);
  await expect(notes.saved.first()).toContainText("Pinned");
  await expect.poll(async () => (await noteOnServer(request, older.id))?.pinned, { timeout: 20_000 }).toBe(true);
  await expect(notes.unsaved).toHaveCount(0);

  await notes.reload();
  await expect(notes.saved.first()).toContainText(older.title);
  await expect(notes.saved.first()).toContainText("Pinned");
  await expect(notes.saved.first().getByRole("button", { name: "Unpin" })).toBeVisible();
  expect((await revisionsOf(request, older.id)).map((r) => r.kind)).toEqual(["create", "pin"]);

  // And back: unpinned, it goes back among the others.
  await notes.saved.first().getByRole("button", { name: "Unpin" }).click();
  await expect.poll(async () => (await noteOnServer(request, older.id))?.pinned, { timeout: 20_000 }).toBe(false);
  await expect(notes.savedTitled(older.title)).not.toContainText("Pinned");
});

test("a tag renamed from its page is renamed once in each of its notes, and the page says how many", async ({ page, request, unique }) => {
  const tag = uniqueTag("proj");
  const a = await createNote(request, unique("Rename A"), `first #${tag}`);
  const b = await createNote(request, unique("Rename B"), `second #${tag}/sub`);
  const renames: string[] = [];
  page.on("request", (r) => {
    if (r.method() === "POST" && new URL(r.url()).pathname === "/api/tags/rename") renames.push(r.headers()["idempotency-key"] ?? "");
  });
  await page.goto(`/tags/${tag}`);
  await new NotesPage(page).hydrated();

  // A name that is no tag is refused here, before any key is made.
  await page.getByLabel("New name").fill("two words");
  await page.getByRole("button", { name: "Rename" }).click();
  await expect(page.getByTestId("rename-notice")).toContainText("Not renamed");
  expect(renames).toHaveLength(0);

  await page.getByLabel("New name").fill(`${tag}Renamed`);
  await page.getByRole("button", { name: "Rename" }).click();
  await expect(page.getByTestId("notices")).toContainText(`#${tag} is now #${tag}Renamed in 2 notes`);
  expect(new Set(renames).size).toBe(1);
  expect((await noteOnServer(request, a.id))?.body).toBe(`first #${tag}Renamed`);
  expect((await noteOnServer(request, b.id))?.body).toBe(`second #${tag}Renamed/sub`);
  expect((await revisionsOf(request, a.id)).map((r) => r.kind)).toEqual(["create", "tag-rename"]);

  await page.getByTestId("notices").getByRole("link", { name: `Open #${tag}Renamed` }).click();
  await new NotesPage(page).hydrated();
  await expect(page.getByTestId("saved-notes").locator("li")).toHaveCount(2);
});

test("the tags, a tag's page and a rendered note have no accessibility violations", async ({ page, request, unique }) => {
  const tag = uniqueTag("axe");
  const note = await createNote(request, unique("Accessible Markdown"), `${BODY}\n\n#${tag} and #${tag}/nested`);
  const found: string[] = [];
  for (const [name, path] of [
    ["tags", "/tags"],
    ["a tag", `/tags/${tag}`],
    ["a nested tag", `/tags/${tag}/nested`],
    ["a rendered note", `/notes/${note.id}`],
  ]) {
    await page.goto(path);
    await new NotesPage(page).hydrated();
    if (name === "a rendered note") await expect(new NoteView(page).box(0)).toBeEnabled();
    for (const violation of await violations(page)) found.push(`${name} — ${violation}`);
  }
  expect(found).toEqual([]);
});
