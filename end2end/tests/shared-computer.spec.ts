import { randomUUID, createHash } from "node:crypto";
import type { APIRequestContext, Page } from "@playwright/test";
import { test, expect, createNote, keptPagePaths, NotesPage, secondPerson, signOut } from "./fixtures";
import { OwnServer } from "./server";

// Issue #60, "a shared computer still shows the last person's notes": once a person leaves
// a browser — signs out, their session ends elsewhere, someone else signs in — nothing of
// theirs is left there for the next person: not in the service worker's caches (their kept
// pages and images), not in the browser's HTTP cache (a file, a page that Back would
// show), and not offline.
//
// Each test has a server of its own (stopped at its end, so two may take the same port):
// signing out would end the session the other tests share.
// No test routes a request: Playwright's routing turns the HTTP cache off.

/** The Cache Storage caches that hold someone's kept pages or images. */
async function personCaches(page: Page): Promise<string[]> {
  return page.evaluate(async () =>
    (await caches.keys()).filter((name) => name.startsWith("oncenote-pages-") || name.startsWith("oncenote-files-")),
  );
}

/** The paths of the images the service worker keeps for showing offline, for everyone. */
async function keptImagePaths(page: Page): Promise<string[]> {
  return page.evaluate(async () => {
    const paths: string[] = [];
    for (const name of await caches.keys()) {
      if (!name.startsWith("oncenote-files-")) continue;
      for (const request of await (await caches.open(name)).keys()) paths.push(new URL(request.url).pathname);
    }
    return paths;
  });
}

/** Who the service worker remembers as signed in last (`-`: nobody). */
async function ownerRemembered(page: Page): Promise<string | null> {
  return page.evaluate(async () => {
    const entry = await caches.match("/owner", { cacheName: "oncenote-meta" });
    return entry ? entry.text() : null;
  });
}

/** The person the page was rendered for. */
async function personOf(page: Page): Promise<string> {
  const user = await page.evaluate(() => document.body.dataset.user ?? "");
  expect(user, "the page names who is signed in").not.toBe("");
  return user;
}

/** A 1×1 GIF no other test has (its comment is its own), and its name on the server. */
function uniqueGif(): { bytes: Buffer; sha: string } {
  const comment = Buffer.from(`oncenote ${randomUUID()}`, "latin1");
  const bytes = Buffer.concat([
    Buffer.from("GIF89a", "latin1"),
    Buffer.from([1, 0, 1, 0, 0x80, 0, 0]), // 1×1, a colour table of two
    Buffer.from([0x33, 0x66, 0x99, 0xff, 0xff, 0xff]),
    Buffer.from([0x21, 0xfe, comment.length]), // a comment
    comment,
    Buffer.from([0]),
    Buffer.from([0x2c, 0, 0, 0, 0, 1, 0, 1, 0, 0]), // the image, 1×1 at 0,0
    Buffer.from([0x02, 0x02, 0x44, 0x01, 0x00]), // its one pixel
    Buffer.from([0x3b]),
  ]);
  return { bytes, sha: createHash("sha256").update(bytes).digest("hex") };
}

/** Uploads `gif` and writes a note that shows it; returns the note. */
async function noteWithImage(api: APIRequestContext, server: OwnServer, title: string, gif: { bytes: Buffer; sha: string }) {
  const uploaded = await api.put(`${server.url}/api/files/${gif.sha}`, { data: gif.bytes, headers: { "content-type": "image/gif" } });
  expect(uploaded.status()).toBe(201);
  return createNote(api, title, `A picture: ![pixel](/files/${gif.sha})`, server.url);
}

async function expectImageShown(page: Page, sha: string) {
  const image = page.getByTestId("note-body").locator(`img[src="/files/${sha}"]`);
  await expect.poll(() => image.evaluate((i: HTMLImageElement) => (i.complete ? i.naturalWidth : -1))).toBe(1);
}

