/**
 * End to end, issue 27 (client-vscode/README.md "Develop and test"): proposed lines shown as
 * real lines (a 2,000-line file with 51 hunks, a multi-line insertion, light and dark theme),
 * keys that act only on what the user sees (a key in another editor changes nothing, no wrap to
 * an off-screen hunk), a follow-up turn from the Rune view's reply box, a
 * command allowed for the workspace, the Refactor Preview starting with its hunks ticked, and the
 * model's text streaming into the Rune view (`rune/modelText`) before the run's result is in.
 */

import assert from "node:assert/strict";
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import { after, before, describe, it } from "node:test";
import type { Page } from "playwright-core";
import { ARTIFACTS, CLIENT_DIR, Harness } from "./harness";
import { fixThis, instructionBox, latestReceipt, lens, nextReceipt, openFile, openWorkbench, pressToDecide, receiptCount, recorder, runCommand, scenario, sessionFiles, standsTwice, STEP_TIMEOUT, waitForDisk } from "./steps";

const DOCS = path.join(CLIENT_DIR, "docs");

/** 2,000 lines: 1,000 two-line functions. */
const BIG_BEFORE = Array.from({ length: 1000 }, (_, i) => `def f${i}(x):\n    return x + ${i}\n`).join("");
/** A two-line insertion (indented) under f2's header, then every 20th function's body changed: 51 hunks. */
const INSERTED = `    """Adds two."""\n    assert x is not None, "x is required"\n`;
const BIG_PROPOSED = BIG_BEFORE.replace("def f2(x):\n", `def f2(x):\n${INSERTED}`).replace(
  /return x \+ (\d+)\n/gu,
  (line, n: string) => (Number(n) % 20 === 5 ? `return x * ${n}  # scaled\n` : line),
);
/** What lands: only the hunk the key accepted (the insertion, hunk 1), the rest rejected. */
const BIG_AFTER = BIG_BEFORE.replace("def f2(x):\n", `def f2(x):\n${INSERTED}`);
const OTHER = "def other():\n    return 1\n";
const SMALL = "def small():\n    return 1\n";
/** A command with a tab and a long tail: shown whole, the tab visible. */
const COMMAND = "printf 'allowed\t%s\\n' hello-from-rune; echo " + "and-the-whole-output ".repeat(20);
const FIRST_ANSWER = "small() is called from tests only, as far as this file shows.";
const FOLLOW_UP_ANSWER = "Yes: small() is only called from tests.";
/** Streamed a word every 0.3 s by the model double: 12 s of text arriving in pieces. */
/** What each scenario types into Fix This: the model double answers each run by its task. */
const ASK = {
  bigFile: "scale every twentieth function",
  preview: "return two",
  allowedCommand: "run the allowed command",
  followUp: "is small() used anywhere?",
  streaming: "explain small()",
};
const STREAMED_ANSWER = Array.from({ length: 40 }, (_, i) => `word${i + 1}`).join(" ");

