import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { parseRunResult } from "../../src/runResult";
import { allowedHtml, askingHtml, callsOfReceipt, escapeHtml, type RunStory, storyHtml, withResultOutputs, addStreamed } from "../../src/story";

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

describe("issue 27 in the story", () => {
  it("shows the streamed text while the run goes, and a reply box once it has a result", () => {
    const going: RunStory = { id: 2, file: "a.py", uri: "file:///a.py", task: "t", steps: [], streamed: "Looking at <x>" };
    assert.ok(storyHtml(going, undefined).includes('<pre class="streamed">Looking at &#60;x&#62;</pre>'));
    assert.ok(!storyHtml(going, undefined).includes("form"));
    const done = { ...going, result };
    assert.ok(storyHtml(done, undefined).includes('<form class="reply" data-story="2">'));
    assert.ok(!storyHtml(done, undefined).includes("streamed"));
  });

  it("sets each model turn's streamed answer apart under its step, and keeps the end", () => {
    const story: RunStory = { id: 3, file: "a.py", task: "t", steps: [] };
    const add = (text: string, step: string | undefined, keep = 1000): string => {
      addStreamed(story, text, step, keep);
      return story.streamed ?? "";
    };
    add("def f():", "step 1/8");
    assert.equal(add(" return 1", "step 1/8"), "def f(): return 1");
    // The same request asked again: a second answer under its step, not a longer first one.
    assert.equal(add("def f():", "step 2/8"), "def f(): return 1\n\n── step 2/8 ──\ndef f():");
    // A server that names no step: appended as before, and the turn stays step 2.
    assert.ok(add(" return 2", undefined).endsWith("── step 2/8 ──\ndef f(): return 2"));
    assert.equal(add("xyz", "step 2/8", 5), " 2xyz"); // only the end is kept
  });

  it("shows a command whole with its control characters visible, and its whole output", () => {
    const calls = [{ name: "run_command", arguments: JSON.stringify({ command: "printf 'a\\n'\necho \u001b[31m" }), status: "ok", output: "x".repeat(200) }];
    const story: RunStory = { id: 3, file: "a.py", task: "t", steps: [], result, calls: withResultOutputs(calls, { ...result, toolCalls: [{ name: "run_command", status: "ok", output: "x".repeat(5000) }] }) };
    const html = storyHtml(story, undefined);
    assert.ok(html.includes("↵echo ␛[31m"), html);
    assert.ok(html.includes("x".repeat(5000)));
  });

  it("shows the command waiting for an answer, and the allowed commands with a Revoke link", () => {
    assert.ok(askingHtml({ command: "rm -rf /\u202e", cwd: "/ws" }).includes("rm -rf /&#60;U+202E&#62;"));
    const html = allowedHtml(["make test"], (command) => `command:revoke?${command}`);
    assert.ok(html.includes('<code class="command">make test</code> <a href="command:revoke?make test">Revoke</a>'));
    assert.equal(allowedHtml([], () => ""), "");
  });

  it("shows the user's reasons under an edit", () => {
    const rejected = parseRunResult({ ...JSON.parse(JSON.stringify(wireOf(result))), edits: [{ editId: "e", tool: "edit_file", path: "a.py", status: "rejected", reason: "keep <it>" }] });
    assert.ok(storyHtml({ id: 4, file: "a.py", task: "t", steps: [], result: rejected }, undefined).includes("Your reason: keep &#60;it&#62;"));
  });
});

function wireOf(value: typeof result): Record<string, unknown> {
  return { ...value, edits: [], toolCalls: [] };
}
