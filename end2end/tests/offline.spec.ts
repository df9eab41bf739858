import { test, expect, allNotes, keptPagePaths, notesTitled, NotesPage, SaveRequests } from "./fixtures";
import { E2E_USER } from "./global-setup";
import { OwnServer } from "./server";

async function cacheNames(page: import("@playwright/test").Page): Promise<string[]> {
  // The build's shell caches (each person's kept pages, and who was signed in last, have
  // caches of their own, across builds).
  return page.evaluate(async () =>
    (await caches.keys())
      .filter((n) => n.startsWith("oncenote-") && n !== "oncenote-meta" && !n.startsWith("oncenote-pages-"))
      .sort(),
  );
}

test("notes saved offline survive an offline reload and reach the server once each, in order", async ({
  page,
  context,
  notes,
  request,
  requests,
  unique,
}) => {
  const server = new OwnServer(3231);
  await server.start();
  await server.signIn(context);
  try {
    await notes.goto(server.url);
    await notes.offlineReady();
    await context.setOffline(true);
    await expect(notes.statusLine).toContainText("Offline");

    const titles = [1, 2, 3].map((i) => unique(`Offline ${i}`));
    for (const title of titles) {
      await notes.save(title);
      await expect(notes.unsavedTitled(title)).toBeVisible();
    }
    expect(requests.sent).toHaveLength(0); // no attempt is spent offline
    const intents = await notes.storedIntents();
    expect(intents.map((i) => i.title)).toEqual(titles);

    // The server is gone too, so the service worker's own fetch fails as well.
    await server.stop();
    const reloaded = await page.reload();
    expect(reloaded?.fromServiceWorker()).toBe(true);
    await notes.hydrated();
    for (const title of titles) {
      await expect(notes.unsavedTitled(title)).toContainText("not yet saved");
    }
    await expect(notes.statusLine).toContainText("3 not yet saved");

    await server.start();
    await context.setOffline(false);
    await expect(notes.unsaved).toHaveCount(0, { timeout: 30_000 });
    await expect(notes.statusLine).toContainText("every note is saved");

    const onServer = (await allNotes(context.request, server.url)).reverse(); // oldest first
    expect(onServer.map((n) => n.title)).toEqual(titles);
    expect(onServer.map((n) => n.written_at)).toEqual(intents.map((i) => i.written_at));
    expect(new Set(requests.keys())).toEqual(new Set(intents.map((i) => i.key)));
  } finally {
    await server.stop();
  }
});

test("two tabs with pending notes send every note once and never the same key at the same time", async ({
  context,
  request,
  unique,
}) => {
  const tabs = [await context.newPage(), await context.newPage()].map((page) => ({
    page,
    notes: new NotesPage(page),
    requests: new SaveRequests(page),
  }));
  for (const tab of tabs) await tab.notes.goto();
  await context.setOffline(true);

  const titles = ["Tab one A", "Tab one B", "Tab two A", "Tab two B"].map(unique);
  for (const [i, title] of titles.entries()) {
    const tab = tabs[i < 2 ? 0 : 1];
    await tab.notes.save(title);
  }
  // Each tab sees the other's pending notes (one shared queue).
  for (const tab of tabs) await expect(tab.notes.unsaved).toHaveCount(4);

  await context.setOffline(false);
  for (const tab of tabs) await expect(tab.notes.unsaved).toHaveCount(0, { timeout: 30_000 });

  for (const title of titles) {
    expect(await notesTitled(request, title)).toHaveLength(1);
    // A note saved in one tab appears in the other.
    for (const tab of tabs) await expect(tab.notes.savedTitled(title)).toHaveCount(1);
  }
  const [one, two] = tabs.map((t) => t.requests.sent);
  for (const a of one) {
    for (const b of two) {
      if (a.key !== b.key) continue;
      const apart = (a.done ?? Infinity) <= b.at || (b.done ?? Infinity) <= a.at;
      expect(apart, `key ${a.key} was in flight from both tabs at once`).toBe(true);
    }
  }
});

test("a typed draft survives a reload", async ({ notes, unique }) => {
  const title = unique("Draft");
  await notes.goto();
  await notes.write(title, "half a thought\nand a second line");
  await notes.reload();
  await expect(notes.title).toHaveValue(title);
  await expect(notes.body).toHaveValue("half a thought\nand a second line");
  // Saving it empties the editor, and the emptied editor is what a reload shows.
  await notes.saveButton.click();
  await expect(notes.savedTitled(title)).toHaveCount(1);
  await notes.reload();
  await expect(notes.title).toHaveValue("");
});

