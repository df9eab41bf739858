import AxeBuilder from "@axe-core/playwright";
import { randomUUID } from "node:crypto";
import { test, expect, createNote, editNote, NotesPage } from "./fixtures";
import type { Page } from "@playwright/test";

// axe-core on every page, in the state a person sees it: zero violations.

async function violations(page: Page) {
  const results = await new AxeBuilder({ page }).analyze();
  return results.violations.map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => n.target.join(" ")).join(", ")})`);
}

async function open(page: Page, path: string) {
  await page.goto(path);
  await new NotesPage(page).hydrated();
}

test("every page has no accessibility violations", async ({ page, request, unique }) => {
  const note = await createNote(request, unique("Accessible"), "a body\nwith two lines");
  await editNote(request, note, "a body\nwith two lines, edited");
  const trashed = await createNote(request, unique("Accessible in the trash"));
  await request.delete(`/api/notes/${trashed.id}`, { headers: { "idempotency-key": randomUUID() } });

  const pages: Array<[string, () => Promise<void>]> = [
    ["home", () => open(page, "/")],
    ["note", () => open(page, `/notes/${note.id}`)],
    [
      "edit",
      async () => {
        await open(page, `/notes/${note.id}`);
        await page.getByRole("button", { name: "Edit" }).click();
        await expect(page.locator("#edit-body")).toBeVisible();
      },
    ],
    ["history", () => open(page, `/notes/${note.id}/history`)],
    ["a version", () => open(page, `/notes/${note.id}/history/1`)],
    ["search", () => open(page, `/search?q=${encodeURIComponent("accessible")}`)],
    ["trash", () => open(page, "/trash")],
    ["a note in the trash", () => open(page, `/notes/${trashed.id}`)],
    ["no such note", () => open(page, `/notes/${randomUUID()}`)],
    ["account", () => open(page, "/account")],
    [
      "people, with an invitation made",
      async () => {
        await open(page, "/admin");
        await page.getByRole("button", { name: "Invite someone" }).click();
        await expect(page.getByTestId("invitation-link")).toBeVisible();
      },
    ],
  ];
  const found: string[] = [];
  for (const [name, visit] of pages) {
    await visit();
    for (const violation of await violations(page)) found.push(`${name} — ${violation}`);
  }
  expect(found).toEqual([]);
});

test("the pages for people not signed in have no accessibility violations", async ({ browser }) => {
  const stranger = await browser.newContext({ storageState: { cookies: [], origins: [] } });
  const page = await stranger.newPage();
  const pages: Array<[string, () => Promise<void>]> = [
    ["sign in", () => open(page, "/sign-in")],
    [
      "sign in, refused",
      async () => {
        await open(page, "/sign-in");
        await page.getByLabel("Username").fill("nobody");
        await page.getByLabel("Password").fill("not a password");
        await page.getByRole("button", { name: "Sign in" }).click();
        await expect(page.getByRole("alert")).toBeVisible();
      },
    ],
    ["an invitation that does not exist", () => open(page, `/invite/${"0".repeat(64)}`)],
    ["setup, already done", () => open(page, "/setup")],
    ["sign up, closed here", () => open(page, "/sign-up")],
  ];
  const found: string[] = [];
  for (const [name, visit] of pages) {
    await visit();
    for (const violation of await violations(page)) found.push(`${name} — ${violation}`);
  }
  await stranger.close();
  expect(found).toEqual([]);
});
