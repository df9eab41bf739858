import { randomUUID } from "node:crypto";
import {
  test as base,
  expect,
  type APIRequestContext,
  type Page,
  type PlaywrightWorkerArgs,
  type Request,
} from "@playwright/test";

const crypto = { randomUUID };

/** A note as the API returns it. */
export interface Note {
  id: string;
  title: string;
  body: string;
  written_at: string;
  created_at: string;
  updated_at: string;
  version: number;
  trashed_at: string | null;
  conflict_of: string | null;
  tags: string[];
  pinned: boolean;
  /** The body rendered from Markdown (on a single note's answers). */
  html?: string;
}

/** Creates a note through the API (as another device would) and returns it. */
export async function createNote(request: APIRequestContext, title: string, body = "created by a test", base = ""): Promise<Note> {
  const response = await request.post(`${base}/api/notes`, {
    headers: { "idempotency-key": crypto.randomUUID() },
    data: { title, body, written_at: new Date().toISOString() },
  });
  expect(response.status()).toBe(201);
  return (await response.json()) as Note;
}

/** Edits a note through the API from `base` (as another device would). */
export async function editNote(request: APIRequestContext, note: Note, body: string, baseVersion = note.version): Promise<unknown> {
  const response = await request.patch(`/api/notes/${note.id}`, {
    headers: { "idempotency-key": crypto.randomUUID() },
    data: { title: note.title, body, base_version: baseVersion, written_at: new Date().toISOString() },
  });
  expect(response.status()).toBe(200);
  return response.json();
}

/** A note as the server has it now (`null` when it is gone). */
export async function noteOnServer(request: APIRequestContext, id: string, base = ""): Promise<Note | null> {
  const response = await request.get(`${base}/api/notes/${id}`);
  if (response.status() === 404) return null;
  expect(response.status()).toBe(200);
  return (await response.json()) as Note;
}

/** A note's revisions as the server has them, oldest first, each with its body: the server
 * lists the history a page at a time without bodies, and gives one version's body on its own. */
export async function revisionsOf(
  request: APIRequestContext,
  id: string,
  base = "",
): Promise<Array<{ version: number; kind: string; body: string; title: string }>> {
  const listed: Array<{ version: number }> = [];
  let cursor: string | null = null;
  do {
    const query: string = cursor === null ? "" : `?cursor=${encodeURIComponent(cursor)}`;
    const response = await request.get(`${base}/api/notes/${id}/revisions${query}`);
    expect(response.status()).toBe(200);
    const page = (await response.json()) as { revisions: Array<{ version: number }>; next: string | null };
    listed.push(...page.revisions);
    cursor = page.next;
  } while (cursor !== null);
  return Promise.all(
    listed.map(async ({ version }) => {
      const response = await request.get(`${base}/api/notes/${id}/revisions/${version}`);
      expect(response.status()).toBe(200);
      return response.json();
    }),
  );
}

/** The page object: the compose form, the two lists, and what the browser stored. */
export class NotesPage {
  /** What the page said on its console, and threw: shown when it fails to hydrate. */
  private readonly said: string[] = [];

  constructor(readonly page: Page) {
    page.on("console", (message) => {
      if (message.type() === "error" || message.type() === "warning") this.said.push(`${message.type()}: ${message.text()}`);
    });
    page.on("pageerror", (error) => this.said.push(`uncaught: ${error.message}`));
    page.on("response", async (response) => {
      if (response.request().isNavigationRequest() && response.frame() === page.mainFrame()) {
        const csp = (await response.headersArray().catch(() => [])).filter((h) => h.name.toLowerCase() === "content-security-policy");
        this.said.push(`page ${response.url()} ${response.status()} from the service worker: ${response.fromServiceWorker()}; CSP: ${csp.map((h) => h.value).join(" | ")}`);
      }
    });
  }

  /** Opens the page and waits for hydration: a click before it would be lost. */
  async goto(base = "") {
    await this.page.goto(`${base}/`);
    await this.hydrated();
  }

  /** Waits until the service worker controls the page (the shell is cached). */
  async offlineReady() {
    await this.page.evaluate(async () => {
      await navigator.serviceWorker.ready;
      if (!navigator.serviceWorker.controller) {
        await new Promise((r) => navigator.serviceWorker.addEventListener("controllerchange", r, { once: true }));
      }
    });
  }

