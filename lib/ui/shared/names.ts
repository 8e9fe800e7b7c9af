/** Short forms of class names and resource ids (a leaf: both sides print them). */

/** `android.widget.Button` → `Button`. */
export function shortClass(className: string): string {
  const i = className.lastIndexOf(".");
  return i >= 0 ? className.slice(i + 1) : className;
}

/** `com.example:id/sign_in` → `sign_in`. */
export function shortResourceId(resourceId: string): string {
  const i = resourceId.indexOf(":id/");
  return i >= 0 ? resourceId.slice(i + 4) : resourceId;
}
