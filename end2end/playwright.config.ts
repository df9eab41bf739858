import { defineConfig } from "@playwright/test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

// The release server built by `cargo leptos build --release`, on its own port, with a
// fresh SQLite database for every run. Tests count notes through the API by a title
// unique to the test, so they do not depend on each other.
const port = Number(process.env.E2E_PORT ?? 3210);
const root = resolve(__dirname, "..");
const dataDir = mkdtempSync(join(tmpdir(), "oncenote-e2e-"));
const chromium = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

export default defineConfig({
  testDir: "./tests",
  globalSetup: "./tests/global-setup.ts",
  timeout: 60_000,
  expect: { timeout: 15_000 },
  fullyParallel: false,
  workers: 1,
  retries: 0,
  forbidOnly: !!process.env.CI,
  reporter: [["list"]],
  use: {
    baseURL: `http://127.0.0.1:${port}`,
    // Signed in as the test account (see tests/global-setup.ts).
    storageState: resolve(__dirname, ".auth/e2e.json"),
    trace: "off",
    launchOptions: {
      executablePath: chromium,
      args: [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
    },
  },
  webServer: {
    command: `${join(root, "target/release/server")}`,
    url: `http://127.0.0.1:${port}/healthz`,
    reuseExistingServer: false,
    timeout: 60_000,
    gracefulShutdown: { signal: "SIGINT", timeout: 5_000 },
    stdout: "ignore",
    stderr: "pipe",
    env: {
      LEPTOS_SITE_ADDR: `127.0.0.1:${port}`,
      LEPTOS_SITE_ROOT: join(root, "target/site"),
      DATABASE_URL: `sqlite://${join(dataDir, "e2e.db")}`,
      RUST_LOG: "warn",
      ONCENOTE_ADMIN_USERNAME: "e2e",
      ONCENOTE_ADMIN_PASSWORD: "e2e password 1234",
    },
  },
});
