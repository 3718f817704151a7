/**
 * What the end-to-end tests do in the workbench (command palette, files, lenses, the status
 * item) and read from the state directory (receipts), shared by every e2e file.
 */

import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import * as path from "node:path";
import type { Locator, Page } from "playwright-core";
import { ARTIFACTS, type Harness, LOCATIONS, type ScriptedReply, waitFor } from "./harness";

export const STEP_TIMEOUT = 60_000;

/**
 * A run's first answer in words only, no code block: the server's code-first turn asks once
 * more for a block (loop/proposals.py `block_calls`, docs/troubleshooting.md), so the script
 * answers that ask too, and the same words again stand as the run's answer. A follow-up run's
 * first turn is code-first as well.
 */
export function standsTwice(text: string): ScriptedReply[] {
  return [{ text }, { text }];
}

/**
 * A scenario's replies, answered only to runs whose task holds `instruction`: a scenario that
 * fails before it takes them leaves the next scenario's replies where they were.
 */
export function scenario(instruction: string, replies: ScriptedReply[]): ScriptedReply[] {
  return replies.map((reply) => ({ ...reply, when: instruction }));
}

/** Rune: Fix This on the active editor, with `instruction` typed into its box. */
export async function fixThis(page: Page, instruction: string): Promise<void> {
  await runCommand(page, "Rune: Fix This");
  const input = await instructionBox(page);
  await input.fill(instruction);
  await input.press("Enter");
}

/**
 * The files every e2e session starts with besides its own: the workspace settings pointing the
 * extension at the real server and the model double, and quiet User settings.
 */
export function sessionFiles(harness: Harness, port: number, user: Record<string, unknown> = {}): Record<string, string> {
  return {
    "workspace/.vscode/settings.json": JSON.stringify({
      "rune.server.path": LOCATIONS.runeLsp,
      "rune.provider": "ollama",
      "rune.baseUrl": `http://127.0.0.1:${port}`,
      "rune.model": "qwen3:14b",
      // The script answers each run's turns in order: native tools, so a prose answer ends
      // its run instead of meeting the coaching turn (which would take the next reply).
      "rune.nativeTools": true,
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
      ...user,
    }),
  };
}

/** Installs the extension, serves code-server, opens the workspace; resolves once the server is up. */
export async function openWorkbench(harness: Harness): Promise<Page> {
  await harness.installExtension();
  const url = await harness.startCodeServer();
  const page = await harness.openBrowser();
  await page.goto(`${url}/?folder=${encodeURIComponent(harness.workspace)}`, { timeout: 2 * STEP_TIMEOUT });
  await page.locator(".monaco-workbench").waitFor({ timeout: STEP_TIMEOUT });
  // The extension's status item says "Rune" once the language server is up.
  await statusItem(page).filter({ has: page.locator(".codicon-hubot") }).waitFor({ timeout: STEP_TIMEOUT });
  return page;
}

/** A test body that leaves a screenshot named after it in the artifacts when it fails. */
export function recorder(page: () => Page | undefined) {
  return (name: string, body: (page: Page) => Promise<void>): (() => Promise<void>) =>
    async () => {
      const current = page();
      assert.ok(current !== undefined, "the workbench did not open");
      try {
        await body(current);
      } catch (error) {
        await current.screenshot({ path: path.join(ARTIFACTS, `failure-${name}.png`) }).catch(() => undefined);
        throw error;
      }
    };
}

export interface StoredReceipt {
  result: { outcome: string; answer: string; edits: { status: string; detail: string }[] };
}

export function receipts(stateDir: string): StoredReceipt[] {
  const dir = path.join(stateDir, "receipts");
  return readdirSync(dir)
    .filter((name) => name.endsWith(".json"))
    .map((name) => JSON.parse(readFileSync(path.join(dir, name), "utf8")) as StoredReceipt);
}

/** The receipt written last. */
export function latestReceipt(stateDir: string): StoredReceipt {
  const dir = path.join(stateDir, "receipts");
  const newest = readdirSync(dir)
    .filter((name) => name.endsWith(".json"))
    .map((name) => ({ name, at: statSync(path.join(dir, name)).mtimeMs }))
    .sort((x, y) => y.at - x.at)[0];
  assert.ok(newest !== undefined, "no receipt");
  return JSON.parse(readFileSync(path.join(dir, newest.name), "utf8")) as StoredReceipt;
}

/** How many receipts the state directory holds (none before the first run ends). */
export function receiptCount(stateDir: string): number {
  const dir = path.join(stateDir, "receipts");
  return existsSync(dir) ? readdirSync(dir).filter((name) => name.endsWith(".json")).length : 0;
}

/**
 * The receipt of the next run to end, once there are more than `seen`: a "Rune completed"
 * toast on screen may still be an earlier run's (seen in CI on a 2-core machine).
 */
export async function nextReceipt(stateDir: string, seen: number): Promise<StoredReceipt> {
  await waitFor(async () => Promise.resolve(receiptCount(stateDir) > seen), STEP_TIMEOUT, "the run's receipt");
  return latestReceipt(stateDir);
}

export function lens(page: Page, text: string): Locator {
  return page.locator(".monaco-editor .codelens-decoration a", { hasText: text });
}

/**
 * Presses a review key on the hunk at or below the cursor until it decides one, as a user would:
 * the extension host hears where the cursor went and what is on screen a moment after the page
 * has drawn it, and a key pressed in between decides nothing and says so in the status bar
 * ("press again" for a hunk it thinks off screen, "nothing was decided" for a cursor it thinks
 * elsewhere; src/review/commands.ts `keyTarget`). Seen in CI on a 2-core machine after
 * Ctrl+Home. A key that decided says nothing, so after `QUIET_MS` without such a message the
 * key counts as heard; the caller then looks for the decision where it shows.
 */
