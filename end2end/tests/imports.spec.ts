import AxeBuilder from "@axe-core/playwright";
import { existsSync } from "node:fs";
import { resolve } from "node:path";
import { test, expect } from "./fixtures";
import { OwnServer } from "./server";

// Imports from other apps (issue 19), from the account page: a real Standard Notes backup
// (read where it lies, in ../shared/data/imports), its progress, its summary, and the
// same file again adding nothing. On a server of its own: the import adds 60-odd notes.

const samples = resolve(__dirname, "../../../shared/data/imports");
const backup = resolve(samples, "standardnotes/Standard Notes Backup - Fri Jan 14 2022 10_31_29 GMT+0500.zip");
const enex = resolve(samples, "enex/test-image-dataUrl.enex");

test("importing another app's export shows its progress, then what came in; the same file again adds nothing", async ({ page }) => {
  expect(existsSync(backup), `the real exports are missing: expected ${backup} (../shared beside the clone)`).toBe(true);
  const server = new OwnServer(3301);
  await server.start();
  try {
    await server.signIn(page.context());
    await page.goto(`${server.url}/account`);
    await page.locator('body[data-hydrated="true"]').waitFor({ timeout: 30_000 });
    const picker = page.getByLabel("Import a file");

    await picker.setInputFiles(backup);
    const result = page.getByRole("status").filter({ hasText: "Imported" });
    await expect(result).toContainText("Imported 63 notes", { timeout: 60_000 });
    const first = await page.request.get(`${server.url}/api/notes?limit=200`).then((r) => r.json());
    const count = first.notes.length;
    expect(count).toBe(63);
    expect(first.notes.filter((n: { pinned: boolean }) => n.pinned)).toHaveLength(4);

    // Again: every note was there already.
    await picker.setInputFiles(backup);
    await expect(result).toContainText(/Imported 0 notes, \d+ were here already/, { timeout: 60_000 });
    const again = await page.request.get(`${server.url}/api/notes?limit=200`).then((r) => r.json());
    expect(again.notes).toHaveLength(count);

    // An Evernote web clip: its image comes in as a file the note shows.
    await picker.setInputFiles(enex);
    await expect(result).toContainText(/Imported 1 note, \d+ files/, { timeout: 60_000 });

    // A file of no known kind is refused in words.
    await picker.setInputFiles({ name: "notes.zip", mimeType: "application/zip", buffer: Buffer.from("not an export") });
    await expect(page.getByRole("status").filter({ hasText: "Not imported" })).toContainText("Evernote");

    const axe = await new AxeBuilder({ page }).analyze();
    expect(axe.violations).toEqual([]);
  } finally {
    await server.stop();
  }
});

test("an import's progress is shown while the file goes up and the server reads it", async ({ page }) => {
  const server = new OwnServer(3302);
  await server.start();
  try {
    await server.signIn(page.context());
    // Slow the answer so each stage can be seen: the lines of progress are held back.
    await page.route("**/api/import", async (route) => {
      const response = await route.fetch();
      const body = await response.text();
      await new Promise((r) => setTimeout(r, 1_500));
      await route.fulfill({ response, body });
    });
    await page.goto(`${server.url}/account`);
    await page.locator('body[data-hydrated="true"]').waitFor({ timeout: 30_000 });
    await page.getByLabel("Import a file").setInputFiles(backup);
    await expect(page.getByLabel("Import a file")).toBeDisabled();
    await expect(page.locator(".import-progress progress")).toBeVisible();
    await expect(page.getByRole("status").filter({ hasText: "Imported" })).toBeVisible({ timeout: 60_000 });
    await expect(page.getByLabel("Import a file")).toBeEnabled();
  } finally {
    await server.stop();
  }
});
