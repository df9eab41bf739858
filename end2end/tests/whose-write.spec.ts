import { test, expect, notesTitled, NotesPage, SaveRequests } from "./fixtures";
import type { Page } from "@playwright/test";
import { E2E_USER } from "./global-setup";

// A tab keeps the person it was opened for; the browser's cookie can change under it.
// The review's finding (issue 15, item 8): A signs out in another tab and B signs in;
// a note A then saves in the old tab landed in B's account.

async function signIn(page: Page, username: string, password: string) {
  await page.goto("/sign-in");
  await page.getByLabel("Username").fill(username);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL((url) => !url.pathname.startsWith("/sign-in"));
  await new NotesPage(page).hydrated();
}

async function signOut(page: Page) {
  await page.getByRole("button", { name: "Sign out" }).click();
  await page.waitForURL((url) => url.pathname === "/sign-in");
}

test("a note saved in a tab opened for A after B signed in elsewhere never reaches B, and is saved once for A when A is back", async ({
  page,
  context,
  notes,
  request,
  playwright,
  baseURL,
  unique,
}) => {
  // A session of this test's own, so signing out leaves the other tests' session alone.
  await context.clearCookies();
  expect((await context.request.post("/api/session", { data: E2E_USER })).status()).toBe(204);

  // B: a second account, by invitation from the admin (e2e).
  const invitation = await context.request.post("/api/invitations");
  expect(invitation.status()).toBe(201);
  const { token } = (await invitation.json()) as { token: string };
  const bea = { username: `bea-${Date.now()}`, password: "bea's long password" };
  const beaApi = await playwright.request.newContext({ baseURL });
  expect((await beaApi.post(`/api/invitations/${token}/accept`, { data: bea })).status()).toBe(201);

  // A's tab.
  await notes.goto();
  const sentFromA = new SaveRequests(page);

  // Another tab of the same browser: A signs out, B signs in.
  const other = await context.newPage();
  await other.goto("/");
  await new NotesPage(other).hydrated();
  await signOut(other);
  await signIn(other, bea.username, bea.password);

  // A types and saves in the old tab, not reloaded.
  const title = unique("Typed in A's old tab");
  const answered = page.waitForResponse((r) => r.request().method() === "POST" && new URL(r.url()).pathname === "/api/notes");
  await notes.save(title, "meant for A");
  await answered;
  expect(await notesTitled(beaApi, title), "nothing lands in B's account").toHaveLength(0);
  expect(await notesTitled(request, title)).toHaveLength(0);

  // The tab says what happened and keeps the note for A.
  const item = notes.unsavedTitled(title);
  await expect(item).toContainText("someone else is signed in");
  await expect(page.getByTestId("someone-else")).toContainText("Someone else has signed in");
  await expect(page.getByTestId("someone-else")).toContainText(E2E_USER.username);
  const stored = await notes.storedIntents();
  expect(stored.map((i) => i.title)).toEqual([title]);

  // A little later it is still not B's: the refusal stored nothing, and nothing new was made of it.
  await page.evaluate(() => document.dispatchEvent(new Event("visibilitychange")));
  await page.waitForTimeout(500);
  expect(await notesTitled(beaApi, title)).toHaveLength(0);

  // A signs in again (in the other tab): the note is A's, stored once, with its own key.
  const sentFromOther = new SaveRequests(other);
  await signOut(other);
  await signIn(other, E2E_USER.username, E2E_USER.password);
  await expect.poll(async () => (await notesTitled(request, title)).length).toBe(1);
  await expect(notes.unsavedTitled(title)).toHaveCount(0);
  await expect(page.getByTestId("someone-else")).toHaveCount(0);
  const keys = new Set([...sentFromA.keys(), ...sentFromOther.keys()]);
  expect(keys.size, "every attempt carried the same key").toBe(1);
  expect(await notesTitled(request, title)).toHaveLength(1);
  expect(await notesTitled(beaApi, title)).toHaveLength(0);
  await beaApi.dispose();
});
