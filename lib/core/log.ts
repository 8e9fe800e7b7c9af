/** Logging to stderr only (stdout carries JSON-RPC). Level from KEYNOBI_LOG, default warn. */

const LEVELS = { error: 0, warn: 1, info: 2, debug: 3 } as const;
type Level = keyof typeof LEVELS;

let threshold: number = LEVELS.warn;

export function setLogLevel(value: string | undefined): void {
  const v = (value ?? "").toLowerCase();
  threshold = v in LEVELS ? LEVELS[v as Level] : LEVELS.warn;
}

function write(level: Level, message: string): void {
  if (LEVELS[level] > threshold) return;
  console.error(`keynobi ${level}: ${message}`);
}

export const log = {
  error: (m: string) => write("error", m),
  warn: (m: string) => write("warn", m),
  info: (m: string) => write("info", m),
  debug: (m: string) => write("debug", m),
};
