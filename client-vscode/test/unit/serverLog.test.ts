import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { levelReader } from "../../src/serverLog";

describe("levelReader", () => {
  it("reads the server's logging level", () => {
    const level = levelReader();
    assert.equal(level("2026-12-01 10:00:00,123 INFO rune_lsp.server: started"), "info");
    assert.equal(level("2026-12-01 10:00:01,000 WARNING rune_lsp.server.late: landed late"), "warn");
    assert.equal(level("DEBUG rune_lsp: detail"), "debug");
  });

  it("keeps the level for continuation lines, and calls what has none an error", () => {
    const level = levelReader();
    assert.equal(level("Traceback (most recent call last):"), "error");
    assert.equal(level("2026-12-01 10:00:00,123 INFO rune_lsp: ok"), "info");
    assert.equal(level("  more of the same message"), "info");
    assert.equal(level("2026-12-01 10:00:00,123 ERROR rune_lsp: boom"), "error");
  });
});
