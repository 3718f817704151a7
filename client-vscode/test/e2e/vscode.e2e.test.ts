/**
 * End to end in a real VS Code (code-server) with the packaged extension and the real server:
 * Rune: Fix This from the command palette, one proposed edit accepted in the Refactor Preview
 * and one discarded, then the files on disk and the result notification.
 */

import assert from "node:assert/strict";
import { copyFileSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import * as path from "node:path";
import { after, before, describe, it } from "node:test";
import type { Locator, Page } from "playwright-core";
import { ARTIFACTS, Harness, LOCATIONS, waitFor } from "./harness";

const APP_BEFORE = `def greet(name):\n    return "Helo, " + name\n\n\ndef main():\n    print(greet("world"))\n`;
/** The model proposes two hunks here; the test keeps only the first. */
const APP_PROPOSED = `def greet(name):\n    return "Hello, " + name\n\n\ndef main():\n    print(greet("World"))\n`;
const APP_AFTER = `def greet(name):\n    return "Hello, " + name\n\n\ndef main():\n    print(greet("world"))\n`;
const UTIL_BEFORE = `def double(x):\n    return x * 2\n`;
const CONFIG_BEFORE = `DEBUG = True\n`;
const CONFIG_AFTER = `DEBUG = False\n`;
const ANSWER = "Fixed the typo in greet() and turned DEBUG off.";

const CODE_ACTION_ANSWER = "double() is fine as it is.";

const STEP_TIMEOUT = 60_000;

describe("Rune in VS Code", () => {
  const harness = new Harness();
  let page: Page | undefined;

  before(async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    const port = await harness.startModelDouble([
      {
        toolCalls: [
          { name: "edit_file", arguments: { path: "app.py", old_text: APP_BEFORE, new_text: APP_PROPOSED } },
          { name: "edit_file", arguments: { path: "util.py", old_text: "x * 2", new_text: "x + x" } },
          { name: "edit_file", arguments: { path: "config.py", old_text: "True", new_text: "False" } },
        ],
      },
      { text: ANSWER },
      // The second test cancels this one: a minute of slowly streamed words.
      { text: "thinking about it ".repeat(20), chunkDelay: 1 },
      // The third test comes through the server's code action.
      { text: CODE_ACTION_ANSWER },
      // The fourth edits a file that is not open in the editor.
      { toolCalls: [{ name: "edit_file", arguments: { path: "notes.py", old_text: "TODO", new_text: "DONE" } }] },
      { text: "Marked it done." },
    ]);
    harness.writeFiles({
      "workspace/app.py": APP_BEFORE,
      "workspace/util.py": UTIL_BEFORE,
      "workspace/config.py": CONFIG_BEFORE,
      "workspace/notes.py": "# TODO\n",
      "workspace/.vscode/settings.json": JSON.stringify({
        "rune.server.path": LOCATIONS.runeLsp,
        "rune.provider": "ollama",
        "rune.baseUrl": `http://127.0.0.1:${port}`,
        "rune.model": "qwen3:14b",
        // Not declared by the extension: undeclared keys of the section reach the server too.
        "rune.stateDir": harness.stateDir,
      }),
      "user-data/User/settings.json": JSON.stringify({
        "workbench.startupEditor": "none",
        "workbench.tips.enabled": false,
        "security.workspace.trust.enabled": false,
        "telemetry.telemetryLevel": "off",
        "extensions.autoCheckUpdates": false,
        "extensions.autoUpdate": false,
        "update.mode": "none",
        "chat.disableAIFeatures": true,
        "window.commandCenter": false,
        "remote.autoForwardPorts": false,
        "workbench.secondarySideBar.defaultVisibility": "hidden",
      }),
    });
    await harness.installExtension();
    const url = await harness.startCodeServer();
    page = await harness.openBrowser();
    await page.goto(`${url}/?folder=${encodeURIComponent(harness.workspace)}`);
    await page.locator(".monaco-workbench").waitFor({ timeout: STEP_TIMEOUT });
    // The extension's status item says "Rune" once the language server is up.
    await statusItem(page).filter({ has: page.locator(".codicon-hubot") }).waitFor({ timeout: STEP_TIMEOUT });
  });

  /** A failing step leaves a screenshot named after its test in the artifacts. */
  function recorded(name: string, body: (page: Page) => Promise<void>): () => Promise<void> {
    return async () => {
      assert.ok(page !== undefined, "the workbench did not open");
      try {
        await body(page);
      } catch (error) {
        await page.screenshot({ path: path.join(ARTIFACTS, `failure-${name}.png`) }).catch(() => undefined);
        throw error;
      }
    };
  }

  after(async () => {
    if (page !== undefined) {
      await page.screenshot({ path: path.join(ARTIFACTS, "final.png") }).catch(() => undefined);
    }
    await harness.close();
  });

  it("reviews each edit in the Refactor Preview: one hunk of one, all of another, none of a third", recorded("review", async (page) => {
    // config.py is open too: see the last test for an edit to a file that is not.
    await openFile(page, "config.py");
    await openFile(page, "app.py");
    await runCommand(page, "Rune: Fix This");
    const input = await instructionBox(page);
    await input.fill("fix the typo in the greeting");
    await input.press("Enter");

    const panel = page.locator(".bulk-edit-panel[data-state=data]");
    await waitForPreviewOf(page, panel, "app.py");
    await page.screenshot({ path: path.join(ARTIFACTS, "preview-app-unticked.png") });
    const appHunks = await hunkCheckboxes(panel);
    assert.equal(appHunks.length, 2, "app.py: two hunks proposed");
    await tick(appHunks[0]);
    await page.screenshot({ path: path.join(ARTIFACTS, "preview-app-one-hunk.png") });
    await apply(panel);

    await waitForPreviewOf(page, panel, "util.py");
    await page.screenshot({ path: path.join(ARTIFACTS, "preview-util.png") });
    await panel.locator(".buttons .monaco-button", { hasText: "Discard" }).click();

    await waitForPreviewOf(page, panel, "config.py");
    for (const box of await hunkCheckboxes(panel)) {
      await tick(box);
    }
    await page.screenshot({ path: path.join(ARTIFACTS, "preview-config.png") });
    await apply(panel);

    const toast = page.locator(".notification-toast", { hasText: "Rune completed" });
    await toast.waitFor({ timeout: STEP_TIMEOUT });
    await page.waitForTimeout(500); // the toast slides in
    await page.screenshot({ path: path.join(ARTIFACTS, "notification.png") });
    const text = (await toast.locator(".notification-list-item-message").innerText()).trim();
    assert.equal(text, `Rune completed (3 edits: 1 applied, 1 partial, 1 rejected): ${ANSWER}`);

    await runCommand(page, "File: Save All Files");
    await waitForDisk(harness.workspace, "app.py", APP_AFTER);
    await waitForDisk(harness.workspace, "config.py", CONFIG_AFTER);
    assert.equal(readFileSync(path.join(harness.workspace, "util.py"), "utf8"), UTIL_BEFORE);

    const receipts = readdirSync(path.join(harness.stateDir, "receipts"));
    assert.ok(receipts.some((name) => name.endsWith(".json")), `receipts: ${receipts.join(", ")}`);
    await toast.locator(".monaco-button", { hasText: "Show receipt" }).click();
    // The Markdown rendering when the server wrote one, else the JSON receipt itself.
    const runId = receipts[0]?.replace(/\.(json|md)$/u, "") ?? "";
    await page.locator(".tab", { hasText: runId }).waitFor({ timeout: STEP_TIMEOUT });
    await page.screenshot({ path: path.join(ARTIFACTS, "receipt.png") });
    copyFileSync(path.join(ARTIFACTS, "preview-app-one-hunk.png"), path.join(ARTIFACTS, "preview.png"));
  }));

  it("shows the run's progress in the status bar and cancels the run on click", recorded("cancel", async (page) => {
    await openFile(page, "util.py");
    await runCommand(page, "Rune: Fix This");
    const input = await instructionBox(page);
    await input.press("Enter"); // no instruction: just fix what is there

    const running = statusItem(page).filter({ hasText: "Rune: step 1/8 · asking the model" });
    await running.waitFor({ timeout: STEP_TIMEOUT });
    await page.screenshot({ path: path.join(ARTIFACTS, "status-running.png") });
    await running.click();

    await page.locator(".notification-toast", { hasText: "Rune run cancelled." }).waitFor({ timeout: STEP_TIMEOUT });
    await statusItem(page).filter({ has: page.locator(".codicon-hubot") }).waitFor({ timeout: STEP_TIMEOUT });
    assert.equal(readFileSync(path.join(harness.workspace, "util.py"), "utf8"), UTIL_BEFORE);
  }));

  it("runs the server's own Rune: Fix this code action through the same flow", recorded("code-action", async (page) => {
    await openFile(page, "util.py");
    await page.keyboard.press("Control+Period");
    const action = page.locator(".action-widget .monaco-list-row", { hasText: "Rune: Fix this" });
    await action.waitFor({ timeout: STEP_TIMEOUT });
    await action.click();
    const input = await instructionBox(page);
    await input.fill("check the doubling");
    await input.press("Enter");
    const toast = page.locator(".notification-toast", { hasText: CODE_ACTION_ANSWER });
    await toast.waitFor({ timeout: STEP_TIMEOUT });
    assert.equal(
      (await toast.locator(".notification-list-item-message").innerText()).trim(),
      `Rune completed: ${CODE_ACTION_ANSWER}`,
    );
  }));

  it(
    "reports an accepted edit to a file that is not open as applied",
    recorded("closed-file", async (page) => {
        await openFile(page, "util.py");
      await runCommand(page, "Rune: Fix This");
      const input = await instructionBox(page);
      await input.press("Enter");
      const panel = page.locator(".bulk-edit-panel[data-state=data]");
      await waitForPreviewOf(page, panel, "notes.py");
      for (const box of await hunkCheckboxes(panel)) {
        await tick(box);
      }
      await apply(panel);
      const toast = page.locator(".notification-toast", { hasText: "Marked it done." });
      await toast.waitFor({ timeout: STEP_TIMEOUT });
      await runCommand(page, "File: Save All Files");
      await waitForDisk(harness.workspace, "notes.py", "# DONE\n");
      assert.equal(
        (await toast.locator(".notification-list-item-message").innerText()).trim(),
        "Rune completed (1 edit: 1 applied): Marked it done.",
      );
    }),
  );
});