test("a new build replaces the cached shell and the page still hydrates", async ({ page, context, notes, unique }) => {
  const server = new OwnServer(3232);
  await server.start({ ONCENOTE_BUILD_ID: "e2e-one" });
  await server.signIn(context);
  try {
    await notes.goto(server.url);
    await notes.offlineReady();
    expect(await cacheNames(page)).toEqual(["oncenote-e2e-one"]);

    await server.stop();
    await server.start({ ONCENOTE_BUILD_ID: "e2e-two" });
    await notes.reload();
    await expect.poll(() => cacheNames(page), { timeout: 20_000 }).toEqual(["oncenote-e2e-two"]);

    await notes.reload();
    const title = unique("After the update");
    await notes.save(title);
    await expect(notes.savedTitled(title)).toHaveCount(1);
    expect(await notesTitled(context.request, title, server.url)).toHaveLength(1);
  } finally {
    await server.stop();
  }
});

test("the unsaved count and the close warning show while a note is pending and go after sync", async ({
  page,
  context,
  notes,
  unique,
}) => {
  const title = unique("Pending");
  await notes.goto();
  await expect(notes.statusLine).toContainText("Online · every note is saved");
  await context.setOffline(true);
  await notes.save(title);
  await expect(notes.statusLine).toContainText("Offline · 1 not yet saved");

  const dialogs: string[] = [];
  page.on("dialog", async (dialog) => {
    dialogs.push(dialog.type());
    await dialog.dismiss(); // stay on the page
  });
  await page.close({ runBeforeUnload: true });
  await expect.poll(() => dialogs).toEqual(["beforeunload"]);
  expect(page.isClosed()).toBe(false);

  await context.setOffline(false);
  await expect(notes.statusLine).toContainText("Online · every note is saved", { timeout: 30_000 });
  const closed = page.waitForEvent("close");
  await page.close({ runBeforeUnload: true });
  await closed;
  expect(dialogs).toEqual(["beforeunload"]);
});

test("a person who signs in while the service worker activates has the home page kept for reading offline", async ({
  browser,
}) => {
  const context = await browser.newContext({ storageState: { cookies: [], origins: [] } });
  const page = await context.newPage();
  const notes = new NotesPage(page);
  // The worker's first request for the home page is answered as the server answers it at
  // that moment (signed out: the sign-in waits for it), and the answer reaches the worker
  // only once the sign-in's redirect to "/" has left, or after 5 s if it cannot leave
  // before. Asked during the install (as it was), the redirect leaves before the worker
  // is active and the home page is kept by neither; asked while the worker activates (it
  // gives up on its own request after 3 s), the browser holds the sign-in's navigation
  // until the worker is active, and the worker keeps it.
  let workerAsked!: () => void;
  const asked = new Promise<void>((resolve) => (workerAsked = resolve));
  let homeLeft!: () => void;
  const left = new Promise<void>((resolve) => (homeLeft = resolve));
  let held = false;
  await context.route(
    (url) => url.pathname === "/",
    async (route) => {
      if (held || !route.request().serviceWorker()) return route.continue();
      held = true;
      const signedOut = await route.fetch();
      workerAsked();
      await Promise.race([left, new Promise((resolve) => setTimeout(resolve, 5_000))]);
      await route.fulfill({ response: signedOut });
    },
  );
  page.on("request", (request) => {
    if (request.isNavigationRequest() && request.method() === "GET" && new URL(request.url()).pathname === "/") homeLeft();
  });
  try {
    await page.goto("/sign-in");
    await notes.hydrated();
    await asked;
    await page.getByLabel("Username").fill(E2E_USER.username);
    await page.getByLabel("Password").fill(E2E_USER.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL((url) => url.pathname === "/");
    await notes.hydrated();
    await expect.poll(() => keptPagePaths(page), { timeout: 15_000 }).toContain("/");
  } finally {
    await context.close();
  }
});

test("a page's API requests go to the network without passing through the service worker, its assets through it", async ({
  page,
  notes,
}) => {
  await notes.goto();
  await notes.offlineReady();
  // Chromium's resource timing says which of the worker's static routes a request took
  // (`workerMatchedSourceType`: "network" for the route to the network, empty when no
  // route matched and the worker's fetch handler was asked). The stylesheet, which the
  // handler serves from the worker's cache, shows that the page is controlled and that a
  // request outside /api/ still goes to the handler.
  const routes = await page.evaluate(async () => {
    const stylesheet = (document.querySelector('link[rel="stylesheet"]') as HTMLLinkElement).href;
    const api = new URL(`/api/notes?limit=1&probe=${Date.now()}`, location.href).href;
    const asset = `${stylesheet}?probe=${Date.now()}`;
    await (await fetch(api)).arrayBuffer();
    await (await fetch(asset)).arrayBuffer();
    const route = async (url: string) => {
      // An entry may be recorded just after its body is read.
      for (let tries = 0; tries < 50; tries++) {
        const entry = performance.getEntriesByName(url).pop() as (PerformanceEntry & { workerMatchedSourceType?: string }) | undefined;
        if (entry) return entry.workerMatchedSourceType ?? "(no workerMatchedSourceType in this browser)";
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return `(no resource timing for ${url})`;
    };
    return { controlled: navigator.serviceWorker.controller !== null, api: await route(api), asset: await route(asset) };
  });
  expect(routes).toEqual({ controlled: true, api: "network", asset: "" });
});
