import { randomUUID } from "node:crypto";
import { test, expect, notesTitled, onFirstSave } from "./fixtures";

/** Answers a save with a problem document, as the server would. */
async function fulfillProblem(
  route: import("@playwright/test").Route,
  status: number,
  slug: string,
  detail: string,
  headers: Record<string, string> = {},
) {
  await route.fulfill({
    status,
    headers: { "content-type": "application/problem+json", ...headers },
    body: JSON.stringify({ type: `/problems/${slug}`, title: "Refused", status, detail }),
  });
}

/** Makes the server unreachable for saves; returns what brings it back. */
async function refuseSaves(page: import("@playwright/test").Page): Promise<() => Promise<void>> {
  const refuse = async (route: import("@playwright/test").Route) =>
    route.request().method() === "POST" ? route.abort("connectionrefused") : route.continue();
  await page.route("**/api/notes", refuse);
  return () => page.unroute("**/api/notes", refuse);
}

// Holds every save for `ms` before it reaches the server, so presses land while the
// first attempt is still in flight.
async function slowSaves(page: import("@playwright/test").Page, ms: number) {
  await page.route("**/api/notes", async (route) => {
    if (route.request().method() !== "POST") return route.continue();
    await new Promise((r) => setTimeout(r, ms));
    await route.continue();
  });
}

test("double-clicking Save stores one note", async ({ page, notes, requests, request, unique }) => {
  const title = unique("Double click");
  await slowSaves(page, 500);
  await notes.goto();
  await notes.write(title);
  await notes.saveButton.dblclick();

  await expect(notes.savedTitled(title)).toHaveCount(1);
  await expect(notes.unsaved).toHaveCount(0);
  expect(await notesTitled(request, title)).toHaveLength(1);
  expect(new Set(requests.keys()).size).toBe(1);
});

test("rapid clicks plus Enter store one note", async ({ page, notes, requests, request, unique }) => {
  const title = unique("Rapid presses");
  await slowSaves(page, 800);
  await notes.goto();
  await notes.save(title);
  await notes.saveButton.click();
  await notes.title.press("Enter");
  await notes.saveButton.click();
  await notes.title.press("Enter");

  await expect(notes.savedTitled(title)).toHaveCount(1);
  await page.waitForTimeout(500); // room for a stray duplicate to show up
  expect(await notesTitled(request, title)).toHaveLength(1);
  expect(new Set(requests.keys()).size).toBe(1);
});

test("an answer lost after the commit is retried with the same key and shown as saved once", async ({
  page,
  notes,
  requests,
  request,
  unique,
}) => {
  const title = unique("Lost answer");
  await onFirstSave(page, async (route) => {
    await route.fetch(); // the server commits the note...
    await route.abort("failed"); // ...and the answer never reaches the page
  });
  await notes.goto();
  await notes.save(title);

  await expect(notes.savedTitled(title)).toHaveCount(1);
  await expect(notes.unsaved).toHaveCount(0);
  expect(requests.sent.length).toBeGreaterThanOrEqual(2);
  expect(new Set(requests.keys()).size).toBe(1);
  expect(await notesTitled(request, title)).toHaveLength(1);
  expect(await notes.storedIntents()).toHaveLength(0);
});

test("a save made while the server is unreachable survives a reload and is sent with its original key", async ({
  page,
  context,
  notes,
  requests,
  request,
  unique,
}) => {
  const title = unique("Unreachable");
  const serverBack = await refuseSaves(page);
  await notes.goto();
  await notes.save(title);

  await expect(notes.unsavedTitled(title)).toBeVisible();
  const [stored] = await notes.storedIntents();
  expect(stored.title).toBe(title);
  const key = stored.key;
  // The intent is stored (and shown unsaved) before its first attempt leaves: wait for it.
  await expect.poll(() => requests.keys()[0]).toBe(key);

  await notes.reload();
  await expect(notes.unsavedTitled(title)).toContainText("not yet saved");
  expect((await notes.storedIntents()).map((i) => i.key)).toEqual([key]);

  // The network comes back.
  await serverBack();
  await context.setOffline(true);
  await context.setOffline(false);

  await expect(notes.savedTitled(title)).toHaveCount(1, { timeout: 30_000 });
  expect(new Set(requests.keys())).toEqual(new Set([key]));
  const onServer = await notesTitled(request, title);
  expect(onServer).toHaveLength(1);
  expect(await notes.storedIntents()).toHaveLength(0);
});

test("a 503 with Retry-After is retried no earlier than asked and stores one note", async ({
  page,
  notes,
  requests,
  request,
  unique,
}) => {
  const title = unique("Busy server");
  await onFirstSave(page, (route) => fulfillProblem(route, 503, "busy", "busy", { "retry-after": "2" }));
  await notes.goto();
  await notes.save(title);

  await expect(notes.unsavedTitled(title)).toContainText("retrying in");
  await expect(notes.savedTitled(title)).toHaveCount(1);
  expect(requests.sent).toHaveLength(2);
  expect(requests.sent[1].key).toBe(requests.sent[0].key);
  expect(requests.sent[1].at - requests.sent[0].at).toBeGreaterThanOrEqual(2_000);
  expect(await notesTitled(request, title)).toHaveLength(1);
});

