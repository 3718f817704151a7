import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { afterChange, answerFor, type Hunk, lineRows, makeHunk, replacement, splitLines } from "../../src/hunks";

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
    assert.equal(replacement(hunk({ kind: "accepted" })), "a = 10\nb = 20\nc = 30\n");
  });

  it("is the server's text for a per-line accept, never a pairing of its own", () => {
    assert.equal(replacement(hunk({ kind: "accepted", lines: [1, 3], text: "b = 2\na = 10\n" })), "b = 2\na = 10\n");
  });
});

describe("lineRows", () => {
  it("numbers the removed lines first, then the added ones, from 1, as mode B does", () => {
    assert.deepEqual(
      lineRows(hunk()).map((row) => `${row.number}${row.sign}${row.text.trim()}`),
      ["1-a = 1", "2-b = 2", "3+a = 10", "4+b = 20", "5+c = 30"],
    );
  });

  it("lists a pure insertion's lines as added lines only", () => {
    const insertion = makeHunk({ startLine: 2, endLine: 2, endCharacter: 0 }, "", "x\ny\n");
    assert.deepEqual(lineRows(insertion).map((row) => row.sign), ["+", "+"]);
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
    assert.deepEqual(answerFor([hunk({ kind: "accepted", lines: [1, 3], text: "a = 10\n" }), hunk({ kind: "rejected", reason: "no" })], true), {
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

  it("calls typing inside the only hunk stale, not a rejection (issue 27 point 7)", () => {
    assert.deepEqual(answerFor([hunk({ kind: "stale" })], false), {
      applied: false,
      failureReason: "the user edited inside hunk 1 during the review, so it was not applied",
    });
  });

  it("still says the user rejected it when a rejection came with the typing", () => {
    assert.deepEqual(answerFor([hunk({ kind: "stale" }), hunk({ kind: "rejected" })], false), {
      applied: false,
      failureReason: "the user rejected it: the user edited inside hunk 1 during the review, so it was not applied",
    });
  });
});
