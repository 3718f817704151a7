/**
 * Work-done progress messages (`step 3/8 · edit_file app.py`) turned into status bar text.
 */

export interface StepInfo {
  readonly step: number;
  readonly budget: number;
  /** What happens now, e.g. `edit_file app.py`; empty when the message says nothing more. */
  readonly detail: string;
}

const STEP = /^step\s+(\d+)\s*\/\s*(\d+)\s*(?:[·:\-–—]\s*)?(.*)$/su;

/** The step counter at the start of a report message, or undefined when there is none. */
export function parseStep(message: string): StepInfo | undefined {
  const match = STEP.exec(message.trim());
  if (match === null) {
    return undefined;
  }
  return { step: Number(match[1]), budget: Number(match[2]), detail: (match[3] ?? "").trim() };
}

export const STATUS_MAX = 80;

/** `Rune: step 3/8 · edit_file app.py`; messages without a step are shown as they are. */
export function statusText(message: string | undefined, maxLength = STATUS_MAX): string {
  const text = (message ?? "").replace(/\s+/gu, " ").trim();
  const step = parseStep(text);
  let body: string;
  if (step !== undefined) {
    body = `step ${step.step}/${step.budget}`;
    if (step.detail !== "") {
      body += ` · ${step.detail}`;
    }
  } else {
    body = text === "" ? "working" : text;
  }
  return truncate(`Rune: ${body}`, maxLength);
}

/** Hover text: the full message and how to stop the run. */
export function statusTooltip(message: string | undefined, running: number): string {
  const runs = running === 1 ? "1 run" : `${running} runs`;
  return `${message ?? "starting"}\n${runs} in progress. Click to cancel.`;
}

export function truncate(text: string, maxLength: number): string {
  if (text.length <= maxLength) {
    return text;
  }
  return `${text.slice(0, Math.max(0, maxLength - 1))}…`;
}

/**
 * The run id inside a progress token, when the server names its tokens `rune/<runId>` (it does
 * today; the contract does not promise it, so this is only used to send a best-effort
 * `rune.cancel` on top of cancelling the request itself).
 */
export function runIdFromToken(token: string | number): string | undefined {
  if (typeof token !== "string") {
    return undefined;
  }
  const match = /^rune\/([A-Za-z0-9_-]+)$/u.exec(token);
  return match?.[1];
}
