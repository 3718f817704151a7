import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { decideServer, describeLaunch, type DiscoveryFacts, findOnPath, NOT_FOUND_MESSAGE, startFailure } from "../../src/discovery";

const nothing: DiscoveryFacts = {
  configuredPath: "",
  extraArgs: [],
  configuredPathExists: false,
  pythonHasRuneLsp: false,
};

describe("decideServer", () => {
  it("uses rune.server.path when it is set and exists, with the extra args", () => {
    const launch = decideServer({
      ...nothing,
      configuredPath: "/ws/.venv/bin/rune-lsp",
      configuredPathExists: true,
      extraArgs: ["--log-level", "DEBUG"],
      pythonInterpreter: "/usr/bin/python3",
      pythonHasRuneLsp: true,
      runeLspOnPath: "/usr/local/bin/rune-lsp",
    });
    assert.deepEqual(launch, {
      kind: "launch",
      command: "/ws/.venv/bin/rune-lsp",
      args: ["--log-level", "DEBUG"],
      source: "setting",
    });
  });

  it("does not fall back when rune.server.path points nowhere", () => {
    const decision = decideServer({
      ...nothing,
      configuredPath: "/nope/rune-lsp",
      runeLspOnPath: "/usr/local/bin/rune-lsp",
    });
    assert.ok(decision.kind === "failure");
    assert.match(decision.message, /rune\.server\.path is set to \/nope\/rune-lsp, which does not exist/);
  });

  it("names a configured path that exists but does not start", () => {
    const launch = { kind: "launch", command: "/venv/bin/python3", args: [], source: "setting" } as const;
    assert.equal(
      startFailure(launch, "Error: spawn EACCES"),
      "Rune: rune.server.path is set to /venv/bin/python3, which did not start: Error: spawn EACCES. " +
        "Point it at the rune-lsp executable (e.g. .venv/bin/rune-lsp) or clear it.",
    );
    const found = { kind: "launch", command: "/usr/bin/rune-lsp", args: [], source: "path" } as const;
    assert.match(startFailure(found, "boom"), /^Rune: the server did not start \(\/usr\/bin\/rune-lsp \(found on PATH\)\): boom\. Install it/);
  });

  it("runs python -m rune_lsp with the Python extension's interpreter when it has rune_lsp", () => {
    const launch = decideServer({
      ...nothing,
      extraArgs: ["--stdio"],
      pythonInterpreter: "/ws/.venv/bin/python",
      pythonHasRuneLsp: true,
      runeLspOnPath: "/usr/local/bin/rune-lsp",
    });
    assert.deepEqual(launch, {
      kind: "launch",
      command: "/ws/.venv/bin/python",
      args: ["-m", "rune_lsp", "--stdio"],
      source: "python",
    });
  });

  it("skips an interpreter without rune_lsp and takes rune-lsp from PATH", () => {
    const launch = decideServer({
      ...nothing,
      pythonInterpreter: "/usr/bin/python3",
      pythonHasRuneLsp: false,
      runeLspOnPath: "/home/u/.local/bin/rune-lsp",
    });
    assert.deepEqual(launch, { kind: "launch", command: "/home/u/.local/bin/rune-lsp", args: [], source: "path" });
  });

  it("says how to fix it when nothing is found", () => {
    const decision = decideServer({ ...nothing, pythonInterpreter: "/usr/bin/python3" });
    assert.deepEqual(decision, { kind: "failure", message: NOT_FOUND_MESSAGE });
    assert.match(NOT_FOUND_MESSAGE, /pip install rune-lsp/);
    assert.match(NOT_FOUND_MESSAGE, /rune\.server\.path/);
  });
});

describe("findOnPath", () => {
  it("returns the first directory whose candidate is executable, skipping empty entries", () => {
    const seen: string[] = [];
    const found = findOnPath("rune-lsp", "/a::/b/:/c", (candidate) => {
      seen.push(candidate);
      return candidate !== "/a/rune-lsp";
    });
    assert.equal(found, "/b/rune-lsp");
    assert.deepEqual(seen, ["/a/rune-lsp", "/b/rune-lsp"]);
  });

  it("returns undefined without PATH", () => {
    assert.equal(findOnPath("rune-lsp", undefined, () => true), undefined);
  });
});

describe("describeLaunch", () => {
  it("names the command line and where it came from", () => {
    assert.equal(
      describeLaunch({ kind: "launch", command: "/py", args: ["-m", "rune_lsp"], source: "python" }),
      "/py -m rune_lsp (with the Python extension's interpreter)",
    );
  });
});
