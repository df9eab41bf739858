import { createServer, request as forward, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { Socket } from "node:net";

/**
 * What the proxy does with a request:
 * - "pass": forward it;
 * - "502": answer page loads with 502 Bad Gateway, as a reverse proxy does while the app
 *   restarts (everything else passes);
 * - "hang": never answer page loads;
 * - "stall-save-body": forward the first save, then send its answer's status and headers
 *   and a few bytes of its body, and never the rest.
 */
export type ProxyMode = "pass" | "502" | "hang" | "stall-save-body";

/**
 * A reverse proxy on loopback in front of a server, with faults a test switches on. It is
 * reached as `localhost`, like `OwnServer`, so a context signed in to the server behind it
 * sends that session through it.
 */
export class FaultyProxy {
  mode: ProxyMode = "pass";
  stalledSaves = 0;
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();

  private turn = 0;
  private writeTurn = 0;
  /** Requests forwarded to each upstream port. */
  readonly forwarded = new Map<number, number>();

  /** `upstreams`: one server's port, or several (replicas), taken in turn per request. */
  constructor(
    readonly port: number,
    upstreams: number | number[],
  ) {
    this.upstreamPorts = Array.isArray(upstreams) ? upstreams : [upstreams];
  }

  private readonly upstreamPorts: number[];

  get url() {
    return `http://localhost:${this.port}`;
  }

  async start() {
    this.server = createServer((req, res) => this.handle(req, res));
    this.server.on("connection", (socket) => {
      this.sockets.add(socket);
      socket.on("close", () => this.sockets.delete(socket));
    });
    await new Promise<void>((resolve) => this.server!.listen(this.port, "127.0.0.1", resolve));
  }

  async stop() {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
    this.server = null;
  }

  private handle(req: IncomingMessage, res: ServerResponse) {
    const isPage = req.method === "GET" && (req.headers.accept ?? "").includes("text/html");
    if (isPage && this.mode === "502") {
      res.writeHead(502, { "content-type": "text/html" });
      res.end("<html><body><h1>502 Bad Gateway</h1></body></html>");
      return;
    }
    if (isPage && this.mode === "hang") return; // never answered
    const isSave = req.method === "POST" && req.url === "/api/notes";
    const stall = isSave && this.mode === "stall-save-body" && this.stalledSaves === 0;
    // Writes take turns among themselves, so a write's retry always goes to another
    // replica than the attempt before it; everything else takes turns too.
    const turn = req.method === "GET" ? this.turn++ : this.writeTurn++;
    const port = this.upstreamPorts[turn % this.upstreamPorts.length];
    this.forwarded.set(port, (this.forwarded.get(port) ?? 0) + 1);
    const upstream = forward(
      { host: "127.0.0.1", port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        if (!stall) {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
          return;
        }
        this.stalledSaves += 1;
        const headers = { ...answer.headers, "content-length": "100000" };
        delete headers["transfer-encoding"];
        res.writeHead(answer.statusCode ?? 502, headers);
        answer.once("data", (chunk: Buffer) => res.write(chunk.subarray(0, 8)));
        // ...and nothing more: the body never ends.
      },
    );
    upstream.on("error", () => {
      res.writeHead(502);
      res.end();
    });
    req.pipe(upstream);
  }
}
