/**
 * The level of a server stderr line, so the output channel shows an INFO line as info (the
 * language client logs every stderr line as an error). The server logs
 * `<asctime> <LEVEL> <logger>: <message>`; a line without a level (a traceback's) continues the
 * line before it and keeps its level.
 */

export type LogLevel = "error" | "warn" | "info" | "debug";

const LEVELS: Record<string, LogLevel> = {
  CRITICAL: "error",
  ERROR: "error",
  WARNING: "warn",
  INFO: "info",
  DEBUG: "debug",
};

const PREFIX = /^(?:\d{4}-\d\d-\d\d[ T][\d:,.]+ )?(CRITICAL|ERROR|WARNING|INFO|DEBUG) /u;

/** A reader of one stderr stream: call it per line, in order. */
export function levelReader(): (line: string) => LogLevel {
  let last: LogLevel = "error"; // what the server never labelled is best not hidden
  return (line) => {
    const match = PREFIX.exec(line);
    const level = match?.[1] === undefined ? undefined : LEVELS[match[1]];
    if (level !== undefined) {
      last = level;
    }
    return last;
  };
}
