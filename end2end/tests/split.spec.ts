import { test, expect, createNote, NotesPage } from "./fixtures";
import type { Page } from "@playwright/test";

// The release wasm is split by page (app/src/lazy_pages.rs, `cargo leptos build --split`):
// the home page needs only the main wasm; every other page fetches its own chunks, then
// hydrates and works.

/** The `/pkg/*.wasm` files the page fetches while it opens and hydrates. */
async function wasmFetchedOpening(page: Page, path: string): Promise<string[]> {
  const fetched: string[] = [];
  const seen = (url: string) => {
    const name = new URL(url).pathname;
    if (name.startsWith("/pkg/") && name.endsWith(".wasm")) fetched.push(name);
  };
  page.on("request", (request) => seen(request.url()));
  const notes = new NotesPage(page);
  await page.goto(path);
  await notes.hydrated();
  page.removeAllListeners("request");
  return fetched;
}

test("the home page hydrates from the main wasm alone", async ({ page, unique }) => {
  // Every other wasm file (the later pages' chunks, which the live page preloads for the
  // search box) fails to arrive: the home page still hydrates, and a note saves.
  const refused: string[] = [];
  await page.route("**/pkg/*.wasm", (route) => {
    const name = new URL(route.request().url()).pathname;
    if (/^\/pkg\/oncenote\.[^/]+\.wasm$/.test(name)) return route.continue();
    refused.push(name);
    return route.abort();
  });
  const notes = new NotesPage(page);
  await notes.goto();
  const title = unique("Home without chunks");
  await notes.write(title);
  await notes.saveButton.click();
  await expect(notes.savedTitled(title)).toBeVisible();
  expect(refused.some((name) => name.includes("split___search_route")), `refused: ${refused.join(", ")}`).toBe(true);
});

test("a note page fetches its own chunks, hydrates, and its buttons work", async ({ page, request, unique }) => {
  const note = await createNote(request, unique("Split"), "a body in a chunk");
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  const fetched = await wasmFetchedOpening(page, `/notes/${note.id}`);
  expect(fetched.filter((f) => f.includes("split___note_route")).length).toBe(1);
  // The Edit button's handler is in the note page's chunk: a click opens the editor.
  await page.getByRole("button", { name: "Edit" }).click();
  await expect(page.locator("#edit-body")).toHaveValue("a body in a chunk");
  expect(errors).toEqual([]);
});

test("every page after the first hydrates with its chunk and no error", async ({ page, request, unique }) => {
  const note = await createNote(request, unique("Split pages"), "tagged #split-pages");
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(`${page.url()}: ${error.message}`));
  const pages: Array<[string, string]> = [
    [`/notes/${note.id}/history`, "history_route"],
    ["/trash", "trash_route"],
    ["/search?q=split", "search_route"],
    ["/tags", "tags_route"],
    ["/tags/split-pages", "tag_route"],
    ["/account", "account_route"],
    ["/admin", "admin_route"],
  ];
  for (const [path, chunk] of pages) {
    const fetched = await wasmFetchedOpening(page, path);
    expect(fetched.some((f) => f.includes(`split___${chunk}`)), `${path} fetched ${fetched.join(", ")}`).toBe(true);
  }
  expect(errors).toEqual([]);
});
