/**
 * The Rune view (a webview in the panel): each run's story, newest first, kept after the run
 * ended. RunTracker feeds it; story.ts renders it.
 */

import { readFile } from "node:fs/promises";
import * as vscode from "vscode";
import type { RunResult } from "./runResult";
import { callsOfReceipt, escapeHtml, type RunStory, storyHtml } from "./story";

export const RUN_VIEW_ID = "rune.runs";
export const OPEN_RECEIPT_COMMAND = "rune.openReceipt";
/** Runs the view keeps; older ones are in their receipts. */
const KEEP = 20;

export class RunView implements vscode.WebviewViewProvider, vscode.Disposable {
  private view: vscode.WebviewView | undefined;
  private readonly stories: RunStory[] = [];
  private nextId = 1;
  private readonly registration: vscode.Disposable;

  constructor() {
    this.registration = vscode.window.registerWebviewViewProvider(RUN_VIEW_ID, this, {
      webviewOptions: { retainContextWhenHidden: true },
    });
  }

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    view.webview.options = { enableScripts: false, enableCommandUris: [OPEN_RECEIPT_COMMAND] };
    view.onDidDispose(() => {
      if (this.view === view) {
        this.view = undefined;
      }
    });
    this.render();
  }

  start(file: string, task: string): RunStory {
    const story: RunStory = { id: this.nextId++, file, task, steps: [] };
    this.stories.unshift(story);
    this.stories.splice(KEEP);
    this.render();
    return story;
  }

  step(story: RunStory, message: string): void {
    if (story.steps.at(-1) !== message) {
      story.steps.push(message);
      this.render();
    }
  }

  /** The user undid an accepted edit: noted on the newest run (the one that proposed it). */
  undone(label: string): void {
    const story = this.stories[0];
    if (story !== undefined) {
      story.notes = [...(story.notes ?? []), `You undid the accepted edit ${label} (Ctrl+Z); the receipt records the undo.`];
      this.render();
    }
  }

  end(story: RunStory, why: string): void {
    story.ended = why;
    this.render();
  }

  async finish(story: RunStory, result: RunResult): Promise<void> {
    story.result = result;
    if (result.receipt !== null) {
      try {
        story.calls = callsOfReceipt(JSON.parse(await readFile(result.receipt, "utf8")));
      } catch {
        // no receipt on disk (yet): the result's own list of calls is shown
      }
    }
    story.answerHtml = await renderMarkdown(result.answer);
    this.render();
  }

  /** Shows the view (the final notification's button, the status bar after a run). */
  async reveal(): Promise<void> {
    await vscode.commands.executeCommand(`${RUN_VIEW_ID}.focus`);
  }

  private render(): void {
    const view = this.view;
    if (view === undefined) {
      return;
    }
    const body =
      this.stories.length === 0
        ? "<p>No runs yet. Select code and run <b>Rune: Fix This</b>.</p>"
        : this.stories.map((story) => storyHtml(story, receiptLink(story.result))).join("\n");
    view.webview.html = page(body);
  }

  dispose(): void {
    this.registration.dispose();
  }
}

function receiptLink(result: RunResult | undefined): string | undefined {
  if (result?.receipt === null || result === undefined) {
    return undefined;
  }
  return `command:${OPEN_RECEIPT_COMMAND}?${encodeURIComponent(JSON.stringify([result.receipt]))}`;
}

/** VS Code's own Markdown rendering (sanitised); escaped text when that is unavailable. */
async function renderMarkdown(markdown: string): Promise<string> {
  if (markdown.trim() === "") {
    return "";
  }
  try {
    const html = await vscode.commands.executeCommand("markdown.api.render", markdown);
    if (typeof html === "string") {
      return html;
    }
  } catch {
    // the built-in Markdown extension is disabled
  }
  return `<pre>${escapeHtml(markdown)}</pre>`;
}

function page(body: string): string {
  return `<!DOCTYPE html>
<html><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:;">
<style>
  body { font-family: var(--vscode-font-family); font-size: var(--vscode-font-size); color: var(--vscode-foreground); }
  section.run { border-bottom: 1px solid var(--vscode-panel-border); padding-bottom: 0.5em; margin-bottom: 0.5em; }
  h2 { font-size: 1.1em; margin: 0.4em 0; } h3 { font-size: 1em; margin: 0.6em 0 0.2em; }
  .state { font-weight: normal; color: var(--vscode-descriptionForeground); }
  .status { padding: 0 0.4em; border-radius: 3px; background: var(--vscode-badge-background); color: var(--vscode-badge-foreground); }
  .status.applied, .status.ok { background: var(--vscode-testing-iconPassed); }
  .status.rejected, .status.failed, .status.denied, .status.stale { background: var(--vscode-testing-iconFailed); }
  pre.output { background: var(--vscode-textCodeBlock-background); padding: 0.4em; white-space: pre-wrap; }
  .detail { color: var(--vscode-descriptionForeground); }
  .error { color: var(--vscode-errorForeground); }
  .note { color: var(--vscode-editorWarning-foreground); }
  code { font-family: var(--vscode-editor-font-family); }
  ul, ol { margin: 0.2em 0; padding-left: 1.4em; }
</style></head><body>${body}</body></html>`;
}
