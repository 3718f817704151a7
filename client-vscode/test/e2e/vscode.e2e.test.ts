/**
 * End to end in a real VS Code (code-server) with the packaged extension and the real server:
 * Rune: Fix This from the command palette, the proposed edit reviewed inline (a shortcut, a
 * reason, a per-line accept, typing above a pending hunk), a run cancelled with its inline review
 * or its Refactor Preview open, the server's code action, and an edit to a closed file.
 */

import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import * as path from "node:path";
import { after, before, describe, it } from "node:test";
import type { Page } from "playwright-core";
import { ARTIFACTS, Harness, LOCATIONS, waitFor } from "./harness";
import {
  codeActionOnAll,
  fixThis,
  instructionBox,
  latestReceipt,
  lens,
  openFile,
  pressToDecide,
  receipts,
  runCommand,
  saveUserSettings,
  STEP_TIMEOUT,
  statusItem,
  waitForDisk,
  waitForPreviewOf,
  openWorkbench,
  recorder,
  scenario,
  sessionFiles,
  standsTwice,
} from "./steps";

const APP_BEFORE =
  `def greet(name):\n    return "Helo, " + name\n\n\ndef main():\n    print(greet("world"))\n\n\n` +
  `def limits():\n    low = 1\n    high = 10\n    step = 1\n    return low, high, step\n`;
/** Three hunks: the greeting (accepted by shortcut), World (rejected with a reason), limits (2 of 3 lines). */
const APP_PROPOSED = APP_BEFORE.replace("Helo", "Hello")
  .replace('"world"', '"World"')
  .replace("low = 1", "low = 0")
  .replace("high = 10", "high = 100")
  .replace("step = 1", "step = 2");
/**
 * What lands: the line the user typed above the pending hunks, hunk 1, and of hunk 3 the old
 * `step = 1` kept with the new `low`/`high` (the server's rule puts what stays of the old lines
 * before what is added: review/hunks.py keep_lines).
 */
const APP_AFTER = `# greetings\n${APP_BEFORE.replace("Helo", "Hello").replace("    low = 1\n    high = 10\n    step = 1\n", "    step = 1\n    low = 0\n    high = 100\n")}`;
const TYPED_BEFORE = `def main():\n    pass\n`;
const UTIL_BEFORE = `def double(x):\n    return x * 2\n`;
const CONFIG_BEFORE = `DEBUG = True\n`;
const ANSWER = "Fixed the typo in greet() and\n\n- widened the **limits**.";
const REASON = "keep the lowercase world";
const RUN_ANSWER = "The check prints its greeting.\n\n- ran `echo`\n- **nothing to fix**";

const CODE_ACTION_ANSWER = "double() is fine as it is.";
/** What each scenario types into Fix This: the model double answers each run by its task. */
const ASK = {
  inline: "fix the typo in the greeting",
  typedAbove: "return zero from main",
  cancelInline: "add x to itself, then be cancelled",
  superseded: "add x to itself, then be superseded",
  superseding: "try again",
  cancelPreview: "turn debugging off",
  codeAction: "check the doubling",
  closedFile: "mark the note done",
  runCommand: "run the greeting check",
  serverPath: "say where the server came from",
};


