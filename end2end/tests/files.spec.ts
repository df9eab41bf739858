import AxeBuilder from "@axe-core/playwright";
import { createHash } from "node:crypto";
import { deflateSync } from "node:zlib";
import type { APIRequestContext, Page } from "@playwright/test";
import { test, expect, notesTitled, NotesPage } from "./fixtures";

// Files in notes (issue 18): pasted, dropped or picked in the editor, kept in the browser,
// uploaded once (PUT /api/files/{sha256}) before the note that refers to them.

const CRC_TABLE = Array.from({ length: 256 }, (_, n) => {
  let c = n;
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
  return c >>> 0;
});

function crc32(bytes: Buffer): number {
  let c = 0xffffffff;
  for (const b of bytes) c = CRC_TABLE[(c ^ b) & 0xff] ^ (c >>> 8);
  return (c ^ 0xffffffff) >>> 0;
}

function chunk(type: string, data: Buffer): Buffer {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const body = Buffer.concat([Buffer.from(type, "ascii"), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** A real PNG, `width`×`height`, of one random colour: bytes no other test uploads (the
 * e2e account is shared, and a person's same bytes are one file). */
function uniquePng(width = 40, height = 30): Buffer {
  const [r, g, b] = [0, 0, 0].map(() => Math.floor(Math.random() * 256));
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8); // 8-bit RGB
  const row = Buffer.concat([Buffer.from([0]), Buffer.from(Array.from({ length: width }, () => [r, g, b]).flat())]);
  const pixels = Buffer.concat(Array.from({ length: height }, () => row));
  // A random text chunk too: two runs drawing the same colour still differ.
  const salt = Buffer.from(`Comment\0${Math.random()}-${Date.now()}`, "latin1");
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk("IHDR", header),
    chunk("tEXt", salt),
    chunk("IDAT", deflateSync(pixels)),
    chunk("IEND", Buffer.alloc(0)),
  ]);
}

const sha256 = (bytes: Buffer) => createHash("sha256").update(bytes).digest("hex");

/** The person's files on the server with this name (0 or 1), through every page of the list. */
async function storedFiles(request: APIRequestContext, sha: string): Promise<number> {
  let found = 0;
  let cursor: string | null = null;
  do {
    const query: string = cursor === null ? "" : `?cursor=${encodeURIComponent(cursor)}`;
    const response = await request.get(`/api/files${query}`);
    expect(response.status()).toBe(200);
    const list = (await response.json()) as { files: Array<{ sha256: string }>; next: string | null };
    found += list.files.filter((f) => f.sha256 === sha).length;
    cursor = list.next;
  } while (cursor !== null);
  return found;
}

/** Every PUT of a file the page makes: its status once answered, "failed" when it broke off. */
function filePuts(page: Page): Array<number | "failed" | "pending"> {
  const puts: Array<number | "failed" | "pending"> = [];
  const index = new Map<import("@playwright/test").Request, number>();
  page.on("request", (r) => {
    if (r.method() === "PUT" && new URL(r.url()).pathname.startsWith("/api/files/")) {
      index.set(r, puts.length);
      puts.push("pending");
    }
  });
  page.on("response", (r) => {
    const at = index.get(r.request());
    if (at !== undefined) puts[at] = r.status();
  });
  page.on("requestfailed", (r) => {
    const at = index.get(r);
    if (at !== undefined) puts[at] = "failed";
  });
  return puts;
}

type Kind = "paste" | "drop";

/** Pastes (or drops) `bytes` as the file `name` on the text area `selector`, as a
 * browser does with a screenshot on the clipboard or a file from the desktop. */
async function give(page: Page, selector: string, how: Kind, bytes: Buffer, name: string, type: string) {
  await page.locator(selector).evaluate(
    (area, { how, b64, name, type }) => {
      const data = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
      const transfer = new DataTransfer();
      transfer.items.add(new File([data], name, { type }));
      (area as HTMLTextAreaElement).focus();
      const event =
        how === "paste"
          ? new ClipboardEvent("paste", { clipboardData: transfer, bubbles: true, cancelable: true })
          : new DragEvent("drop", { dataTransfer: transfer, bubbles: true, cancelable: true });
      area.dispatchEvent(event);
    },
    { how, b64: bytes.toString("base64"), name, type },
  );
}

/** Opens the note titled `title` and waits until its image `sha` has loaded. */
async function expectImageShown(page: Page, request: APIRequestContext, title: string, sha: string, width: number) {
  const found = await notesTitled(request, title);
  expect(found).toHaveLength(1);
  expect(found[0].body).toContain(`/files/${sha}`);
  await page.goto(`/notes/${found[0].id}`);
  await new NotesPage(page).hydrated();
  const image = page.getByTestId("note-body").locator(`img[src="/files/${sha}"]`);
  await expect(image).toHaveAttribute("loading", "lazy");
  await expect(image).toHaveAttribute("alt", /\.png$/);
  await expect.poll(() => image.evaluate((i: HTMLImageElement) => (i.complete ? i.naturalWidth : -1))).toBe(width);
}

async function violations(page: Page) {
  const results = await new AxeBuilder({ page }).analyze();
  return results.violations.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(" ")).join(", ")})`);
}

test("a pasted image is uploaded once, the note refers to it and shows it", async ({ page, notes, request, unique }) => {
  const puts = filePuts(page);
  await notes.goto();
  const png = uniquePng();
  const sha = sha256(png);
  const title = unique("Pasted image");
  await notes.title.fill(title);
  await notes.body.fill("Look: ");
  await give(page, "#note-body", "paste", png, "whiteboard.png", "image/png");
  await expect(notes.body).toHaveValue(`Look: ![whiteboard.png](/files/${sha})`);
  await expect(page.getByTestId("uploads")).toContainText("whiteboard.png — uploaded");
  expect(await violations(page)).toEqual([]);
  await notes.saveButton.click();
  await expect(notes.savedTitled(title)).toBeVisible();
  expect(puts).toEqual([201]);
  expect(await storedFiles(request, sha)).toBe(1);
  await expectImageShown(page, request, title, sha, 40);
  expect(await violations(page)).toEqual([]);
});

test("a file that is not an image becomes a link, and picking works from the keyboard's control", async ({ page, notes, request, unique }) => {
  await notes.goto();
  const bytes = Buffer.from(`a report ${unique("pdf")}`);
  const sha = sha256(bytes);
  const title = unique("Picked file");
  await notes.title.fill(title);
  await page.getByLabel("Attach file").first().setInputFiles({ name: "report [v2].pdf", mimeType: "application/pdf", buffer: bytes });
  await expect(notes.body).toHaveValue(`[report \\[v2\\].pdf](/files/${sha})`);
  await expect(page.getByTestId("uploads")).toContainText("report [v2].pdf — uploaded");
  await notes.saveButton.click();
  await expect(notes.savedTitled(title)).toBeVisible();
  const [note] = await notesTitled(request, title);
  await page.goto(`/notes/${note.id}`);
  await expect(page.getByTestId("note-body").locator(`a[href="/files/${sha}"]`)).toHaveText("report [v2].pdf");
  expect(await storedFiles(request, sha)).toBe(1);

  // The account page lists it, and the room the files take against the quota.
  await page.goto("/account");
  await new NotesPage(page).hydrated();
  const files = page.getByTestId("account-files");
  await expect(page.getByTestId("files-usage")).toHaveText(/^[\d.]+ (bytes|KiB|MiB|GiB) of [\d.]+ (KiB|MiB|GiB|TiB) used by \d+ files?\.$/);
  const row = files.locator("tr", { has: page.locator(`a[href="/files/${sha}"]`) });
  await expect(row).toContainText(sha.slice(0, 12));
  await expect(row).toContainText(`${bytes.length} bytes`);
  await expect(row).toContainText("application/pdf");
  expect(await violations(page)).toEqual([]);
});

test("an image added and saved offline waits with its note, survives an offline reload, and goes first once back online", async ({
  page,
  context,
  notes,
  request,
  unique,
}) => {
  const puts = filePuts(page);
  const noteRequests: string[] = [];
  page.on("request", (r) => {
    const path = new URL(r.url()).pathname;
    if (r.method() === "POST" && path === "/api/notes") noteRequests.push("note");
    if (r.method() === "PUT" && path.startsWith("/api/files/")) noteRequests.push("file");
  });
  await notes.goto();
  await notes.offlineReady();
  await context.setOffline(true);
  await expect(notes.statusLine).toContainText("Offline");

  const png = uniquePng(24, 24);
  const sha = sha256(png);
  const title = unique("Offline image");
  await notes.title.fill(title);
  await give(page, "#note-body", "drop", png, "offline.png", "image/png");
  await expect(notes.body).toHaveValue(`![offline.png](/files/${sha})`);
  await expect(page.getByTestId("uploads")).toContainText("offline.png — kept here, waiting to upload");
  await notes.saveButton.click();
  await expect(notes.unsavedTitled(title)).toBeVisible();
  expect(puts).toEqual([]);

  const reloaded = await page.reload();
  expect(reloaded?.fromServiceWorker()).toBe(true);
  await notes.hydrated();
  await expect(notes.unsavedTitled(title)).toContainText("not yet saved");
  expect(puts).toEqual([]);

  await context.setOffline(false);
  await expect(notes.unsaved).toHaveCount(0, { timeout: 30_000 });
  expect(puts).toEqual([201]);
  expect(noteRequests).toEqual(["file", "note"]);
  expect(await storedFiles(request, sha)).toBe(1);
  await expectImageShown(page, request, title, sha, 24);
});

test("a slow upload shows its progress bar and label until it is done", async ({ page, notes, unique }) => {
  await page.route("**/api/files/*", async (route) => {
    if (route.request().method() !== "PUT") return route.continue();
    await new Promise((r) => setTimeout(r, 2_500));
    await route.continue();
  });
  await notes.goto();
  const png = uniquePng(200, 200);
  await notes.title.fill(unique("Slow upload"));
  await give(page, "#note-body", "paste", png, "slow.png", "image/png");
  const uploads = page.getByTestId("uploads");
  await expect(uploads.locator("progress")).toBeVisible();
  await expect(uploads).toContainText(/Uploading slow\.png — \d+ %/);
  await expect(uploads).toHaveAttribute("aria-live", "polite");
  expect(await violations(page)).toEqual([]);
  await expect(uploads).toContainText("slow.png — uploaded", { timeout: 20_000 });
  await expect(uploads.locator("progress")).toHaveCount(0);
});

test("a reload in the middle of an upload starts it again; one file is stored and the note follows", async ({
  page,
  notes,
  request,
  unique,
}) => {
  const puts = filePuts(page);
  let held = false;
  await page.route("**/api/files/*", async (route) => {
    if (route.request().method() !== "PUT") return route.continue();
    if (!held) {
      held = true; // the first upload never gets an answer
      return;
    }
    await route.continue();
  });
  await notes.goto();
  const png = uniquePng(32, 16);
  const sha = sha256(png);
  const title = unique("Reloaded upload");
  await notes.title.fill(title);
  await give(page, "#note-body", "paste", png, "held.png", "image/png");
  await expect(page.getByTestId("uploads")).toContainText("Uploading held.png");
  await notes.saveButton.click();
  await expect(notes.unsavedTitled(title)).toBeVisible();
  expect(await notesTitled(request, title)).toHaveLength(0); // the note waits for its file

  await notes.reload();
  await expect(notes.unsaved).toHaveCount(0, { timeout: 30_000 });
  expect(puts.filter((p) => p === 201)).toHaveLength(1);
  expect(await storedFiles(request, sha)).toBe(1);
  await expectImageShown(page, request, title, sha, 32);
});

test("the same file dropped twice is one reference each time but one upload and one file", async ({ page, notes, request, unique }) => {
  const puts = filePuts(page);
  await notes.goto();
  const png = uniquePng(12, 12);
  const sha = sha256(png);
  await notes.title.fill(unique("Dropped twice"));
  await give(page, "#note-body", "drop", png, "twice.png", "image/png");
  await give(page, "#note-body", "drop", png, "twice.png", "image/png");
  const reference = `![twice.png](/files/${sha})`;
  await expect(notes.body).toHaveValue(`${reference}${reference}`);
  await expect(page.getByTestId("uploads")).toContainText("twice.png — uploaded");
  await expect(page.getByTestId("uploads").locator("li")).toHaveCount(1);
  await notes.saveButton.click();
  await expect(notes.unsaved).toHaveCount(0);
  expect(puts.filter((p) => p === 201).length).toBeLessThanOrEqual(1);
  expect(puts.length).toBe(1);
  expect(await storedFiles(request, sha)).toBe(1);
});

test("a file the server swept while its note was still a draft is uploaded again before the note", async ({ page, notes, request, unique }) => {
  const puts = filePuts(page);
  await notes.goto();
  const png = uniquePng();
  const sha = sha256(png);
  const title = unique("Saved a week later");
  await notes.title.fill(title);
  await give(page, "#note-body", "paste", png, "late.png", "image/png");
  await expect(page.getByTestId("uploads")).toContainText("late.png — uploaded");
  expect(puts).toEqual([201]);

  // The draft sits for longer than the grace period: no note refers to the file, so the
  // server sweeps it. Its check of the file answers as the sweep leaves it (not found).
  const order: string[] = [];
  page.on("request", (r) => {
    const path = new URL(r.url()).pathname;
    if (path.startsWith("/files/") || path.startsWith("/api/files/") || path === "/api/notes") order.push(`${r.method()} ${path.split("/")[1] === "api" ? path.split("/").slice(0, 3).join("/") : "/files"}`);
  });
  await page.route(`**/files/${sha}`, async (route) => {
    if (route.request().method() === "HEAD") await route.fulfill({ status: 404 });
    else await route.continue();
  });
  await notes.saveButton.click();
  await expect(notes.savedTitled(title)).toBeVisible();
  // Checked, found gone, uploaded again from the bytes kept in the browser, then the note.
  expect(order).toEqual(["HEAD /files", "PUT /api/files", "POST /api/notes"]);
  expect(puts).toEqual([201, 200]);
  expect(await storedFiles(request, sha)).toBe(1);
});
