/**
 * The run result `rune.fixThis` returns (docs/interface.md#run-result), checked at the boundary, and the
 * notification a user sees for it.
 */

import { truncate } from "./progressText";

export type Outcome = "completed" | "incomplete" | "failed" | "cancelled" | "superseded";
export type EditStatus = "applied" | "partial" | "rejected" | "stale" | "pending";

export interface EditRecord {
  readonly editId: string;
  readonly tool: string;
  readonly path: string;
  readonly status: EditStatus;
  /** What happened to it, as the model was told (e.g. which hunks were kept). */
  readonly detail: string;
  /** The user's words when they rejected it (or some of its hunks), as the model heard them. */
  readonly reasons: readonly string[];
}

export interface ToolCallRecord {
  readonly name: string;
  readonly status: string;
  /** run_command: the command, and its whole output as the model got it (bounded by the server). */
  readonly command?: string;
  readonly output?: string;
}

export interface RunResult {
  readonly runId: string;
  readonly outcome: Outcome;
  readonly answer: string;
  readonly error: string | null;
  readonly iterationsUsed: number;
  readonly iterationBudget: number;
  readonly edits: readonly EditRecord[];
  readonly toolCalls: readonly ToolCallRecord[];
  readonly verified: boolean | null;
  readonly receipt: string | null;
}

export class RunResultError extends Error {
  override readonly name = "RunResultError";
}

const OUTCOMES: readonly Outcome[] = ["completed", "incomplete", "failed", "cancelled", "superseded"];
const EDIT_STATUSES: readonly EditStatus[] = ["applied", "partial", "rejected", "stale", "pending"];

/** A server answer as a RunResult; a wrong shape throws RunResultError naming the field. */
export function parseRunResult(value: unknown): RunResult {
  const raw = record(value, "result");
  const outcome = raw.outcome;
  if (!OUTCOMES.includes(outcome as Outcome)) {
    throw new RunResultError(`result.outcome: expected one of ${OUTCOMES.join("|")}, got ${show(outcome)}`);
  }
  const edits = raw.edits ?? [];
  if (!Array.isArray(edits)) {
    throw new RunResultError(`result.edits: expected a list, got ${show(edits)}`);
  }
  return {
    runId: text(raw.runId, "result.runId"),
    outcome: outcome as Outcome,
    answer: optionalText(raw.answer, "result.answer") ?? "",
    error: optionalText(raw.error, "result.error"),
    iterationsUsed: count(raw.iterationsUsed, "result.iterationsUsed"),
    iterationBudget: count(raw.iterationBudget, "result.iterationBudget"),
    edits: edits.map((item, index) => parseEdit(item, `result.edits[${index}]`)),
    toolCalls: parseCalls(raw.toolCalls),
    verified: optionalBoolean(raw.verified, "result.verified"),
    receipt: optionalText(raw.receipt, "result.receipt"),
  };
}

function parseEdit(value: unknown, where: string): EditRecord {
  const raw = record(value, where);
  const status = raw.status;
  if (!EDIT_STATUSES.includes(status as EditStatus)) {
    throw new RunResultError(`${where}.status: expected one of ${EDIT_STATUSES.join("|")}, got ${show(status)}`);
  }
  return {
    editId: text(raw.editId, `${where}.editId`),
    tool: text(raw.tool, `${where}.tool`),
    path: text(raw.path, `${where}.path`),
    status: status as EditStatus,
    detail: optionalText(raw.detail, `${where}.detail`) ?? "",
    reasons: reasonsOf(raw, where),
  };
}

/** `reason` of the edit and of its `hunks[]` (hunk n: why), in that order; none when absent. */
function reasonsOf(raw: Record<string, unknown>, where: string): string[] {
  const reasons: string[] = [];
  const own = optionalText(raw.reason, `${where}.reason`);
  if (own !== null && own !== "") {
    reasons.push(own);
  }
  const hunks = raw.hunks ?? [];
  if (!Array.isArray(hunks)) {
    throw new RunResultError(`${where}.hunks: expected a list, got ${show(hunks)}`);
  }
  hunks.forEach((item, index) => {
    const hunk = record(item, `${where}.hunks[${index}]`);
    const reason = optionalText(hunk.reason, `${where}.hunks[${index}].reason`);
    if (reason !== null && reason !== "" && !reasons.includes(reason)) {
      const id = typeof hunk.hunkId === "number" ? `hunk ${hunk.hunkId + 1}: ` : "";
      reasons.push(`${id}${reason}`);
    }
  });
  return reasons;
}

function parseCalls(value: unknown): ToolCallRecord[] {
  if (value === undefined || value === null) {
    return [];
  }
  if (!Array.isArray(value)) {
    throw new RunResultError(`result.toolCalls: expected a list, got ${show(value)}`);
  }
  return value.map((item, index) => {
    const where = `result.toolCalls[${index}]`;
    const raw = record(item, where);
    const command = optionalText(raw.command, `${where}.command`);
    const output = optionalText(raw.output, `${where}.output`);
    return {
      name: text(raw.name, `${where}.name`),
      status: text(raw.status, `${where}.status`),
      ...(command === null ? {} : { command }),
      ...(output === null ? {} : { output }),
    };
  });
}

