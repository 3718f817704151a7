/**
 * A run's story for the Rune view, without `vscode`: the task, the steps as progress reported
 * them, then from the result and its receipt each tool call with its status and output, each
 * edit with its verdict, the answer, `verified` and the receipt. Rendered as HTML here; the
 * answer's Markdown is rendered by VS Code's own Markdown engine and passed in.
 */

import { type RunPrompt, visibleControls } from "./commandText";
import type { RunResult } from "./runResult";

export interface StoryCall {
  readonly name: string;
  readonly arguments: string;
  readonly status: string;
  /**
   * What the model read back (for run_command: the command's output): the receipt's whole
   * `output` (bounded by the server as the model's view is), else its 200-character `digest`.
   */
  readonly output: string;
}

export interface RunStory {
  readonly id: number;
  readonly file: string;
  /** The document the run was asked on (a follow-up is asked on it again). */
  readonly uri?: string;
  readonly task: string;
  readonly steps: string[];
  /** The model's visible text as it streams in (`rune/modelText`), until the result is in. */
  streamed?: string;
  /** The step of the model turn `streamed` ends with (`step N/M`), to set the next one apart. */
  streamedStep?: string;
  /** The run this one continues (a follow-up turn), by the view's story id. */
  readonly followUpOf?: number;
  result?: RunResult;
  calls?: readonly StoryCall[];
  /** The answer's Markdown as HTML, already rendered and sanitised by VS Code. */
  answerHtml?: string;
  /** Set when the request failed or was cancelled without a result. */
  ended?: string;
  /** What happened after the result, e.g. an accepted edit the user undid. */
  notes?: readonly string[];
}

/** The tool calls of a stored receipt (`toolCalls`), or [] for anything unreadable. */
export function callsOfReceipt(receipt: unknown): StoryCall[] {
  if (typeof receipt !== "object" || receipt === null) {
    return [];
  }
  const calls = (receipt as { toolCalls?: unknown }).toolCalls;
  if (!Array.isArray(calls)) {
    return [];
  }
  return calls.flatMap((call: unknown) => {
    if (typeof call !== "object" || call === null) {
      return [];
    }
    const { name, arguments: args, status, digest, output } = call as Record<string, unknown>;
    const text = typeof output === "string" ? output : typeof digest === "string" ? digest : "";
    return typeof name === "string" && typeof status === "string"
      ? [{ name, arguments: typeof args === "string" ? args : "", status, output: text }]
      : [];
  });
}

/**
 * Adds a streamed piece to the story: a piece of another model turn (an answer asked again, a
 * retry) starts on a line of its own under its step, so two answers never run together. Only
 * the last `keep` characters stay: the end is what matters while the run goes.
 */
export function addStreamed(story: RunStory, text: string, step: string | undefined, keep: number): void {
  const before = story.streamed ?? "";
  const newTurn = step !== undefined && before !== "" && step !== story.streamedStep;
  story.streamed = `${before}${newTurn ? `\n\n── ${step} ──\n` : ""}${text}`.slice(-keep);
  story.streamedStep = step ?? story.streamedStep;
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/gu, (c) => `&#${c.charCodeAt(0)};`);
}

