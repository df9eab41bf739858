import { spawn, type ChildProcess } from "node:child_process";
import type { BrowserContext } from "@playwright/test";
import { E2E_USER } from "./global-setup";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const root = resolve(__dirname, "../..");

/**
 * A server of the test's own (the release binary), for tests that must really take the
 * server away or serve another build version. It keeps its database across stop() and
 * start(). It is reached as `localhost` (the main test server as 127.0.0.1), so the two
 * never share cookies; `signIn(context)` signs a browser context in to it.
 */
export class OwnServer {
  private child: ChildProcess | null = null;
  /** What the server printed (when started without an admin). */
  private output = "";
  readonly dataDir = mkdtempSync(join(tmpdir(), "oncenote-own-"));

  constructor(readonly port: number) {}

  get url() {
    return `http://localhost:${this.port}`;
  }

  /**
   * Starts the server. With `admin: false` it starts as a fresh install would, with no
   * account: it prints a setup link (see `setupLink`).
   */
  async start(env: Record<string, string> = {}, { admin = true } = {}) {
    const account = admin
      ? { ONCENOTE_ADMIN_USERNAME: E2E_USER.username, ONCENOTE_ADMIN_PASSWORD: E2E_USER.password }
      : {};
    this.child = spawn(join(root, "target/release/server"), [], {
      env: {
        ...process.env,
        LEPTOS_SITE_ADDR: `127.0.0.1:${this.port}`,
        LEPTOS_SITE_ROOT: join(root, "target/site"),
        DATABASE_URL: `sqlite://${join(this.dataDir, "own.db")}`,
        RUST_LOG: "warn",
        ...account,
        ...env,
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    for (const stream of [this.child.stdout, this.child.stderr]) {
      stream?.on("data", (chunk: Buffer) => {
        this.output += chunk.toString();
        process.stderr.write(chunk);
      });
    }
    const deadline = Date.now() + 20_000;
    for (;;) {
      try {
        const response = await fetch(`${this.url}/healthz`);
        if (response.ok) return;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) throw new Error(`the server on ${this.port} did not start`);
      await new Promise((r) => setTimeout(r, 100));
    }
  }

  /** The one-time setup link a fresh install printed, as reached through `url`. */
  setupLink(): string {
    const token = /setup\?token=([0-9a-f]+)/.exec(this.output)?.[1];
    if (!token) throw new Error("the server printed no setup link");
    return `${this.url}/setup?token=${token}`;
  }

  /** Signs `context` in (its pages and its `request` share the session cookie). */
  async signIn(context: BrowserContext) {
    const response = await context.request.post(`${this.url}/api/session`, { data: E2E_USER });
    if (response.status() !== 204) throw new Error(`signing in to ${this.url}: ${response.status()}`);
  }

  async stop() {
    const child = this.child;
    if (!child || child.exitCode !== null) return;
    const exited = new Promise((r) => child.once("exit", r));
    child.kill("SIGINT");
    await Promise.race([exited, new Promise((r) => setTimeout(r, 5_000))]);
    if (child.exitCode === null) child.kill("SIGKILL");
    this.child = null;
  }
}
