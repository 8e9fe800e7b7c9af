/**
 * A copy of `s` that does not keep the text it was sliced from alive (V8 makes longer slices
 * views into their parent; flattening a concatenation copies the characters). Tags and the
 * group memo's lines outlive the chunk they were read from.
 */
export function copyOf(s: string): string {
  return s.length < 13 ? s : (s + " ").slice(0, s.length);
}
