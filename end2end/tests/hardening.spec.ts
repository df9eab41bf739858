import { randomUUID } from "node:crypto";
import {
  test,
  expect,
  fillLocalStorage,
  freeLocalStorage,
  storagePrefix,
  notesTitled,
  NotesPage,
  SaveRequests,
} from "./fixtures";
import { FaultyProxy } from "./proxy";
import { OwnServer } from "./server";

// Every path by which an unsaved note could vanish or be doubled in the browser,
// walked as a user would reach it.

test.describe("when the browser's storage is full", () => {
  test("Save refuses visibly, keeps the draft, sends nothing, and saves once after room is made", async ({
    page,
    notes,
    requests,
    request,
    unique,
  }) => {
    const title = unique("Storage full");
    await notes.goto();
    const prefix = await storagePrefix(page);
    await page.evaluate((key) => localStorage.removeItem(key), `${prefix}notes.v2`); // nothing to evict
    await fillLocalStorage(page);
    await notes.save(title, "a body that must not be lost");

    await expect(notes.notice).toContainText("storage for the site is full");
    await expect(notes.title).toHaveValue(title);
    await expect(notes.body).toHaveValue("a body that must not be lost");
    await expect(notes.unsaved).toHaveCount(0);
    await page.waitForTimeout(500);
    expect(requests.sent).toHaveLength(0);

    await freeLocalStorage(page);
    await notes.saveButton.click();
    await expect(notes.savedTitled(title)).toHaveCount(1);
    expect(await notesTitled(request, title)).toHaveLength(1);
    expect(new Set(requests.keys()).size).toBe(1);
  });

  test("the notes cache gives its room to an intent", async ({ page, notes, request, unique }) => {
    await notes.goto();
    for (const i of [1, 2, 3]) {
      await notes.save(unique(`Cached ${i}`), "x".repeat(500));
      await expect(notes.unsaved).toHaveCount(0);
    }
    const cache = `${await storagePrefix(page)}notes.v2`;
    await expect.poll(() => page.evaluate((key) => localStorage.getItem(key)?.length ?? 0, cache)).toBeGreaterThan(500);
    await fillLocalStorage(page);

    const title = unique("Needs the cache's room");
    await notes.save(title);
    await expect(notes.savedTitled(title)).toHaveCount(1);
    await expect(notes.notice).toBeEmpty();
    expect(await notesTitled(request, title)).toHaveLength(1);
    await freeLocalStorage(page);
  });

  test("an intent whose new state cannot be written is still shown and sent once", async ({
    page,
    context,
    notes,
    requests,
    request,
    unique,
  }) => {
    const title = unique("State unwritable");
    await notes.goto();
    await context.setOffline(true);
    await notes.save(title);
    await expect(notes.unsavedTitled(title)).toContainText("offline");
    await page.evaluate((key) => localStorage.removeItem(key), `${await storagePrefix(page)}notes.v2`);
    await fillLocalStorage(page);
    // The server answers slowly, so the page can be seen while the save is in flight.
    await page.route("**/api/notes", async (route) => {
      await new Promise((r) => setTimeout(r, 1_500));
      await route.continue();
    });

    await context.setOffline(false);
    // Its "sending" state could not be stored, but it is not taken for gone.
    await expect(notes.unsavedTitled(title)).toContainText("sending");
    await expect(notes.statusLine).toContainText("1 not yet saved");
    await expect(notes.savedTitled(title)).toHaveCount(1);
    await expect(notes.statusLine).toContainText("every note is saved");
    expect(await notesTitled(request, title)).toHaveLength(1);
    expect(new Set(requests.keys()).size).toBe(1);
    await freeLocalStorage(page);
  });
});