describe("Rune in VS Code: issue 27", () => {
  const harness = new Harness();
  let page: Page | undefined;

  before(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    const port = await harness.startModelDouble([
      // 1. a 2,000-line file, 51 hunks
      ...scenario(ASK.bigFile, [
        { toolCalls: [{ name: "edit_file", arguments: { path: "big.py", old_text: BIG_BEFORE, new_text: BIG_PROPOSED } }] },
        { text: "Scaled every twentieth function and documented f2." },
      ]),
      // 2. the Refactor Preview (rune.review.mode: preview) starts with its hunks ticked
      ...scenario(ASK.preview, [
        { toolCalls: [{ name: "edit_file", arguments: { path: "small.py", old_text: "return 1", new_text: "return 2" } }] },
        { text: "Returned two." },
      ]),
      // 3. a command allowed for the workspace, then run again without asking
      ...scenario(ASK.allowedCommand, [
        { toolCalls: [{ name: "run_command", arguments: { command: COMMAND } }] },
        { text: "Ran it." },
        { toolCalls: [{ name: "run_command", arguments: { command: COMMAND } }] },
        { text: "Ran it again without asking." },
      ]),
      // 4. an answer, then a follow-up turn of the same conversation
      ...scenario(ASK.followUp, [...standsTwice(FIRST_ANSWER), ...standsTwice(FOLLOW_UP_ANSWER)]),
      // 5. an answer streamed slowly in pieces, then (asked once more) at once
      ...scenario(ASK.streaming, [{ text: STREAMED_ANSWER, chunkDelay: 0.3 }, { text: STREAMED_ANSWER }]),
    ]);
    harness.writeFiles({
      "workspace/big.py": BIG_BEFORE,
      "workspace/other.py": OTHER,
      "workspace/small.py": SMALL,
      ...sessionFiles(harness, port, { "workbench.colorTheme": "Default Light Modern" }),
    });
    page = await openWorkbench(harness);
  });

  const recorded = recorder(() => page);

  after(async () => {
    if (page !== undefined) {
      await page.screenshot({ path: path.join(ARTIFACTS, "final-issue27.png") }).catch(() => undefined);
    }
    await harness.close();
  });

  it("shows a 2,000-line file's 51 proposed hunks as real lines; keys act only on the visible editor under review", recorded("big-file", async (page) => {
    await openFile(page, "big.py");
    await runCommand(page, "Rune: Fix This");
    const input = await instructionBox(page);
    await input.fill(ASK.bigFile);
    const asked = Date.now();
    await input.press("Enter");
    await lens(page, "Accept hunk 1/51").waitFor({ timeout: STEP_TIMEOUT });
    // The proposed lines are lines: the inserted docstring shows whole, indented, in a zone.
    const zone = page.locator(".review-widget", { hasText: "Adds two." });
    await zone.waitFor({ timeout: STEP_TIMEOUT });
    const shownAfter = Date.now() - asked;
    // ... as added lines: on the theme's inserted-line green (the sanitizer kept the span),
    // syntax-coloured inside it: the code block is tokenized after it is drawn, into spans of
    // the editor's token classes (`mtk<n>`), several for a line of Python.
    const added = zone.locator('span[style*="insertedLineBackground"]', { hasText: "assert x is not None" });
    await added.waitFor({ timeout: STEP_TIMEOUT });
    await added.locator('span[class^="mtk"]').nth(2).waitFor({ timeout: STEP_TIMEOUT });
    // Runs in the page (the test's tsconfig has no DOM types): the span's computed background.
    const green = String(await added.evaluate("(element) => getComputedStyle(element).backgroundColor"));
    assert.ok(!/^(transparent|rgba\(0, 0, 0, 0\))$/u.test(green), `the proposed lines have no background: ${green}`);
    await page.waitForTimeout(800);
    await shootBoth(page, "inline-review-light.png", "inline-review-dark.png");
    writeFileSync(
      path.join(ARTIFACTS, "render-2000-lines.txt"),
      `2,000 lines, 51 hunks: ${drawTimes(harness.root)}; Enter to the first zone on screen: ${shownAfter} ms (the whole run, model double included)\n`,
    );

    // A key in another editor changes nothing, though a review is pending in big.py.
    await openFile(page, "other.py");
    await page.keyboard.press("Control+Alt+y");
    await page.keyboard.press("Control+Alt+Shift+y");
    await page.waitForTimeout(1_000);
    await shootBoth(page, "key-in-another-editor.png", "key-in-another-editor-dark.png");
    assert.equal(readFileSync(path.join(harness.workspace, "other.py"), "utf8"), OTHER);
    await page.locator(".tab", { hasText: "big.py" }).click();
    await lens(page, "Accept hunk 1/51").waitFor({ timeout: STEP_TIMEOUT });
    assert.equal(await lens(page, "accepted").count(), 0, "a key in other.py decided a hunk of big.py");

    // Below the last hunk a key does not wrap to the first (off screen).
    await page.locator(".monaco-editor .view-line", { hasText: "def f1(x)" }).first().click();
    await page.keyboard.press("Control+End");
    await page.waitForTimeout(500);
    await page.keyboard.press("Control+Alt+y");
    // The key was heard, and decided nothing.
    await page.locator(".statusbar-item", { hasText: "no pending hunk at or below the cursor" }).waitFor({ timeout: STEP_TIMEOUT });
    await page.keyboard.press("Control+Home");
    await lens(page, "Accept hunk 1/51").waitFor({ timeout: STEP_TIMEOUT });
    assert.equal(await lens(page, "accepted").count(), 0, "a key below the last hunk decided one");

    // At the top the first hunk (the insertion) is on screen: the key accepts it.
    await pressToDecide(page, "Control+Alt+y");
    // The cursor moves on to hunk 2 (the editor may scroll); back at the top, hunk 1 says it
    // is accepted, and it alone.
    await page.keyboard.press("Control+Home");
    await lens(page, "hunk 1/51 accepted").waitFor({ timeout: STEP_TIMEOUT });
    assert.equal(await lens(page, "accepted").count(), 1, "the key decided more than hunk 1");
    await page.keyboard.press("Control+Alt+Shift+n"); // reject the other 50
    await page.locator(".notification-toast", { hasText: "Rune completed" }).waitFor({ timeout: STEP_TIMEOUT });
    await runCommand(page, "File: Save All Files");
    await waitForDisk(harness.workspace, "big.py", BIG_AFTER);
    const [edit] = latestReceipt(harness.stateDir).result.edits;
    assert.equal(edit?.status, "partial", `big.py recorded as ${edit?.status}: ${edit?.detail}`);
  }));

  it("opens the Refactor Preview with the hunks ticked (rune.review.mode: preview)", recorded("preview", async (page) => {
    const settings = path.join(harness.workspace, ".vscode/settings.json");
    writeFileSync(settings, JSON.stringify({ ...JSON.parse(readFileSync(settings, "utf8")), "rune.review.mode": "preview" }));
    await page.waitForTimeout(1_500); // the settings file is watched
    await openFile(page, "small.py");
    await fixThis(page, ASK.preview);
    const panel = page.locator(".bulk-edit-panel[data-state=data]");
    await panel.waitFor({ timeout: STEP_TIMEOUT });
    await page.waitForTimeout(800);
    await shoot(page, "preview-ticked.png");
    await panel.locator(".monaco-button", { hasText: "Apply" }).first().click();
    await page.locator(".notification-toast", { hasText: "Returned two." }).waitFor({ timeout: STEP_TIMEOUT });
    await runCommand(page, "File: Save All Files");
    await waitForDisk(harness.workspace, "small.py", SMALL.replace("return 1", "return 2"));
    writeFileSync(settings, JSON.stringify({ ...JSON.parse(readFileSync(settings, "utf8")), "rune.review.mode": "inline" }));
    await page.waitForTimeout(1_500);
  }));

  it("asks about a command without blocking the window, shows it whole, and allows it for the workspace", recorded("allowed-command", async (page) => {
    await openFile(page, "other.py");
    await fixThis(page, ASK.allowedCommand);
    const prompt = page.locator(".quick-input-widget", { hasText: "Rune wants to run" });
    await prompt.waitFor({ timeout: STEP_TIMEOUT });
    const view = page.frameLocator("iframe.webview.ready").frameLocator("#active-frame");
    await view.locator("section.asking pre.command", { hasText: "allowed⇥%s" }).waitFor({ timeout: STEP_TIMEOUT });
    await page.waitForTimeout(600);
    await shoot(page, "command-prompt.png");
    await prompt.locator(".quick-input-list .monaco-list-row", { hasText: "Always allow in this workspace" }).click();
    await page.locator(".notification-toast", { hasText: "Ran it." }).waitFor({ timeout: STEP_TIMEOUT });
    const settings = JSON.parse(readFileSync(path.join(harness.workspace, ".vscode/settings.json"), "utf8")) as Record<string, unknown>;
    assert.deepEqual(settings["rune.allowedCommands"], [COMMAND]);
    // The same command again: it runs without a prompt.
    await fixThis(page, ASK.allowedCommand);
    await page.locator(".notification-toast", { hasText: "Ran it again without asking." }).waitFor({ timeout: STEP_TIMEOUT });
    await page.locator(".notification-toast .monaco-button", { hasText: "Open Rune View" }).first().click();
    await view.locator("pre.output", { hasText: "and-the-whole-output ".repeat(20).trim() }).first().waitFor({ timeout: STEP_TIMEOUT });
    await view.locator("section.allowed a", { hasText: "Revoke" }).waitFor({ timeout: STEP_TIMEOUT });
    await runCommand(page, "View: Toggle Maximized Panel");
    await page.waitForTimeout(800);
    await shootBoth(page, "rune-view-allowed-command.png", "rune-view-allowed-command-dark.png");
    await runCommand(page, "View: Toggle Maximized Panel");
  }));

  it("continues a finished run's conversation from the reply box in the Rune view", recorded("follow-up", async (page) => {
    await openFile(page, "small.py");
    const seen = receiptCount(harness.stateDir);
    await runCommand(page, "Rune: Fix This");
    await (await instructionBox(page)).fill(ASK.followUp);
    await page.keyboard.press("Enter");
    const first = (await nextReceipt(harness.stateDir, seen)) as unknown as { result: { runId: string; answer: string } };
    assert.equal(first.result.answer, FIRST_ANSWER);
    await runCommand(page, "Rune: Show Runs");
    const view = page.frameLocator("iframe.webview.ready").frameLocator("#active-frame");
    const reply = view.locator("form.reply textarea").first();
    await reply.fill("and from anywhere else?");
    await reply.press("Enter");
    const followUp = view.locator("section.run", { hasText: "follow-up of run" }).first();
    await followUp.locator("h2", { hasText: "completed" }).waitFor({ timeout: STEP_TIMEOUT });
    await followUp.locator(".task", { hasText: "and from anywhere else?" }).waitFor({ timeout: STEP_TIMEOUT });
    await runCommand(page, "View: Toggle Maximized Panel");
    await page.waitForTimeout(800);
    await shootBoth(page, "rune-view-follow-up.png", "rune-view-follow-up-dark.png");
    await runCommand(page, "View: Toggle Maximized Panel");
    // A new run of its own (its own receipt), not the first one amended.
    const second = (await nextReceipt(harness.stateDir, seen + 1)) as unknown as { result: { runId: string; outcome: string; answer: string } };
    assert.notEqual(second.result.runId, first.result.runId);
    assert.equal(second.result.outcome, "completed");
    assert.equal(second.result.answer, FOLLOW_UP_ANSWER);
  }));

  it("shows the model's text in the Rune view while it streams, before the result is in", recorded("streaming", async (page) => {
    // The view open first, so the first pieces are not missed while it opens.
    await runCommand(page, "Rune: Show Runs");
    await openFile(page, "small.py");
    const seen = receiptCount(harness.stateDir);
    await runCommand(page, "Rune: Fix This");
    await (await instructionBox(page)).fill(ASK.streaming);
    await page.keyboard.press("Enter");
    const view = page.frameLocator("iframe.webview.ready").frameLocator("#active-frame");
    // Only a run without its result shows "The model writes"; its text grows piece by piece.
    const streamed = view.locator("pre.streamed").first();
    await streamed.waitFor({ timeout: STEP_TIMEOUT });
    const early = await streamed.innerText();
    const later = await grown(page, () => streamed.innerText(), early);
    await shoot(page, "rune-view-streaming.png");
    assert.ok(STREAMED_ANSWER.startsWith(early), `not the model's first words: ${JSON.stringify(early)}`);
    assert.ok(early.length < STREAMED_ANSWER.length, "the whole answer was there at once: nothing streamed");
    assert.ok(later.startsWith(early), `the streamed text was not appended to: ${early} -> ${later}`);
    // The result replaces the streamed text with the answer.
    const done = await nextReceipt(harness.stateDir, seen);
    await view.locator("section.run h2", { hasText: "completed" }).first().waitFor({ timeout: STEP_TIMEOUT });
    assert.equal(done.result.answer, STREAMED_ANSWER);
  }));
});

