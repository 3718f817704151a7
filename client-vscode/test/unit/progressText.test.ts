import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseStep, runIdFromToken, statusText, statusTooltip, truncate } from "../../src/progressText";

describe("parseStep", () => {
  it("reads the step counter and what happens now", () => {
    assert.deepEqual(parseStep("step 3/8 · edit_file app.py"), { step: 3, budget: 8, detail: "edit_file app.py" });
    assert.deepEqual(parseStep("step 1/8"), { step: 1, budget: 8, detail: "" });
  });

  it("returns undefined for messages without a counter", () => {
    assert.equal(parseStep("starting"), undefined);
    assert.equal(parseStep("completed: done"), undefined);
  });
});

describe("statusText", () => {
  it("prefixes Rune and keeps the step", () => {
    assert.equal(statusText("step 3/8 · edit_file app.py"), "Rune: step 3/8 · edit_file app.py");
  });

  it("shows other messages as they are, and 'working' for none", () => {
    assert.equal(statusText("starting"), "Rune: starting");
    assert.equal(statusText(undefined), "Rune: working");
    assert.equal(statusText("  "), "Rune: working");
  });

  it("collapses whitespace and truncates long messages with an ellipsis", () => {
    const text = statusText(`step 2/8 · read_file ${"a".repeat(200)}\n`, 40);
    assert.equal(text.length, 40);
    assert.ok(text.startsWith("Rune: step 2/8 · read_file aaa"));
    assert.ok(text.endsWith("…"));
  });
});

describe("statusTooltip", () => {
  it("says how many runs and how to cancel", () => {
    assert.equal(statusTooltip("step 1/8 · asking the model", 1), "step 1/8 · asking the model\n1 run in progress. Click to cancel.");
    assert.match(statusTooltip(undefined, 2), /^starting\n2 runs in progress/);
  });
});

describe("truncate", () => {
  it("leaves short text alone", () => {
    assert.equal(truncate("abc", 3), "abc");
    assert.equal(truncate("abcd", 3), "ab…");
  });
});

describe("runIdFromToken", () => {
  it("reads rune/<id> tokens only", () => {
    assert.equal(runIdFromToken("rune/0123abcd4567"), "0123abcd4567");
    assert.equal(runIdFromToken("other/0123"), undefined);
    assert.equal(runIdFromToken(42), undefined);
    assert.equal(runIdFromToken("rune/a b"), undefined);
  });
});
