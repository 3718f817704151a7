import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { allowedList, parseRunPrompt, visibleControls, withAllowed, withoutAllowed } from "../../src/commandText";

describe("parseRunPrompt", () => {
  it("splits the command from its directory, also when the command has newlines", () => {
    assert.deepEqual(parseRunPrompt("rune wants to run: echo hi\n(in /ws)"), { command: "echo hi", cwd: "/ws" });
    assert.deepEqual(parseRunPrompt("rune wants to run: echo a\necho b\n(in /w s)"), { command: "echo a\necho b", cwd: "/w s" });
  });

  it("is undefined for another message, and keeps a command without a directory whole", () => {
    assert.equal(parseRunPrompt("Apply the edit?"), undefined);
    assert.deepEqual(parseRunPrompt("rune wants to run: ls"), { command: "ls", cwd: "" });
  });
});

describe("visibleControls", () => {
  it("shows newlines, tabs, escapes and other C0 characters", () => {
    assert.equal(visibleControls("a\nb\tc\u001b[31m\u0007"), "a↵b⇥c␛[31m␇");
  });

  it("shows the characters that reorder or hide text", () => {
    assert.equal(visibleControls("rm \u202eevil\u200b"), "rm <U+202E>evil<U+200B>");
  });

  it("leaves ordinary text alone", () => {
    assert.equal(visibleControls("python -m pytest -q 'ü'"), "python -m pytest -q 'ü'");
  });
});

describe("allowed commands", () => {
  it("adds once and removes", () => {
    assert.deepEqual(withAllowed(["a"], "b"), ["a", "b"]);
    assert.deepEqual(withAllowed(["a", "b"], "b"), ["a", "b"]);
    assert.deepEqual(withoutAllowed(["a", "b"], "a"), ["b"]);
  });

  it("reads only strings from the setting", () => {
    assert.deepEqual(allowedList(["x", 1, null, "y"]), ["x", "y"]);
    assert.deepEqual(allowedList("x"), []);
  });
});