  get statusLine() {
    return this.page.getByTestId("status-line");
  }

  async reload() {
    await this.page.reload();
    await this.hydrated();
  }

  async hydrated() {
    try {
      await this.page.locator('body[data-hydrated="true"]').waitFor({ timeout: 30_000 });
    } catch (error) {
      throw new Error(`${this.page.url()} did not hydrate; the page said:\n${this.said.join("\n") || "(nothing)"}`, { cause: error });
    }
  }

  get title() {
    return this.page.getByLabel("Title");
  }
  get body() {
    return this.page.getByLabel("Body");
  }
  get saveButton() {
    return this.page.getByRole("button", { name: "Save" });
  }
  /** The message about the last press (validation, storage full, a refused draft). */
  get notice() {
    return this.page.getByTestId("notice");
  }
  get unsaved() {
    return this.page.getByTestId("unsaved-notes").locator("li");
  }
  get saved() {
    return this.page.getByTestId("saved-notes").locator("li");
  }
  savedTitled(title: string) {
    return this.page.getByTestId("saved-notes").locator("li", { hasText: title });
  }
  unsavedTitled(title: string) {
    return this.page.getByTestId("unsaved-notes").locator("li", { hasText: title });
  }

  async write(title: string, body = "written by a test") {
    await this.title.fill(title);
    await this.body.fill(body);
  }

  /** Writes a note and presses Save once. */
  async save(title: string, body?: string) {
    await this.write(title, body);
    await this.saveButton.click();
  }

  /** The intents waiting in localStorage. */
  async storedIntents(): Promise<Array<{ key: string; title: string; written_at: string; state: { kind: string } }>> {
    return this.page.evaluate(() =>
      Object.keys(localStorage)
        .filter((name) => name.startsWith(`oncenote.u.${document.body.dataset.user}.intent.`))
        .map((name) => JSON.parse(localStorage.getItem(name) ?? "null"))
        .sort((a, b) => (a.written_at < b.written_at ? -1 : a.written_at > b.written_at ? 1 : 0)),
    );
  }
}

/** The prefix of the signed-in person's entries in localStorage (`oncenote.u.<user id>.`). */
export async function storagePrefix(page: Page): Promise<string> {
  const user = await page.evaluate(() => document.body.dataset.user ?? "");
  expect(user, "the page names who is signed in").not.toBe("");
  return `oncenote.u.${user}.`;
}

/**
 * Fills the site's localStorage to the last byte with filler entries (the app's own
 * entries stay); returns how many entries it took.
 */
export async function fillLocalStorage(page: Page): Promise<number> {
  return page.evaluate(() => {
    let n = 0;
    for (let size = 1 << 20; size >= 1; size >>= 1) {
      const filler = "x".repeat(size);
      for (;;) {
        try {
          localStorage.setItem(`e2e.filler.${n}`, filler);
          n += 1;
        } catch {
          break;
        }
      }
    }
    return n;
  });
}

/** Removes the filler entries again. */
export async function freeLocalStorage(page: Page) {
  await page.evaluate(() => {
    for (const name of Object.keys(localStorage)) if (name.startsWith("e2e.filler.")) localStorage.removeItem(name);
  });
}

/** Every write the page makes (`POST /api/notes` by default; `all` for every method and
 * note route), with its key and when it left. */
export class SaveRequests {
  readonly sent: Array<{ key: string; at: number; body: string; method: string; path: string; done?: number }> = [];

  constructor(page: Page, all = false) {
    const pending = new Map<Request, (typeof this.sent)[number]>();
    page.on("request", (request: Request) => {
      const path = new URL(request.url()).pathname;
      const isCreate = request.method() === "POST" && path === "/api/notes";
      const isWrite = request.method() !== "GET" && path.startsWith("/api/notes");
      if (all ? isWrite : isCreate) {
        const entry = {
          key: request.headers()["idempotency-key"] ?? "",
          at: Date.now(),
          body: request.postData() ?? "",
          method: request.method(),
          path,
        };
        this.sent.push(entry);
        pending.set(request, entry);
      }
    });
    const finish = (request: Request) => {
      const entry = pending.get(request);
      if (entry) {
        entry.done = Date.now();
        pending.delete(request);
      }
    };
    page.on("requestfinished", finish);
    page.on("requestfailed", finish);
  }

  keys() {
    return this.sent.map((s) => s.key);
  }
}