test("the longest note in the most expensive script is saved, and one character more is refused before sending", async ({
  notes,
  requests,
  request,
  unique,
}) => {
  const title = unique("Emoji").slice(0, 150) + "😀".repeat(40);
  await notes.goto();
  await notes.write(title, "😀".repeat(100_000)); // 400,000 bytes of UTF-8
  await expect(notes.page.locator("#body-count")).toContainText("100,000 / 100,000 characters");
  await notes.saveButton.click();
  await expect(notes.savedTitled(title)).toHaveCount(1, { timeout: 30_000 });
  const [stored] = await notesTitled(request, title);
  expect([...stored.body].length).toBe(100_000);

  await notes.write(`${title} again`, "字".repeat(100_001));
  await expect(notes.page.locator("#body-count")).toContainText("1 too many");
  await notes.saveButton.click();
  await expect(notes.notice).toContainText("the body has 100,001 characters");
  expect(requests.sent).toHaveLength(1);
  await expect(notes.body).toHaveValue("字".repeat(100_001)); // nothing cut off
});

test.describe("behind a reverse proxy", () => {
  const server = new OwnServer(3241);
  const proxy = new FaultyProxy(3242, 3241);
  test.beforeAll(async () => {
    await server.start();
    await proxy.start();
  });
  test.afterAll(async () => {
    await proxy.stop();
    await server.stop();
  });
  test.beforeEach(() => {
    proxy.mode = "pass";
  });

  test("a 502 from the proxy and a page load that hangs both fall back to the cached page", async ({ page, context, notes }) => {
    await server.signIn(context);
    await notes.goto(proxy.url);
    await notes.offlineReady();

    proxy.mode = "502";
    const after502 = await page.reload();
    expect(after502?.status()).toBe(200);
    await notes.hydrated();
    await expect(page.getByRole("heading", { name: "oncenote" })).toBeVisible();
    await expect(page.getByText("Bad Gateway")).toHaveCount(0);

    proxy.mode = "hang";
    const started = Date.now();
    const afterHang = await page.reload({ timeout: 20_000 });
    expect(afterHang?.status()).toBe(200);
    expect(Date.now() - started).toBeLessThan(10_000);
    await notes.hydrated();
    await expect(notes.saveButton).toBeVisible();
  });

  test("an answer whose body never ends times out, and the retry stores the note once", async ({
    page,
    context,
    notes,
    unique,
  }) => {
    await server.signIn(context);
    const title = unique("Endless body");
    const requests = new SaveRequests(page);
    await notes.goto(proxy.url);
    proxy.mode = "stall-save-body";
    proxy.stalledSaves = 0;
    await notes.save(title);

    await expect(notes.savedTitled(title)).toHaveCount(1, { timeout: 40_000 });
    // The page may learn the note from the change feed before the retry gets its replay.
    await expect(notes.unsaved).toHaveCount(0, { timeout: 40_000 });
    expect(proxy.stalledSaves).toBe(1);
    expect(requests.sent.length).toBeGreaterThanOrEqual(2);
    expect(new Set(requests.keys()).size).toBe(1);
    expect(await notesTitled(context.request, title, server.url)).toHaveLength(1);
  });
});