test("signing out deletes every page and image the service worker kept for the person, and the list's excerpts of their notes, before the sign-in page shows", async ({
  page,
  context,
  notes,
  unique,
}) => {
  const server = new OwnServer(3311);
  await server.start();
  await server.signIn(context);
  try {
    const note = await noteWithImage(context.request, server, unique("Kept until sign-out"), uniqueGif());
    await notes.goto(server.url);
    await notes.offlineReady();
    await page.goto(`${server.url}/notes/${note.id}`);
    await notes.hydrated();
    await expect.poll(() => keptPagePaths(page), { timeout: 15_000 }).toEqual(expect.arrayContaining(["/", `/notes/${note.id}`]));
    const ada = await personOf(page);
    expect(await personCaches(page)).toContain(`oncenote-pages-${ada}`);
    // The list's excerpts of the person's notes, in localStorage.
    const excerpts = () => page.evaluate((key) => localStorage.getItem(key), `oncenote.u.${ada}.notes.v2`);
    await expect.poll(excerpts).toContain(note.title);

    await signOut(page);
    expect(await personCaches(page)).toEqual([]);
    expect(await keptPagePaths(page)).toEqual([]);
    expect(await ownerRemembered(page)).toBe("-");
    expect(await excerpts()).toBeNull();
  } finally {
    await server.stop();
  }
});

test("another person signing in on the same browser finds none of the pages kept for the one before", async ({
  page,
  context,
  notes,
  playwright,
  unique,
}) => {
  const server = new OwnServer(3312);
  await server.start();
  await server.signIn(context);
  try {
    const api = context.request;
    const note = await createNote(api, unique("Ada's private note"), "not for Bea", server.url);
    await notes.goto(server.url);
    await notes.offlineReady();
    await page.goto(`${server.url}/notes/${note.id}`);
    await notes.hydrated();
    await expect.poll(() => keptPagePaths(page), { timeout: 15_000 }).toContain(`/notes/${note.id}`);
    const ada = await personOf(page);

    // Bea signs in on this browser without Ada signing out (her tab left open), and opens
    // the app: her page could read any cache of this site.
    const bea = await secondPerson(api, playwright, server);
    expect((await api.post(`${server.url}/api/session`, { data: bea })).status()).toBe(204);
    await notes.goto(server.url);
    expect(await personOf(page)).not.toBe(ada);
    expect(await personCaches(page)).not.toContain(`oncenote-pages-${ada}`);
    const found = await page.evaluate(async (id) => (await caches.match(`/notes/${id}`)) !== undefined, note.id);
    expect(found, "Ada's note page is in no cache Bea's page can read").toBe(false);
  } finally {
    await server.stop();
  }
});

test("after sign-out, a file of the person's is asked of the server again, not served from the browser's HTTP cache", async ({
  page,
  context,
  notes,
  unique,
}) => {
  const server = new OwnServer(3313);
  await server.start();
  await server.signIn(context);
  try {
    const gif = uniqueGif();
    const note = await noteWithImage(context.request, server, unique("With a picture"), gif);
    await notes.goto(server.url);
    await page.goto(`${server.url}/notes/${note.id}`);
    await notes.hydrated();
    await expectImageShown(page, gif.sha);
    // Read as a download or a script would read it: the HTTP cache has it now.
    const status = (sha: string) => page.evaluate(async (sha) => (await fetch(`/files/${sha}`)).status, sha);
    expect(await status(gif.sha)).toBe(200);

    await signOut(page);
    // Whoever is at this browser next meets the owner check.
    expect(await status(gif.sha)).toBe(404);
    const opened = await page.goto(`${server.url}/files/${gif.sha}`);
    expect(opened?.status()).toBe(404);
  } finally {
    await server.stop();
  }
});