/** Saving is asynchronous: wait until `file` holds `expected`, then compare for a clear diff. */
async function waitForDisk(workspace: string, file: string, expected: string): Promise<void> {
  const full = path.join(workspace, file);
  await waitFor(async () => Promise.resolve(readFileSync(full, "utf8") === expected), 10_000, `${file} on disk`).catch(
    () => undefined,
  );
  assert.equal(readFileSync(full, "utf8"), expected, `${file} on disk`);
}

/**
 * The extension's instruction prompt. Waiting for its placeholder, not just any quick input,
 * keeps keys from landing in the command palette that is still closing.
 */
async function instructionBox(page: Page): Promise<Locator> {
  const input = page.locator('.quick-input-widget input[placeholder="e.g. handle the empty list"]');
  await input.waitFor({ timeout: STEP_TIMEOUT });
  return input;
}

function statusItem(page: Page): Locator {
  return page.locator(".statusbar-item", { hasText: "Rune" });
}

async function runCommand(page: Page, title: string): Promise<void> {
  await page.keyboard.press("F1");
  const input = page.locator(".quick-input-widget input");
  await input.waitFor({ timeout: STEP_TIMEOUT });
  await input.fill(`>${title}`);
  const row = page.locator(".quick-input-list .monaco-list-row", { hasText: title }).first();
  await row.waitFor({ timeout: STEP_TIMEOUT });
  await input.press("Enter");
}

