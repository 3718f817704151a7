import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { type LineChange, makeHunk, splitLines } from "../../src/hunks";
import { ReviewSession } from "../../src/review/session";

/**
 * A document as VS Code holds it: lines, changed by range, reporting each change the way
 * `onDidChangeTextDocument` does (against the text before it). The session follows it, and its
 * landings are applied to it as the client's final WorkspaceEdit would be.
 */
class FakeDocument {
  constructor(public text: string) {}

  private offset(line: number, character: number): number {
    const lines = splitLines(this.text);
    return lines.slice(0, line).join("").length + character;
  }

  /** Replaces the range and returns the change as VS Code reports it. */
  change(startLine: number, startCharacter: number, endLine: number, endCharacter: number, text: string): LineChange {
    const start = this.offset(startLine, startCharacter);
    const end = this.offset(endLine, endCharacter);
    this.text = this.text.slice(0, start) + text + this.text.slice(end);
    return { startLine, startCharacter, endLine, endCharacter, text };
  }

  /** Applies the session's landings (bottom first, as they come). */
  land(session: ReviewSession): void {
    for (const landing of session.landings()) {
      this.change(landing.startLine, 0, landing.endLine, landing.endCharacter, landing.text);
    }
  }

  /** A hunk replacing lines [start, end) with `newText`, as the server's AnnotatedTextEdit says. */
  hunk(start: number, end: number, newText: string) {
    const lines = splitLines(this.text);
    return makeHunk({ startLine: start, endLine: end, endCharacter: 0 }, lines.slice(start, end).join(""), newText);
  }
}

const TEXT = Array.from({ length: 40 }, (_, i) => `line ${i}\n`).join("");

function review(document: FakeDocument): ReviewSession {
  return new ReviewSession("rune: edit_file f.py", [
    document.hunk(2, 3, "LINE 2\n"),
    document.hunk(10, 10, "inserted a\n    inserted b\n"),
    document.hunk(20, 22, "LINE 20-21\n"),
  ]);
}

describe("ReviewSession on a fake document", () => {
  it("lands exactly the accepted hunks, a multi-line insertion whole with its indentation", () => {
    const document = new FakeDocument(TEXT);
    const session = review(document);
    assert.ok(session.decide(0, { kind: "accepted" }));
    assert.ok(session.decide(1, { kind: "accepted" }));
    assert.equal(session.done, false);
    assert.ok(session.decide(2, { kind: "rejected", reason: "keep both" }));
    assert.equal(session.done, true);
    document.land(session);
    const lines = splitLines(document.text);
    assert.equal(lines[2], "LINE 2\n");
    assert.deepEqual(lines.slice(10, 13), ["inserted a\n", "    inserted b\n", "line 10\n"]);
    assert.equal(lines[22], "line 20\n");
    assert.deepEqual(session.answer(true), { applied: true, failureReason: "hunk 3: keep both" });
  });

  it("follows lines typed above and keeps the user's text when the hunks land", () => {
    const document = new FakeDocument(TEXT);
    const session = review(document);
    session.follow([document.change(0, 0, 0, 0, "# typed\n# twice\n")]);
    assert.deepEqual(session.hunks.map((hunk) => hunk.span.startLine), [4, 12, 22]);
    session.decideRest({ kind: "accepted" });
    document.land(session);
    const lines = splitLines(document.text);
    assert.deepEqual(lines.slice(0, 2), ["# typed\n", "# twice\n"]);
    assert.equal(lines[4], "LINE 2\n");
    assert.ok(document.text.includes("line 19\nLINE 20-21\nline 22\n"));
  });

  it("makes a hunk typed into stale: it cannot be decided and does not land", () => {
    const document = new FakeDocument(TEXT);
    const session = review(document);
    session.follow([document.change(2, 4, 2, 4, "X")]);
    assert.equal(session.hunks[0]?.verdict.kind, "stale");
    assert.equal(session.decide(0, { kind: "accepted" }), false);
    session.decideRest({ kind: "rejected" });
    document.land(session);
    assert.equal(splitLines(document.text)[2], "lineX 2\n");
  });

  it("lands the server's text for a per-line accept", () => {
    const document = new FakeDocument(TEXT);
    const session = review(document);
    session.decide(2, { kind: "accepted", lines: [1, 3], text: "line 21\nLINE 20-21\n" });
    session.decideRest({ kind: "rejected" });
    document.land(session);
    assert.deepEqual(splitLines(document.text).slice(20, 23), ["line 21\n", "LINE 20-21\n", "line 22\n"]);
  });
});

describe("ReviewSession.keyTarget: a key decides only what is seen", () => {
  const document = new FakeDocument(TEXT);
  const all = [{ startLine: 0, endLine: 39 }];

  it("decides the hunk under the cursor, else the next one below", () => {
    const session = review(document);
    assert.deepEqual(session.keyTarget(2, all), { kind: "decide", index: 0 });
    assert.deepEqual(session.keyTarget(3, all), { kind: "decide", index: 1 });
    assert.deepEqual(session.keyTarget(15, all), { kind: "decide", index: 2 });
  });

  it("never wraps to a hunk above the cursor", () => {
    const session = review(document);
    assert.deepEqual(session.keyTarget(30, all), { kind: "none", why: "no pending hunk at or below the cursor" });
    session.decideRest({ kind: "accepted" });
    assert.deepEqual(session.keyTarget(0, all), { kind: "none", why: "no hunk is pending" });
  });

  it("reveals a hunk that is off screen instead of deciding it", () => {
    const session = review(document);
    assert.deepEqual(session.keyTarget(5, [{ startLine: 0, endLine: 9 }]), { kind: "reveal", index: 1 });
    assert.deepEqual(session.keyTarget(11, [{ startLine: 0, endLine: 20 }]), { kind: "reveal", index: 2 });
    assert.deepEqual(session.keyTarget(11, [{ startLine: 0, endLine: 21 }]), { kind: "decide", index: 2 });
  });

  it("moves between pending hunks, wrapping (moving decides nothing)", () => {
    const session = review(document);
    assert.equal(session.neighbour(0, 1), 2);
    assert.equal(session.neighbour(25, 1), 2);
    assert.equal(session.neighbour(2, -1), 20);
  });
});
