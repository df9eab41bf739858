import { request, type FullConfig } from "@playwright/test";
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";

/** The account every browser test uses (the server makes it at its first start). */
export const E2E_USER = { username: "e2e", password: "e2e password 1234" };
export const STORAGE_STATE = `${__dirname}/../.auth/e2e.json`;

/** Signs in once and keeps the session for every test. */
export default async function globalSetup(config: FullConfig) {
  const baseURL = config.projects[0].use.baseURL;
  const api = await request.newContext({ baseURL });
  const response = await api.post("/api/session", { data: E2E_USER });
  if (response.status() !== 204) throw new Error(`signing in for the tests: ${response.status()}`);
  mkdirSync(dirname(STORAGE_STATE), { recursive: true });
  await api.storageState({ path: STORAGE_STATE });
  await api.dispose();
}