test.describe("two tabs", () => {
  test("a second tab does not start with the first tab's draft", async ({ context, unique }) => {
    const [a, b] = [new NotesPage(await context.newPage()), new NotesPage(await context.newPage())];
    await a.goto();
    await a.write(unique("Only in tab A"), "typed in A");
    await b.goto();
    await expect(b.title).toHaveValue("");
    await expect(b.body).toHaveValue("");
    await a.reload();
    await expect(a.body).toHaveValue("typed in A"); // A keeps its own draft
  });

  test("a tab whose intent another tab finished empties its editor, and a press there makes no second note", async ({
    context,
    request,
    unique,
  }) => {
    const title = unique("Finished elsewhere");
    const pageA = await context.newPage();
    const a = new NotesPage(pageA);
    // Tab A cannot reach the server; its burst ends waiting.
    await pageA.route("**/api/notes", (route) =>
      route.request().method() === "POST" ? route.abort("connectionrefused") : route.continue(),
    );
    await a.goto();
    await a.save(title, "sent by the other tab");
    await expect(a.unsavedTitled(title).getByRole("button", { name: "Retry now" })).toBeVisible({ timeout: 20_000 });

    // Tab B opens, and sends what A could not.
    const b = new NotesPage(await context.newPage());
    await b.goto();
    await expect(b.savedTitled(title)).toHaveCount(1);

    await expect(a.unsaved).toHaveCount(0);
    await expect(a.title).toHaveValue("");
    await expect(a.body).toHaveValue("");
    await a.saveButton.click();
    await expect(a.notice).toContainText("the title is empty");
    expect(await notesTitled(request, title)).toHaveLength(1);
  });

  test("a tab writes an intent only while it holds that intent's lock", async ({ context, request, unique }) => {
    // Every write to an intent's entry is checked against the locks this tab holds; a
    // write by the tab that creates the entry is its first, and allowed.
    await context.addInitScript(() => {
      const held = new Set<string>();
      const violations: string[] = [];
      (window as unknown as { lockViolations: string[] }).lockViolations = violations;
      const request = navigator.locks.request.bind(navigator.locks);
      navigator.locks.request = ((name: string, options: LockOptions, callback: LockGrantedCallback<unknown>) =>
        request(name, options, async (lock) => {
          if (lock) held.add(name);
          try {
            return await callback(lock);
          } finally {
            if (lock) held.delete(name);
          }
        })) as typeof navigator.locks.request;
      const setItem = Storage.prototype.setItem;
      Storage.prototype.setItem = function (name: string, value: string) {
        const intent = /^oncenote\.u\.[^.]*\.intent\.(.+)$/.exec(name);
        if (this === localStorage && intent) {
          const key = intent[1];
          const exists = localStorage.getItem(name) !== null;
          if (exists && !held.has(`oncenote-intent-${key}`)) violations.push(`${key}: ${value.slice(0, 80)}`);
        }
        return setItem.call(this, name, value);
      };
    });
    const pages = [await context.newPage(), await context.newPage()];
    const [a, b] = pages.map((p) => new NotesPage(p));
    const sentByA = new SaveRequests(pages[0]);
    // A cannot reach the server: its bursts end waiting while more of its notes are queued.
    await pages[0].route("**/api/notes", (route) =>
      route.request().method() === "POST" ? route.abort("connectionrefused") : route.continue(),
    );
    await a.goto();
    await b.goto();
    const titles = ["A1", "A2", "A3"].map((t) => unique(t));
    for (const title of titles) await a.save(title);
    // Two bursts of five for the oldest (the later presses asked for one more run), then A
    // stops: the rest of its queue waits.
    await expect.poll(() => sentByA.sent.length, { timeout: 40_000 }).toBe(10);
    await expect(a.unsavedTitled(titles[0])).toContainText("waiting");
    await b.save(unique("B1"));
    for (const title of titles) await expect(b.savedTitled(title)).toHaveCount(1, { timeout: 40_000 });

    for (const page of pages) {
      expect(await page.evaluate(() => (window as unknown as { lockViolations: string[] }).lockViolations)).toEqual([]);
    }
    for (const title of titles) expect(await notesTitled(request, title)).toHaveLength(1);
  });
});

test.describe("before hydration and without JavaScript", () => {
  test.describe("JavaScript off", () => {
    test.use({ javaScriptEnabled: false });

    test("the form posts the note, the page comes back with it, and its text never enters the URL", async ({
      page,
      request,
      unique,
    }) => {
      const title = unique("No JavaScript");
      await page.goto("/");
      await page.getByLabel("Title").fill(title);
      await page.getByLabel("Body").fill("secret body text");
      await page.getByRole("button", { name: "Save" }).click();
      await page.waitForURL((url) => url.pathname === "/");
      expect(page.url()).not.toContain("secret");
      expect(new URL(page.url()).search).toBe("");
      await expect(page.getByTestId("saved-notes").locator("li", { hasText: title })).toContainText("secret body text");
      expect(await notesTitled(request, title)).toHaveLength(1);
    });
  });

  test("a Save pressed before the page hydrated is sent by the form and stored once", async ({
    page,
    request,
    unique,
  }) => {
    const title = unique("Before hydration");
    // The wasm never arrives: the page stays as the server rendered it.
    await page.route("**/pkg/*.wasm", (route) => route.abort());
    await page.goto("/");
    await page.getByLabel("Title").fill(title);
    await page.getByLabel("Body").fill("pressed early");
    await Promise.all([
      page.waitForURL((url) => url.pathname === "/"),
      page.getByRole("button", { name: "Save" }).click(),
    ]);
    await expect(page.getByTestId("saved-notes").locator("li", { hasText: title })).toHaveCount(1);
    expect(await notesTitled(request, title)).toHaveLength(1);
  });
});

