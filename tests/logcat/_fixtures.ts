/** Real logcat captures from ../shared/fixtures/real/logcat/ (read, never copied). */
export const REAL_LOGCAT = new URL("../../../shared/fixtures/real/logcat/", import.meta.url);

export const HAVE_REAL = (() => {
  try {
    Deno.statSync(REAL_LOGCAT);
    return true;
  } catch {
    return false;
  }
})();

if (!HAVE_REAL) {
  console.error(
    `note: ${REAL_LOGCAT.pathname} is absent; tests on real logcat captures are skipped`,
  );
}

export function readReal(name: string): string {
  return Deno.readTextFileSync(new URL(name, REAL_LOGCAT));
}
