import { test, expect, keptPagePaths, notesTitled, NotesPage, SaveRequests, signOut } from "./fixtures";
import type { Page } from "@playwright/test";
import { E2E_USER } from "./global-setup";
import { OwnServer } from "./server";

async function signIn(page: Page, base: string, username: string, password: string) {
  await page.goto(`${base}/sign-in`);
  await page.getByLabel("Username").fill(username);
  await page.getByLabel("Password").fill(password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.waitForURL((url) => !url.pathname.startsWith("/sign-in"));
  await new NotesPage(page).hydrated();
}

test("a fresh install: setup, save, invite, sign out; another person on the same browser sees nothing of the first, queued notes included", async ({
  page,
  context,
  unique,
}) => {
  const server = new OwnServer(3261);
  await server.start({}, { admin: false });
  try {
    // Nobody gets in before the first account exists.
    await page.goto(server.url);
    await expect(page).toHaveURL(/\/setup$/);
    await page.goto(server.setupLink());
    await page.getByLabel("Username").fill("ada");
    await page.getByLabel("Password").fill("ada's long password");
    await page.getByRole("button", { name: "Create the account" }).click();
    await page.waitForURL(`${server.url}/`);
    const notes = new NotesPage(page);
    await notes.hydrated();

    const saved = unique("Ada's saved note");
    await notes.save(saved);
    await expect(notes.savedTitled(saved)).toHaveCount(1);

    await page.getByRole("link", { name: "People" }).click();
    await page.getByRole("button", { name: "Invite someone" }).click();
    const invitation = (await page.getByTestId("invitation-link").textContent()) ?? "";
    expect(invitation).toContain("/invite/");
    // The page with the one-time link is never kept for offline reading; the notes are
    // (the home page is kept by the service worker once it controls the page, which may be
    // after this page opened: waited for, as a person going offline later).
    const keptPaths = () => keptPagePaths(page);
    await expect.poll(keptPaths, { timeout: 15_000 }).toContain("/");
    expect((await keptPaths()).filter((path) => path.startsWith("/admin"))).toEqual([]);

    await notes.goto(server.url);
    await context.setOffline(true);
    const queued = unique("Ada's queued note");
    await notes.save(queued);
    await expect(notes.unsavedTitled(queued)).toBeVisible();

    // Back online, but the save still cannot get through (signing out needs the network).
    await page.route("**/api/notes", (route) => route.abort("connectionreset"));
    await context.setOffline(false);
    await expect(notes.unsavedTitled(queued)).toBeVisible();

    // Signing out with an unsaved note asks first.
    const dialogs: string[] = [];
    page.once("dialog", async (dialog) => {
      dialogs.push(dialog.message());
      await dialog.accept();
    });
    await signOut(page);
    expect(dialogs[0]).toContain("not saved yet");
    await page.unroute("**/api/notes");

    // Offline after the sign-out, the pages kept for Ada are not shown to whoever comes next.
    await context.setOffline(true);
    await page.goto(`${server.url}/`);
    await expect(page.getByRole("heading", { name: "You are offline" })).toBeVisible();
    await expect(page.getByText(saved)).toHaveCount(0);
    await context.setOffline(false);

    await page.goto(invitation);
    await page.getByLabel("Username").fill("bob");
    await page.getByLabel("Password").fill("bob's long password");
    await page.getByRole("button", { name: "Create my account" }).click();
    await page.waitForURL(`${server.url}/`);
    await notes.hydrated();
    await expect(notes.statusLine).toContainText("every note is saved");
    await expect(page.getByText(saved)).toHaveCount(0);
    await expect(page.getByText(queued)).toHaveCount(0);
    await expect(page.getByText("No notes yet.")).toBeVisible();
    await page.waitForTimeout(500);
    expect(await notesTitled(context.request, queued, server.url)).toHaveLength(0);

    // Ada again: her queued note is hers, and is sent once.
    await signOut(page);
    const requests = new SaveRequests(page);
    await signIn(page, server.url, "ada", "ada's long password");
    await expect(notes.savedTitled(queued)).toHaveCount(1);
    expect(new Set(requests.keys()).size).toBe(1);
    expect(await notesTitled(context.request, queued, server.url)).toHaveLength(1);
  } finally {
    await server.stop();
  }
});

test("a note queued when the session ended is kept, and saved once after signing in again", async ({
  page,
  context,
  notes,
  requests,
  request,
  unique,
}) => {
  // A session of this test's own, so ending it leaves the other tests' session alone.
  await context.clearCookies();
  const signedIn = await context.request.post("/api/session", { data: E2E_USER });
  expect(signedIn.status()).toBe(204);
  await notes.goto();
  await context.setOffline(true);
  const title = unique("Across sessions");
  await notes.save(title);
  await expect(notes.unsavedTitled(title)).toBeVisible();

  // The session ends (expired, or signed out elsewhere).
  expect((await context.request.delete("/api/session")).status()).toBe(204);
  await context.setOffline(false);
  const item = notes.unsavedTitled(title);
  await expect(item).toContainText("your session ended");
  expect(await notesTitled(request, title)).toHaveLength(0);

  await item.getByRole("link", { name: "Sign in to send it" }).click();
  await page.getByLabel("Username").fill(E2E_USER.username);
  await page.getByLabel("Password").fill(E2E_USER.password);
  await page.getByRole("button", { name: "Sign in" }).click();
  await notes.hydrated();
  await expect(notes.savedTitled(title)).toHaveCount(1);
  expect(new Set(requests.keys()).size).toBe(1);
  expect(await notesTitled(request, title)).toHaveLength(1);
});

test("a wrong password is told plainly, and the page keeps nothing typed in the address", async ({ browser }) => {
  const stranger = await browser.newContext({ storageState: { cookies: [], origins: [] } });
  const page = await stranger.newPage();
  await page.goto("/notes/anything");
  await expect(page).toHaveURL(/\/sign-in\?next=/);
  await page.getByLabel("Username").fill(E2E_USER.username);
  await page.getByLabel("Password").fill("not the password");
  await page.getByRole("button", { name: "Sign in" }).click();
  await expect(page.getByRole("alert")).toHaveText("The username or the password is wrong.");
  expect(page.url()).not.toContain("not the password");
  await stranger.close();
});
