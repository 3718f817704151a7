import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { readFileSync } from "node:fs";
import * as path from "node:path";
import { launchChanged, needsRestart, serverSettings } from "../../src/settings";

describe("serverSettings", () => {
  it("drops the client-only server and review keys and turns empty strings into null", () => {
    const section = {
      provider: "ollama",
      baseUrl: "",
      model: "qwen3:14b",
      maxIterations: 8,
      checkCommand: "  ",
      stateDir: "/tmp/state",
      server: { path: "/x/rune-lsp", args: [] },
      review: { mode: "inline" },
    };
    assert.deepEqual(serverSettings(section), {
      provider: "ollama",
      baseUrl: null,
      model: "qwen3:14b",
      maxIterations: 8,
      checkCommand: null,
      stateDir: "/tmp/state",
    });
  });

  it("sends a provider the user did not set as null, so the server may offer its own", () => {
    const section = { provider: "ollama", model: "qwen3:14b" };
    assert.deepEqual(serverSettings(section, (key) => key !== "provider"), {
      provider: null,
      model: "qwen3:14b",
    });
    assert.deepEqual(serverSettings(section, () => true), section);
  });

  it("answers null for a section that is not an object", () => {
    assert.equal(serverSettings(undefined), null);
    assert.equal(serverSettings([1]), null);
  });
});

describe("needsRestart", () => {
  it("is true only for rune.server.* changes", () => {
    assert.equal(needsRestart((s) => s === "rune.server"), true);
    assert.equal(needsRestart((s) => s === "rune.model"), false);
  });
});

describe("launchChanged", () => {
  const started = { path: "/venv/bin/rune-lsp", args: ["--log-level", "DEBUG"] };

  it("restarts for a changed path or changed arguments", () => {
    assert.equal(launchChanged(started, { ...started, path: "/other/rune-lsp" }, true), true);
    assert.equal(launchChanged(started, { ...started, path: "" }, true), true);
    assert.equal(launchChanged(started, { ...started, args: ["--log-level", "INFO"] }, true), true);
    assert.equal(launchChanged(started, { ...started, args: [] }, true), true);
  });

  it("leaves a running server alone when a save changed neither", () => {
    assert.equal(launchChanged(started, { path: started.path, args: [...started.args] }, true), false);
  });

  it("tries again when the server is not running, or was never started", () => {
    assert.equal(launchChanged(started, started, false), true);
    assert.equal(launchChanged(undefined, started, true), true);
  });
});

describe("rune.server.* scope", () => {
  // `machine` and `machine-overridable` settings are read only from Remote settings when the
  // extension runs remotely, which code-server always is: set in User settings they are greyed
  // out there. `application` would forbid workspace settings. `window` takes both; a workspace's
  // value is ignored when it is untrusted (restrictedConfigurations).
  const manifest = JSON.parse(readFileSync(path.join(__dirname, "../../../package.json"), "utf8")) as {
    contributes: { configuration: { properties: Record<string, { scope?: string }> } };
    capabilities: { untrustedWorkspaces: { restrictedConfigurations: string[] } };
  };

  it("is window, and restricted in untrusted workspaces", () => {
    for (const key of ["rune.server.path", "rune.server.args"]) {
      assert.equal(manifest.contributes.configuration.properties[key]?.scope, "window", key);
      assert.ok(manifest.capabilities.untrustedWorkspaces.restrictedConfigurations.includes(key), key);
    }
  });
});
