import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseRunResult } from "../../src/runResult";
import { callsOfReceipt, escapeHtml, type RunStory, storyHtml } from "../../src/story";

const result = parseRunResult({
  runId: "r1",
  outcome: "completed",
  answer: "Done.",
  error: null,
  iterationsUsed: 2,
  iterationBudget: 8,
  edits: [
    { editId: "e1", tool: "edit_file", path: "app.py", status: "partial", detail: "kept hunk 1 <of 2>" },
    { editId: "c1", tool: "run_command", path: "echo hi", status: "applied" },
  ],
  toolCalls: [
    { name: "edit_file", status: "ok" },
    { name: "run_command", status: "ok" },
  ],
  verified: true,
  receipt: "/s/receipts/r1.json",
});

describe("callsOfReceipt", () => {
  it("reads the receipt's tool calls and skips what is malformed", () => {
    const receipt = {
      toolCalls: [{ name: "run_command", arguments: '{"command":"echo hi"}', status: "ok", digest: "hi\n" }, { bad: 1 }],
    };
    assert.deepEqual(callsOfReceipt(receipt), [
      { name: "run_command", arguments: '{"command":"echo hi"}', status: "ok", output: "hi\n" },
    ]);
    assert.deepEqual(callsOfReceipt(null), []);
    assert.deepEqual(callsOfReceipt({ toolCalls: "no" }), []);
  });
});

describe("storyHtml", () => {
  const story: RunStory = { id: 1, file: "app.py", task: "fix <it>", steps: ["step 1/8 · asking the model"] };

  it("shows the steps while the run goes on", () => {
    const html = storyHtml(story, undefined);
    assert.match(html, /step 1\/8 · asking the model/u);
    assert.match(html, /fix &#60;it&#62;/u);
  });

  it("tells the whole story once the result is in, escaping what came from the model", () => {
    const calls = callsOfReceipt({ toolCalls: [{ name: "run_command", arguments: "{}", status: "ok", digest: "<b>hi</b>" }] });
    const html = storyHtml({ ...story, result, calls, answerHtml: "<p>Done.</p>" }, "command:rune.openReceipt");
    assert.match(html, /completed · step 2\/8/u);
    assert.match(html, /<pre class="output">&#60;b&#62;hi&#60;\/b&#62;<\/pre>/u);
    assert.match(html, /<b>app.py<\/b> \(edit_file\) <span class="status partial">partial<\/span>/u);
    assert.match(html, /kept hunk 1 &#60;of 2&#62;/u);
    assert.doesNotMatch(html, /<b>echo hi<\/b>/u); // a command is no edit
    assert.match(html, /<div class="answer"><p>Done.<\/p><\/div>/u);
    assert.match(html, /check passed/u);
    assert.match(html, /href="command:rune.openReceipt"/u);
  });

  it("shows what happened after the result, escaped", () => {
    assert.match(storyHtml({ ...story, result, notes: ["undid <x>"] }, undefined), /<p class="note">undid &#60;x&#62;<\/p>/u);
  });

  it("escapes the five HTML characters", () => {
    assert.equal(escapeHtml(`<a href="x">'&'</a>`), "&#60;a href=&#34;x&#34;&#62;&#39;&#38;&#39;&#60;/a&#62;");
  });
});