async function openFile(page: Page, name: string): Promise<void> {
  await page.keyboard.press("F1");
  const input = page.locator(".quick-input-widget input");
  await input.waitFor({ timeout: STEP_TIMEOUT });
  await input.fill(name);
  await page.locator(".quick-input-list .monaco-list-row", { hasText: name }).first().waitFor({ timeout: STEP_TIMEOUT });
  await input.press("Enter");
  await page.locator(".tab.active", { hasText: name }).waitFor({ timeout: STEP_TIMEOUT });
  await page.locator(".monaco-editor .view-lines").first().click();
}

async function waitForPreviewOf(page: Page, panel: Locator, file: string): Promise<void> {
  await panel.waitFor({ timeout: STEP_TIMEOUT });
  await panel.locator(".monaco-list-row", { hasText: file }).first().waitFor({ timeout: STEP_TIMEOUT });
  // Let the tree settle before a screenshot or a click.
  await page.waitForTimeout(300);
}

/** The checkbox of each proposed hunk, in order (they start unticked). */
async function hunkCheckboxes(panel: Locator): Promise<Locator[]> {
  const boxes = await panel.locator(".monaco-tl-contents.textedit .edit-checkbox").all();
  assert.ok(boxes.length > 0, "the preview shows no hunk checkboxes");
  return boxes;
}

async function tick(box: Locator | undefined): Promise<void> {
  assert.ok(box !== undefined);
  assert.notEqual(await box.getAttribute("aria-checked"), "true", "proposed hunks start unticked");
  await box.click();
  assert.equal(await box.getAttribute("aria-checked"), "true");
}

async function apply(panel: Locator): Promise<void> {
  await panel.locator(".buttons .monaco-button", { hasText: "Apply" }).click();
}
