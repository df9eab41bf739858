import { test, expect, createNote, NotesPage } from "./fixtures";
import type { Page } from "@playwright/test";

// A search from the search box of a live page (issue 20): the results show without a page
// load — the router renders the search page here, its results from the API, or from the
// offline copy with no network — and going back to the page it came from loads that page
// whole (its data comes only with its HTML).

/** Marks the document, so a page load (which starts a new one) can be told apart. */
async function markDocument(page: Page) {
  await page.evaluate(() => ((window as unknown as { stayed: boolean }).stayed = true));
}

async function sameDocument(page: Page): Promise<boolean> {
  return page.evaluate(() => (window as unknown as { stayed?: boolean }).stayed === true);
}

async function searchFromTheBox(page: Page, words: string) {
  const box = page.getByRole("searchbox", { name: "Search notes" });
  await box.fill(words);
  await box.press("Enter");
  await page.waitForURL(/\/search\?q=/);
}

test("a search from a live page's box shows its results without a page load, and back loads the page it came from", async ({
  page,
  request,
  unique,
}) => {
  const word = unique("quokka").replace(/\W/g, "");
  await createNote(request, "Island animals", `A ${word} on Rottnest.`);
  const notes = new NotesPage(page);
  await notes.goto();
  await markDocument(page);

  await searchFromTheBox(page, word);
  const results = page.getByTestId("search-results").locator("li");
  await expect(results).toHaveCount(1);
  await expect(results.locator("mark")).toHaveText(word);
  await expect(results.getByRole("link", { name: "Island animals" })).toBeVisible();
  expect(await sameDocument(page), "no page was loaded").toBe(true);
  expect(new URL(page.url()).searchParams.get("q")).toBe(word);

  // The search page's own box too, with a word nothing holds.
  await page.getByRole("searchbox", { name: "Search for" }).fill(`${word}nothing`);
  await page.getByRole("searchbox", { name: "Search for" }).press("Enter");
  await expect(page.getByText(`No notes match “${word}nothing”.`)).toBeVisible();
  expect(await sameDocument(page)).toBe(true);

  // Back twice: the first results again (rendered here), then the home page, loaded.
  await page.goBack();
  await expect(results).toHaveCount(1);
  await page.goBack();
  await page.waitForURL((url) => url.pathname === "/");
  await notes.hydrated();
  expect(await sameDocument(page), "the home page was loaded whole").toBe(false);
  await expect(notes.saved.first()).toBeVisible();
});

test("offline, a live page's search box searches the offline copy", async ({ page, context, request, unique }) => {
  const word = unique("wombat").replace(/\W/g, "");
  const note = await createNote(request, "Burrows", `The ${word} digs at night.`);
  const notes = new NotesPage(page);
  await notes.goto();
  // The copy has the note once the page's sync has run.
  await expect
    .poll(
      () =>
        page.evaluate(async (id) => {
          const name = `oncenote-copy-${document.body.dataset.user}`;
          const db = await new Promise<IDBDatabase>((resolve, reject) => {
            const open = indexedDB.open(name);
            open.onsuccess = () => resolve(open.result);
            open.onerror = () => reject(open.error);
          });
          try {
            if (!db.objectStoreNames.contains("notes")) return false;
            return await new Promise<boolean>((resolve) => {
              const got = db.transaction("notes").objectStore("notes").get(id);
              got.onsuccess = () => resolve(got.result !== undefined);
              got.onerror = () => resolve(false);
            });
          } finally {
            db.close();
          }
        }, note.id),
      { timeout: 15_000 },
    )
    .toBe(true);
  await context.setOffline(true);
  try {
    await searchFromTheBox(page, word);
    const results = page.getByTestId("search-results").locator("li");
    await expect(results).toHaveCount(1);
    await expect(results.getByRole("link", { name: "Burrows" })).toBeVisible();
  } finally {
    await context.setOffline(false);
  }
});
