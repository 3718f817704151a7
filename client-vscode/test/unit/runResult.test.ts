import assert from "node:assert/strict";
import { describe, it } from "node:test";
import {
  editSummary,
  notificationFor,
  parseRunResult,
  receiptCandidates,
  type RunResult,
  RunResultError,
} from "../../src/runResult";

const wire = {
  runId: "abc123",
  outcome: "completed",
  answer: "Fixed the greeting.",
  error: null,
  iterationsUsed: 2,
  iterationBudget: 8,
  edits: [
    { editId: "e1", tool: "edit_file", path: "app.py", status: "applied" },
    { editId: "e2", tool: "edit_file", path: "util.py", status: "rejected" },
  ],
  toolCalls: [{ name: "edit_file", status: "ok" }],
  verified: null,
  receipt: "/state/receipts/abc123.json",
};

function result(overrides: Partial<RunResult>): RunResult {
  return { ...parseRunResult(wire), ...overrides };
}

describe("parseRunResult", () => {
  it("reads the contract's run result", () => {
    const parsed = parseRunResult(wire);
    assert.equal(parsed.runId, "abc123");
    assert.equal(parsed.outcome, "completed");
    assert.equal(parsed.edits.length, 2);
    assert.equal(parsed.edits[1]?.status, "rejected");
    assert.equal(parsed.verified, null);
    assert.equal(parsed.receipt, "/state/receipts/abc123.json");
  });

  it("names the field that is wrong", () => {
    assert.throws(() => parseRunResult(null), new RunResultError("result: expected an object, got null"));
    assert.throws(() => parseRunResult({ ...wire, outcome: "done" }), /result\.outcome: expected one of completed\|/);
    assert.throws(() => parseRunResult({ ...wire, iterationsUsed: -1 }), /result\.iterationsUsed: expected a non-negative integer/);
    assert.throws(
      () => parseRunResult({ ...wire, edits: [{ editId: "e", tool: "t", path: "p", status: "maybe" }] }),
      /result\.edits\[0\]\.status/,
    );
    assert.throws(() => parseRunResult({ ...wire, verified: "yes" }), /result\.verified/);
  });

  it("treats a missing answer, error, receipt and edits as empty", () => {
    const parsed = parseRunResult({ runId: "r", outcome: "failed", iterationsUsed: 0, iterationBudget: 8 });
    assert.equal(parsed.answer, "");
    assert.equal(parsed.error, null);
    assert.equal(parsed.receipt, null);
    assert.deepEqual(parsed.edits, []);
  });
});

describe("notificationFor", () => {
  it("completed: the answer, what happened to the edits, and a receipt", () => {
    assert.deepEqual(notificationFor(result({})), {
      severity: "info",
      text: "Rune completed (2 edits: 1 applied, 1 rejected): Fixed the greeting.",
      hasReceipt: true,
    });
  });

  it("completed with a failing check is a warning", () => {
    const note = notificationFor(result({ verified: false, edits: [] }));
    assert.equal(note.severity, "warning");
    assert.equal(note.text, "Rune completed · no change proposed (check failed): Fixed the greeting.");
  });

  it("failed and incomplete say why and how many steps", () => {
    const failed = notificationFor(result({ outcome: "failed", error: "provider unreachable", edits: [], iterationsUsed: 1 }));
    assert.deepEqual([failed.severity, failed.text], ["error", "Rune failed after 1/8 steps: provider unreachable"]);
    const incomplete = notificationFor(result({ outcome: "incomplete", error: null, answer: "", edits: [], iterationsUsed: 8 }));
    assert.deepEqual([incomplete.severity, incomplete.text], ["warning", "Rune stopped after 8/8 steps, incomplete: no final answer"]);
  });

  it("cancelled and superseded are quiet", () => {
    assert.equal(notificationFor(result({ outcome: "cancelled", edits: [] })).text, "Rune run cancelled.");
    assert.match(notificationFor(result({ outcome: "superseded", edits: [] })).text, /replaced by a newer run/);
  });

  it("offers no receipt when there is none, and shortens a long answer", () => {
    const note = notificationFor(result({ receipt: null, answer: "x".repeat(1000) }));
    assert.equal(note.hasReceipt, false);
    assert.ok(note.text.length < 500);
    assert.ok(note.text.endsWith("…"));
  });
});

describe("editSummary", () => {
  it("counts statuses in a fixed order", () => {
    const edit = (status: "applied" | "partial" | "stale") => ({ editId: "e", tool: "t", path: "p", status, detail: "", reasons: [] });
    assert.equal(editSummary([edit("stale"), edit("applied"), edit("partial")]), "3 edits: 1 applied, 1 partial, 1 stale");
    assert.equal(editSummary([edit("applied")]), "1 edit: 1 applied");
    assert.equal(editSummary([]), "");
  });

  it("counts run_command as a command, never as an edit", () => {
    const command = (status: "applied" | "rejected") => ({ editId: "c", tool: "run_command", path: "make", status, detail: "", reasons: [] });
    const edit = { editId: "e", tool: "edit_file", path: "a.py", status: "applied" as const, detail: "", reasons: [] };
    assert.equal(editSummary([command("applied")]), "1 command: 1 run");
    assert.equal(editSummary([edit, command("applied"), command("rejected")]), "1 edit: 1 applied; 2 commands: 1 run, 1 not run");
  });
});

describe("notificationFor, the answer", () => {
  it("shows only the answer's first line: the Rune view has the rest", () => {
    const note = notificationFor(result({ edits: [], answer: "Fixed it.\n\n```py\nx = 1\n```" }));
    assert.equal(note.text, "Rune completed · no change proposed: Fixed it.");
  });

  it("reads each edit's detail and the tool calls", () => {
    const parsed = parseRunResult({ ...wire, edits: [{ ...wire.edits[0], detail: "kept hunk 1" }] });
    assert.equal(parsed.edits[0]?.detail, "kept hunk 1");
    assert.deepEqual(parsed.toolCalls, [{ name: "edit_file", status: "ok" }]);
  });

  it("reads the user's reasons, the edit's and its hunks', and a command's whole output", () => {
    const parsed = parseRunResult({
      ...wire,
      edits: [{ ...wire.edits[0], status: "partial", reason: "too broad", hunks: [{ hunkId: 1, status: "rejected", reason: "keep world" }, { hunkId: 0, status: "applied" }] }],
      toolCalls: [{ name: "run_command", status: "ok", command: "echo hi", output: "hi\n".repeat(300) }],
    });
    assert.deepEqual(parsed.edits[0]?.reasons, ["too broad", "hunk 2: keep world"]);
    assert.deepEqual(parsed.toolCalls.map((call) => [call.command, call.output]), [["echo hi", "hi\n".repeat(300)]]);
  });

  it("names a malformed hunk list", () => {
    assert.throws(() => parseRunResult({ ...wire, edits: [{ ...wire.edits[0], hunks: "x" }] }), /result\.edits\[0\]\.hunks: expected a list/u);
  });
});

describe("receiptCandidates", () => {
  it("prefers the Markdown rendering next to the JSON receipt", () => {
    assert.deepEqual(receiptCandidates("/s/receipts/abc.json"), ["/s/receipts/abc.md", "/s/receipts/abc.json"]);
    assert.deepEqual(receiptCandidates("/s/receipts/abc"), ["/s/receipts/abc"]);
  });
});