/** Polls `read` until its text is longer than `than`: the next piece of a stream arrived. */
async function grown(page: Page, read: () => Promise<string>, than: string): Promise<string> {
  for (let tries = 0; tries < 100; tries++) {
    const text = await read();
    if (text.length > than.length) {
      return text;
    }
    await page.waitForTimeout(100);
  }
  throw new Error(`the streamed text stayed ${JSON.stringify(than)} for 10 s`);
}

/** The same screen in the light theme (the session's), then in the dark one, then light again. */
async function shootBoth(page: Page, light: string, dark: string): Promise<void> {
  await shoot(page, light);
  await runCommand(page, "Preferences: Toggle between Light/Dark Themes");
  await page.waitForTimeout(1_000);
  await shoot(page, dark);
  await runCommand(page, "Preferences: Toggle between Light/Dark Themes");
  await page.waitForTimeout(600);
}

/** A screenshot into the artifacts and, as documentation, into docs/. */
async function shoot(page: Page, name: string): Promise<void> {
  const file = path.join(ARTIFACTS, name);
  await page.screenshot({ path: file });
  copyFileSync(file, path.join(DOCS, name));
}

/**
 * From the Rune log (its timestamped lines): milliseconds from the server's "waiting for review"
 * to the review drawn, and the extension's own time for drawing every hunk ("drawn in N ms").
 */
function drawTimes(root: string): string {
  const logs: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) {
        walk(full);
      } else if (entry.name === "Rune.log") {
        logs.push(readFileSync(full, "utf8"));
      }
    }
  };
  walk(path.join(root, "user-data", "logs"));
  const log = logs.join("\n");
  const at = (pattern: RegExp) => {
    const stamp = new RegExp(`^(\\S+ \\S+) .*${pattern.source}`, "mu").exec(log)?.[1];
    return stamp === undefined ? undefined : Date.parse(stamp.replace(" ", "T"));
  };
  const asked = at(/waiting for review: edit_file big\.py/u);
  const drawn = at(/51 hunk\(s\), drawn in/u);
  const own = /51 hunk\(s\), drawn in ([\d.]+) ms/u.exec(log)?.[1] ?? "?";
  const wait = asked !== undefined && drawn !== undefined ? `${drawn - asked} ms` : "?";
  return `from the server's "waiting for review" to the review drawn: ${wait}; drawing all 51 hunks (decorations, zones, lenses): ${own} ms`;
}
