import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { needsRestart, serverSettings } from "../../src/settings";

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
