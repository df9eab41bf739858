import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const root = resolve(__dirname, "../..");

/**
 * A server of the test's own (the release binary), for tests that must really take the
 * server away — a service worker's fetches ignore Playwright's offline switch — or
 * serve another build version. It keeps its database across stop() and start().
 */
export class OwnServer {
  private child: ChildProcess | null = null;
  readonly dataDir = mkdtempSync(join(tmpdir(), "oncenote-own-"));

  constructor(readonly port: number) {}

  get url() {
    return `http://127.0.0.1:${this.port}`;
  }

  async start(env: Record<string, string> = {}) {
    this.child = spawn(join(root, "target/release/server"), [], {
      env: {
        ...process.env,
        LEPTOS_SITE_ADDR: `127.0.0.1:${this.port}`,
        LEPTOS_SITE_ROOT: join(root, "target/site"),
        DATABASE_URL: `sqlite://${join(this.dataDir, "own.db")}`,
        RUST_LOG: "warn",
        ...env,
      },
      stdio: ["ignore", "ignore", "inherit"],
    });
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
