/**
 * A run's story for the Rune view, without `vscode`: the task, the steps as progress reported
 * them, then from the result and its receipt each tool call with its status and output, each
 * edit with its verdict, the answer, `verified` and the receipt. Rendered as HTML here; the
 * answer's Markdown is rendered by VS Code's own Markdown engine and passed in.
 */

import type { RunResult } from "./runResult";

export interface StoryCall {
  readonly name: string;
  readonly arguments: string;
  readonly status: string;
  /** What the model read back (for run_command: the command's output), bounded by the server. */
  readonly output: string;
}

export interface RunStory {
  readonly id: number;
  readonly file: string;
  readonly task: string;
  readonly steps: string[];
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
    const { name, arguments: args, status, digest } = call as Record<string, unknown>;
    return typeof name === "string" && typeof status === "string"
      ? [{ name, arguments: typeof args === "string" ? args : "", status, output: typeof digest === "string" ? digest : "" }]
      : [];
  });
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
  parts.push(`<h2>${escapeHtml(story.file)} <span class="state">${escapeHtml(state)}</span></h2>`);
  parts.push(`<p class="task"><b>Task:</b> ${escapeHtml(story.task || "fix the problems in the selection")}</p>`);
  if (result === undefined && story.steps.length > 0) {
    parts.push(`<ol class="steps">${story.steps.map((step) => `<li>${escapeHtml(step)}</li>`).join("")}</ol>`);
  }
  const calls = story.calls ?? result?.toolCalls.map((call) => ({ ...call, arguments: "", output: "" })) ?? [];
  if (calls.length > 0) {
    parts.push("<h3>Tool calls</h3><ul class=\"calls\">");
    for (const call of calls) {
      const output =
        call.name === "run_command" && call.output !== ""
          ? `<pre class="output">${escapeHtml(call.output)}</pre>`
          : "";
      const args = call.arguments === "" ? "" : ` <code>${escapeHtml(shorten(call.arguments, 120))}</code>`;
      parts.push(`<li><b>${escapeHtml(call.name)}</b>${args} <span class="status ${escapeHtml(call.status)}">${escapeHtml(call.status)}</span>${output}</li>`);
    }
    parts.push("</ul>");
  }
  const edits = result?.edits.filter((edit) => edit.tool !== "run_command") ?? [];
  if (edits.length > 0) {
    parts.push("<h3>Edits</h3><ul class=\"edits\">");
    for (const edit of edits) {
      const detail = edit.detail === "" ? "" : `<div class="detail">${escapeHtml(edit.detail)}</div>`;
      parts.push(`<li><b>${escapeHtml(edit.path)}</b> (${escapeHtml(edit.tool)}) <span class="status ${edit.status}">${edit.status}</span>${detail}</li>`);
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
  return `<section class="run">${parts.join("\n")}</section>`;
}

function shorten(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}
