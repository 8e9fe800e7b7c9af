/**
 * Logcat priority levels: letters, Android Studio's words and their numbers. A leaf module, so the
 * main thread (tool arguments, answers) reads them without loading the worker's parser.
 */

/** Priority letters in increasing order; index = the numeric level we store. */
export const LEVEL_LETTERS = ["?", "V", "D", "I", "W", "E", "F", "S"] as const;
export type LevelLetter = typeof LEVEL_LETTERS[number];
export const Level = { unknown: 0, V: 1, D: 2, I: 3, W: 4, E: 5, F: 6, S: 7 } as const;

/** Android Studio's full level words. */
export const LEVEL_WORDS: Record<string, number> = {
  Verbose: Level.V,
  Debug: Level.D,
  Info: Level.I,
  Warn: Level.W,
  Warning: Level.W,
  Error: Level.E,
  Fatal: Level.F,
  Assert: Level.F,
};

/** A priority letter's char code → `Level.*`, else 0. */
export function levelOfChar(c: number): number {
  switch (c) {
    case 86: // V
      return Level.V;
    case 68: // D
      return Level.D;
    case 73: // I
      return Level.I;
    case 87: // W
      return Level.W;
    case 69: // E
      return Level.E;
    case 70: // F
      return Level.F;
    case 83: // S
      return Level.S;
    case 65: // A (assert, old devices)
      return Level.F;
    default:
      return 0;
  }
}

/** `V`…`F` (also the words `verbose`…`fatal`/`assert`, any case) → `Level.*`, else 0. */
export function parseLevelName(value: string): number {
  const v = value.trim();
  if (v.length === 1) return levelOfChar(v.toUpperCase().charCodeAt(0));
  const word = v.charAt(0).toUpperCase() + v.slice(1).toLowerCase();
  return LEVEL_WORDS[word] ?? 0;
}

export function levelLetter(level: number): LevelLetter {
  return LEVEL_LETTERS[level] ?? "?";
}