/**
 * Waits until the page's offline copy (IndexedDB `oncenote-copy-<user>`) has read the feed
 * up to where the page stands (`<body data-seq>`): until then the copy reads
 * `/api/changes` too, which a test that answers "the next read" of the feed must not meet.
 */
export async function offlineCopyCaughtUp(page: Page) {
  await expect
    .poll(
      () =>
        page.evaluate(async () => {
          const name = `oncenote-copy-${document.body.dataset.user}`;
          if (!(await indexedDB.databases()).some((d) => d.name === name)) return false;
          const db = await new Promise<IDBDatabase>((resolve, reject) => {
            const open = indexedDB.open(name);
            open.onsuccess = () => resolve(open.result);
            open.onerror = () => reject(open.error);
          });
          try {
            if (!db.objectStoreNames.contains("meta")) return false;
            const cursor = await new Promise<unknown>((resolve, reject) => {
              const request = db.transaction("meta").objectStore("meta").get("cursor");
              request.onsuccess = () => resolve(request.result);
              request.onerror = () => reject(request.error);
            });
            return typeof cursor === "number" && cursor >= Number(document.body.dataset.seq ?? 0);
          } finally {
            db.close();
          }
        }),
      { timeout: 30_000 },
    )
    .toBe(true);
}

/** The paths of the pages the service worker keeps for reading offline, for everyone. */
export async function keptPagePaths(page: Page): Promise<string[]> {
  return page.evaluate(async () => {
    const paths: string[] = [];
    for (const name of await caches.keys()) {
      if (!name.startsWith("oncenote-pages-")) continue;
      for (const request of await (await caches.open(name)).keys()) paths.push(new URL(request.url).pathname);
    }
    return paths;
  });
}

/** Notes on the server with exactly this title, read through the API (not the UI). */
export async function notesTitled(request: APIRequestContext, title: string, base = ""): Promise<Note[]> {
  return (await allNotes(request, base)).filter((n) => n.title === title);
}

/** Every note on the server, newest first, read through the API. */
export async function allNotes(request: APIRequestContext, base = ""): Promise<Note[]> {
  const found: Note[] = [];
  let url = `${base}/api/notes?limit=200`;
  for (;;) {
    const response = await request.get(url);
    expect(response.status()).toBe(200);
    const page = (await response.json()) as { notes: Note[]; next: string | null };
    found.push(...page.notes);
    if (!page.next) return found;
    url = `${base}/api/notes?limit=200&cursor=${encodeURIComponent(page.next)}`;
  }
}

let counter = 0;

export const test = base.extend<{ notes: NotesPage; requests: SaveRequests; unique: (label: string) => string }>({
  notes: async ({ page }, use) => {
    await use(new NotesPage(page));
  },
  requests: async ({ page }, use) => {
    await use(new SaveRequests(page));
  },
  unique: async ({}, use, testInfo) => {
    await use((label: string) => `${label} ${testInfo.workerIndex}-${Date.now()}-${counter++}`);
  },
});

export { expect };

/** Handles the first save request with `act`; every other request goes through. */
export async function onFirstSave(
  page: import("@playwright/test").Page,
  act: (route: import("@playwright/test").Route) => Promise<void>,
) {
  let handled = false;
  await page.route("**/api/notes", async (route) => {
    if (route.request().method() !== "POST" || handled) return route.continue();
    handled = true;
    await act(route);
  });
}

/** Signs the page's person out with the masthead's button; waits for the sign-in page. */
export async function signOut(page: Page) {
  await page.getByRole("button", { name: "Sign out" }).click();
  await page.waitForURL((url) => url.pathname === "/sign-in");
}

/** A second person on the server at `server.url`, made by invitation from the admin
 * (accepted from a request context of its own: accepting signs in). */
export async function secondPerson(
  admin: APIRequestContext,
  playwright: PlaywrightWorkerArgs["playwright"],
  server: { url: string },
) {
  const invitation = await admin.post(`${server.url}/api/invitations`);
  expect(invitation.status()).toBe(201);
  const { token } = (await invitation.json()) as { token: string };
  const bea = { username: `bea-${Date.now()}`, password: "bea's long password" };
  const own = await playwright.request.newContext();
  expect((await own.post(`${server.url}/api/invitations/${token}/accept`, { data: bea })).status()).toBe(201);
  await own.dispose();
  return bea;
}