export type Severity = "info" | "warning" | "error";

export interface ResultNotification {
  readonly severity: Severity;
  readonly text: string;
  /** Whether to offer `Show receipt`. */
  readonly hasReceipt: boolean;
}

/** The notification shows the answer's first line at most this long; the Rune view has it all. */
export const ANSWER_MAX = 120;

export function notificationFor(result: RunResult): ResultNotification {
  const facts = [editSummary(result.edits), checkSummary(result.verified)].filter((s) => s !== "");
  const tail = facts.length > 0 ? ` (${facts.join("; ")})` : "";
  const firstLine = result.answer.trim().split(/\n/u)[0] ?? "";
  const answer = truncate(firstLine.replace(/\s+/gu, " ").trim(), ANSWER_MAX);
  const steps = `${result.iterationsUsed}/${result.iterationBudget} steps`;
  const hasReceipt = result.receipt !== null && result.receipt !== "";
  switch (result.outcome) {
    case "completed":
      return {
        severity: result.verified === false ? "warning" : "info",
        // The server's words (rune_lsp/runner/summary.py): an answer without a change must not
        // read as if something was fixed.
        text: `Rune completed${proposedNothing(result.edits) ? ` · ${NO_CHANGE}` : ""}${tail}: ${answer || "(no answer)"}`,
        hasReceipt,
      };
    case "incomplete":
      return {
        severity: "warning",
        text: `Rune stopped after ${steps}, incomplete${tail}: ${result.error ?? (answer || "no final answer")}`,
        hasReceipt,
      };
    case "failed":
      return {
        severity: "error",
        text: `Rune failed after ${steps}${tail}: ${result.error ?? (answer || "no reason given")}`,
        hasReceipt,
      };
    case "cancelled":
      return { severity: "info", text: `Rune run cancelled${tail}.`, hasReceipt };
    case "superseded":
      return { severity: "info", text: `Rune run replaced by a newer run on the same file${tail}.`, hasReceipt };
  }
}

/**
 * `1 edit: 1 applied`, `2 edits: …; 1 command run`; empty when the run proposed none.
 * A `run_command` is reported as a command (run or not), never as an edit.
 */
/** What the server's run summary says of a run that proposed no file change. */
export const NO_CHANGE = "no change proposed";

function proposedNothing(all: readonly EditRecord[]): boolean {
  return all.every((edit) => edit.tool === "run_command");
}

export function editSummary(all: readonly EditRecord[]): string {
  const commands = all.filter((edit) => edit.tool === "run_command");
  const edits = all.filter((edit) => edit.tool !== "run_command");
  const ran = commands.filter((command) => command.status === "applied").length;
  const commandText =
    commands.length === 0
      ? ""
      : `${commands.length === 1 ? "1 command" : `${commands.length} commands`}: ${ran} run${commands.length > ran ? `, ${commands.length - ran} not run` : ""}`;
  if (edits.length === 0) {
    return commandText;
  }
  const counts = new Map<EditStatus, number>();
  for (const edit of edits) {
    counts.set(edit.status, (counts.get(edit.status) ?? 0) + 1);
  }
  const parts = EDIT_STATUSES.filter((s) => counts.has(s)).map((s) => `${counts.get(s)} ${s}`);
  const editText = `${edits.length === 1 ? "1 edit" : `${edits.length} edits`}: ${parts.join(", ")}`;
  return commandText === "" ? editText : `${editText}; ${commandText}`;
}

export function checkSummary(verified: boolean | null): string {
  if (verified === null) {
    return "";
  }
  return verified ? "check passed" : "check failed";
}

/**
 * Where to look for the receipt, best first: the server writes a Markdown rendering next to the
 * JSON receipt (`<stateDir>/receipts/<runId>.md`), which reads better than the JSON.
 */
export function receiptCandidates(receipt: string): string[] {
  const markdown = receipt.replace(/\.json$/iu, ".md");
  return markdown === receipt ? [receipt] : [markdown, receipt];
}

function record(value: unknown, where: string): Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new RunResultError(`${where}: expected an object, got ${show(value)}`);
  }
  return value as Record<string, unknown>;
}

function text(value: unknown, where: string): string {
  if (typeof value !== "string") {
    throw new RunResultError(`${where}: expected a string, got ${show(value)}`);
  }
  return value;
}

function optionalText(value: unknown, where: string): string | null {
  return value === undefined || value === null ? null : text(value, where);
}

function count(value: unknown, where: string): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0) {
    throw new RunResultError(`${where}: expected a non-negative integer, got ${show(value)}`);
  }
  return value;
}

function optionalBoolean(value: unknown, where: string): boolean | null {
  if (value === undefined || value === null) {
    return null;
  }
  if (typeof value !== "boolean") {
    throw new RunResultError(`${where}: expected true, false or null, got ${show(value)}`);
  }
  return value;
}

function show(value: unknown): string {
  // JSON.stringify gives undefined for functions and undefined itself.
  const json = JSON.stringify(value) as string | undefined;
  return json === undefined ? String(value) : truncate(json, 60);
}