test.describe("intents stored by another version", () => {
  test("an intent stored by the first version is migrated and sent with its own key", async ({
    page,
    notes,
    requests,
    request,
    unique,
  }) => {
    const title = unique("From version one");
    const key = randomUUID();
    await notes.goto();
    await page.evaluate(
      ({ key, title }) =>
        localStorage.setItem(
          `oncenote.intent.${key}`,
          JSON.stringify({
            key,
            title,
            body: "kept across the upgrade",
            written_at: new Date().toISOString(),
            attempts: 2,
            state: { kind: "waiting", reason: "offline" },
          }),
        ),
      { key, title },
    );
    await notes.reload();
    await expect(notes.savedTitled(title)).toHaveCount(1);
    expect(requests.keys()).toEqual([key]);
    expect(await notesTitled(request, title)).toHaveLength(1);
  });

  test("an entry this version cannot read is shown, counted, and kept until discarded", async ({ page, notes }) => {
    await notes.goto();
    const prefix = await storagePrefix(page);
    await page.evaluate((prefix) => {
      localStorage.setItem(`${prefix}intent.damaged`, "{not json");
      localStorage.setItem(`${prefix}intent.future`, JSON.stringify({ v: 99, key: "future", op: "teleport" }));
    }, prefix);
    await notes.reload();
    await expect(notes.statusLine).toContainText("2 not yet saved");
    const damaged = page.locator(`[data-storage-key="${prefix}intent.damaged"]`);
    const future = page.locator(`[data-storage-key="${prefix}intent.future"]`);
    await expect(damaged).toContainText("cannot be read");
    await expect(future).toContainText("newer version");
    await expect(future.getByRole("button", { name: "Discard" })).toHaveCount(0);

    await damaged.getByRole("button", { name: "Discard" }).click();
    await expect(damaged).toHaveCount(0);
    await expect(notes.statusLine).toContainText("1 not yet saved");
    expect(await page.evaluate((key) => localStorage.getItem(key), `${prefix}intent.future`)).not.toBeNull();
    await page.evaluate((key) => localStorage.removeItem(key), `${prefix}intent.future`);
  });
});

test("while online, an intent whose burst ended is retried in the background without any press", async ({
  page,
  notes,
  requests,
  request,
  unique,
}) => {
  const title = unique("Background retry");
  await page.clock.install();
  let refusing = true;
  await page.route("**/api/notes", (route) =>
    route.request().method() === "POST" && refusing ? route.abort("connectionrefused") : route.continue(),
  );
  await notes.goto();
  await notes.save(title);
  // The burst: five attempts with backoff (at most 0.5 + 1 + 2 + 4 s between them).
  for (let i = 0; i < 12 && requests.sent.length < 5; i++) await page.clock.runFor(1_000);
  await expect(notes.unsavedTitled(title)).toContainText("waiting");
  expect(requests.sent).toHaveLength(5);

  refusing = false; // the server is back; nobody presses anything
  await page.clock.runFor(30_000);
  expect(requests.sent).toHaveLength(5); // not yet: the retry is slow
  await page.clock.runFor(60_000);
  await expect(notes.savedTitled(title)).toHaveCount(1);
  expect(new Set(requests.keys()).size).toBe(1);
  expect(await notesTitled(request, title)).toHaveLength(1);
});