export async function pressToDecide(page: Page, key: string): Promise<void> {
  const retry = page.locator(".statusbar-item", { hasText: /press again|nothing was decided/u });
  for (let attempt = 1; ; attempt++) {
    await retry.first().waitFor({ state: "hidden", timeout: STEP_TIMEOUT }); // an earlier key's message
    await page.keyboard.press(key);
    const answered = await retry
      .first()
      .waitFor({ timeout: QUIET_MS })
      .then(() => true)
      .catch(() => false);
    if (!answered) {
      return;
    }
    assert.ok(attempt < 3, `the key decided nothing ${attempt} times: ${await retry.first().textContent()}`);
  }
}

/** How long a key that decided nothing takes at most to say so (a status bar message). */
const QUIET_MS = 5_000;

/** Saving is asynchronous: wait until `file` holds `expected`, then compare for a clear diff. */
export async function waitForDisk(workspace: string, file: string, expected: string): Promise<void> {
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
export async function instructionBox(page: Page): Promise<Locator> {
  const input = page.locator('.quick-input-widget input[placeholder="e.g. handle the empty list"]');
  await input.waitFor({ timeout: STEP_TIMEOUT });
  return input;
}

export function statusItem(page: Page): Locator {
  return page.locator(".statusbar-item", { hasText: "Rune" });
}

export async function runCommand(page: Page, title: string): Promise<void> {
  await (await palette(page, `>${title}`, title)).press("Enter");
}

/**
 * F1, `text` typed, and a row holding `row` listed; returns the palette's input. F1 again when
 * the palette closed on its own: focus still moving from the last command (a webview panel
 * toggled maximized, issue27's Rune view) blurred it just after it opened, and the keys typed
 * next found it hidden.
 */
async function palette(page: Page, text: string, row: string): Promise<Locator> {
  const input = page.locator(".quick-input-widget input");
  const listed = page.locator(".quick-input-list .monaco-list-row", { hasText: row }).first();
  let first = true;
  await waitFor(
    async () => {
      if (first || !(await input.isVisible())) {
        first = false;
        await page.keyboard.press("F1");
      }
      await input.fill(text, { timeout: 5_000 });
      await listed.waitFor({ timeout: 5_000 });
      return true;
    },
    STEP_TIMEOUT,
    `"${row}" in the command palette`,
  );
  return input;
}

/**
 * Replaces the User settings in code-server's own settings.json editor (VS Code 1.139 opens it
 * in a modal editor) and saves them; `file` is where they land on disk.
 */
export async function saveUserSettings(page: Page, file: string, settings: Record<string, unknown>): Promise<void> {
  await runCommand(page, "Preferences: Open User Settings (JSON)");
  const line = page.locator(".monaco-editor .view-line", { hasText: "workbench.startupEditor" }).first();
  await line.waitFor({ timeout: STEP_TIMEOUT });
  await line.click();
  await page.keyboard.press("Control+a");
  await page.keyboard.press("Delete");
  await page.keyboard.insertText(JSON.stringify(settings));
  // The editor closes brackets and quotes as they are typed: drop what it added after the text.
  await page.keyboard.press("Control+Shift+End");
  await page.keyboard.press("Delete");
  await page.keyboard.press("Control+s");
  const saved = JSON.stringify(settings);
  await waitFor(async () => Promise.resolve(JSON.stringify(JSON.parse(readFileSync(file, "utf8"))) === saved), 10_000, "User settings saved");
  await page.locator(".modal-editor-part .codicon-close").first().click();
  await line.waitFor({ state: "detached", timeout: STEP_TIMEOUT });
}

export async function openFile(page: Page, name: string): Promise<void> {
  await (await palette(page, name, name)).press("Enter");
  await page.locator(".tab.active", { hasText: name }).waitFor({ timeout: STEP_TIMEOUT });
  await focusEditor(page);
}

/**
 * Puts the keyboard in the active group's editor. The first `.monaco-editor` of the page need
 * not be it (a diff editor an earlier test left, the Refactor Preview's), and keys pressed
 * elsewhere decide nothing: CI's run of the code-action test waited 60 s for a menu that way.
 */
export async function focusEditor(page: Page): Promise<void> {
  await page.locator(".editor-group-container.active .monaco-editor .view-lines").first().click();
  await page.locator(".editor-group-container.active .monaco-editor.focused").first().waitFor({ timeout: STEP_TIMEOUT });
}

/**
 * Selects the whole file and opens the code actions menu until it offers `action`. The menu
 * asks the server for the selection as it is when the key lands; on a busy machine the key can
 * beat the selection or the focus (the menu then shows "No code actions available"), so it is
 * closed and asked again, three times at most.
 */
export async function codeActionOnAll(page: Page, action: Locator): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    await focusEditor(page);
    await page.keyboard.press("Control+a");
    await page.keyboard.press("Control+Period");
    const shown = await action
      .waitFor({ timeout: STEP_TIMEOUT / 4 })
      .then(() => true)
      .catch(() => false);
    if (shown) {
      return;
    }
    assert.ok(attempt < 3, `the code actions menu did not offer it in ${attempt} tries`);
    await page.keyboard.press("Escape");
  }
}

export async function waitForPreviewOf(page: Page, panel: Locator, file: string): Promise<void> {
  await panel.waitFor({ timeout: STEP_TIMEOUT });
  await panel.locator(".monaco-list-row", { hasText: file }).first().waitFor({ timeout: STEP_TIMEOUT });
  // Let the tree settle before a screenshot or a click.
  await page.waitForTimeout(300);
}