for (const worker of ["with", "without"] as const) {
  test(`a page of the person's is never stored by the browser's HTTP cache, so Back after sign-out shows nothing of it (${worker} the service worker)`, async ({
    browser,
    unique,
  }) => {
    const server = new OwnServer(3314);
    await server.start();
    // Without a worker as in a browser that runs none (Firefox's private windows), or before
    // the worker controls the page: Back reads the HTTP cache itself.
    const context = await browser.newContext({ serviceWorkers: worker === "with" ? "allow" : "block" });
    const page = await context.newPage();
    const notes = new NotesPage(page);
    await server.signIn(context);
    try {
      const note = await createNote(context.request, unique("Not after Back"), "nobody else's business", server.url);
      await notes.goto(server.url);
      if (worker === "with") await notes.offlineReady();
      const home = await page.goto(`${server.url}/`);
      const opened = await page.goto(`${server.url}/notes/${note.id}`);
      await notes.hydrated();
      await expect(page.locator("#note-title")).toHaveText(note.title);
      if (worker === "with") {
        // The worker keeps them all the same, for reading offline (Cache Storage is not the
        // HTTP cache), until the person leaves.
        await expect.poll(() => keptPagePaths(page), { timeout: 15_000 }).toEqual(expect.arrayContaining(["/", `/notes/${note.id}`]));
      }

      await signOut(page);
      await page.goBack();
      await expect(page).toHaveURL((url) => url.pathname === "/sign-in");
      await expect(page.getByText(note.title)).toHaveCount(0);
      expect(home?.headers()["cache-control"]).toBe("no-store");
      expect(opened?.headers()["cache-control"]).toBe("no-store");
    } finally {
      await context.close();
      await server.stop();
    }
  });
}

test("offline, after the person's session ended on another device, the service worker shows nothing of theirs", async ({
  page,
  context,
  notes,
  playwright,
  unique,
}) => {
  const server = new OwnServer(3315);
  await server.start();
  await server.signIn(context);
  try {
    const note = await createNote(context.request, unique("Before the session ended"), "kept for reading offline", server.url);
    await notes.goto(server.url);
    await notes.offlineReady();
    await page.goto(`${server.url}/notes/${note.id}`);
    await notes.hydrated();
    await expect.poll(() => keptPagePaths(page), { timeout: 15_000 }).toEqual(expect.arrayContaining(["/", `/notes/${note.id}`]));

    // Signed out on another device (the same session, ended through the API there): this
    // browser keeps its cookie, dead now, and loads no page before it goes offline — only
    // the open page learns of it, from its live stream.
    const elsewhere = await playwright.request.newContext({ storageState: await context.storageState() });
    expect((await elsewhere.delete(`${server.url}/api/session`)).status()).toBe(204);
    await elsewhere.dispose();
    await expect(page.getByTestId("session-ended")).toBeVisible();
    await expect.poll(() => personCaches(page)).toEqual([]);

    await context.setOffline(true);
    await server.stop();
    for (const path of ["/", `/notes/${note.id}`]) {
      await page.goto(`${server.url}${path}`);
      await expect(page.getByRole("heading", { name: "You are offline" })).toBeVisible();
      await expect(page.getByText(note.title)).toHaveCount(0);
    }
  } finally {
    await context.setOffline(false);
    await server.stop();
  }
});

test("an image seen in a note online is shown offline, to the same person, from the service worker's own copy", async ({
  page,
  context,
  notes,
  unique,
}) => {
  const server = new OwnServer(3316);
  await server.start();
  await server.signIn(context);
  try {
    const gif = uniqueGif();
    const note = await noteWithImage(context.request, server, unique("A picture for offline"), gif);
    await notes.goto(server.url);
    await notes.offlineReady();
    await page.goto(`${server.url}/notes/${note.id}`);
    await notes.hydrated();
    await expectImageShown(page, gif.sha);
    await expect.poll(() => keptImagePaths(page), { timeout: 15_000 }).toContain(`/files/${gif.sha}`);
    // Opened on its own, the file is no page to keep (though it names its owner too).
    expect((await page.goto(`${server.url}/files/${gif.sha}`))?.status()).toBe(200);
    await page.goto(`${server.url}/notes/${note.id}`);
    await notes.hydrated();
    expect((await keptPagePaths(page)).filter((path) => path.startsWith("/files/"))).toEqual([]);

    // The browser's HTTP cache would ask the server first (`no-cache`), and there is none.
    await context.setOffline(true);
    await server.stop();
    await page.goto(`${server.url}/notes/${note.id}`);
    await notes.hydrated();
    await expect(page.locator("#note-title")).toHaveText(note.title);
    await expectImageShown(page, gif.sha);
  } finally {
    await context.setOffline(false);
    await server.stop();
  }
});
