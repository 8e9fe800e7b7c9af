/** The class blocks of a mapping's text for the retrace tests, as the index cuts them. */
import { CLASS_LINE } from "../../lib/retrace/mapping.ts";

/** Each class block of `text`: from one class line to the next (or the text's end). */
export function classBlocks(text: string): string[] {
  const starts: number[] = [];
  let pos = 0;
  for (const line of text.split("\n")) {
    if (CLASS_LINE.test(line.replace(/\r$/, ""))) starts.push(pos);
    pos += line.length + 1;
  }
  return starts.map((s, k) => text.slice(s, starts[k + 1] ?? text.length));
}