describe("Rune in VS Code", () => {
  const harness = new Harness();
  let page: Page | undefined;

  before(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    const port = await harness.startModelDouble([
      // 1. the inline review of three hunks
      ...scenario(ASK.inline, [
        { toolCalls: [{ name: "edit_file", arguments: { path: "app.py", old_text: APP_BEFORE, new_text: APP_PROPOSED } }] },
        { text: ANSWER },
      ]),
      // 1b. accepted inline after the user typed above it
      ...scenario(ASK.typedAbove, [
        { toolCalls: [{ name: "edit_file", arguments: { path: "typed.py", old_text: "pass", new_text: "return 0" } }] },
        { text: "Typed around it." },
      ]),
      // 2. cancelled while its inline review is open
      ...scenario(ASK.cancelInline, [{ toolCalls: [{ name: "edit_file", arguments: { path: "util.py", old_text: "x * 2", new_text: "x + x" } }] }]),
      // 2b. superseded while its inline review is open, by a second run on the same file
      ...scenario(ASK.superseded, [{ toolCalls: [{ name: "edit_file", arguments: { path: "util.py", old_text: "x * 2", new_text: "x + x" } }] }]),
      ...scenario(ASK.superseding, standsTwice("The second run found nothing to change.")),
      // 3. cancelled while its Refactor Preview is open (rune.review.mode: preview)
      ...scenario(ASK.cancelPreview, [{ toolCalls: [{ name: "edit_file", arguments: { path: "config.py", old_text: "True", new_text: "False" } }] }]),
      // 4. the server's code action
      ...scenario(ASK.codeAction, standsTwice(CODE_ACTION_ANSWER)),
      // 5. an edit to a file that is not open in the editor
      ...scenario(ASK.closedFile, [
        { toolCalls: [{ name: "edit_file", arguments: { path: "notes.py", old_text: "TODO", new_text: "DONE" } }] },
        { text: "Marked it done." },
      ]),
      // 6. a command the user approves, its output in the Rune view
      ...scenario(ASK.runCommand, [{ toolCalls: [{ name: "run_command", arguments: { command: "echo hello-from-rune" } }] }, { text: RUN_ANSWER }]),
      // 7. after rune.server.path moved to User settings
      ...scenario(ASK.serverPath, standsTwice("the server picked up its path from User settings")),
    ]);
    harness.writeFiles({
      "workspace/app.py": APP_BEFORE,
      "workspace/typed.py": TYPED_BEFORE,
      "workspace/util.py": UTIL_BEFORE,
      "workspace/config.py": CONFIG_BEFORE,
      "workspace/notes.py": "# TODO\n",
      ...sessionFiles(harness, port),
    });
    page = await openWorkbench(harness);
  });

  const recorded = recorder(() => page);

  after(async () => {
    if (page !== undefined) {
      await page.screenshot({ path: path.join(ARTIFACTS, "final.png") }).catch(() => undefined);
    }
    await harness.close();
  });

  it("reviews inline: a shortcut, a reason, two of three lines, typing above a pending hunk", recorded("inline", async (page) => {
    await openFile(page, "app.py");
    await runCommand(page, "Rune: Fix This");
    const input = await instructionBox(page);
    await input.fill(ASK.inline);
    await input.press("Enter");

    await lens(page, "Accept hunk 1/3").waitFor({ timeout: STEP_TIMEOUT });
    await page.waitForTimeout(500); // decorations and lenses settle
    await page.screenshot({ path: path.join(ARTIFACTS, "inline-review.png") });
    // The status bar takes the user to the review instead of cancelling the run.
    await statusItem(page).filter({ hasText: "Rune: step" }).click();
    await lens(page, "Accept hunk 1/3").waitFor({ timeout: STEP_TIMEOUT });

    // The user types a line above the pending hunks: they move with it and stay pending.
    await page.locator(".monaco-editor .view-line", { hasText: "def greet" }).click();
    await page.keyboard.press("Control+Home");
    await page.keyboard.press("Enter");
    await page.keyboard.press("ArrowUp");
    await page.keyboard.type("# greetings");
    await page.keyboard.press("Escape");
    await lens(page, "Accept hunk 1/3").waitFor({ timeout: STEP_TIMEOUT });
    await page.locator(".monaco-editor .view-line", { hasText: "# greetings" }).waitFor({ timeout: STEP_TIMEOUT });
    await page.keyboard.press("Control+Home");
    await pressToDecide(page, "Control+Alt+y"); // the first pending one below
    await lens(page, "hunk 1/3 accepted").waitFor({ timeout: STEP_TIMEOUT });

    await lens(page, "Reject with reason…").first().click();
    const why = page.locator('.quick-input-widget input[placeholder="e.g. keep the old name"]');
    await why.waitFor({ timeout: STEP_TIMEOUT });
    await why.fill(REASON);
    await why.press("Enter");
    await lens(page, `hunk 2/3 rejected: ${REASON}`).waitFor({ timeout: STEP_TIMEOUT });

    await lens(page, "Accept lines…").click();
    const pick = page.locator(".quick-input-widget");
    // Numbered as the server (and mode B) numbers them: the removed lines, then the added ones.
    const keepOld = pick.locator(".quick-input-list .monaco-list-row", { hasText: "3: - step = 1" });
    const dropNew = pick.locator(".quick-input-list .monaco-list-row", { hasText: "6: + step = 2" });
    await dropNew.waitFor({ timeout: STEP_TIMEOUT });
    await page.waitForTimeout(600); // the quick pick fades in
    await page.screenshot({ path: path.join(ARTIFACTS, "inline-accept-lines.png") });
    await keepOld.click(); // untick: the old line stays
    await dropNew.click(); // untick: the new line is not added
    await pick.locator("input").first().press("Enter");

    const toast = page.locator(".notification-toast", { hasText: "Rune completed" });
    await toast.waitFor({ timeout: STEP_TIMEOUT });
    await runCommand(page, "File: Save All Files");
    await waitForDisk(harness.workspace, "app.py", APP_AFTER);

    // What landed is read from the text: the typing above kept, two lines of hunk 3.
    const receipt = latestReceipt(harness.stateDir);
    const [edit] = receipt.result.edits;
    assert.equal(edit?.status, "partial", `app.py recorded as ${edit?.status}: ${edit?.detail}`);
    assert.ok(edit.detail.includes("kept hunk 1 of 3"), edit.detail);
    assert.ok(edit.detail.includes("rejected hunk 2 of 3"), edit.detail);
    assert.ok(edit.detail.includes("part of hunk 3 of 3"), edit.detail);
    // The receipt's detail is clipped there; that the reason reaches the model in full is
    // tests/server/test_review_inline.py's to show.
  }));

  it("reports an inline accept after typing above the hunk as applied", recorded("typed-above", async (page) => {
    await openFile(page, "typed.py");
    await fixThis(page, ASK.typedAbove);
    await lens(page, "Accept hunk 1/1").waitFor({ timeout: STEP_TIMEOUT });
    await page.locator(".monaco-editor .view-line", { hasText: "def main" }).click();
    await page.keyboard.press("Control+Home");
    await page.keyboard.type("# typed during the review\n");
    await page.keyboard.press("Escape");
    await page.locator(".monaco-editor .view-line", { hasText: "# typed during the review" }).waitFor({ timeout: STEP_TIMEOUT });
    await lens(page, "Accept hunk 1/1").waitFor({ timeout: STEP_TIMEOUT });
    await page.keyboard.press("Control+Alt+Shift+y"); // accept all
    await page.locator(".notification-toast", { hasText: "Typed around it." }).waitFor({ timeout: STEP_TIMEOUT });
    await runCommand(page, "File: Save All Files");
    await waitForDisk(harness.workspace, "typed.py", `# typed during the review\n${TYPED_BEFORE.replace("pass", "return 0")}`);
    const [edit] = latestReceipt(harness.stateDir).result.edits;
    assert.equal(edit?.status, "applied", `typed.py recorded as ${edit?.status}: ${edit?.detail}`);
  }));

  it("withdraws the inline review when the run is cancelled: nothing lands", recorded("cancel-inline", async (page) => {
    await openFile(page, "util.py");
    await fixThis(page, ASK.cancelInline);
    await lens(page, "Accept hunk 1/1").waitFor({ timeout: STEP_TIMEOUT });
    await runCommand(page, "Rune: Cancel Run");
    await page.locator(".notification-toast", { hasText: "was withdrawn" }).waitFor({ timeout: STEP_TIMEOUT });
    await lens(page, "Accept hunk 1/1").waitFor({ state: "detached", timeout: STEP_TIMEOUT });
    await page.keyboard.press("Control+Alt+Shift+y"); // accept all: there is nothing left to accept
    await page.waitForTimeout(1_000);
    await runCommand(page, "File: Save All Files");
    assert.equal(readFileSync(path.join(harness.workspace, "util.py"), "utf8"), UTIL_BEFORE);
    const receipt = latestReceipt(harness.stateDir);
    assert.equal(receipt.result.outcome, "cancelled");
    assert.deepEqual(receipt.result.edits.map((e) => e.status), ["pending"]);
  }));

  it("withdraws the inline review when a newer run on the file supersedes it", recorded("supersede-inline", async (page) => {
    await openFile(page, "util.py");
    await fixThis(page, ASK.superseded);
    await lens(page, "Accept hunk 1/1").waitFor({ timeout: STEP_TIMEOUT });
    await page.locator(".monaco-editor .view-line", { hasText: "def double" }).click();
    await runCommand(page, "Rune: Fix This");
    await (await instructionBox(page)).fill(ASK.superseding);
    await page.keyboard.press("Enter");
    await page.locator(".notification-toast", { hasText: "replaced by a newer run" }).waitFor({ timeout: STEP_TIMEOUT });
    await page.locator(".notification-toast", { hasText: "The second run found nothing to change." }).waitFor({ timeout: STEP_TIMEOUT });
    await lens(page, "Accept hunk 1/1").waitFor({ state: "detached", timeout: 10_000 }); // the dead run's review
    await runCommand(page, "File: Save All Files");
    assert.equal(readFileSync(path.join(harness.workspace, "util.py"), "utf8"), UTIL_BEFORE);
    const superseded = receipts(harness.stateDir).find((r) => r.result.outcome === "superseded");
    assert.ok(superseded !== undefined, "no superseded receipt");
    assert.deepEqual(superseded.result.edits.map((e) => e.status), ["pending"]);
  }));

  it("discards the Refactor Preview when the run is cancelled", recorded("cancel-preview", async (page) => {
    const settings = path.join(harness.workspace, ".vscode/settings.json");
    writeFileSync(settings, JSON.stringify({ ...JSON.parse(readFileSync(settings, "utf8")), "rune.review.mode": "preview" }));
    await page.waitForTimeout(1_500); // the settings file is watched
    await openFile(page, "config.py");
    await fixThis(page, ASK.cancelPreview);
    const panel = page.locator(".bulk-edit-panel[data-state=data]");
    await waitForPreviewOf(page, panel, "config.py");
    await runCommand(page, "Rune: Cancel Run");
    await page.locator(".notification-toast", { hasText: "Rune run cancelled." }).waitFor({ timeout: STEP_TIMEOUT });
    await panel.waitFor({ state: "hidden", timeout: STEP_TIMEOUT });
    await runCommand(page, "File: Save All Files");
    assert.equal(readFileSync(path.join(harness.workspace, "config.py"), "utf8"), CONFIG_BEFORE);
    const receipt = latestReceipt(harness.stateDir);
    assert.equal(receipt.result.outcome, "cancelled");
    assert.deepEqual(receipt.result.edits.map((e) => e.status), ["pending"]);
    writeFileSync(settings, JSON.stringify({ ...JSON.parse(readFileSync(settings, "utf8")), "rune.review.mode": "inline" }));
    await page.waitForTimeout(1_500);
  }));

  it("runs the server's own Rune: Fix this code action through the same flow", recorded("code-action", async (page) => {
    await openFile(page, "util.py");
    const action = page.locator(".action-widget .monaco-list-row", { hasText: "Rune: Fix this" });
    // A bare cursor without a problem under it: no Fix this (it was offered on every line).
    await page.keyboard.press("Control+Period");
    await page.waitForTimeout(2_000);
    assert.equal(await action.count(), 0, "Rune: Fix this offered on a bare cursor");
    await page.keyboard.press("Escape");
    await codeActionOnAll(page, action);
    await action.click();
    const input = await instructionBox(page);
    await input.fill(ASK.codeAction);
    await input.press("Enter");
    const toast = page.locator(".notification-toast", { hasText: CODE_ACTION_ANSWER });
    await toast.waitFor({ timeout: STEP_TIMEOUT });
    assert.equal(
      (await toast.locator(".notification-list-item-message").innerText()).trim(),
      `Rune completed · no change proposed: ${CODE_ACTION_ANSWER}`,
    );
  }));

  it("reviews an edit to a file that is not open: it opens, and Accept all applies it", recorded("closed-file", async (page) => {
    await openFile(page, "util.py");
    await fixThis(page, ASK.closedFile);
    await page.locator(".tab.active", { hasText: "notes.py" }).waitFor({ timeout: STEP_TIMEOUT });
    await lens(page, "Accept all").click();
    const toast = page.locator(".notification-toast", { hasText: "Marked it done." });
    await toast.waitFor({ timeout: STEP_TIMEOUT });
    await runCommand(page, "File: Save All Files");
    await waitForDisk(harness.workspace, "notes.py", "# DONE\n");
    assert.equal(
      (await toast.locator(".notification-list-item-message").innerText()).trim(),
      "Rune completed (1 edit: 1 applied): Marked it done.",
    );
    // Ctrl+Z takes the accepted edit back out: the user is told, and the server records it.
    await page.locator(".monaco-editor .view-line", { hasText: "# DONE" }).click();
    await page.keyboard.press("Control+z");
    await page.locator(".notification-toast", { hasText: "you undid the accepted edit" }).waitFor({ timeout: STEP_TIMEOUT });
    await waitFor(
      async () => Promise.resolve(latestReceipt(harness.stateDir).result.edits[0]?.detail.startsWith("undone by the user in the editor (Ctrl+Z)") === true),
      10_000,
      "the undo in the receipt",
    ).catch(() => undefined);
    const [undone] = latestReceipt(harness.stateDir).result.edits;
    assert.equal(undone?.status, "applied");
    assert.ok(undone.detail.startsWith("undone by the user in the editor (Ctrl+Z)"), `the receipt says: ${undone.detail}`);
  }));

  it("asks before running a command, and shows its output and the answer in the Rune view", recorded("run-command", async (page) => {
    await openFile(page, "util.py");
    await fixThis(page, ASK.runCommand);
    const prompt = page.locator(".quick-input-widget", { hasText: "Rune wants to run: echo hello-from-rune" });
    await prompt.waitFor({ timeout: STEP_TIMEOUT });
    await page.waitForTimeout(15_000); // a toast would have hidden by now; the prompt waits
    await prompt.locator(".quick-input-list .monaco-list-row", { hasText: "run it this once" }).click();
    const toast = page.locator(".notification-toast", { hasText: "Rune completed" });
    await toast.waitFor({ timeout: STEP_TIMEOUT });
    assert.equal(
      (await toast.locator(".notification-list-item-message").innerText()).trim(),
      "Rune completed · no change proposed (1 command: 1 run): The check prints its greeting.",
    );
    await toast.locator(".monaco-button", { hasText: "Open Rune View" }).click();
    const view = page.frameLocator("iframe.webview.ready").frameLocator("#active-frame");
    await view.locator("pre.output", { hasText: "hello-from-rune" }).first().waitFor({ timeout: STEP_TIMEOUT });
    await view.locator(".answer li strong", { hasText: "nothing to fix" }).first().waitFor({ timeout: STEP_TIMEOUT });
    await view.locator("a", { hasText: "Open the receipt" }).first().waitFor({ timeout: STEP_TIMEOUT });
    await view.locator(".note", { hasText: "You undid the accepted edit rune: edit_file notes.py" }).waitFor({ timeout: STEP_TIMEOUT });
    await runCommand(page, "View: Toggle Maximized Panel");
    await page.waitForTimeout(800);
    await page.screenshot({ path: path.join(ARTIFACTS, "rune-view.png") });
    await runCommand(page, "View: Toggle Maximized Panel");
    await page.waitForTimeout(800);

    // The server's INFO lines show as info in the Rune output channel, not as [error].
    await runCommand(page, "Rune: Show Output");
    const lines = page.locator(".output-view .view-line");
    await lines.filter({ hasText: "rune_lsp" }).first().waitFor({ timeout: STEP_TIMEOUT });
    const shown = await lines.allInnerTexts();
    const misfiled = shown.filter((line) => line.includes("[error]") && /\sINFO\s/u.test(line));
    assert.deepEqual(misfiled, [], "INFO lines logged as errors");
    assert.ok(shown.some((line) => line.includes("[info]") && /\sINFO\s/u.test(line)), `no INFO line among ${shown.join("\n")}`);
  }));

  it("follows rune.server.path when it changes: a wrong one is named, one in User settings works", recorded("server-path", async (page) => {
    const workspaceSettings = path.join(harness.workspace, ".vscode/settings.json");
    const userSettings = path.join(harness.root, "user-data/User/settings.json");
    const edit = (file: string, change: (settings: Record<string, unknown>) => void) => {
      const settings = JSON.parse(readFileSync(file, "utf8")) as Record<string, unknown>;
      change(settings);
      writeFileSync(file, JSON.stringify(settings));
    };
    // A wrong path: the server is restarted without asking, and the message names the path.
    edit(workspaceSettings, (settings) => {
      settings["rune.server.path"] = "/nope/rune-lsp";
    });
    await page.locator(".notification-toast", { hasText: "rune.server.path is set to /nope/rune-lsp" }).waitFor({ timeout: STEP_TIMEOUT });
    await statusItem(page).filter({ has: page.locator(".codicon-error") }).waitFor({ timeout: STEP_TIMEOUT });
    // The path in User settings instead (what code-server greyed out in machine-overridable
    // scope), typed into its settings.json editor as a user does: code-server does not notice
    // its User settings file changing on disk.
    const user = JSON.parse(readFileSync(userSettings, "utf8")) as Record<string, unknown>;
    await saveUserSettings(page, userSettings, { ...user, "rune.server.path": LOCATIONS.runeLsp });
    edit(workspaceSettings, (settings) => {
      delete settings["rune.server.path"];
    });
    await statusItem(page).filter({ has: page.locator(".codicon-hubot") }).waitFor({ timeout: STEP_TIMEOUT });
    // Another save of the settings leaves it working.
    await saveUserSettings(page, userSettings, { ...user, "rune.server.path": LOCATIONS.runeLsp, "editor.fontSize": 15 });
    await page.waitForTimeout(1_500);
    await statusItem(page).filter({ has: page.locator(".codicon-hubot") }).waitFor({ timeout: STEP_TIMEOUT });
    await openFile(page, "util.py");
    await fixThis(page, ASK.serverPath);
    await page.locator(".notification-toast", { hasText: "the server picked up its path from User settings" }).waitFor({ timeout: STEP_TIMEOUT });
    // The client stopped for the restart was not told the settings changed: no error for that.
    assert.equal(await page.locator(".notification-toast", { hasText: "Sending notification" }).count(), 0);
  }));
});

