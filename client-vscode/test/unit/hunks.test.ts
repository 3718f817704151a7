import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { afterChange, answerFor, changedLines, type Hunk, makeHunk, replacement, splitLines } from "../../src/hunks";

const span = { startLine: 4, endLine: 6, endCharacter: 0 };
const hunk = (verdict: Hunk["verdict"] = { kind: "pending" }): Hunk => ({
  ...makeHunk(span, "a = 1\nb = 2\n", "a = 10\nb = 20\nc = 30\n"),
  verdict,
});
const change = (startLine: number, endLine: number, text: string, startCharacter = 0, endCharacter = 0) => ({
  startLine,
  startCharacter,
  endLine,
  endCharacter,
  text,
});

describe("splitLines", () => {
  it("keeps each line's ending, and a last line without one", () => {
    assert.deepEqual(splitLines("a\nb\r\nc"), ["a\n", "b\r\n", "c"]);
    assert.deepEqual(splitLines(""), []);
  });
});

describe("replacement", () => {
  it("is the proposal for the whole hunk", () => {
    assert.equal(replacement(hunk()), "a = 10\nb = 20\nc = 30\n");
  });

  it("takes only the chosen lines, keeping the old text of the others", () => {
    assert.equal(changedLines(hunk()), 3);
    assert.equal(replacement(hunk(), [0, 2]), "a = 10\nb = 2\nc = 30\n");
    assert.equal(replacement(hunk(), [1]), "a = 1\nb = 20\n");
    assert.equal(replacement(hunk(), []), "a = 1\nb = 2\n");
  });

  it("drops an old line a shorter proposal removes only when that line is taken", () => {
    const shorter = makeHunk(span, "x\ny\n", "x2\n");
    assert.equal(replacement(shorter, [1]), "x\n");
    assert.equal(replacement(shorter, [0]), "x2\ny\n");
  });
});

describe("afterChange", () => {
  it("moves the hunk with lines typed above it", () => {
    assert.deepEqual(afterChange(hunk(), change(0, 0, "# new\n")).span, { startLine: 5, endLine: 7, endCharacter: 0 });
    assert.deepEqual(afterChange(hunk(), change(3, 3, "\nmore", 5, 5)).span, { startLine: 5, endLine: 7, endCharacter: 0 });
    assert.deepEqual(afterChange(hunk(), change(1, 3, "")).span, { startLine: 2, endLine: 4, endCharacter: 0 });
  });

  it("counts a line inserted right at the hunk's start as above it", () => {
    assert.equal(afterChange(hunk(), change(4, 4, "# note\n")).span.startLine, 5);
  });

  it("moves the hunk up when the line right above it is deleted, as the server finds it", () => {
    assert.deepEqual(afterChange(hunk(), change(3, 4, "")), { ...hunk(), span: { startLine: 3, endLine: 5, endCharacter: 0 } });
  });

  it("makes the hunk stale when the end of the line above is joined onto its first line", () => {
    assert.equal(afterChange(hunk(), change(3, 4, "", 2, 0)).verdict.kind, "stale");
    assert.equal(afterChange(hunk(), change(3, 4, "x", 0, 0)).verdict.kind, "stale");
  });

  it("ignores changes below it", () => {
    assert.deepEqual(afterChange(hunk(), change(6, 6, "tail\n")), hunk());
  });

  it("makes the hunk stale when its own lines are edited", () => {
    assert.equal(afterChange(hunk(), change(5, 5, "x", 2, 2)).verdict.kind, "stale");
    assert.equal(afterChange(hunk(), change(3, 4, "", 0, 3)).verdict.kind, "stale");
  });
});

describe("answerFor", () => {
  it("is applied when anything landed, passing the reasons of the rejected hunks", () => {
    assert.deepEqual(answerFor([hunk({ kind: "accepted" })], true), { applied: true });
    assert.deepEqual(answerFor([hunk({ kind: "accepted" }), hunk({ kind: "rejected", reason: "keep b" })], true), {
      applied: true,
      failureReason: "hunk 2: keep b",
    });
  });

  it("leaves which lines of a hunk were accepted to the server, which reads them from the text", () => {
    assert.deepEqual(answerFor([hunk({ kind: "accepted", lines: [0, 1] }), hunk({ kind: "rejected", reason: "no" })], true), {
      applied: true,
      failureReason: "hunk 2: no",
    });
  });

  it("is a rejection with the user's reason when nothing landed, and always says it is the user's", () => {
    assert.deepEqual(answerFor([hunk({ kind: "rejected" })], false), { applied: false, failureReason: "the user rejected it" });
    assert.deepEqual(answerFor([hunk({ kind: "rejected", reason: "wrong" })], false), {
      applied: false,
      failureReason: "the user rejected it: hunk 1: wrong",
    });
  });

  it("says which hunks the user edited during the review", () => {
    assert.deepEqual(answerFor([hunk({ kind: "stale" })], false), {
      applied: false,
      failureReason: "the user rejected it: the user edited inside hunk 1 during the review, so it was not applied",
    });
  });
});