test("a full disk on the server is shown as such, the note kept, and sent with its key once there is room", async ({
  page,
  notes,
  requests,
  request,
  unique,
}) => {
  const title = unique("Full disk");
  // The first save meets a full disk: 507 storage-full, as the server answers it.
  await onFirstSave(page, (route) =>
    fulfillProblem(route, 507, "storage-full", "the server's disk is full; nothing was saved", {
      "retry-after": "3",
    }),
  );
  await notes.goto();
  await notes.save(title);

  const item = notes.unsavedTitled(title);
  await expect(item).toContainText(
    "the server's disk is full — your note is kept here and will be sent",
  );
  await expect(item).not.toContainText("failed");
  await expect(notes.savedTitled(title)).toHaveCount(1);
  expect(requests.sent).toHaveLength(2);
  expect(requests.sent[1].key).toBe(requests.sent[0].key);
  expect(requests.sent[1].at - requests.sent[0].at).toBeGreaterThanOrEqual(3_000);
  expect(await notesTitled(request, title)).toHaveLength(1);
});

test("a 422 is sent exactly once, shown as failed, and Discard removes it", async ({
  page,
  notes,
  requests,
  request,
  unique,
}) => {
  const title = unique("Refused");
  await page.route("**/api/notes", async (route) => {
    if (route.request().method() !== "POST") return route.continue();
    await fulfillProblem(route, 422, "validation-failed", "this note was refused by a test");
  });
  await notes.goto();
  await notes.save(title);

  const item = notes.unsavedTitled(title);
  await expect(item).toContainText("failed: this note was refused by a test");
  await expect(item.getByRole("button", { name: "Edit" })).toBeVisible();
  await page.waitForTimeout(1_500); // a retry would have left by now
  expect(requests.sent).toHaveLength(1);

  // Pressing Save on the unchanged draft does not resend it.
  await notes.saveButton.click();
  await expect(page.getByRole("alert")).toContainText("refused");
  expect(requests.sent).toHaveLength(1);

  await item.getByRole("button", { name: "Discard" }).click();
  await expect(notes.unsaved).toHaveCount(0);
  expect(await notes.storedIntents()).toHaveLength(0);
  expect(await notesTitled(request, title)).toHaveLength(0);
});

test("two deliberate saves of identical content store two notes", async ({ notes, requests, request, unique }) => {
  const title = unique("Twice on purpose");
  await notes.goto();
  await notes.save(title, "same body");
  await expect(notes.savedTitled(title)).toHaveCount(1);
  await expect(notes.title).toHaveValue("");

  await notes.save(title, "same body");
  await expect(notes.savedTitled(title)).toHaveCount(2);

  const onServer = await notesTitled(request, title);
  expect(onServer).toHaveLength(2);
  expect(onServer[0].id).not.toBe(onServer[1].id);
  expect(new Set(requests.keys()).size).toBe(2);
});

test("an invalid draft is explained and never sent", async ({ notes, requests }) => {
  await notes.goto();
  await notes.save("   ", "body without a title");
  await expect(notes.page.getByRole("alert")).toContainText("the title is empty");
  expect(requests.sent).toHaveLength(0);
  expect(await notes.storedIntents()).toHaveLength(0);
});

test.describe("with JavaScript off", () => {
  test.use({ javaScriptEnabled: false });

  test("saved notes are readable from the server-rendered page", async ({ page, request, unique }) => {
    const title = unique("No script");
    const response = await request.post("/api/notes", {
      headers: { "idempotency-key": randomUUID() },
      data: { title, body: "rendered on the server", written_at: new Date().toISOString() },
    });
    expect(response.status()).toBe(201);
    await page.goto("/");
    await expect(page.getByTestId("saved-notes").locator("li", { hasText: title })).toContainText(
      "rendered on the server",
    );
  });
});

test("a note whose title and body are script payloads renders as text and runs nothing", async ({
  page,
  notes,
  request,
  unique,
}) => {
  const marker = unique("xss").replace(/\W/g, "_");
  const title = `<img src=x onerror="window.${marker}=1">`;
  const body = `<script>window.${marker}=2</script><svg onload="window.${marker}=3">`;
  const response = await request.post("/api/notes", {
    headers: { "idempotency-key": randomUUID() },
    data: { title, body, written_at: new Date().toISOString() },
  });
  expect(response.status()).toBe(201);
  const dialogs: string[] = [];
  page.on("dialog", async (d) => {
    dialogs.push(d.message());
    await d.dismiss();
  });

  await notes.goto();
  await expect(notes.savedTitled(title)).toContainText(body);
  // A note saved from the page itself is shown the same way.
  await notes.save(`${title} typed`, body);
  await expect(notes.savedTitled(`${title} typed`)).toHaveCount(1);

  expect(await page.evaluate((m) => (window as unknown as Record<string, unknown>)[m], marker)).toBeUndefined();
  expect(await page.locator("img[src=x], svg[onload]").count()).toBe(0);
  expect(dialogs).toEqual([]);
});

test("a burst stops after five attempts, waits visibly, and Retry now sends the same key again", async ({
  page,
  notes,
  requests,
  request,
  unique,
}) => {
  const title = unique("Burst cap");
  const serverBack = await refuseSaves(page);
  await notes.goto();
  await notes.save(title);

  const item = notes.unsavedTitled(title);
  // Backoff before retries 2–5 is at most 0.5 + 1 + 2 + 4 s.
  await expect(item.getByRole("button", { name: "Retry now" })).toBeVisible({ timeout: 20_000 });
  await expect(item).toContainText("waiting");
  expect(requests.sent).toHaveLength(5);
  await page.waitForTimeout(1_500);
  expect(requests.sent).toHaveLength(5); // nothing more until something starts a new burst

  await serverBack();
  await item.getByRole("button", { name: "Retry now" }).click();
  await expect(notes.savedTitled(title)).toHaveCount(1);
  expect(requests.sent).toHaveLength(6);
  expect(new Set(requests.keys()).size).toBe(1);
  expect(await notesTitled(request, title)).toHaveLength(1);
});