/** One run as an HTML section; `receiptLink` is the command URI that opens its receipt. */
export function storyHtml(story: RunStory, receiptLink: string | undefined): string {
  const parts: string[] = [];
  const result = story.result;
  const state = result
    ? `${result.outcome} · step ${result.iterationsUsed}/${result.iterationBudget}`
    : (story.ended ?? story.steps.at(-1) ?? "starting");
  const followUp = story.followUpOf === undefined ? "" : ` <span class="state">(follow-up of run ${story.followUpOf})</span>`;
  parts.push(`<h2>${escapeHtml(story.file)} <span class="state">${escapeHtml(state)}</span>${followUp}</h2>`);
  parts.push(`<p class="task"><b>${story.followUpOf === undefined ? "Task" : "You"}:</b> ${escapeHtml(story.task || "fix the problems in the selection")}</p>`);
  if (result === undefined && story.steps.length > 0) {
    parts.push(`<ol class="steps">${story.steps.map((step) => `<li>${escapeHtml(step)}</li>`).join("")}</ol>`);
  }
  if (result === undefined && story.streamed !== undefined && story.streamed !== "") {
    parts.push(`<h3>The model writes</h3><pre class="streamed">${escapeHtml(story.streamed)}</pre>`);
  }
  const calls = story.calls ?? result?.toolCalls.map(callOfResult) ?? [];
  if (calls.length > 0) {
    parts.push("<h3>Tool calls</h3><ul class=\"calls\">");
    for (const call of calls) {
      const output =
        call.name === "run_command" && call.output !== ""
          ? `<pre class="output">${escapeHtml(call.output)}</pre>`
          : "";
      const command = call.name === "run_command" ? commandOf(call.arguments) : undefined;
      const args =
        command !== undefined
          ? ` <code class="command">${escapeHtml(visibleControls(command))}</code>`
          : call.arguments === ""
            ? ""
            : ` <code>${escapeHtml(shorten(call.arguments, 120))}</code>`;
      parts.push(`<li><b>${escapeHtml(call.name)}</b>${args} <span class="status ${escapeHtml(call.status)}">${escapeHtml(call.status)}</span>${output}</li>`);
    }
    parts.push("</ul>");
  }
  const edits = result?.edits.filter((edit) => edit.tool !== "run_command") ?? [];
  if (edits.length > 0) {
    parts.push("<h3>Edits</h3><ul class=\"edits\">");
    for (const edit of edits) {
      const detail = edit.detail === "" ? "" : `<div class="detail">${escapeHtml(edit.detail)}</div>`;
      const reasons = edit.reasons.map((reason) => `<div class="reason">Your reason: ${escapeHtml(reason)}</div>`).join("");
      parts.push(`<li><b>${escapeHtml(edit.path)}</b> (${escapeHtml(edit.tool)}) <span class="status ${edit.status}">${edit.status}</span>${detail}${reasons}</li>`);
    }
    parts.push("</ul>");
  }
  if (result !== undefined) {
    if (result.error !== null && result.outcome !== "completed") {
      parts.push(`<p class="error">${escapeHtml(result.error)}</p>`);
    }
    if (story.answerHtml !== undefined && story.answerHtml !== "") {
      parts.push(`<h3>Answer</h3><div class="answer">${story.answerHtml}</div>`);
    }
    const verified = result.verified === null ? "no check ran" : result.verified ? "check passed" : "check failed";
    parts.push(`<p class="verified"><b>Verified:</b> ${verified}</p>`);
    if (receiptLink !== undefined) {
      parts.push(`<p><a href="${escapeHtml(receiptLink)}">Open the receipt</a></p>`);
    }
  }
  for (const note of story.notes ?? []) {
    parts.push(`<p class="note">${escapeHtml(note)}</p>`);
  }
  if (result !== undefined && story.uri !== undefined) {
    // The webview's script posts it (runView.ts); the run goes on as a new run with the transcript.
    parts.push(
      `<form class="reply" data-story="${story.id}"><textarea name="reply" rows="2" placeholder="Reply to continue this run's conversation (a new run with the transcript, same budget)"></textarea><button type="submit">Reply</button></form>`,
    );
  }
  return `<section class="run" id="run-${story.id}">${parts.join("\n")}</section>`;
}

/** A call of the run result as the view shows it: the command and output when the server sent them. */
function callOfResult(call: RunResult["toolCalls"][number]): StoryCall {
  return {
    name: call.name,
    status: call.status,
    arguments: call.command === undefined ? "" : JSON.stringify({ command: call.command }),
    output: call.output ?? "",
  };
}

/**
 * The receipt's calls with the whole output the result carries where the receipt has only its
 * 200-character digest (the result's `toolCalls[]` are in the same order).
 */
export function withResultOutputs(calls: readonly StoryCall[], result: RunResult): StoryCall[] {
  return calls.map((call, index) => {
    const whole = result.toolCalls[index]?.output;
    return whole !== undefined && whole.length > call.output.length ? { ...call, output: whole } : call;
  });
}

/** The `command` of a run_command call's JSON arguments, whole; undefined when unreadable. */
export function commandOf(args: string): string | undefined {
  try {
    const parsed: unknown = JSON.parse(args);
    const command = typeof parsed === "object" && parsed !== null ? (parsed as { command?: unknown }).command : undefined;
    return typeof command === "string" ? command : undefined;
  } catch {
    return undefined;
  }
}

/** The command waiting for the user's answer: whole, its control characters visible. */
export function askingHtml(prompt: RunPrompt): string {
  return `<section class="asking"><h2>Rune wants to run a command</h2><pre class="command">${escapeHtml(visibleControls(prompt.command))}</pre><p class="detail">in ${escapeHtml(prompt.cwd || "the workspace")}. Answer in the prompt at the top of the window: Run, Allow for this run, Always allow in this workspace, or Deny.</p></section>`;
}

/** The workspace's allowed commands with a Revoke link each (`revokeLink(command)` is a command URI). */
export function allowedHtml(allowed: readonly string[], revokeLink: (command: string) => string): string {
  if (allowed.length === 0) {
    return "";
  }
  const items = allowed
    .map((command) => `<li><code class="command">${escapeHtml(visibleControls(command))}</code> <a href="${escapeHtml(revokeLink(command))}">Revoke</a></li>`)
    .join("");
  return `<section class="allowed"><h3>Commands this workspace runs without asking (rune.allowedCommands)</h3><ul>${items}</ul></section>`;
}

function shorten(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
