/**
 * A command the agent wants to run, as a user should read it, without `vscode`: the server's
 * approval prompt parsed (`rune wants to run: <command>\n(in <cwd>)`, server/approval.py), its
 * control characters made visible, and the `rune.allowedCommands` list edited.
 */

/** The prefix of the server's approval prompt (docs/interface.md "Commands the agent runs"). */
export const RUN_PROMPT = "rune wants to run: ";

/** The approval prompt's actions (/work/notes/vscode-protocol.md D); the server may offer fewer. */
export const RUN_ACTIONS = {
  once: "Run",
  run: "Allow for this run",
  workspace: "Always allow in this workspace",
  deny: "Deny",
} as const;

export interface RunPrompt {
  /** The command exactly as the model sent it (newlines and control characters included). */
  readonly command: string;
  readonly cwd: string;
}

/** The command and its directory, or undefined for another message. The command may hold newlines: the cwd is the last line. */
export function parseRunPrompt(message: string): RunPrompt | undefined {
  if (!message.startsWith(RUN_PROMPT)) {
    return undefined;
  }
  const rest = message.slice(RUN_PROMPT.length);
  const match = /\n\(in (.*)\)$/su.exec(rest);
  if (match === null) {
    return { command: rest, cwd: "" };
  }
  return { command: rest.slice(0, match.index), cwd: match[1] ?? "" };
}

const NAMED: Record<string, string> = { "\n": "↵", "\r": "␍", "\t": "⇥", "\u001b": "␛", "\u007f": "␡" };

/**
 * The text with every control character shown: newline ↵, tab ⇥, escape ␛, the other C0
 * characters as their Unicode control pictures, C1 and bidirectional/invisible format
 * characters as `<U+XXXX>`; nothing a terminal or the eye would hide.
 */
export function visibleControls(text: string): string {
  // The control characters are the point here: they are what must be shown.
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/gu, (c) => {
    const named = NAMED[c];
    if (named !== undefined) {
      return named;
    }
    const code = c.charCodeAt(0);
    if (code < 0x20) {
      return String.fromCharCode(0x2400 + code);
    }
    return `<U+${code.toString(16).toUpperCase().padStart(4, "0")}>`;
  });
}

/** `allowed` with `command` added once, order kept. */
export function withAllowed(allowed: readonly string[], command: string): string[] {
  return allowed.includes(command) ? [...allowed] : [...allowed, command];
}

/** `allowed` without `command`. */
export function withoutAllowed(allowed: readonly string[], command: string): string[] {
  return allowed.filter((entry) => entry !== command);
}

/** The `rune.allowedCommands` value as a list of strings; anything else is none. */
export function allowedList(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((entry): entry is string => typeof entry === "string") : [];
}
