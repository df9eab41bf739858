import { execFileSync } from "node:child_process";
import { randomUUID } from "node:crypto";
import { test, expect, notesTitled, onFirstSave } from "./fixtures";
import { FaultyProxy } from "./proxy";
import { OwnServer } from "./server";

// Two server processes (replicas) on one PostgreSQL database, behind a proxy that sends
// each request to the next replica in turn — as a load balancer does. Needs PostgreSQL at
// ONCENOTE_TEST_PG_URL (default postgres://postgres@127.0.0.1:5432/postgres) and psql to
// make the database; without them the tests are skipped, and say so.
const server = process.env.ONCENOTE_TEST_PG_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const database = `oncenote_e2e_${randomUUID().replaceAll("-", "")}`;

function psql(sql: string): boolean {
  try {
    execFileSync("psql", [server, "-v", "ON_ERROR_STOP=1", "-qAtc", sql], { stdio: "pipe", timeout: 20_000 });
    return true;
  } catch {
    return false;
  }
}

test.describe("two replicas on PostgreSQL behind a round-robin proxy", () => {
  const available = psql("SELECT 1");
  test.skip(!available, `PostgreSQL (or psql) is not reachable at ${server}: replica tests skipped`);

  const url = `${server.slice(0, server.lastIndexOf("/"))}/${database}`;
  const a = new OwnServer(3271);
  const b = new OwnServer(3272);
  const proxy = new FaultyProxy(3273, [3271, 3272]);
  test.beforeAll(async () => {
    expect(psql(`CREATE DATABASE ${database}`)).toBe(true);
    await a.start({ DATABASE_URL: url });
    await b.start({ DATABASE_URL: url });
    await proxy.start();
  });
  test.afterAll(async () => {
    await proxy.stop();
    await a.stop();
    await b.stop();
    psql(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
  });

  test("a double click and a lost answer, with the retry on the other replica, store one note each", async ({
    page,
    context,
    notes,
    requests,
    unique,
  }) => {
    await a.signIn(context);
    await notes.goto(proxy.url);

    const doubled = unique("Double click over replicas");
    await notes.write(doubled);
    await notes.saveButton.dblclick();
    await expect(notes.savedTitled(doubled)).toHaveCount(1);

    const lost = unique("Lost answer over replicas");
    await onFirstSave(page, async (route) => {
      await route.fetch(); // one replica commits the note...
      await route.abort("failed"); // ...its answer never arrives; the retry goes to the other
    });
    await notes.save(lost);
    await expect(notes.savedTitled(lost)).toHaveCount(1);
    await expect(notes.unsaved).toHaveCount(0);

    expect(await notesTitled(context.request, doubled, proxy.url)).toHaveLength(1);
    expect(await notesTitled(context.request, lost, proxy.url)).toHaveLength(1);
    expect(new Set(requests.keys()).size).toBe(2);
    // Both replicas served requests.
    expect([...proxy.forwarded.values()].every((n) => n > 0)).toBe(true);
    expect(proxy.forwarded.size).toBe(2);
  });
});
